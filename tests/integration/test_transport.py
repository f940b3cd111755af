"""What belongs to sockets: frame limits, close codes, rate limits, HTTP, shutdown."""

from __future__ import annotations

import asyncio
import json

import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from core.limits import LATENESS, RateLimiter
from server.app import GameServer
from server.config import Settings
from server.store import SqliteStore

from .conftest import fresh_name, http_get
from .hostile_helpers import write_at_once


class FakeClock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_a_frame_at_the_limit_is_read(start_server, player):
    server = await start_server(max_message=4096)
    client = await player(server)
    frame = json.dumps({"type": "lobby", "pad": ""})
    frame = json.dumps({"type": "lobby", "pad": "x" * (4096 - len(frame))})
    assert len(frame.encode()) == 4096
    await client.send_raw(frame)
    await client.recv("lobby")


async def test_a_frame_over_the_limit_closes_1009(start_server, player):
    server = await start_server(max_message=4096)
    client = await player(server)
    await client.send(type="lobby", pad="x" * 4096)
    assert await client.expect_close(1009) == []


async def test_a_binary_frame_closes_1003(server, player, connect):
    client = await player(server)
    await client.send_raw(b'{"type": "lobby"}')
    assert await client.expect_close(1003) == []
    before_hello = await connect(server)
    await before_hello.send_raw(b"\x00\x01")
    await before_hello.expect_close(1003)


async def test_no_hello_in_time_closes_1008(start_server, connect):
    server = await start_server(hello_timeout=0.3)
    client = await connect(server)
    await client.send(type="lobby")
    await client.error("hello_first")
    await client.expect_close(1008)


async def test_hello_in_time_stays_open(start_server, connect):
    server = await start_server(hello_timeout=0.3)
    client = await connect(server)
    await client.hello()
    late = await connect(server)  # connected after client, so timed out after it
    await late.expect_close(1008)
    await client.quiet()


CAPACITY = int(RateLimiter().capacity)
"""Messages at once that are never limited: the burst of 200, and the lateness allowed."""


async def test_flooding_is_rate_limited_then_closed_1008(start_server, player):
    clock = FakeClock()  # frozen: the bucket never refills
    server = await start_server(clock=clock)
    client = await player(server)
    frame = '{"type": "lobby"}'
    # hello was the first of the bucket; then one rate_limited, 100 more dropped.
    for _ in range(CAPACITY - 1 + 1 + 100):
        await client.send_raw(frame)
    seen = await client.expect_close(1008)
    assert [m["type"] for m in seen] == ["lobby"] * (CAPACITY - 1) + ["error"]
    assert seen[-1]["code"] == "rate_limited"


async def test_rate_limited_once_then_served_again(start_server, player):
    clock = FakeClock()
    server = await start_server(clock=clock)
    client = await player(server)
    for i in range(CAPACITY):  # with hello, one more than the bucket holds: the last is refused
        await client.send(type="lobby", id=i)
    replies = [await client.recv() for _ in range(CAPACITY)]
    assert [m.get("id") for m in replies[:-1]] == list(range(CAPACITY - 1))
    assert replies[-1]["type"] == "error"
    assert replies[-1]["code"] == "rate_limited"
    assert "id" not in replies[-1]
    clock.now += 10.0  # the client slowed down: the bucket is full again
    await client.send(type="lobby", id="served")
    assert (await client.recv("lobby"))["id"] == "served"


async def test_a_sustained_50_per_second_is_never_limited(start_server, player):
    clock = FakeClock()
    server = await start_server(clock=clock)
    client = await player(server)
    for i in range(600):
        clock.now += 1 / 50
        await client.send(type="lobby", id=i)
        if i % 100 == 99:
            for j in range(i - 99, i + 1):
                assert (await client.recv("lobby"))["id"] == j


LATE = LATENESS
"""How much later than sent a client's first messages may reach the server and
still count as sent on time."""


async def test_a_burst_of_200_then_50_a_second_is_never_limited_even_if_the_burst_is_late(
    start_server, connect
):
    clock = FakeClock()
    server = await start_server(clock=clock)
    client = await connect(server)
    sent = clock.now
    # 200 at once, hello among them, then one every 20 ms; the burst is held up
    # on its way for LATE seconds, and what was sent meanwhile arrives with it.
    burst = [json.dumps({"type": "hello", "name": fresh_name()})]
    burst += [json.dumps({"type": "lobby", "id": i}) for i in range(1, 200 + int(LATE * 50))]
    write_at_once(client, *burst)
    clock.now = sent + LATE
    await client.recv("welcome")
    for i in range(1, len(burst)):
        assert (await client.recv("lobby"))["id"] == i
    # From then on every message arrives as it is sent.
    for i in range(len(burst), len(burst) + 300):
        clock.now = sent + (i - 199) / 50
        await client.send(type="lobby", id=i)
        assert (await client.recv("lobby"))["id"] == i


async def test_healthz_counts_connections_in_their_handshake_and_before_hello(
    server, player, connect
):
    await player(server)
    await connect(server)  # open, and no hello yet
    _, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /ws HTTP/1.1\r\n")  # half a handshake
    await writer.drain()
    status, body = await http_get(server.port, "/healthz")
    health = json.loads(body)
    assert (status, health["status"], health["online"], health["players"]) == (200, "ok", 1, 1)
    assert health["connections"] == 4  # those three, and the one asking
    writer.close()


async def test_healthz(server, player):
    await player(server)
    status, body = await http_get(server.port, "/healthz")
    assert status == 200
    health = json.loads(body)
    assert health["status"] == "ok"
    assert health["online"] == 1


async def test_other_paths_are_404(server):
    status, _ = await http_get(server.port, "/nothing-here")
    assert status == 404
    with pytest.raises(InvalidStatus) as refused:
        await ws_connect(f"ws://127.0.0.1:{server.port}/elsewhere", proxy=None)
    assert refused.value.response.status_code == 404


async def test_too_many_connections_from_one_address(start_server, connect):
    server = await start_server(max_connections_per_ip=2)
    await connect(server)
    second = await connect(server)
    with pytest.raises(InvalidStatus) as refused:
        await connect(server)
    assert refused.value.response.status_code == 429
    await second.close()
    # The slot is free again once the server has seen the close.
    async with asyncio.timeout(5):
        while True:
            try:
                await connect(server)
                break
            except InvalidStatus:
                continue


class HeldStore(SqliteStore):
    """A store whose ``close`` waits until the test lets it go."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.closing = asyncio.Event()
        self.release = asyncio.Event()

    async def close(self) -> None:
        self.closing.set()
        await self.release.wait()
        await super().close()


async def test_shutdown_closes_1001_and_healthz_is_503_meanwhile(tmp_path, connect, race, player):
    db = str(tmp_path / "held.sqlite3")
    store = HeldStore(db)
    server = GameServer(Settings(host="127.0.0.1", port=0, db=db), store)
    await server.start()
    closing: asyncio.Task[None] | None = None
    try:
        racing = await race(server)
        idle = await player(server)
        fresh = await connect(server)
        closing = asyncio.create_task(server.close())
        for client in (racing.a, racing.b, idle, fresh):
            await client.expect_close(1001)
        await asyncio.wait_for(store.closing.wait(), 5)
        status, body = await http_get(server.port, "/healthz")
        assert status == 503
        assert json.loads(body)["status"] == "closing"
        with pytest.raises(InvalidStatus) as refused:
            await connect(server)
        assert refused.value.response.status_code == 503
    finally:
        store.release.set()
        await asyncio.wait_for(closing or server.close(), 5)


async def test_compression_offered_by_a_client_is_declined_and_it_is_served_plain(tmp_path):
    db = str(tmp_path / "plain.sqlite3")
    settings = Settings(host="127.0.0.1", port=0, db=db)
    # websockets' client offers permessage-deflate by default: the server
    # declines it, so that every text frame it writes is framed by its own
    # framer (server/transport/frames.py) and no other.
    server = GameServer(settings, SqliteStore(db))
    async with server, ws_connect(server.url, proxy=None) as ws:
        assert "Sec-WebSocket-Extensions" not in ws.response.headers
        await ws.send(json.dumps({"type": "hello", "name": fresh_name()}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        for i in range(3):
            await ws.send(json.dumps({"type": "lobby", "id": i}))
        assert [json.loads(await ws.recv())["id"] for _ in range(3)] == [0, 1, 2]
        await ws.send(b"binary")
        with pytest.raises(ConnectionClosed) as closed:
            await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1003
