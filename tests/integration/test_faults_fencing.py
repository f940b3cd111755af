"""A race whose end the store refuses announces no end (server/delivery.py, core/lobby.py).

A finding of ``make chaos``: a worker stopped mid-race (SIGSTOP) read, as it
woke, a play waiting in its socket before it noticed its lease had lapsed,
and the race ended there; its record was refused (the race's new owner had
taken it), yet its last ``played`` and its ``game_over`` went out, so one
racer was told a result the record does not have (``race 85ed11b738253fe2
ended: win cleared, counts 36-52`` on w1, then ``the store kept none of this
worker's last writes``; the race's record says 52-51). The race had already
left the lobby core, so letting go of it found no one to send away and no
frame to drop. Now each race's frames wait on a gate of their own, which a
refusal cancels wherever the frames are queued, and a race that ended here
and was refused is let go of like a live one: its racers are sent away
(1012) and forget that end.
"""

from __future__ import annotations

from server.store import open_store

from .conftest import play_out

ENDS = ("status", "game_over")


async def test_a_race_whose_end_the_store_refuses_announces_no_end(
    servers, start_server, race, player
) -> None:
    db = str(servers.tmp_path / "fenced.sqlite3")
    server = await start_server(db=db)
    racing = await race(server)
    cat = await player(server)  # a spectator: no racer, so not sent away with them
    await cat.send(type="watch", game_id=racing.game_id)
    await cat.recv("game_state")
    _, acks = await play_out(racing.a, racing.board_a(), limit=2)
    await racing.b.until("played")
    other = open_store(db)  # another worker takes the race in the store
    await other.open()
    await other.take_races({racing.game_id})
    await other.close()
    await racing.a.send(type="resign")  # the race ends here: its record is refused
    seen_a = await racing.a.expect_close(1012)
    assert [m for m in seen_a if m["type"] in ENDS] == [], seen_a
    seen_b = await racing.b.expect_close(1012)
    assert [m for m in seen_b if m["type"] in ENDS] == [], seen_b
    await cat.send(type="lobby")  # its answer comes after anything written to cat before
    seen_cat = await cat.until("lobby")
    assert [m for m in seen_cat if m["type"] in ENDS] == [], seen_cat
    back = await servers.connect(server)
    await back.hello(token=racing.a.token)
    state = (await back.until("game_state"))[-1]
    assert state["over"] is None and state["seq"] == acks[-1]["seq"]
