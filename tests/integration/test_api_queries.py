"""Query parameters the API cannot parse are 400 with CORS, never 500 (PROTOCOL.md, "HTTP").

A ``limit`` is 1 to 4 ASCII digits within its bounds: ``str.isdigit`` once
took Arabic-Indic digits (``limit=%D9%A1%D9%A0`` was 10), and ``int`` of five thousand
digits raised, which answered 500 with a traceback and no CORS header. A bug
still answers JSON with CORS, and is logged once however often it is met.
"""

from __future__ import annotations

import logging

from .test_api import get

BAD_LIMITS = [
    "9" * 5000,
    "%D9%A1%D9%A0",  # Arabic-Indic ten
    "%EF%BC%91",  # a fullwidth 1
    "00010",  # five digits: too long, though ten
    "0",
    "201",
    "-1",
    "+5",
    "%205",
    "5.0",
    "1e2",
    "",
    "%FF",
    "%00",
]


async def test_every_limit_that_is_not_ascii_digits_in_range_is_400_with_cors(server, player):
    client = await player(server)
    for limit in BAD_LIMITS:
        for path in ("/api/leaderboard", f"/api/players/{client.name}/races"):
            status, headers, body = await get(server, f"{path}?limit={limit}")
            assert (status, body["error"]) == (400, "bad_request"), (path, limit[:20])
            assert headers["access-control-allow-origin"] == "*"
    for limit in ("1", "0050", "200"):
        status, _, _ = await get(server, f"/api/leaderboard?limit={limit}")
        assert status == 200, limit


async def test_a_cursor_that_cannot_be_a_race_id_is_400(server, player):
    client = await player(server)
    for before in ("x" * 65, "%00", "a%20b", "%D9%A1", ""):
        path = f"/api/players/{client.name}/races?before={before}"
        status, headers, body = await get(server, path)
        assert (status, body["error"]) == (400, "bad_request"), before
        assert headers["access-control-allow-origin"] == "*"


async def test_a_bug_answers_500_json_with_cors_and_is_logged_once(server, caplog, monkeypatch):
    async def broken(limit: int) -> list[object]:
        raise RuntimeError("a bug in the store's reading")

    monkeypatch.setattr(server.store, "leaderboard", broken)
    caplog.set_level(logging.INFO, "flowergarden.server")
    for _ in range(10):
        status, headers, body = await get(server, "/api/leaderboard")
        assert (status, body["error"]) == (500, "internal_error")
        assert headers["access-control-allow-origin"] == "*"
    (logged,) = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert logged.exc_info is not None and "a bug in the store's reading" in caplog.text
