"""A store whose writes fail, then recover: nothing acknowledged is lost, nothing is lost at all.

The fault is real and made by the database itself, on the store's own
connection, on both stores (tests/store_backends.py): in SQLite ``PRAGMA
query_only`` makes every write fail with SQLITE_READONLY, as a disk remounted
read-only does; in PostgreSQL ``SET default_transaction_read_only`` makes it
fail with SQLSTATE 25006, as a standby does; until it is lifted.
"""

from __future__ import annotations

import json

from .conftest import apply, fresh_name, http_get, legal, play_out


async def test_plays_wait_for_the_journal_while_writes_fail_and_the_race_is_kept(
    backend, start_server, race, connect
):
    store = backend.store()
    server = await start_server(store=store, db=backend.db)
    duel = await race(server)
    board = duel.board_a()
    await backend.break_writes(store)
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
    await backend.mend_writes(store)
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
