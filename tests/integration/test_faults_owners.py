"""A racer comes back to their race wherever it moved (server/cluster/cluster.py, server/app.py).

Findings of ``make chaos`` (races moved by takeovers, fencing and a Redis
restarted empty, many times over):

* A racer's hello went where Redis last named their *home*, which a race's
  moves do not keep up with: to a live worker without the race (served in
  its lobby: ``no game_state within 5 s of welcome``, 2,275 times in one
  run, racers stuck for minutes), or to a dead one. A racer's hello now goes
  to their race's owner (``fg:races``), whatever their home says.
* A worker fenced out of a race that then ended there unlisted the race in
  ``fg:races`` (``disown``), though another worker owned it now; and a worker
  fenced out took the race back from the store whenever nobody listed it,
  without listing it: two workers fenced each other in turn for minutes
  (``race 0477e0e56434f64f ended: win abandoned`` on w1, w2, w1, w2, ... every
  30 s, never recorded). A worker unlists only a race listed as its own, and
  takes a race back only by listing it first.
* A racer whose hello reached a race's new owner while it was still
  restoring the race was served in its lobby, and the restore did not tell
  them: a racer already connected where their race is restored now comes
  back to it (``game_state``) as on a hello.
* A racer away when their race ends learns the result only from the lobby
  core that ended it, at their home; a race adopted (or taken back) by a
  worker did not name its players' home there, so a racer coming back after
  it ended got a lobby and never the result. Every way a race comes to a
  worker now names its players' home there, and so does Redis coming back.
* A worker taken over while it was stopped or cut off still held the race:
  a racer coming back to it was told the race as it stood there (``game_state``
  at seq 53 after being told 55 by the new owner). A worker that holds a race
  Redis lists with another live worker now lets it go, and sends the racer there.
* A racer proxied to their race's worker while it was stopped, its lease not
  yet lapsed, was welcomed and then told nothing until a takeover closed the
  link (``no game_state within 5 s of welcome``, 854 times in one run). A racer
  whose race's worker has not answered within ``ANSWER_WAIT`` is now told
  ``unavailable``, and the socket closes with 1012.
* A racer whose race ended as Redis restarted empty lost both the ``game_over``
  (on the bus) and their home (in Redis): the worker that owed them the end
  did not name itself their home again, and they came back to workers that knew
  nothing of it, every 5 s until the run ended. A worker names itself the home
  of every player it owes an end, when Redis comes back and when a link's loss
  makes it owe one.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Any

import psycopg
import pytest
from redis.asyncio import Redis

from server.app import GameServer
from server.cluster.bus import channel_of
from server.cluster.links import ANSWER_WAIT
from server.config import Settings
from server.store.backends import open_store

from .conftest import TIMEOUT, WINNABLE, legal, seek_pair
from .test_faults_takeover import POLL, lock_waited_on

_OWED = "SELECT race_id FROM owed_ends WHERE player_id = %s"


async def end_kept(db: str, player_id: str) -> None:
    """Wait until the store at ``db`` keeps an end for ``player_id`` (server/store/end_rows.py)."""
    async with await psycopg.AsyncConnection.connect(db) as conn, asyncio.timeout(TIMEOUT):
        while not await (await conn.execute(_OWED, (player_id,))).fetchall():
            await asyncio.sleep(POLL)  # polling the store, within the deadline


if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable

    from tests.redis_service import RedisServer

    from .conftest import Servers


@pytest.fixture
async def workers(
    servers: Servers, postgres_url: str, redis_server: RedisServer
) -> AsyncIterator[Callable[..., Awaitable[GameServer]]]:
    """``await workers("w1")``: a worker in this process; all close before the services stop."""
    async with contextlib.AsyncExitStack() as stack:

        async def start(worker: str, **settings: Any) -> GameServer:
            config = Settings(host="127.0.0.1", port=0, db=postgres_url, **settings)
            store = open_store(postgres_url)
            server = GameServer(config, store, worker=worker, redis=redis_server.url)
            return await stack.enter_async_context(server)

        yield start
        for client in servers.clients:
            await client.ws.close()


async def test_a_racer_comes_back_to_their_race_whatever_their_home_says(
    workers, player, connect, redis_server
) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w2), await player(w2)
    racing = await seek_pair(ann, bob, WINNABLE)
    async with Redis.from_url(redis_server.url) as redis:
        for stale in ("w1", "w9"):  # a live worker without her race; a dead one
            await redis.set(f"fg:home:{ann.player_id}", stale)
            back = await connect(w1)
            await back.hello(token=racing.a.token)
            state = (await back.until("game_state"))[-1]
            assert state["game_id"] == racing.game_id and state["over"] is None
            await back.close()


async def test_a_race_that_ended_on_a_fenced_worker_stays_listed_with_its_owner(
    workers, player, connect, redis_server
) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w1)
    game_id = (await seek_pair(ann, bob, WINNABLE)).game_id
    await w2.restore_races({game_id})  # as a takeover by w2: the race's next epoch
    async with Redis.from_url(redis_server.url) as redis:
        await redis.hset("fg:races", game_id, "w2")  # and w2's claim
        await ann.send(type="resign")  # w1, fenced out, ends the race: its record is refused
        await ann.expect_close(1012)
        assert await redis.hget("fg:races", game_id) == b"w2"
    back = await connect(w1)
    await back.hello(token=ann.token)
    state = (await back.until("game_state"))[-1]
    assert state["over"] is None  # it goes on, at w2
    assert w1.lobby.race(game_id) is None and w2.lobby.race(game_id) is not None


async def test_a_worker_fenced_out_of_an_unlisted_race_lists_it_to_take_it_back(
    workers, player, redis_server
) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w1)
    racing = await seek_pair(ann, bob, WINNABLE)
    await w2.restore_races({racing.game_id})  # the race's next epoch, listed nowhere
    async with Redis.from_url(redis_server.url) as redis:
        await redis.hdel("fg:races", racing.game_id)  # as Redis restarted empty
        await ann.send(type="resign")  # refused: w1 takes the race back, listing it first
        await ann.expect_close(1012)
        async with asyncio.timeout(TIMEOUT):
            while await redis.hget("fg:races", racing.game_id) is None:
                await asyncio.sleep(POLL)  # polling Redis, within the deadline
        assert await redis.hget("fg:races", racing.game_id) == b"w1"


async def test_a_racer_reaching_their_race_while_it_is_restored_gets_it_once_it_is(
    workers, player, connect, postgres_url, redis_server
) -> None:
    w1, w2, w3 = await workers("w1"), await workers("w2"), await workers("w3")
    ann, bob = await player(w1), await player(w1)
    racing = await seek_pair(ann, bob, WINNABLE)
    async with await psycopg.AsyncConnection.connect(postgres_url) as frozen:
        # Whoever takes w1's race over waits on its row: the race is restored slowly.
        await frozen.execute(
            b"SELECT id FROM live_races WHERE id = %s FOR SHARE", (racing.game_id,)
        )
        await w1.peers.failover.stop()  # w1 beats no more: dead, to the others
        await w1.peers.shared.leave()
        await lock_waited_on(postgres_url)
        async with Redis.from_url(redis_server.url) as redis:
            taker = (await redis.hget("fg:races", racing.game_id)).decode()
        other = w3 if taker == "w2" else w2
        back = await connect(other)  # sent to the race's new owner, which is restoring it
        await back.hello(token=racing.a.token)
        await frozen.rollback()
        state = (await back.until("game_state"))[-1]
    assert state["game_id"] == racing.game_id and state["over"] is None


async def test_a_racer_away_when_their_moved_race_ends_learns_its_result_coming_back(
    workers, player, connect, redis_server
) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w1)
    racing = await seek_pair(ann, bob, WINNABLE)
    await w1.close()  # its races stay live in the store; bob stays away
    async with Redis.from_url(redis_server.url) as redis:
        # As Redis restarted empty: nobody lists the race, nobody is anybody's home.
        await redis.hdel("fg:races", racing.game_id)
        await redis.delete(f"fg:home:{ann.player_id}", f"fg:home:{bob.player_id}")
    back = await connect(w2)  # Ann brings the race to w2 (it adopts it)
    await back.hello(token=racing.a.token)
    await back.until("game_state")
    await back.send(type="resign")
    over = (await back.until("game_over"))[-1]
    w3 = await workers("w3")
    again = await connect(w3)  # Bob, back anywhere, learns how it ended
    await again.hello(token=racing.b.token)
    state = (await again.until("game_state"))[-1]
    assert state["over"] == {key: value for key, value in over.items() if key != "id"}


async def taken_over_unawares(workers, player, connect) -> tuple[Any, Any, Any, Any, int]:
    """A race of Ann and Bob on w1 that w2 has taken over, as if w1 had stopped past its
    lease: w1 is not told, and would learn it only from the store, at its next write.
    Bob has come back to w2 and played on: w1, w2, the race, Bob's socket, his seq."""
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w1)
    racing = await seek_pair(ann, bob, WINNABLE)
    await w2.peers.failover.take_over("w1")
    back = await connect(w2)
    await back.hello(token=racing.b.token)
    await back.until("game_state")
    await back.send(type="play", card=legal(racing.board_b())[0])
    told = (await back.recv("played"))["seq"]  # Bob plays on, where the race is now
    return w1, w2, racing, back, told


async def test_a_racer_back_where_their_race_was_taken_from_gets_it_as_its_owner_has_it(
    workers, player, connect
) -> None:
    w1, _, racing, _, told = await taken_over_unawares(workers, player, connect)
    back_a = await connect(w1)  # Ann comes back to w1, which held the race
    await back_a.hello(token=racing.a.token)
    state = (await back_a.until("game_state"))[-1]
    assert (state["game_id"], state["seq"]) == (racing.game_id, told)


async def test_a_racer_back_where_their_race_was_held_after_it_ended_is_told_its_end(
    workers, player, connect, redis_server
) -> None:
    """Finding of ``make chaos``: told from the store by a worker that had held the race
    (stopped meanwhile), the end waited on that worker's old take of it, which the store
    refused: the end was dropped, and the racer was welcomed and told nothing."""
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w1)
    racing = await seek_pair(ann, bob, WINNABLE)
    await w2.peers.failover.take_over("w1")  # w1 is not told (see above)
    back_a = await connect(w2)
    await back_a.hello(token=racing.a.token)
    await back_a.until("game_state")
    await back_a.send(type="resign")  # the race ends on w2; w1 still holds it, live
    over = (await back_a.until("game_over"))[-1]
    async with Redis.from_url(redis_server.url) as redis:  # Bob's home lost (Redis emptied)
        await redis.delete(f"fg:home:{bob.player_id}")
    back_b = await connect(w1)  # Bob comes back to w1, which serves him
    await back_b.hello(token=racing.b.token)
    await back_b.send(type="lobby")  # its answer comes after any game_state
    seen = await back_b.until("lobby")
    states = [m["over"] for m in seen if m["type"] == "game_state"]
    assert states == [{key: value for key, value in over.items() if key != "id"}], seen


async def test_a_racer_sent_to_a_worker_that_does_not_answer_is_told_unavailable(
    workers, player, connect, redis_server
) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w1)
    racing = await seek_pair(ann, bob, WINNABLE)
    async with Redis.from_url(redis_server.url) as redis, redis.pubsub() as stopped:
        # Listed with a worker whose lease holds but which answers nobody: stopped,
        # it keeps its connection to Redis, and so its subscription.
        await stopped.subscribe(channel_of("w9"))
        await redis.set("fg:alive:w9", "stopped", ex=60)
        await redis.hset("fg:races", racing.game_id, "w9")
        try:
            back = await connect(w2)
            await back.hello(token=racing.a.token)
            began = time.monotonic()
            seen = await back.expect_close(1012)
            waited = time.monotonic() - began
        finally:
            await redis.delete("fg:alive:w9")
    assert [(m["type"], m.get("code")) for m in seen] == [("error", "unavailable")]
    assert ANSWER_WAIT - 0.5 < waited < ANSWER_WAIT + 2.0


async def test_a_racer_whose_race_is_listed_with_a_killed_worker_gets_it_before_its_lease_lapses(
    workers, player, connect, redis_server
) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w1)
    racing = await seek_pair(ann, bob, WINNABLE)
    async with Redis.from_url(redis_server.url) as redis:
        # Listed with a worker killed a moment ago: its lease holds for a minute yet,
        # but its connections, and so its subscription, went with its process.
        await redis.set("fg:alive:w9", "killed", ex=60)
        await redis.hset("fg:races", racing.game_id, "w9")
        try:
            back = await connect(w2)
            await back.hello(token=racing.a.token)
            state = await back.until("game_state")
        finally:
            await redis.delete("fg:alive:w9")
        assert await redis.hget("fg:races", racing.game_id) == b"w2"
    assert state[-1]["game_id"] == racing.game_id
    assert state[-1]["over"] is None


async def test_a_racer_owed_their_races_end_is_sent_for_it_after_redis_lost_their_home(
    workers, player, connect, redis_server
) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w1)
    racing = await seek_pair(ann, bob, WINNABLE)
    await bob.close()  # Bob is away when the race ends: w1 owes him its end
    await ann.until("opponent_away")
    await ann.send(type="resign")
    over = (await ann.until("game_over"))[-1]
    async with Redis.from_url(redis_server.url) as redis:
        await redis.delete(f"fg:home:{bob.player_id}")  # as Redis restarted empty
        w1.peers.failover.reconnected()  # and w1 subscribed again: it says what it holds
        async with asyncio.timeout(TIMEOUT):
            while await redis.get(f"fg:home:{bob.player_id}") != b"w1":
                await asyncio.sleep(POLL)  # polling Redis, within the deadline
    back = await connect(w2)  # Bob comes back anywhere, and learns how it ended
    await back.hello(token=racing.b.token)
    state = (await back.until("game_state"))[-1]
    assert state["over"] == {key: value for key, value in over.items() if key != "id"}


async def test_a_racer_sent_where_redis_lists_their_race_gets_it_there(
    workers, player, connect, redis_server
) -> None:
    """Finding of ``make chaos`` (Redis restarted empty): a race listed with a worker
    that did not hold it; a racer's hello there was welcomed and told nothing."""
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w1)
    racing = await seek_pair(ann, bob, WINNABLE)
    async with Redis.from_url(redis_server.url) as redis:
        await redis.hset("fg:races", racing.game_id, "w2")  # w2 never held it
    back = await connect(w2)
    await back.hello(token=racing.a.token)
    state = (await back.until("game_state"))[-1]
    assert state["game_id"] == racing.game_id and state["over"] is None
    assert w2.lobby.race(racing.game_id) is not None  # taken from the store, fencing w1


async def test_a_racer_whose_races_end_redis_lost_is_told_it_before_its_worker_says_it_again(
    workers, player, connect, redis_server, postgres_url
) -> None:
    """Finding of ``make chaos``: a race ended as Redis restarted empty, or on a worker
    cut off from Redis. Its end was kept in Redis, which lost it or never had it; the
    racer was welcomed anywhere and told nothing until that worker said it again."""
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w1)
    racing = await seek_pair(ann, bob, WINNABLE)
    await bob.close()  # Bob is away when the race ends: w1 owes him its end
    await ann.until("opponent_away")
    await ann.send(type="resign")
    over = (await ann.until("game_over"))[-1]
    await end_kept(postgres_url, bob.player_id)
    async with Redis.from_url(redis_server.url) as redis:  # Redis loses what it had of Bob
        await redis.delete(f"fg:home:{bob.player_id}", f"fg:owed:{bob.player_id}")
    back = await connect(w2)  # before w1 names itself his home again
    await back.hello(token=racing.b.token)
    await back.send(type="lobby")  # its answer comes after any game_state
    seen = await back.until("lobby")
    states = [m for m in seen if m["type"] == "game_state"]
    assert [s["over"] for s in states] == [
        {key: value for key, value in over.items() if key != "id"}
    ], seen
