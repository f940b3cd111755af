"""The bus between workers, on a real Redis: order, reconnection, and a backlog."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from server.cluster.bus import Bus

if TYPE_CHECKING:
    from tests.redis_service import RedisServer


class Inbox:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self._changed = asyncio.Event()

    def __call__(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self._changed.set()

    async def until(self, count: int) -> list[dict[str, Any]]:
        async with asyncio.timeout(10):
            while len(self.messages) < count:
                self._changed.clear()
                await self._changed.wait()
        return self.messages


async def test_messages_arrive_in_the_order_sent(redis_server: RedisServer) -> None:
    inbox = Inbox()
    async with Bus(redis_server.url, "a", lambda _: None) as a, Bus(redis_server.url, "b", inbox):
        for seq in range(1, 2001):
            a.send("b", {"seq": seq})
            if seq % 300 == 0:
                await asyncio.sleep(0)  # several passes of the loop, several pipelines
        got = await inbox.until(2000)
    assert [m["seq"] for m in got] == list(range(1, 2001))


async def test_a_worker_gets_only_its_own_messages(redis_server: RedisServer) -> None:
    to_b, to_c = Inbox(), Inbox()
    async with (
        Bus(redis_server.url, "a", lambda _: None) as a,
        Bus(redis_server.url, "b", to_b),
        Bus(redis_server.url, "c", to_c),
    ):
        a.send("b", {"for": "b"})
        a.send("c", {"for": "c"})
        assert await to_b.until(1) == [{"for": "b"}]
        assert await to_c.until(1) == [{"for": "c"}]
    assert to_b.messages == [{"for": "b"}]


async def test_after_redis_restarts_the_bus_resubscribes_and_says_so(
    redis_server: RedisServer,
) -> None:
    inbox = Inbox()
    async with (
        Bus(redis_server.url, "a", lambda _: None) as a,
        Bus(redis_server.url, "b", inbox) as b,
    ):
        back = asyncio.Event()
        b.on_reconnect = back.set
        a.send("b", {"n": 1})
        await inbox.until(1)
        await asyncio.to_thread(redis_server.restart)
        async with asyncio.timeout(15):
            await back.wait()
        a.send("b", {"n": 2})  # queued while the publisher finds Redis again
        got = await inbox.until(2)
    assert [m["n"] for m in got] == [1, 2]


async def test_a_message_that_is_not_json_is_dropped_and_the_next_arrives(
    redis_server: RedisServer,
) -> None:
    inbox = Inbox()
    async with Bus(redis_server.url, "b", inbox) as b:
        await b.client.publish("fg:worker:b", b"{not json")
        await b.client.publish("fg:worker:b", b'{"ok": true}')
        assert await inbox.until(1) == [{"ok": True}]


async def test_past_its_backlog_the_bus_drops_the_oldest(redis_server: RedisServer) -> None:
    inbox = Inbox()
    async with Bus(redis_server.url, "a", lambda _: None, backlog=3) as a:
        async with Bus(redis_server.url, "b", inbox):
            for n in range(5):  # all in one pass: the publisher has not run yet
                a.send("b", {"n": n})
            got = await inbox.until(3)
        assert a.dropped == 2
    assert [m["n"] for m in got] == [2, 3, 4]
