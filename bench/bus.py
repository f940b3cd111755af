"""How the bus between workers is best carried: measured, so that the choice is not a guess.

``python -m bench.bus [--messages N]`` starts a Redis of its own and compares, for
the messages workers send each other most (a frame for a socket on another
worker, ``Outbound``):

* the encoding: JSON with the frame in base64 (the bus before) against
  MessagePack with the frame as bytes (:mod:`server.cluster.bus_codec`), in µs a
  message each way and bytes on the wire;
* the delivery: pub/sub with a number per link (:mod:`server.cluster.bus`:
  at most once, a loss noticed and resynchronised) against Redis Streams with a
  consumer group and an acknowledgement per message (at least once), in messages
  a second from one worker to another through a real Redis, and in the latency
  of one message at a time (what a play across two workers waits).

The last line is JSON, as the other benchmarks print.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import time
from typing import TYPE_CHECKING, Any

import redis.asyncio as redis

from server.cluster.bus import Bus
from server.cluster.bus_codec import Envelope, decode, encode
from server.cluster.to_socket import Outbound

from .services import redis as running_redis

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main"]

FRAME = (
    b'{"type":"played","game_id":"5f2c9a1b3d4e6f70","seat":1,"card":"QH","from":"bed",'
    b'"bed":3,"count":27,"status":"playing","t_ms":18342,"seq":54}'
)


def _per_message(run: Any, count: int) -> float:
    began = time.perf_counter()
    run(count)
    return (time.perf_counter() - began) / count * 1e6


def encodings(count: int) -> dict[str, float]:
    """µs to encode and decode one ``Outbound``, and its size, both ways."""
    envelope = Envelope("w1", "a1b2c3d4", 12345, Outbound("w1:42", FRAME))
    as_json = json.dumps(
        {"k": "out", "c": "w1:42", "d": base64.b64encode(FRAME).decode(), "s": 12345}
    ).encode()

    def json_round(n: int) -> None:
        for _ in range(n):
            data = json.dumps(
                {"k": "out", "c": "w1:42", "d": base64.b64encode(FRAME).decode(), "s": 12345}
            ).encode()
            base64.b64decode(json.loads(data)["d"])

    def msgpack_round(n: int) -> None:
        for _ in range(n):
            decode(encode(envelope))

    return {
        "json_base64_us": round(_per_message(json_round, count), 3),
        "msgpack_us": round(_per_message(msgpack_round, count), 3),
        "json_base64_bytes": len(as_json),
        "msgpack_bytes": len(encode(envelope)),
    }


async def pubsub_rate(url: str, count: int) -> float:
    """Messages a second from one worker's bus to another's, numbered links and all."""
    done = asyncio.Event()
    seen = 0

    def arrived(_: Envelope) -> None:
        nonlocal seen
        seen += 1
        if seen == count:
            done.set()

    async with Bus(url, "a", "i1", lambda _: None) as a, Bus(url, "b", "i1", arrived):
        began = time.perf_counter()
        for n in range(count):
            a.send("b", Outbound("a:1", FRAME))
            if n % 500 == 499:
                await asyncio.sleep(0)  # passes of the loop, as a busy worker has
        await asyncio.wait_for(done.wait(), 120)
        return count / (time.perf_counter() - began)


async def pubsub_latency(url: str, count: int) -> list[float]:
    """Milliseconds from ``send`` to the receiver's handler, one message at a time."""
    arrived = asyncio.Event()
    times: list[float] = []
    async with (
        Bus(url, "a", "i1", lambda _: None) as a,
        Bus(url, "b", "i1", lambda _: arrived.set()),
    ):
        for _ in range(count):
            arrived.clear()
            began = time.perf_counter()
            a.send("b", Outbound("a:1", FRAME))
            await asyncio.wait_for(arrived.wait(), 10)
            times.append((time.perf_counter() - began) * 1000)
    return times


async def stream_latency(url: str, count: int) -> list[float]:
    """The same through a stream read with a blocking ``XREADGROUP``, and acknowledged."""
    client = redis.Redis.from_url(url)
    await client.xgroup_create("bench:lat", "b", id="0", mkstream=True)
    payload = encode(Envelope("a", "i1", 1, Outbound("a:1", FRAME)))
    times: list[float] = []
    for _ in range(count):
        began = time.perf_counter()
        await client.xadd("bench:lat", {"m": payload})
        found: Any = await client.xreadgroup("b", "b1", {"bench:lat": ">"}, count=1, block=1000)
        ((_, ((entry_id, fields),)),) = found
        decode(fields[b"m"])
        await client.xack("bench:lat", "b", entry_id)
        times.append((time.perf_counter() - began) * 1000)
    await client.aclose()
    return times


def _quantiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return (
        round(ordered[len(ordered) // 2], 3),
        round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3),
    )


async def stream_rate(url: str, count: int) -> float:
    """The same through a stream, a consumer group and an ``XACK`` per message."""
    client = redis.Redis.from_url(url)
    await client.xgroup_create("bench:b", "b", id="0", mkstream=True)
    payload = encode(Envelope("a", "i1", 1, Outbound("a:1", FRAME)))

    async def produce() -> None:
        for start in range(0, count, 500):
            async with client.pipeline(transaction=False) as pipe:
                for _ in range(start, min(count, start + 500)):
                    pipe.xadd("bench:b", {"m": payload})
                await pipe.execute()

    async def consume() -> None:
        got = 0
        while got < count:
            found: Any = await client.xreadgroup("b", "b1", {"bench:b": ">"}, count=500, block=1000)
            for _, entries in found:
                ids = [entry_id for entry_id, fields in entries if decode(fields[b"m"])]
                if ids:
                    await client.xack("bench:b", "b", *ids)
                got += len(ids)

    began = time.perf_counter()
    await asyncio.gather(produce(), consume())
    rate = count / (time.perf_counter() - began)
    await client.aclose()
    return rate


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bus", description=__doc__)
    parser.add_argument("--messages", type=int, default=20_000)
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"messages": args.messages, **encodings(args.messages)}
    with running_redis() as server:
        results["pubsub_msgs_per_s"] = round(asyncio.run(pubsub_rate(server.url, args.messages)))
        results["streams_msgs_per_s"] = round(asyncio.run(stream_rate(server.url, args.messages)))
        samples = min(2000, args.messages)
        p50, p99 = _quantiles(asyncio.run(pubsub_latency(server.url, samples)))
        results["pubsub_p50_ms"], results["pubsub_p99_ms"] = p50, p99
        p50, p99 = _quantiles(asyncio.run(stream_latency(server.url, samples)))
        results["streams_p50_ms"], results["streams_p99_ms"] = p50, p99
    for key, value in results.items():
        print(f"{key:>22}: {value}")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
