"""Two workers, one lobby: in-process servers sharing a real Redis and a real PostgreSQL.

Each test starts :class:`~server.app.GameServer` workers (``w1``, ``w2``) on ports of their
own, one PostgreSQL and one Redis, driven by real websocket clients on either worker.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

import pytest
from redis.asyncio import Redis
from websockets.exceptions import ConnectionClosed, InvalidStatus

from server.app import GameServer
from server.cluster.cluster import ANNOUNCE_WAIT
from server.config import Settings
from server.store.backends import open_store

from .conftest import TIMEOUT, WINNABLE, apply, legal, play_out

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable

    from tests.redis_service import RedisServer

    from .conftest import Client, Servers


@pytest.fixture
async def workers(
    servers: Servers, postgres_url: str, redis_server: RedisServer
) -> AsyncIterator[Callable[..., Awaitable[GameServer]]]:
    """``await workers("w1")``: a worker; all of them close before Redis and PostgreSQL stop."""
    async with contextlib.AsyncExitStack() as stack:

        async def start(worker: str, **settings: Any) -> GameServer:
            config = Settings(host="127.0.0.1", port=0, db=postgres_url, **settings)
            store = open_store(postgres_url)
            server = GameServer(config, store, worker=worker, redis=redis_server.url)
            return await stack.enter_async_context(server)

        yield start
        for client in servers.clients:
            await client.ws.close()


async def pair_across(a: Client, b: Client) -> tuple[dict[str, Any], dict[str, Any]]:
    await a.send(type="seek", rules=WINNABLE)
    await a.recv("seeking")
    await b.send(type="seek", rules=WINNABLE)
    await b.recv("seeking")
    start_b = (await b.until("game_start"))[-1]
    return (await a.until("game_start"))[-1], start_b


async def test_players_on_two_workers_race_to_the_end(workers, player) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w2)
    start_a, start_b = await pair_across(ann, bob)
    assert start_a["game_id"] == start_b["game_id"]
    assert {start_a["seat"], start_b["seat"]} == {0, 1}
    # The proxied socket's id names its worker's incarnation: one born again counts its
    # sockets from 0 again, and a frame for the last one's must not reach a new one's.
    (proxy,) = [w for w in (w1, w2) if w.peers.links.proxied]
    (conn_id,) = proxy.peers.links.proxied
    assert conn_id.startswith(f"{proxy.peers.worker}:{proxy.peers.bus.incarnation}:")
    board = start_a["boards"][start_a["seat"]]
    _, acks = await play_out(ann, board)
    assert [ack["seq"] for ack in acks] == list(range(1, 53))
    seen = [m for m in await bob.until("game_over") if m["type"] == "played"]
    assert [m["seq"] for m in seen] == list(range(1, 53))  # every play, in order, at bob's
    over = await ann.recv("game_over")
    assert over["winner"] == start_a["seat"] and over["reason"] == "cleared"
    owner = w1 if w1.lobby.race(start_a["game_id"]) is None else w2
    record = await owner.store.race(start_a["game_id"])
    assert record is not None and len(record.moves) == 52


async def test_the_same_name_said_to_two_workers_at_once_is_given_once(workers, connect) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    one, two = await connect(w1), await connect(w2)
    await asyncio.gather(one.send(type="hello", name="Twin"), two.send(type="hello", name="Twin"))
    replies = sorted([(await one.recv())["type"], (await two.recv())["type"]])
    assert replies == ["error", "welcome"]


async def test_a_token_said_on_the_other_worker_replaces_the_older_connection(
    workers, player, connect
) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann = await player(w1)
    again = await connect(w2)
    welcome = await again.hello(token=ann.token)
    assert welcome["player_id"] == ann.player_id
    await ann.expect_close(4000)
    await again.send(type="lobby", id="l")
    lobby = await again.recv("lobby")
    assert lobby["id"] == "l" and lobby["online"] >= 1


async def test_the_lobby_is_the_same_seen_from_either_worker(workers, player) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w2)
    await ann.send(type="create_room", rules=WINNABLE, public=True)
    code = (await ann.recv("room"))["code"]
    views = []
    for who in (ann, bob):
        async with asyncio.timeout(TIMEOUT):
            while True:  # each worker publishes its part as it changes: await it
                await who.send(type="lobby")
                view = await who.recv("lobby")
                if view["online"] == 2 and [r["code"] for r in view["rooms"]] == [code]:
                    break
        views.append(view)
    assert views[0]["online"] == views[1]["online"] == 2


async def test_a_room_made_on_one_worker_is_joined_from_the_other(workers, player) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w2)
    await ann.send(type="create_room", rules=WINNABLE)
    code = (await ann.recv("room"))["code"]
    await bob.send(type="join_room", code=code.lower())
    start_b = await bob.recv("game_start")
    start_a = await ann.recv("game_start")
    assert start_a["game_id"] == start_b["game_id"]
    board = start_b["boards"][start_b["seat"]]
    card = legal(board)[0]
    await bob.send(type="play", card=card, id="p1")
    ack = await bob.recv("played")
    assert ack["id"] == "p1" and ack["seq"] == 1
    assert (await ann.recv("played"))["card"] == card
    assert apply(board, card) != board


async def test_a_room_code_is_joinable_on_the_other_worker_once_it_is_given(
    workers, player, redis_server
) -> None:
    # Redis holds its writes back (CLIENT PAUSE ... WRITE; reads go on): the
    # `room` reply must wait until the code is listed, or a join on the other
    # worker that comes at once finds no such room.
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w2)
    async with Redis.from_url(redis_server.url) as redis:
        await redis.execute_command("CLIENT", "PAUSE", 300, "WRITE")
        await ann.send(type="create_room", rules=WINNABLE)
        code = (await ann.recv("room"))["code"]
    await bob.send(type="join_room", code=code, id="j")
    reply = (await bob.until("game_start", "error"))[-1]
    assert reply["type"] == "game_start", reply
    start_a = await ann.recv("game_start")
    assert start_a["game_id"] == reply["game_id"]


async def test_a_stalled_redis_holds_a_room_reply_back_a_second_at_most(
    workers, player, redis_server
) -> None:
    w1 = await workers("w1")
    ann = await player(w1)
    await ann.send(type="lobby")  # answered once the hello, which writes to Redis, is whole
    await ann.until("lobby")
    async with Redis.from_url(redis_server.url) as redis:
        await redis.execute_command("CLIENT", "PAUSE", 10_000, "WRITE")
        try:
            await ann.send(type="create_room", rules=WINNABLE)
            async with asyncio.timeout(ANNOUNCE_WAIT + 1.5):  # not the pause's 10 s
                assert (await ann.recv("room"))["code"]
        finally:
            await redis.execute_command("CLIENT", "UNPAUSE")


async def test_a_race_is_watchable_on_the_other_worker_once_it_has_started(
    workers, player, redis_server
) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob, cat = await player(w1), await player(w1), await player(w2)
    async with Redis.from_url(redis_server.url) as redis:
        await ann.send(type="create_room", rules=WINNABLE)
        code = (await ann.recv("room"))["code"]
        await redis.execute_command("CLIENT", "PAUSE", 300, "WRITE")
        await bob.send(type="join_room", code=code)
        game_id = (await bob.recv("game_start"))["game_id"]
    await cat.send(type="watch", game_id=game_id, id="w")
    reply = (await cat.until("game_state", "error"))[-1]
    assert reply["type"] == "game_state" and reply["game_id"] == game_id, reply


async def test_kill_9_of_the_owner_mid_race_the_race_goes_on_at_the_other_worker(
    cli_server, connect, postgres_url, redis_server
) -> None:
    flags = ("--redis", redis_server.url, "--grace", "30")
    w1 = await cli_server(postgres_url, *flags, "--worker-id", "w1")
    w2 = await cli_server(postgres_url, *flags, "--worker-id", "w2")
    ann, bob = await connect(w1.url), await connect(w2.url)
    await ann.hello()
    await bob.hello()
    start_a, start_b = await pair_across(ann, bob)
    # Whichever worker paired them owns the race; the other player's socket is proxied.
    redis = Redis.from_url(redis_server.url)
    owner = (await redis.hget("fg:races", start_a["game_id"])).decode()
    await redis.aclose()
    victim, survivor = (w1, w2) if owner == "w1" else (w2, w1)
    mover, start = (bob, start_b) if owner == "w1" else (ann, start_a)
    board = start["boards"][start["seat"]]
    for _ in range(5):
        card = legal(board)[0]
        await mover.send(type="play", card=card)
        assert (await mover.recv("played"))["card"] == card  # acknowledged
        board = apply(board, card)
    victim.process.kill()  # kill -9: no goodbye, no suspend
    await victim.process.wait()
    # The survivor sees the lease lapse, takes the race, and closes the mover's socket.
    async with asyncio.timeout(15):  # the lease (3 s) lapses, then a beat (1 s) sees it
        await mover.ws.wait_closed()
    assert mover.ws.close_code == 1012
    again = await connect(survivor.url)
    await again.hello(token=mover.token)
    state = await again.recv("game_state")
    assert state["game_id"] == start["game_id"] and state["seq"] == 5
    assert state["boards"][start["seat"]] == board  # every acknowledged play is kept
    _, acks = await play_out(again, board)
    assert acks[0]["seq"] == 6 and acks[-1]["status"] == "cleared"
    over = await again.recv("game_over")
    assert over["winner"] == start["seat"]


async def test_redis_restarted_mid_race_the_race_goes_on_and_the_lobby_heals(
    workers, player, connect, redis_server
) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w2)
    start_a, start_b = await pair_across(ann, bob)
    # The player whose socket is not on the race's worker: their frames cross Redis.
    at_w1 = w1.lobby.race(start_a["game_id"]) is not None
    mover, start = (bob, start_b) if at_w1 else (ann, start_a)
    board = start["boards"][start["seat"]]
    for _ in range(3):
        card = legal(board)[0]
        await mover.send(type="play", card=card)
        await mover.recv("played")
        board = apply(board, card)
    await asyncio.to_thread(redis_server.restart)  # empty: nothing was kept
    # A message published while a worker was not subscribed again is lost: its
    # link breaks, and the players on it are sent back (1012) to get their race
    # whole. Nothing may be lost without that: the race goes on where it was.
    card = legal(board)[0]
    await mover.send(type="play", card=card, id="after")
    try:
        ack = (await mover.until("played"))[-1]
    except ConnectionClosed as closed:
        assert closed.rcvd is not None and closed.rcvd.code == 1012
        mover, state = await back(connect, w1 if mover is ann else w2, mover.token)
        if state["seq"] == 3:  # the play was lost with the link: nothing was recorded
            assert state["boards"][start["seat"]] == board
            await mover.send(type="play", card=card, id="after")
            ack = (await mover.until("played"))[-1]
        else:  # recorded before the link broke: the state has it
            ack = {"seq": state["seq"], "card": card}
            assert state["boards"][start["seat"]] == apply(board, card)
    assert ack["seq"] == 4 and ack["card"] == card
    async with asyncio.timeout(TIMEOUT):  # the lobby heals: both workers' parts are back
        while True:
            await mover.send(type="lobby")
            view = (await mover.until("lobby"))[-1]
            if view["online"] == 2 and len(view["games"]) == 1:
                break


async def back(connect: Any, where: GameServer, token: str) -> tuple[Client, dict[str, Any]]:
    """A player coming back on ``where``: their client, and the race's ``game_state``."""
    client = await connect(where)
    await client.hello(token=token)
    return client, (await client.until("game_state"))[-1]


async def test_a_rolling_restart_of_every_worker_loses_no_race(workers, player, connect) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w2)
    start_a, _ = await pair_across(ann, bob)
    seat = start_a["seat"]
    board = start_a["boards"][seat]
    plays = 0
    for old, new_name in ((w2, "w3"), (w1, "w4")):  # each worker in turn, one at a time
        new = await workers(new_name)
        card = legal(board)[0]
        await ann.send(type="play", card=card)
        await ann.recv("played")
        board, plays = apply(board, card), plays + 1
        await old.close()
        # Ann's socket may be anywhere, and her race too: she comes back on the new worker.
        await ann.close()
        ann, state = await back(connect, new, ann.token)
        assert state["seq"] == plays and state["boards"][seat] == board
    _, acks = await play_out(ann, board)
    assert acks[-1]["status"] == "cleared" and acks[-1]["seq"] == 52
    assert (await ann.recv("game_over"))["winner"] == seat


async def test_a_spectator_on_the_other_worker_watches_the_race(workers, player) -> None:
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob, cat = await player(w1), await player(w1), await player(w2)
    await ann.send(type="seek", rules=WINNABLE)
    await ann.recv("seeking")
    await bob.send(type="seek", rules=WINNABLE)
    start_b = (await bob.until("game_start"))[-1]
    start_a = (await ann.until("game_start"))[-1]
    game_id = start_a["game_id"]
    async with asyncio.timeout(TIMEOUT):  # as a spectator finds it: listed in the lobby
        while True:
            await cat.send(type="lobby")
            if [g["game_id"] for g in (await cat.until("lobby"))[-1]["games"]] == [game_id]:
                break
    await cat.send(type="watch", game_id=game_id, id="w")
    state = (await cat.until("game_state"))[-1]
    assert state["game_id"] == game_id and state["id"] == "w"
    board = start_b["boards"][start_b["seat"]]
    card = legal(board)[0]
    await bob.send(type="play", card=card)
    await bob.recv("played")
    seen = (await cat.until("played"))[-1]
    assert seen["card"] == card and seen["seq"] == state["seq"] + 1


async def test_new_players_per_address_are_counted_across_workers(workers, connect) -> None:
    w1, w2 = await workers("w1", new_players_per_ip=3), await workers("w2", new_players_per_ip=3)
    for where in (w1, w1, w2):
        await (await connect(where)).hello()
    fourth = await connect(w2)  # w2 made one player only; the address made three
    await fourth.send(type="hello", name="Fourth")
    assert (await fourth.error("rate_limited"))["code"] == "rate_limited"


async def test_wrong_room_codes_per_address_are_counted_across_workers(workers, player) -> None:
    w1, w2 = await workers("w1", wrong_codes_per_ip=3), await workers("w2", wrong_codes_per_ip=3)
    ann, bob = await player(w1), await player(w2)
    for who, code in ((ann, "AAAAAA"), (ann, "BBBBBB"), (bob, "CCCCCC")):
        await who.send(type="join_room", code=code)
        await who.error("room_not_found")
    await bob.send(type="join_room", code="DDDDDD")  # bob's worker saw one: the address, three
    await bob.error("rate_limited")


async def test_the_connections_per_address_are_counted_across_workers(workers, connect) -> None:
    w1 = await workers("w1", max_connections_per_ip=4)
    w2 = await workers("w2", max_connections_per_ip=4)
    for _ in range(4):
        await connect(w1)
    async with asyncio.timeout(TIMEOUT):  # w2 learns of w1's at the next beat
        while True:
            try:
                extra = await connect(w2)
            except InvalidStatus as refused:
                assert refused.response.status_code == 429
                break
            await extra.close()


async def test_a_racer_coming_back_while_redis_is_down_is_told_unavailable_not_a_lobby(
    workers, player, connect, redis_server
) -> None:
    """Where a player's race is lives in Redis: while Redis cannot say, a hello with a
    live race elsewhere is answered welcome, then unavailable and a close (1012) to come
    back later, and never a lobby that would say the race is gone (issue: 6 times in one
    outage, a returning racer was answered as if its race were over)."""
    w1, w2 = await workers("w1"), await workers("w2")
    ann, bob = await player(w1), await player(w2)
    start_a, _ = await pair_across(ann, bob)
    owner = w1 if w1.lobby.race(start_a["game_id"]) is not None else w2
    away, elsewhere = (bob, w2) if owner is w1 else (ann, w1)
    await asyncio.to_thread(redis_server.stop)
    try:
        back = await connect(elsewhere)
        await back.send(type="hello", name="x", token=away.token)
        assert (await back.recv())["type"] == "welcome"
        await back.send(type="lobby", id="l")
        seen = await back.expect_close(1012)
        assert [m["type"] for m in seen] == ["error"], seen
        assert seen[0]["code"] == "unavailable"
    finally:
        await asyncio.to_thread(redis_server.start)


async def test_a_lobby_asked_while_redis_is_away_is_answered_with_this_workers_part(
    workers, player, redis_server
) -> None:
    """A fresh clone's CI: a ``lobby`` asked as Redis came back failed in Redis, and was
    never answered."""
    w1 = await workers("w1")
    ann = await player(w1)
    await asyncio.to_thread(redis_server.stop)
    try:
        await ann.send(type="lobby", id="away")
        view = (await ann.until("lobby"))[-1]
    finally:
        await asyncio.to_thread(redis_server.start)
    assert view["id"] == "away" and view["online"] == 1
