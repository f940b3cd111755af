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

A second finding: a racer told ``game_state`` at seq 68, then at seq 67 by the
race's next owner. Their home had answered their coming back (from another
worker) with the race as it stood in memory, a play still being written
under an epoch the store then refused. A frame of a race that records
nothing now waits for what is still being written of that race.

A third (11 seq gaps in one full run): ``game_state at seq 43 after being told
44``. A worker that held a race as an earlier take had it (stopped past its
lease, cut off, or handed a take of the race after the race had moved on)
answered a racer coming back with that snapshot, which no write fences: the
racer had been told more by the race's owner since. A ``game_state`` of a race
run here now waits for the store's word that this worker's epoch is still the
race's (:meth:`~server.store.Store.confirm`); if not, it is dropped and the race
leaves, as for a refused write.
"""

from __future__ import annotations

import asyncio

import psycopg
from redis.asyncio import Redis

from server.store import open_store

from .conftest import TIMEOUT, WINNABLE, legal, play_out, seek_pair
from .test_faults_owners import taken_over_unawares
from .test_faults_takeover import POLL, lock_waited_on, workers

__all__ = ["workers"]  # the fixture, for the test below

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


async def test_a_game_state_never_shows_a_play_the_store_may_refuse(
    workers, player, connect, postgres_url
) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w1)
    racing = await seek_pair(ann, bob, WINNABLE)
    board, acks = await play_out(racing.a, racing.board_a(), limit=2)
    await racing.b.until("played")
    told = acks[-1]["seq"]
    async with await psycopg.AsyncConnection.connect(postgres_url) as taker:
        # Another worker takes the race: its row locked, w1's next write waits on it.
        await taker.execute(b"SELECT 1 FROM live_races WHERE id = %s FOR UPDATE", (racing.game_id,))
        await racing.a.send(type="play", card=legal(board)[0])
        await lock_waited_on(postgres_url)
        # Bob comes back through w2: his home, w1, answers with the race in memory.
        back = await connect(w2)
        await back.hello(token=racing.b.token)
        remotes = w1.peers.links.remotes
        async with asyncio.timeout(TIMEOUT):
            while back.player_id not in {r.player.player_id for r in remotes.values() if r.player}:
                await asyncio.sleep(POLL)  # polling w1's links, within the deadline
        await taker.execute(
            b"UPDATE live_races SET epoch = epoch + 1 WHERE id = %s", (racing.game_id,)
        )
        await taker.commit()  # w1's write is refused: the play was never the race's
    seen = await back.expect_close(1012)
    assert all(m.get("seq", 0) <= told for m in seen if m.get("game_id") == racing.game_id), seen


async def test_a_game_state_goes_out_only_while_the_race_is_still_this_workers(
    workers, player, connect, redis_server
) -> None:
    w1, _, racing, back, told = await taken_over_unawares(workers, player, connect)
    await back.close()
    async with Redis.from_url(redis_server.url) as redis:
        # Redis, restarted empty, lists the race with w1 again (w1 said it first).
        await redis.hset("fg:races", racing.game_id, "w1")
    again = await connect(w1)  # Bob comes back to w1, which holds the race as it stood
    await again.hello(token=racing.b.token)
    states = [m for m in await again.expect_close(1012) if m["type"] == "game_state"]
    assert states == [], f"told seq {told}, then {states}"
    last = await connect(w1)  # w1 takes the race back from the store, as it stands
    await last.hello(token=racing.b.token)
    state = (await last.until("game_state"))[-1]
    assert (state["game_id"], state["seq"]) == (racing.game_id, told)


async def test_a_held_race_goes_on_only_if_the_store_says_it_is_still_this_workers(
    workers, player, connect, redis_server
) -> None:
    """A finding of ``make chaos``: a worker cut off from Redis held its races; another
    took one over, and it ended there (unlisted in Redis). Back, the worker let go of
    the races Redis lists with others, and went on with the rest, that one included:
    it held it until its grace ended, and that end took its players from their next race."""
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w1)
    racing = await seek_pair(ann, bob, WINNABLE)
    w1.hold_races()  # its lease went unrenewed
    await w2.restore_races({racing.game_id})  # taken over by w2, which ends it
    async with Redis.from_url(redis_server.url) as redis:
        await redis.hset("fg:races", racing.game_id, "w2")
        back = await connect(w2)
        await back.hello(token=racing.a.token)
        await back.until("game_state")
        await back.send(type="resign")
        await back.until("game_over")
        async with asyncio.timeout(TIMEOUT):
            while await redis.hget("fg:races", racing.game_id) is not None:
                await asyncio.sleep(POLL)  # w2 unlists it: polling Redis, within the deadline
        w1.go_on(racing.game_id)  # Redis lists it with nobody: w1 would go on with it
        seen = await bob.expect_close(1012)
        assert [m for m in seen if m["type"] == "game_state"] == [], seen
        assert w1.lobby.race(racing.game_id) is None
        async with asyncio.timeout(TIMEOUT):  # taken back from the store: nothing live, unlisted
            while await redis.hget("fg:races", racing.game_id) is not None:
                await asyncio.sleep(POLL)  # polling Redis, within the deadline
        assert w1.lobby.race(racing.game_id) is None
