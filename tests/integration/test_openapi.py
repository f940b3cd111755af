"""``GET /api/openapi.json``: a valid OpenAPI 3.1 document, and a real server's answers fit it.

The document is made from the models the API answers with (server/http/openapi.py);
here a real server, after a rated race and a race with a bot, is asked every
path the document names, and each answer, errors included, is validated
against the schema the document gives for its status and media type.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any

from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from protocol import Rules

from .admin_helpers import TOKEN, admin
from .conftest import WINNABLE, seek_pair
from .test_api import RATED, raced

if TYPE_CHECKING:
    from server.app import GameServer


async def fetch(server: GameServer, path: str) -> tuple[int, str, bytes]:
    """``GET path``: status, content type and body."""

    def run() -> tuple[int, str, bytes]:
        url = f"http://127.0.0.1:{server.port}{path}"
        try:
            with urllib.request.urlopen(url, timeout=10) as reply:
                return reply.status, reply.headers["Content-Type"], reply.read()
        except urllib.error.HTTPError as refused:
            return refused.code, refused.headers["Content-Type"], refused.read()

    return await asyncio.to_thread(run)


def check(
    document: dict[str, Any], template: str, answer: tuple[int, str, bytes], method: str = "get"
) -> None:
    """``answer`` (to ``method`` of ``template``) is what the document says for its status."""
    status, media, body = answer
    responses = document["paths"][template][method]["responses"]
    assert str(status) in responses, (template, status, body[:200])
    content = responses[str(status)]["content"]
    assert media in content, (template, status, media, list(content))
    schema = content[media]["schema"]
    if media != "application/json":
        assert schema == {"type": "string"}
        return
    value = json.loads(body)
    validator = Draft202012Validator({**schema, "components": document["components"]})
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(value)]
    assert errors == [], (template, status, errors)


async def test_the_document_is_openapi_3_1_and_every_answer_fits_it(server, player):
    status, media, body = await fetch(server, "/api/openapi.json")
    assert (status, media) == (200, "application/json")
    document = json.loads(body)
    validate(document)  # raises if it is not a valid OpenAPI document
    assert document["openapi"] == "3.1.0"

    ann, bob = await player(server), await player(server)
    rated = await seek_pair(ann, bob, RATED)
    await raced(rated)
    await ann.send(type="seek", rules=WINNABLE, bot={"after_s": 0, "level": 5})
    await ann.recv("seeking")
    await ann.recv("game_start")
    await ann.send(type="resign")
    await ann.until("game_over")
    await server.store.execute_for_tests(
        "INSERT INTO players (id, name, name_key, token_hash, created, last_seen, rating,"
        " deviation, rated_races) VALUES ('lb0', 'settled', 'settled', 'h0', 0, 0, 1800, 60, 20)"
    )

    now = time.time()
    arena = await server.arenas.create("doc-arena", "Doc", Rules(), now, now + 600.0)
    assert arena is not None
    await ann.send(type="join_arena", arena_id="doc-arena")
    await ann.recv("arena")

    values = {"name": ann.name, "game_id": rated.game_id, "arena_id": "doc-arena",
              "date": str(server.daily.today())}  # fmt: skip
    asked = {}
    for template in document["paths"]:
        if template.startswith("/api/admin/"):
            continue  # the operator's: below, on a server with an admin token
        path = template.format(**values)
        asked[template] = answer = await fetch(server, path)
        assert answer[0] == 200, (path, answer)
        check(document, template, answer)
    assert set(asked) >= {
        "/healthz", "/metrics", "/api/leaderboard", "/api/players/{name}",
        "/api/players/{name}/races", "/api/races/{game_id}", "/api/openapi.json",
        "/api/arenas", "/api/arenas/{arena_id}", "/api/daily", "/api/daily/{date}",
    }  # fmt: skip
    assert ann.name.encode() in asked["/api/arenas/{arena_id}"][2]
    assert b'"settled"' in asked["/api/leaderboard"][2]
    assert b'"ratings":[{"before":1500' in asked["/api/players/{name}/races"][2]
    assert b"BOT-" in asked["/api/players/{name}/races"][2]

    for template, path in (
        ("/api/players/{name}", "/api/players/nobody_here"),
        ("/api/players/{name}/races", "/api/players/nobody_here/races"),
        ("/api/players/{name}/races", f"/api/players/{ann.name}/races?limit=0"),
        ("/api/players/{name}/races", f"/api/players/{ann.name}/races?before=ffffffffffffffff"),
        ("/api/races/{game_id}", "/api/races/0123456789abcdef"),
        ("/api/arenas/{arena_id}", "/api/arenas/no-such-arena"),
        ("/api/daily/{date}", "/api/daily/2026-02-30"),
        ("/api/daily/{date}", "/api/daily/1999-01-01"),
        ("/api/leaderboard", "/api/leaderboard?limit=%D9%A1%D9%A0"),
    ):
        answer = await fetch(server, path)
        assert answer[0] in (400, 404), (path, answer)
        check(document, template, answer)


async def test_every_admin_answer_fits_the_document(start_server, player):
    server = await start_server(admin_token=TOKEN)
    document = json.loads((await fetch(server, "/api/openapi.json"))[2])
    ann, bob = await player(server), await player(server)
    rated = await seek_pair(ann, bob, RATED)
    await raced(rated)
    await ann.send(type="report", game_id=rated.game_id, reason="fast")
    await ann.recv("reported")
    values = {"name": bob.name, "game_id": rated.game_id}
    bodies = {
        "rename": {"reason": "r", "name": bob.name},  # to the name it has: no change
        "arenas": {"name": "Doc", "minutes": 5},
    }
    operations = [
        (template, method)
        for template, ops in document["paths"].items()
        if template.startswith("/api/admin/")
        for method in ops
    ]
    # Reads first, then actions; the forget last, as it leaves nobody to act on.
    operations.sort(key=lambda op: (op[1] == "post", op[0].endswith("/forget")))
    for template, method in operations:
        action = template.rsplit("/", 1)[-1]
        body = bodies.get(action, {"reason": "checking the document"}) if method == "post" else None
        path = template.format(**values).removeprefix("/api/admin/")
        status, headers, answer = await admin(server, method.upper(), path, body)
        assert status == (201 if action == "arenas" else 200), (template, answer)
        raw = (status, headers["content-type"], json.dumps(answer).encode())
        check(document, template, raw, method)
    for template, method, path, token in (
        ("/api/admin/log", "get", "log", "wrong"),
        ("/api/admin/players/{name}/ban", "post", "players/nobody_here/ban", TOKEN),
        ("/api/admin/races/{game_id}/annul", "post", f"races/{rated.game_id}/annul", TOKEN),
    ):
        body = {"reason": "again"} if method == "post" else None
        status, headers, answer = await admin(server, method.upper(), path, body, token=token)
        assert status in (401, 404, 409), (path, answer)
        check(document, template, (status, headers["content-type"], json.dumps(answer).encode()),
              method)  # fmt: skip
