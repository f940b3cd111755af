"""What belongs to sockets: frame limits, close codes, rate limits, HTTP, shutdown."""

from __future__ import annotations

import asyncio
import json

import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

from server.app import GameServer
from server.config import Settings
from server.store import SqliteStore

from .conftest import http_get


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


async def test_an_open_connection_keeps_its_path_but_not_the_handshake_headers(server, player):
    await player(server)
    # The server's side of the connection: nothing public shows it.
    (connection,) = server._connections
    assert connection.response is None
    assert connection.request.path == "/ws"
    assert not connection.request.headers


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


async def test_flooding_is_rate_limited_then_closed_1008(start_server, player):
    clock = FakeClock()  # frozen: the bucket never refills
    server = await start_server(clock=clock)
    client = await player(server)
    frame = '{"type": "lobby"}'
    # hello was the first of the burst of 200; then one rate_limited, 100 more dropped.
    for _ in range(199 + 1 + 100):
        await client.send_raw(frame)
    seen = await client.expect_close(1008)
    assert [m["type"] for m in seen] == ["lobby"] * 199 + ["error"]
    assert seen[-1]["code"] == "rate_limited"


async def test_rate_limited_once_then_served_again(start_server, player):
    clock = FakeClock()
    server = await start_server(clock=clock)
    client = await player(server)
    for i in range(200):  # with hello, 201 messages: the last is refused
        await client.send(type="lobby", id=i)
    replies = [await client.recv() for _ in range(200)]
    assert [m.get("id") for m in replies[:199]] == list(range(199))  # with hello, 200
    assert replies[199]["type"] == "error"
    assert replies[199]["code"] == "rate_limited"
    assert "id" not in replies[199]
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


async def test_healthz(server, player):
    await player(server)
    status, body = await http_get(server.port, "/healthz")
    assert status == 200
    health = json.loads(body)
    assert health["status"] == "ok"
    assert health["online"] == 1


async def test_other_paths_are_404(server):
    status, _ = await http_get(server.port, "/")
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
