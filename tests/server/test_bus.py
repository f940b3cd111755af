"""The bus between workers, on a real Redis: order, links whose losses are noticed,
reconnection, a backlog, and the one place messages are encoded."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import pytest

from server.cluster.bus import Bus, channel_of
from server.cluster.bus_codec import (
    BATCH,
    Envelope,
    MalformedMessage,
    decode,
    decode_all,
    encode,
    encode_batch,
)
from server.cluster.to_home import Attach, Gone, Inbound
from server.cluster.to_socket import Close, Outbound
from server.cluster.to_worker import Born

if TYPE_CHECKING:
    from tests.redis_service import RedisServer


class Inbox:
    def __init__(self) -> None:
        self.envelopes: list[Envelope] = []
        self.broken: list[tuple[str, bool]] = []
        self._changed = asyncio.Event()

    def __call__(self, envelope: Envelope) -> None:
        self.envelopes.append(envelope)
        self._changed.set()

    def on_broken(self, sender: str, reborn: bool) -> None:
        self.broken.append((sender, reborn))
        self._changed.set()

    async def until(self, count: int, broken: int = 0) -> list[Envelope]:
        async with asyncio.timeout(10):
            while len(self.envelopes) < count or len(self.broken) < broken:
                self._changed.clear()
                await self._changed.wait()
        return self.envelopes

    def texts(self) -> list[str]:
        return [e.message.text for e in self.envelopes if isinstance(e.message, Inbound)]


def bus(url: str, worker: str, inbox: Inbox | None = None, incarnation: str = "i1", **kw) -> Bus:
    one = Bus(url, worker, incarnation, inbox or (lambda _: None), **kw)
    if inbox is not None:
        one.on_broken = inbox.on_broken
    return one


@pytest.mark.parametrize(
    "message",
    [
        Outbound("w1:7", b'\x81\x05{"a":1}\x00\xff'),
        Inbound("w1:7", '{"type":"play","card":"QH"}'),
        Close("w1:7", 4000, "replaced"),
        Attach("w1:7", "w1", "10.0.0.1", "p1", "Ann", "h" * 64, 1.5e9, (1500.0, 350.0, 0.06), None),
        Born("w2", "a1b2c3d4"),
    ],
)
def test_every_message_reads_back_as_it_was_sent(message) -> None:
    envelope = Envelope("w1", "i1", 42, message)
    assert decode(encode(envelope)) == envelope


def test_a_frame_travels_as_bytes_not_base64() -> None:
    frame = b'{"type":"played","seq":1}' * 4
    assert len(encode(Envelope("w1", "i1", 1, Outbound("w1:7", frame)))) < len(frame) + 24


@pytest.mark.parametrize(
    "data", [b"{not msgpack", b"\x93\x01\x02\x03", b"\x95\xcc\xff\xa1a\xa1b\x01\x00"]
)
def test_bytes_that_are_not_a_message_are_refused(data: bytes) -> None:
    with pytest.raises(MalformedMessage):
        decode(data)


def test_a_batch_reads_back_as_its_envelopes_in_order() -> None:
    envelopes = [Envelope("w1", "i1", n, Inbound("c", str(n))) for n in range(1, 6)]
    batch = encode_batch([encode(envelope) for envelope in envelopes])
    assert decode_all(batch) == envelopes
    assert decode_all(encode(envelopes[0])) == envelopes[:1]  # one alone is not batched


@pytest.mark.parametrize(
    "items", [[BATCH, [b"{not msgpack"]], [BATCH, [7]], [BATCH, "not a list", 1]]
)
def test_a_batch_with_what_is_not_an_envelope_is_refused_whole(items) -> None:
    import msgpack

    with pytest.raises(MalformedMessage):
        decode_all(msgpack.packb(items, use_bin_type=True))


async def test_what_one_pass_has_for_a_worker_goes_as_one_redis_message(
    redis_server: RedisServer,
) -> None:
    import redis.asyncio as redis

    inbox = Inbox()
    raw = redis.Redis.from_url(redis_server.url)
    async with raw.pubsub(ignore_subscribe_messages=True) as spy:
        await spy.subscribe(channel_of("b"))
        async with bus(redis_server.url, "a") as a, bus(redis_server.url, "b", inbox):
            for n in range(1, 51):  # one pass of the loop: nothing awaited between
                a.send("b", Inbound("c", str(n)))
            await inbox.until(50)
        heard = []
        while (message := await spy.get_message(timeout=0.5)) is not None or not heard:
            if message is not None:  # (None: the subscription's own confirmation)
                heard.append(message["data"])
    await raw.aclose()
    assert [len(decode_all(data)) for data in heard] == [50]
    assert inbox.texts() == [str(n) for n in range(1, 51)] and inbox.broken == []


async def test_messages_arrive_in_the_order_sent_and_the_link_is_whole(
    redis_server: RedisServer,
) -> None:
    inbox = Inbox()
    async with bus(redis_server.url, "a") as a, bus(redis_server.url, "b", inbox):
        for n in range(1, 2001):
            a.send("b", Inbound("c", str(n)))
            if n % 300 == 0:
                await asyncio.sleep(0)  # several passes of the loop, several pipelines
        await inbox.until(2000)
    assert inbox.texts() == [str(n) for n in range(1, 2001)]
    assert [e.seq for e in inbox.envelopes] == list(range(1, 2001))
    assert inbox.broken == []


async def test_a_worker_gets_only_its_own_messages(redis_server: RedisServer) -> None:
    to_b, to_c = Inbox(), Inbox()
    async with (
        bus(redis_server.url, "a") as a,
        bus(redis_server.url, "b", to_b),
        bus(redis_server.url, "c", to_c),
    ):
        a.send("b", Inbound("x", "for b"))
        a.send("c", Inbound("x", "for c"))
        await to_b.until(1)
        await to_c.until(1)
    assert (to_b.texts(), to_c.texts()) == (["for b"], ["for c"])


async def test_a_lost_message_breaks_its_link_at_the_next_one(redis_server: RedisServer) -> None:
    inbox = Inbox()
    async with bus(redis_server.url, "a") as a, bus(redis_server.url, "b", inbox):
        a.send("b", Inbound("x", "1"))
        await inbox.until(1)
        a._sent["b"] += 1  # the second message never came (lost while Redis was away)
        a.send("b", Inbound("x", "3"))
        await inbox.until(2, broken=1)
    assert inbox.broken == [("a", False)]


async def test_a_last_message_lost_is_noticed_at_the_next_still(redis_server: RedisServer) -> None:
    inbox = Inbox()
    async with bus(redis_server.url, "a") as a, bus(redis_server.url, "b", inbox):
        a.send("b", Inbound("x", "1"))
        await inbox.until(1)
        a._sent["b"] += 1
        a.still(["b"])  # what the cluster's beat sends on every link
        await inbox.until(1, broken=1)
    assert inbox.broken == [("a", False)]


async def test_a_first_word_that_is_not_the_first_breaks_the_link(
    redis_server: RedisServer,
) -> None:
    """The receiver was born again since the sender's link to it began."""
    inbox = Inbox()
    async with bus(redis_server.url, "a") as a, bus(redis_server.url, "b", inbox):
        a._sent["b"] = 7
        a.send("b", Inbound("x", "8"))
        await inbox.until(1, broken=1)
    assert inbox.broken == [("a", False)]


async def test_a_sender_born_again_breaks_its_links_and_says_so_to_all(
    redis_server: RedisServer,
) -> None:
    inbox = Inbox()
    async with bus(redis_server.url, "b", inbox):
        async with bus(redis_server.url, "a", incarnation="old") as old:
            old.send("b", Inbound("x", "before"))
            await inbox.until(1)
        async with bus(redis_server.url, "a", incarnation="new") as new:
            new.broadcast(Born("a", "new"))
            new.send("b", Inbound("x", "after"))
            await inbox.until(3, broken=1)
    assert inbox.broken == [("a", True)]
    assert Born("a", "new") in [e.message for e in inbox.envelopes]


async def test_after_redis_restarts_the_bus_resubscribes_and_says_so(
    redis_server: RedisServer,
) -> None:
    inbox = Inbox()
    async with bus(redis_server.url, "a") as a, bus(redis_server.url, "b", inbox) as b:
        back = asyncio.Event()
        b.on_reconnect = back.set
        a.send("b", Inbound("x", "1"))
        await inbox.until(1)
        await asyncio.to_thread(redis_server.restart)
        async with asyncio.timeout(15):
            await back.wait()
        a.send("b", Inbound("x", "2"))  # queued while the publisher finds Redis again
        await inbox.until(2)
    assert inbox.texts() == ["1", "2"]


async def test_bytes_that_are_not_a_message_are_dropped_and_the_next_arrives(
    redis_server: RedisServer,
) -> None:
    inbox = Inbox()
    async with bus(redis_server.url, "a") as a, bus(redis_server.url, "b", inbox) as b:
        await b.client.publish(channel_of("b"), b"{not a message")
        a.send("b", Inbound("x", "ok"))
        await inbox.until(1)
    assert inbox.texts() == ["ok"]


async def test_past_its_backlog_the_bus_drops_the_oldest_and_the_link_says_so(
    redis_server: RedisServer,
) -> None:
    inbox = Inbox()
    async with bus(redis_server.url, "a", backlog=3) as a:
        async with bus(redis_server.url, "b", inbox):
            for n in range(5):  # all in one pass: the publisher has not run yet
                a.send("b", Inbound("x", str(n)))
            await inbox.until(3, broken=1)
        assert a.dropped == 2
    assert inbox.texts() == ["2", "3", "4"]
    assert inbox.broken == [("a", False)]


async def test_a_worker_first_heard_of_has_started_one_heard_of_before_was_born_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Every worker is told of each start: a warning only where links to it were cut."""
    a = bus("redis://127.0.0.1:9/0", "a")
    with caplog.at_level(logging.INFO, logger="flowergarden.server"):
        a.born_again("b", "i1")
        a.send("b", Inbound("x", "hello"))
        a.born_again("b", "i2")
    await a.client.aclose()
    await a._listening.aclose()
    said = [(record.levelname, record.getMessage()) for record in caplog.records]
    assert said == [
        ("INFO", "bus: b started (i1)"),
        ("WARNING", "bus: b was born again (i2): its links start over"),
    ]


def test_a_field_added_later_may_be_missing_and_no_other() -> None:
    """A worker of the release before sends ``Gone`` without its count (a deploy, both
    on one bus): it decodes, uncounted; a message short of a field it always had is
    malformed."""
    import msgpack

    decoded = decode(encode(Envelope("w1", "i1", 3, Gone("c1", 1000, 5)))).message
    assert decoded == Gone("c1", 1000, 5)
    packed = msgpack.unpackb(encode(Envelope("w1", "i1", 3, Gone("c1", 1000, 5))))
    older = msgpack.packb(packed[:-1], use_bin_type=True)
    assert decode(older).message == Gone("c1", 1000, -1)
    with pytest.raises(MalformedMessage):
        decode(msgpack.packb(packed[:-2], use_bin_type=True))


async def test_a_message_published_again_is_heard_once_and_breaks_nothing(
    redis_server: RedisServer,
) -> None:
    """A publish that timed out may have reached Redis: the sender publishes it again
    (make chaos: ``bus: -1 messages from w2 lost``, and a link broken for nothing)."""
    inbox = Inbox()
    async with bus(redis_server.url, "b", inbox) as b:
        first = encode(Envelope("a", "i1", 1, Inbound("x", "1")))
        for data in (first, first, encode(Envelope("a", "i1", 2, Inbound("x", "2")))):
            await b.client.publish(channel_of("b"), data)
        await inbox.until(2)
        await b.client.publish(channel_of("b"), encode(Envelope("a", "i1", 3, Inbound("x", "3"))))
        await inbox.until(3)
    assert inbox.texts() == ["1", "2", "3"]
    assert inbox.broken == []


async def test_a_sender_numbering_afresh_is_heard_from_its_first_message(
    redis_server: RedisServer,
) -> None:
    """A worker born again first heard another number on to its last incarnation (38),
    then afresh from 1 once that one learned it was born again: the new link's
    messages were dropped as heard already, a racer's ``game_state`` among them
    (``make chaos``'s seq gaps; a fresh clone's CI, a worker killed)."""
    inbox = Inbox()
    async with bus(redis_server.url, "a") as a, bus(redis_server.url, "b", inbox):
        a._sent["b"] = 37
        a.send("b", Inbound("x", "to the last b"))
        await inbox.until(1, broken=1)  # 37 lost, to this b's eyes
        a.born_again("b", "i2")  # a learns it: its link to b starts over at 1
        a.send("b", Inbound("y", "game_state"))
        a.send("b", Inbound("y", "played"))
        await inbox.until(3, broken=1)
    assert inbox.texts() == ["to the last b", "game_state", "played"]
    assert inbox.broken == [("a", False)]
