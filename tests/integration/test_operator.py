"""The operator's admin API against a real server: the token, bans, renames, forgetting,
annulling, the review and the log (docs/operating.md, "Running a public lobby")."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

import pytest

from core.identity import Identity, hash_token
from server.store.backends import open_store

from .admin_helpers import TOKEN, act, admin
from .conftest import TIMEOUT, fresh_name, seek_pair
from .test_api import RATED, get, raced

if TYPE_CHECKING:
    from server.app import GameServer


@pytest.fixture
async def lobby(start_server) -> GameServer:
    """A server with an admin token."""
    return await start_server(admin_token=TOKEN)


async def test_without_a_token_every_admin_path_is_404(server) -> None:
    for method, path in (("GET", "log"), ("GET", "review"), ("POST", "players/x/ban")):
        body = {"reason": "r"} if method == "POST" else None
        status, headers, answer = await admin(server, method, path, body)
        assert (status, answer["error"]) == (404, "not_found"), (path, answer)
        assert "access-control-allow-origin" not in headers


async def test_a_wrong_or_missing_token_is_401_and_changes_nothing(lobby, player) -> None:
    ann = await player(lobby)
    for token in ("wrong", TOKEN[:-1], "", None):
        status, headers, answer = await admin(
            lobby, "POST", f"players/{ann.name}/ban", {"reason": "r"}, token=token
        )
        assert (status, answer["error"]) == (401, "unauthorized"), token
        assert "access-control-allow-origin" not in headers
    await ann.quiet()  # still connected, not banned
    status, _, log = await admin(lobby, "GET", "log")
    assert (status, log) == (200, {"actions": []})


async def test_a_ban_closes_the_player_with_4001_and_their_hello_is_banned(
    lobby, player, connect
) -> None:
    ann = await player(lobby)
    answer = await act(lobby, "ban", ann.name.upper(), "plays too fast")
    assert answer == {
        "name": ann.name, "banned": True, "bot": False, "flags": 0, "forgotten": False,
    }  # fmt: skip
    await ann.expect_close(4001)
    again = await connect(lobby)
    await again.send(type="hello", name=ann.name, token=ann.token, id="h")
    await again.error("banned", id="h")
    await again.expect_close(4001)  # and nothing more from it
    unbanned = await act(lobby, "unban", ann.name, "served the time")
    assert unbanned["banned"] is False
    back = await connect(lobby)
    assert (await back.hello(token=ann.token))["player_id"] == ann.player_id
    status, headers, log = await admin(lobby, "GET", "log?limit=10")
    assert status == 200 and "access-control-allow-origin" not in headers
    assert [(e["action"], e["target"], e["reason"], e["by"]) for e in log["actions"]] == [
        ("unban", ann.name, "served the time", "api"),
        ("ban", ann.name, "plays too fast", "api"),
    ]


async def test_a_rename_frees_the_old_name_at_once(lobby, player, connect) -> None:
    ann = await player(lobby)
    old, new = ann.name, fresh_name("renamed")
    answer = await act(lobby, "rename", old, "an offensive name", name=new)
    assert answer["name"] == new
    taker = await player(lobby, old)  # the old name is free now, on this worker
    assert taker.name == old and taker.player_id != ann.player_id
    back = await connect(lobby)
    welcome = await back.hello(token=ann.token)
    assert (welcome["player_id"], welcome["name"]) == (ann.player_id, new)
    status, _, profile = await get(lobby, f"/api/players/{new}")
    assert status == 200 and profile["name"] == new
    status, _, refused = await admin(
        lobby, "POST", f"players/{new}/rename", {"reason": "again", "name": old.lower()}
    )
    assert (status, refused["error"]) == (409, "refused"), refused
    status, _, refused = await admin(
        lobby, "POST", f"players/{new}/rename", {"reason": "again", "name": "BOT-Me"}
    )
    assert (status, refused["error"]) == (409, "refused"), refused


async def test_a_forgotten_players_token_is_bad_token_and_their_name_free(
    lobby, player, connect
) -> None:
    ann = await player(lobby)
    await ann.close()
    answer = await act(lobby, "forget", ann.name, "asked to be forgotten")
    assert answer["forgotten"] is True
    again = await connect(lobby)
    await again.send(type="hello", name=ann.name, token=ann.token, id="h")
    await again.error("bad_token", id="h")
    taker = await player(lobby, ann.name)
    assert taker.player_id != ann.player_id
    status, _, missing = await admin(lobby, "POST", "players/nobody_at_all/ban", {"reason": "r"})
    assert (status, missing["error"]) == (404, "player_not_found")


async def test_an_annul_puts_both_ratings_back(lobby, player) -> None:
    ann, bob = await player(lobby), await player(lobby)
    racing = await seek_pair(ann, bob, RATED)
    over = await raced(racing)
    assert over["ratings"][0]["after"] > 1500
    answer = await act(lobby, "annul", racing.game_id, "a farm")
    assert answer == {
        "game_id": racing.game_id,
        "ratings": [
            {"name": ann.name, "before": over["ratings"][0]["after"], "after": 1500},
            {"name": bob.name, "before": over["ratings"][1]["after"], "after": 1500},
        ],
    }
    for who in (ann, bob):
        status, _, profile = await get(lobby, f"/api/players/{who.name}")
        assert (status, profile["rating"], profile["provisional"]) == (200, 1500, True)
    status, _, history = await get(lobby, f"/api/players/{ann.name}/races")
    assert history["races"][0]["ratings"] is None  # it changed no rating after all
    status, _, twice = await admin(
        lobby, "POST", f"races/{racing.game_id}/annul", {"reason": "again"}
    )
    assert (status, twice["error"]) == (409, "refused")
    await ann.send(type="lobby")  # the lobby core has the rating back too: the next race
    await ann.recv("lobby")
    await bob.send(type="lobby")
    await bob.recv("lobby")
    again = await seek_pair(ann, bob, RATED)
    assert again.start_a["ratings"] == [1500, 1500]


async def test_bodies_and_methods_are_checked(lobby, player) -> None:
    ann = await player(lobby)
    for body in ({}, {"reason": ""}, {"reason": 5}):
        status, _, answer = await admin(lobby, "POST", f"players/{ann.name}/ban", body)
        assert (status, answer["error"]) == (400, "bad_request"), body
    status, headers, answer = await admin(lobby, "GET", f"players/{ann.name}/ban")
    assert (status, answer["error"], headers["allow"]) == (405, "method_not_allowed", "POST")
    status, _, answer = await admin(lobby, "GET", "log?limit=0")
    assert (status, answer["error"]) == (400, "bad_request")
    status, _, answer = await admin(lobby, "GET", "nothing/here")
    assert (status, answer["error"]) == (404, "not_found")
    await ann.quiet()


async def test_the_review_lists_a_reported_player_with_the_race(lobby, player) -> None:
    ann, bob = await player(lobby), await player(lobby)
    racing = await seek_pair(ann, bob, RATED)
    await raced(racing)
    await ann.send(type="report", game_id=racing.game_id, reason="too fast", id="r")
    assert (await ann.recv("reported")) == {
        "type": "reported",
        "game_id": racing.game_id,
        "id": "r",
    }
    status, _, review = await admin(lobby, "GET", "review")
    assert status == 200
    assert review["players"] == [
        {"name": bob.name, "flags": 0, "reports": 1, "banned": False, "races": [racing.game_id]}
    ]
    status, _, one = await admin(lobby, "GET", f"review/players/{bob.name}")
    assert status == 200 and one["reports"] == 1
    (mark,) = one["marks"]
    assert (mark["game_id"], mark["kind"], mark["by"], mark["reason"]) == (
        racing.game_id, "report", ann.name, "too fast",
    )  # fmt: skip
    assert mark["timing"]["plays"] == 1 and mark["timing"]["reasons"] == []
    status, _, race = await admin(lobby, "GET", f"review/races/{racing.game_id}")
    assert status == 200 and race["race"]["players"] == [ann.name, bob.name]
    assert [seat["plays"] for seat in race["timing"]] == [3, 1]
    assert race["reports"][0]["by"] == ann.name and race["reports"][0]["about"] == bob.name
    await act(lobby, "clear", bob.name, "looked: a fair race")
    status, _, review = await admin(lobby, "GET", "review")
    assert review["players"] == []


async def test_an_action_from_another_process_reaches_the_server(lobby, player) -> None:
    # As the command line does: the action written to the store by another store
    # object, not this server's API; the server reads the audit log and applies it.
    from server.operator.actions import PLAYER_ACTIONS, Order, perform
    from server.store.backends import open_store

    ann = await player(lobby)
    other = open_store(lobby.settings.db)
    await other.open()
    try:
        order = Order("from the shell", "someone", 0.0)
        await perform(other, PLAYER_ACTIONS["ban"].script(ann.name, order))
    finally:
        await other.close()
    async with asyncio.timeout(5):
        await ann.expect_close(4001)


async def test_the_server_forgets_unused_players_as_it_starts(
    tmp_path, start_server, connect
) -> None:
    db = str(tmp_path / "old.sqlite3")
    store = open_store(db)
    await store.open()
    month_ago = time.time() - 31 * 86_400
    await store.add_player(
        Identity("p-old", "Oldie", hash_token("old-token-" + "x" * 33), month_ago)
    )
    await store.add_player(
        Identity("p-new", "Newer", hash_token("new-token-" + "x" * 33), time.time())
    )
    await store.close()
    server = await start_server(db=db, admin_token=TOKEN)
    async with asyncio.timeout(TIMEOUT):  # the sweep runs beside the listening: await its line
        while True:
            status, _, log = await admin(server, "GET", "log")
            if status == 200 and log["actions"]:
                break
    assert [(e["action"], e["target"], e["by"]) for e in log["actions"]] == [
        ("forget", "Oldie", "server")
    ]
    old = await connect(server)
    await old.send(type="hello", name="Oldie", token="old-token-" + "x" * 33, id="h")
    await old.error("bad_token", id="h")
    new = await connect(server)
    assert (await new.hello(token="new-token-" + "x" * 33))["name"] == "Newer"


async def test_flags_are_read_at_hello_and_a_clear_reaches_the_lobby_core(
    lobby, player, connect
) -> None:
    ann, bob = await player(lobby), await player(lobby)
    now = time.time()
    for i in range(3):  # three races flagged, as the store records them
        await lobby.store.execute_for_tests(
            "INSERT INTO races (id, rules, seeds, player0, player1, started, ended, result,"
            f" reason, count0, count1) VALUES ('f{i}', '{{}}', '[]', '{ann.player_id}',"
            f" '{bob.player_id}', {now}, {now}, 'draw', 'equal_cards', 0, 0)"
        )
        await lobby.store.execute_for_tests(
            "INSERT INTO marks (player_id, race_id, kind, at) VALUES"
            f" ('{ann.player_id}', 'f{i}', 'flag', {now})"
        )
    await ann.close()
    back = await connect(lobby)
    await back.hello(token=ann.token)  # the hello reads the flags: 3, barred from rated
    await back.send(type="seek", rules=RATED, id="rated")
    await back.error("not_allowed", id="rated")
    assert (await act(lobby, "clear", ann.name, "a bad network"))["flags"] == 0
    await back.send(type="seek", rules=RATED, id="again")
    assert (await back.recv("seeking"))["id"] == "again"
