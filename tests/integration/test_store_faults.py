"""A store whose writes fail, then recover: nothing acknowledged is lost, nothing is lost at all.

The fault is real and made by SQLite itself: ``PRAGMA query_only`` on the
store's own connection makes every write fail with SQLITE_READONLY, as a
disk remounted read-only does, until it is lifted.
"""

from __future__ import annotations

import json

from server.store import SqliteStore

from .conftest import apply, fresh_name, http_get, legal, play_out


async def break_writes(store: SqliteStore) -> None:
    await store.execute_for_tests("PRAGMA query_only = ON")


async def mend_writes(store: SqliteStore) -> None:
    await store.execute_for_tests("PRAGMA query_only = OFF")


async def test_plays_wait_for_the_journal_while_writes_fail_and_the_race_is_kept(
    tmp_path, start_server, race, connect
):
    db = str(tmp_path / "faults.sqlite3")
    store = SqliteStore(db)
    server = await start_server(store=store, db=db)
    duel = await race(server)
    board = duel.board_a()
    await break_writes(store)
    newcomer = await connect(server)
    await newcomer.send(type="hello", name=fresh_name(), id="new")
    error = await newcomer.error("unavailable", id="new")  # not name_taken
    assert "try again" in error["message"]
    status, body = await http_get(server.port, "/healthz")
    assert status == 200 and json.loads(body)["status"] == "degraded"
    card = legal(board)[0]
    await duel.a.send(type="play", card=card, id="held")
    await newcomer.send(type="hello", name=fresh_name(), id="again")
    await newcomer.error("unavailable", id="again")  # at once, not queued behind the retries
    await mend_writes(store)
    ack = await duel.a.recv("played")  # the play was held until it was on disk
    assert (ack["card"], ack["id"], ack["seq"]) == (card, "held", 1)
    await newcomer.hello()  # the same request succeeds now
    board, acks = await play_out(duel.a, apply(board, card))
    over = (await duel.b.until("game_over"))[-1]
    assert over["reason"] == "cleared" and len(acks) == 51
    record = await store.race(duel.game_id)
    assert record is not None and len(record.moves) == 52
    _, body = await http_get(server.port, "/healthz")
    assert json.loads(body)["status"] == "ok"
