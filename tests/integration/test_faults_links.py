"""Links between workers, across a restart and across a worker's time without Redis.

Findings of the fault suite (``make chaos``, tests/integration/test_faults_cluster.py):

* A worker killed and started again under its name logged, within two
  seconds of listening, ``bus: 154 messages from w2 lost`` and ``45 messages
  from w3 lost``, and so broke its links with both (1012 to every socket
  between them), although nothing was lost: the others went on numbering
  their messages to it from where they had left its last incarnation. A link
  is from one incarnation to one incarnation: once a worker is born again,
  the others' messages to it start at 1, and what they had queued for its
  last incarnation is not sent.
* A worker cut off from Redis past its lease was judged dead; the worker
  with the race of a player proxied through it dropped its end of their
  link and sent the last word, ``Close``, which the cut-off worker could not
  hear. Nothing more went on that link, so the loss never showed as a gap:
  back on Redis, the worker kept the player's socket, forwarding plays to a
  home that ignored them, until the grace would have ended the race
  (``a play unanswered for 30 s``). Each beat's ``Still`` now goes on every
  link that ever carried a message, not only those with sockets now.
* Back on Redis, that worker said again what it holds, as after an empty
  Redis: it listed itself as the owner of every race in its lobby, those
  another worker had taken while it was cut off included, and so took them
  back (fencing the taker) instead of letting them go. It now lists a race
  only where nobody else does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

import pytest
from redis.asyncio import Redis

from bench.chaos_proxy import Proxy
from server.app import GameServer
from server.cluster.cluster import Cluster
from server.cluster.shared import BEAT, LEASE
from server.config import Settings
from server.store.backends import open_store

from .conftest import TIMEOUT, WINNABLE, apply, legal, seek_pair
from .test_faults_takeover import POLL

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable

    from tests.redis_service import RedisServer

    from .conftest import Servers
    from .racers import Client


@pytest.fixture
async def workers(
    servers: Servers, postgres_url: str, redis_server: RedisServer
) -> AsyncIterator[Callable[..., Awaitable[GameServer]]]:
    """``await workers("w1")``: a worker in this process (on Redis, or the ``redis`` URL
    given); all close before the services stop."""
    async with contextlib.AsyncExitStack() as stack:

        async def start(worker: str, redis: str | None = None, **settings: Any) -> GameServer:
            config = Settings(host="127.0.0.1", port=0, db=postgres_url, **settings)
            store = open_store(postgres_url)
            server = GameServer(config, store, worker=worker, redis=redis or redis_server.url)
            return await stack.enter_async_context(server)

        yield start
        for client in servers.clients:
            await client.ws.close()


async def test_a_worker_born_again_hears_its_links_start_at_one(
    workers, player, connect, caplog
) -> None:
    old, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w2), await player(w2)
    racing = await seek_pair(ann, bob, WINNABLE)
    board = racing.board_a()
    # Ann comes back through w1: her race's frames go from w2 to w1 over their link.
    await ann.close()
    ann = await connect(old)
    await ann.hello(token=racing.a.token)
    await ann.until("game_state")
    await old.close()  # w1 stops; another process is w1 now, born again
    new = await workers("w1")
    caplog.set_level(logging.WARNING, logger="flowergarden.server")
    again = await connect(new)
    await again.hello(token=racing.a.token)
    await again.until("game_state")
    for card in legal(board)[:1]:  # a round trip over the new link: w1 -> w2 -> w1
        await again.send(type="play", card=card, id="p")
        ack = (await again.until("played"))[-1]
        assert (ack["id"], ack["card"]) == ("p", card)
        board = apply(board, card)
    lost = [r.getMessage() for r in caplog.records if "lost" in r.getMessage()]
    assert lost == []


async def race_across(host: Client, guest: Client) -> dict[str, Any]:
    """``host`` opens a room that ``guest``, on another worker, joins: the guest's home
    moves to the host's worker, their socket stays where it is. The guest's ``game_start``."""
    await host.send(type="create_room", rules=WINNABLE)
    code = (await host.recv("room"))["code"]
    await guest.send(type="join_room", code=code)
    start = await guest.recv("game_start")
    await host.recv("game_start")
    return start


@pytest.fixture
async def proxy(redis_server: RedisServer) -> AsyncIterator[Proxy]:
    """A proxy to Redis that the test can cut, for one worker (bench/chaos_proxy.py)."""
    cuttable = Proxy(redis_server.port)
    await cuttable.start()
    yield cuttable
    await cuttable.close()


async def test_a_worker_cut_off_from_redis_breaks_its_links_when_it_is_back(
    proxy, workers, player
) -> None:
    w1, w2 = await workers("w1", redis=proxy.url), await workers("w2")
    ann, bob = await player(w1), await player(w2)
    start = await race_across(bob, ann)  # her home moves to w2; her socket stays on w1
    proxy.cut()
    # w1's lease lapses: w2 drops its end of Ann's link and tells w1 to close her
    # socket, a message w1 cannot hear, being cut off.
    await bob.until("opponent_away")
    proxy.heal()
    # Back on Redis, w1 cannot know what it missed: a lost last message shows as no
    # gap. Every link of its breaks, and Ann comes back to her race (not left
    # talking to a home that dropped her until the grace ends).
    await ann.expect_close(1012)
    back = await player(w2, token=ann.token)
    state = (await back.until("game_state"))[-1]
    assert state["game_id"] == start["game_id"]
    await bob.until("opponent_back")


async def test_a_worker_back_on_redis_does_not_claim_back_the_races_taken_meanwhile(
    proxy, workers, player, redis_server, caplog
) -> None:
    w1, w2 = await workers("w1", redis=proxy.url), await workers("w2")
    ann, bob = await player(w1), await player(w1)
    game_id = (await seek_pair(ann, bob, WINNABLE)).game_id
    caplog.set_level(logging.WARNING, logger="flowergarden.server")
    async with Redis.from_url(redis_server.url) as redis:
        proxy.cut()
        async with asyncio.timeout(LEASE + BEAT + TIMEOUT):  # w2 takes w1's race over
            while await redis.hget("fg:races", game_id) != b"w2":
                await asyncio.sleep(POLL)  # polling Redis, within the deadline
        proxy.heal()
        # Back, w1 says again what it holds (as after an empty Redis) and lets go of
        # what others took: both, whichever first, leave the race listed with w2.
        await ann.expect_close(1012)
        said = "this worker's races, rooms and seekers are listed again"
        async with asyncio.timeout(TIMEOUT):
            while not any(said in record.getMessage() for record in caplog.records):
                await asyncio.sleep(POLL)  # polling the log, within the deadline
        assert await redis.hget("fg:races", game_id) == b"w2"
    assert w1.lobby.race(game_id) is None and w2.lobby.race(game_id) is not None


async def test_a_racer_whose_race_ended_while_their_link_was_lost_learns_its_end(
    proxy, workers, player
) -> None:
    w1, w2 = await workers("w1", redis=proxy.url), await workers("w2")
    ann, bob = await player(w1), await player(w2)
    start = await race_across(ann, bob)  # his home moves to w1; his socket stays on w2
    proxy.cut()
    # The race ends on w1, which cannot tell Bob's socket: his game_over is lost with
    # the link, which w2 drops once w1's lease lapses, closing his socket.
    await ann.send(type="resign")
    await ann.until("game_over")
    seen = await bob.expect_close(1012)
    assert all(message["type"] != "game_over" for message in seen), seen
    proxy.heal()
    # Back, w1 drops its end of Bob's link: it keeps his home and his race's end for
    # him, and his next hello, wherever it lands, learns how his race ended.
    assert isinstance(w1.peers, Cluster)
    links = w1.peers.links
    async with asyncio.timeout(TIMEOUT):
        while any(r.player and r.player.player_id == bob.player_id for r in links.remotes.values()):
            await asyncio.sleep(POLL)  # polling w1's links, within the deadline
    back = await player(w2, token=bob.token)
    state = (await back.until("game_state"))[-1]
    assert state["game_id"] == start["game_id"] and state["over"] is not None


async def test_a_worker_starting_while_redis_fails_starts_once_it_answers(
    workers, player, redis_server, caplog
) -> None:
    # A finding of make chaos: a worker started again after a kill died at once when
    # a loaded Redis answered its first commands too late (a timeout), and was only
    # started again later. A command that fails stands for the late answer here.
    caplog.set_level(logging.WARNING, logger="flowergarden.server")
    async with Redis.from_url(redis_server.url) as redis:
        await redis.set("fg:races", "not a hash")  # reading the races' owners fails
        starting = asyncio.create_task(workers("w1"))
        async with asyncio.timeout(TIMEOUT):
            while not any("not ready yet" in record.getMessage() for record in caplog.records):
                await asyncio.sleep(POLL)  # polling the log, within the deadline
        await redis.delete("fg:races")
    w1 = await asyncio.wait_for(starting, TIMEOUT)  # it waited, and did not give up
    await player(w1)
