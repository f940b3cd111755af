"""Hostile frames, fuzzed with hypothesis, against the real server.

Random JSON, wrong types, huge numbers, deep nesting, unicode (lone
surrogates too), unknown fields and types, frames about the size limit. The
expected answer to each is computed with :func:`protocol.decode`: exactly one
``error`` with the decoder's code (``hello_first`` for a valid message before
``hello``) and the request's ``id``, or close 1009 for a frame over the limit.
Two fuzz connections take turns, one before ``hello`` and one after; a race
between two well-behaved players and a spectator is played alongside, one
play every other frame, and must see an intact ``seq`` stream. Nothing may be
logged at ERROR (a handler that raised, a task that failed).

Hypothesis draws the frames up front (deterministically, no shrinking) and
the test replays them over the wire: one server and one event loop for all
of them. A failure names the frame.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st

from fuzz.decoder_fuzz import check
from protocol import DecodeError, Hello, decode

from .hostile_helpers import Lockstep, assert_seq_stream, drawn, watch

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from .conftest import Client, Servers

MAX_MESSAGE = 4096
FRAMES = 200

TYPES = ["hello", "lobby", "seek", "create_room", "join_room", "cancel", "play"]
TYPES += ["redeal", "resign", "rematch", "watch"]
FIELDS = ["name", "token", "protocol", "rules", "public", "code", "card", "game_id", "id"]

any_text = st.text(st.characters(codec=None, categories=None), max_size=12)  # surrogates too
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**300), max_value=10**300)
    | st.floats()
    | any_text
    | st.sampled_from(["AS", "TH", "KC", "ZZ", "1S", "as", "", "p" * 65, "0123456789abcdef"])
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(any_text, inner, max_size=4),
    max_leaves=12,
)
rules = st.dictionaries(
    st.sampled_from(["deal", "winnable_only", "redeals", "tiebreak", "time_limit_s", "x"]),
    st.sampled_from(["mirror", "independent", "draw", "first", None, True, 0, 1, 2, 29, 30, 3601])
    | json_values,
    max_size=4,
)
messages = st.builds(
    lambda kind, fields: {"type": kind, **fields} if kind is not ... else fields,
    st.sampled_from(TYPES) | any_text | json_values | st.just(...),
    st.dictionaries(st.sampled_from(FIELDS) | any_text, json_values | rules, max_size=4),
)
deep = st.integers(1, 2100).map(lambda n: '{"type":"lobby","x":' + "[" * n + "]" * n + "}")
huge = st.integers(1, 4060).map(lambda n: '{"type":"play","card":' + "9" * n + "}")
exponent = st.sampled_from(["1e400", "-1e400", "1e-400", "NaN", "Infinity", "-0"]).map(
    lambda x: '{"type":"lobby","id":' + x + "}"
)
near_limit = st.integers(-3, 3).map(
    lambda d: '{"type":"lobby","pad":"' + "x" * (MAX_MESSAGE - 29 + d) + '"}'
)
garbage = st.text(max_size=40)  # no lone surrogates: a text frame must be UTF-8


@st.composite
def frames(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["json", "message", "deep", "huge", "exp", "near", "garbage"]))
    if kind in ("json", "message"):
        value = draw(json_values if kind == "json" else messages)
        ascii_only = draw(st.booleans())
        text = json.dumps(value, ensure_ascii=ascii_only, allow_nan=True)
        try:
            text.encode()
        except UnicodeEncodeError:  # a lone surrogate: only escaped can it go in a text frame
            text = json.dumps(value, allow_nan=True)
        return text
    strategy = {"deep": deep, "huge": huge, "exp": exponent, "near": near_limit}
    return draw(strategy.get(kind, garbage))


def expected(frame: str, welcomed: bool) -> tuple[str, Any] | None:
    """``("close", 1009)``, ``(error code, id)``, or None: not a frame for this test."""
    if len(frame.encode()) > MAX_MESSAGE:
        return ("close", 1009)
    try:
        message = decode(frame)
    except DecodeError as exc:
        return (exc.code, exc.id)
    if welcomed or isinstance(message, Hello):
        return None  # valid: would change what the server knows of this player
    return ("hello_first", message.id)


@dataclass
class Fuzzer:
    """One fuzz connection, opened again after a 1009."""

    connect: Callable[[], Awaitable[Client]]
    welcomed: bool
    client: Client | None = None

    async def exchange(self, frame: str) -> bool:
        """Send ``frame`` and check the answer; False when it is not one for this connection."""
        answer = expected(frame, self.welcomed)
        if answer is None:
            return False
        if self.client is None:
            self.client = await self.connect()
            if self.welcomed:
                await self.client.hello()
        client = self.client
        await client.send_raw(frame)
        if answer[0] == "close":
            assert await client.expect_close(1009) == [], frame[:200]
            self.client = None
            return True
        code, request_id = answer
        reply = await client.recv()
        assert reply["type"] == "error", (frame[:200], reply)
        assert reply["code"] == code, (frame[:200], reply)
        assert reply.get("id") == request_id, (frame[:200], reply)
        return True

    async def done(self) -> None:
        """Nothing more is waiting: the frames had one answer each."""
        if self.client is None:
            return
        if self.welcomed:
            await self.client.quiet()
        else:
            await self.client.send(type="lobby", id="end")
            await self.client.error("hello_first", id="end")


async def test_fuzzed_frames_get_their_documented_errors(
    servers: Servers, start_server, race, player, caplog
):
    caplog.set_level(logging.WARNING)
    server = await start_server(hello_timeout=60)  # the unwelcomed fuzzer must outlast the run
    fuzzers = [
        Fuzzer(lambda: servers.connect(server), welcomed=False),
        Fuzzer(lambda: servers.connect(server), welcomed=True),
    ]
    racing = await race(server)
    spectator = await player(server)
    await watch(spectator, racing.game_id)
    lockstep = Lockstep(racing, [spectator])
    turns = asyncio.Semaphore(0)

    async def fuzz() -> int:
        sent = 0
        for i, frame in enumerate(drawn(frames(), FRAMES)):
            for fuzzer in fuzzers[i % 2 :] + fuzzers[: i % 2]:
                if await fuzzer.exchange(frame):
                    sent += 1
                    break
            if i % 2:
                turns.release()  # the race plays once every other frame
        for fuzzer in fuzzers:
            await fuzzer.done()
        for _ in range(200):
            turns.release()  # and then to its end
        return sent

    async with asyncio.TaskGroup() as group:
        fuzzing = group.create_task(fuzz())
        group.create_task(lockstep.finish(turns.acquire))
    assert fuzzing.result() > FRAMES * 3 // 4, "most frames should have been sent"
    assert_seq_stream(lockstep.events)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


def test_the_decoder_fuzz_target_runs():
    """``fuzz/decoder_fuzz.py`` is run by hand with atheris; its property, here."""
    for data in [
        b"",
        b"{}",
        b"\xff\xfe",
        b'{"type":"play","card":"AS","id":7}',
        b'{"type":"seek","rules":{"redeals":2}}',
        b'{"type":"hello","name":"x","id":1e999}',
        b'"\\ud800"',
        b"[" * 5000,
        b'{"type":"nope","id":"' + b"x" * 65 + b'"}',
        '{"type":"lobby","x":"\u00e9\u2603\U0001f338"}'.encode(),
    ]:
        check(data)
