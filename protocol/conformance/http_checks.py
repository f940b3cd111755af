"""The HTTP side's checks: ``/healthz`` and the read-only API (PROTOCOL.md, "HTTP").

It asks about what the earlier suites left: a player the run made and the race
it finished, which the API must give whole enough to verify (:func:`engine.verify_record`
replays it). Revision 3's pages (``/api/daily``, ``/api/arenas``,
``/api/openapi.json``) are checked for their shape only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import engine

from .wire import HttpAnswer, http_get

if TYPE_CHECKING:
    from .checks import Context

__all__ = ["http_suite"]

PROFILE = {
    "name",
    "rating",
    "provisional",
    "bot",
    "races",
    "wins",
    "draws",
    "losses",
    "best_clear_ms",
    "joined",
}


REFUSALS = [
    ("/api/players/no_such_player_x", 404, "player_not_found"),
    ("/api/races/nosuchrace0", 404, "race_not_found"),
    ("/api/leaderboard?limit=0", 400, "bad_request"),
]
"""An unknown name, an unknown race, a limit out of range: each status and error code."""


def _body(answer: HttpAnswer) -> Any:
    try:
        return answer.json()
    except ValueError:
        return None


async def http_suite(ctx: Context) -> None:
    report = ctx.report
    health = await http_get(ctx.url, "/healthz")
    body = _body(health)
    report.check(
        "GET /healthz is 200 with status ok",
        health.status == 200 and isinstance(body, dict) and body.get("status") == "ok",
        (health.status, body),
    )
    if ctx.racer is not None:
        await _player(ctx, ctx.racer)
    for path, status, code in REFUSALS:
        answer = await http_get(ctx.url, path)
        error = (_body(answer) or {}).get("error") if answer.status == status else None
        report.check(f"GET {path} is {status} {code}", error == code, answer.status)
    board = await http_get(ctx.url, "/api/leaderboard?limit=5")
    players = (_body(board) or {}).get("players")
    report.check(
        "GET /api/leaderboard is 200 with players",
        board.status == 200 and isinstance(players, list),
        board.status,
    )
    report.check(
        "the API answers with Access-Control-Allow-Origin: *",
        board.headers.get("access-control-allow-origin") == "*",
        board.headers,
    )
    if ctx.finished:
        await _race(ctx, ctx.finished[0])
    await _revision_3(ctx)


async def _player(ctx: Context, name: str) -> None:
    report = ctx.report
    profile = await http_get(ctx.url, f"/api/players/{name}")
    body = _body(profile) or {}
    report.check(
        "GET /api/players/NAME gives the profile",
        profile.status == 200 and set(body) >= PROFILE and body.get("name") == name,
        (profile.status, body),
    )
    history = await http_get(ctx.url, f"/api/players/{name}/races?limit=5")
    races = (_body(history) or {}).get("races", [])
    ids = [race.get("game_id") for race in races]
    report.check(
        "GET /api/players/NAME/races lists the race it finished",
        history.status == 200 and bool(ctx.finished) and ctx.finished[0] in ids,
        ids,
    )


async def _race(ctx: Context, game_id: str) -> None:
    answer = await http_get(ctx.url, f"/api/races/{game_id}")
    record = _body(answer)
    verdict = engine.verify_record(record) if isinstance(record, dict) else None
    ctx.report.check(
        "GET /api/races/GAME_ID replays and verifies (engine.verify_record)",
        answer.status == 200 and verdict is not None and verdict.ok,
        verdict.report() if verdict is not None else answer.status,
    )


async def _revision_3(ctx: Context) -> None:
    report = ctx.report
    daily = await http_get(ctx.url, "/api/daily")
    body = _body(daily) or {}
    report.check(
        "GET /api/daily gives today's date, commit, rules, players and board",
        daily.status == 200 and {"date", "commit", "rules", "players", "board"} <= set(body),
        daily.status,
        revision=3,
    )
    arenas = await http_get(ctx.url, "/api/arenas")
    report.check(
        "GET /api/arenas lists arenas",
        arenas.status == 200 and isinstance((_body(arenas) or {}).get("arenas"), list),
        arenas.status,
        revision=3,
    )
    openapi = await http_get(ctx.url, "/api/openapi.json")
    version = str((_body(openapi) or {}).get("openapi", ""))
    report.check(
        "GET /api/openapi.json is OpenAPI 3.1",
        openapi.status == 200 and version.startswith("3.1"),
        (openapi.status, version),
        revision=3,
    )
