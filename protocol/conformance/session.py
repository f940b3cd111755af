"""The session's checks: ``hello`` and ``welcome``, the decoding errors, the limits.

PROTOCOL.md, "Transport", "Client to server" (``hello``), "Limits" and "Error
codes". Each ``error`` must carry the request's ``id`` when the frame had a
valid one, and the connection stays open after each.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from protocol import PROTOCOL_VERSION, RATE_BURST, RATE_PER_S, REVISION

from .wire import Peer

if TYPE_CHECKING:
    from .checks import Context, Tally

__all__ = ["errors_suite", "limits_suite", "session_suite"]

# Frames sent before hello, and the error each must get: decoding comes first.
BEFORE_HELLO = [
    ("{not json", "bad_json", None),
    ('{"type":"play","card":"ZZ","id":"e1"}', "bad_message", "e1"),
    ('{"type":"no_such_thing","id":"e2"}', "unknown_type", "e2"),
    ('{"type":"lobby","id":"e3"}', "hello_first", "e3"),
]

# Frames sent after hello: what each is, the error it must get, the id it must carry.
DECODING = [
    ("not JSON", "{not json", "bad_json", None),
    ("a JSON array", '[{"type":"lobby"}]', "bad_message", None),
    ("no type", '{"id":"r1"}', "bad_message", "r1"),
    ("a type that is not a string", '{"type":7,"id":"r2"}', "bad_message", "r2"),
    ("an unknown type, before its fields", '{"type":"nope","card":5,"id":3}', "unknown_type", 3),
    ("a card that is no card", '{"type":"play","card":"ZZ","id":"r4"}', "bad_message", "r4"),
    ("redeals: 2", '{"type":"seek","rules":{"redeals":2},"id":0}', "bad_message", 0),
    (
        "rated without mirror",
        '{"type":"seek","rules":{"rated":true},"id":"r5"}',
        "bad_message",
        "r5",
    ),
    ("an id that is no id", '{"type":"lobby","id":1.5}', "bad_message", None),
]


def _is_error(message: dict[str, Any], code: str, request_id: object) -> bool:
    if message.get("type") != "error" or message.get("code") != code:
        return False
    return message.get("id") == request_id if request_id is not None else "id" not in message


async def session_suite(ctx: Context) -> None:
    report = ctx.report
    peer = await Peer.open(ctx.url, report.log)
    try:
        got = []
        for frame, code, request_id in BEFORE_HELLO:
            await peer.send_raw(frame)
            got.append(_is_error(await peer.recv("error"), code, request_id))
        report.check(
            "before hello: bad_json, bad_message, unknown_type, then hello_first", all(got), got
        )
        welcome = await peer.hello()
        _check_welcome(report, welcome, peer.name)
        ctx.limits = dict(welcome.get("limits", {}))
        await peer.send(type="hello", name=peer.name, id="again")
        report.check("a second hello is busy", _is_error(await peer.recv(), "busy", "again"))
        await _names(ctx, peer.name)
    finally:
        await peer.close()
    bot = await Peer.open(ctx.url, report.log)
    try:
        welcome = await bot.hello(bot=True)
        report.check(
            "hello.bot: welcome.bot is true", welcome.get("bot") is True, welcome, revision=3
        )
    finally:
        await bot.close()


def _check_welcome(report: Tally, welcome: dict[str, Any], name: str) -> None:
    fields = (welcome.get("name"), welcome.get("protocol"))
    ids = all(isinstance(welcome.get(key), str) and welcome[key] for key in ("player_id", "token"))
    report.check(
        "welcome: player_id, token, the name, protocol 1",
        ids and fields == (name, PROTOCOL_VERSION),
        welcome,
    )
    rating = welcome.get("rating", {})
    report.check(
        "welcome.rating: 1500, provisional", rating == {"rating": 1500, "provisional": True}, rating
    )
    limits = welcome.get("limits", {})
    numbers = all(
        isinstance(limits.get(key), int | float) for key in ("idle_s", "grace_s", "max_message")
    )
    report.check("welcome.limits: idle_s, grace_s, max_message", numbers, limits)
    report.check(
        f"welcome.revision is {REVISION}",
        welcome.get("revision") == REVISION,
        welcome.get("revision"),
        revision=3,
    )
    report.check(
        "welcome.bot is false for a person",
        welcome.get("bot") is False,
        welcome.get("bot"),
        revision=3,
    )
    promised = (
        limits.get("burst"),
        limits.get("per_s"),
        isinstance(limits.get("hello_timeout_s"), int | float),
    )
    report.check(
        f"welcome.limits: burst {RATE_BURST}, per_s {RATE_PER_S}, hello_timeout_s",
        promised == (RATE_BURST, RATE_PER_S, True),
        limits,
        revision=3,
    )


async def _names(ctx: Context, taken: str) -> None:
    """The refusals of ``hello``: each leaves the connection waiting for another hello."""
    report = ctx.report
    peer = await Peer.open(ctx.url, report.log)
    try:
        cases: list[tuple[str, dict[str, Any], str]] = [
            ("a taken name, in another case", {"name": taken.upper()}, "name_taken"),
            ("a name with a space", {"name": "two words"}, "bad_name"),
            ("a name starting BOT-", {"name": "bot-" + taken[:12]}, "bad_name"),
            (
                "an unknown token",
                {"name": peer.name, "token": "no-such-token-" + taken},
                "bad_token",
            ),
            ("protocol 2", {"name": peer.name, "protocol": 2}, "unsupported_protocol"),
        ]
        for what, fields, code in cases:
            await peer.send(type="hello", id=code, **fields)
            report.check(f"hello with {what} is {code}", _is_error(await peer.recv(), code, code))
    finally:
        await peer.close()


async def errors_suite(ctx: Context) -> None:
    report = ctx.report
    peer = await Peer.open(ctx.url, report.log)
    try:
        await peer.hello()
        for what, frame, code, request_id in DECODING:
            await peer.send_raw(frame)
            reply = await peer.recv()
            report.check(f"{code} for {what}", _is_error(reply, code, request_id), reply)
        await peer.send(type="lobby", id="u", unknown=[1, {"x": None}])
        reply = await peer.recv()
        report.check(
            "unknown fields are ignored", (reply["type"], reply.get("id")) == ("lobby", "u"), reply
        )
        refusals = [
            ({"type": "play", "card": "AS"}, "not_in_game"),
            ({"type": "watch", "game_id": "nosuchrace0"}, "game_not_found"),
            ({"type": "join_room", "code": "ZZZZZZ"}, "room_not_found"),
        ]
        for request, code in refusals:
            await peer.send(**request, id=code)
            reply = await peer.recv()
            report.check(f"{request['type']} answered {code}", _is_error(reply, code, code), reply)
        await peer.send(type="cancel", id="c")
        reply = await peer.recv()
        report.check(
            "cancel with nothing to cancel is cancelled",
            reply == {"type": "cancelled", "id": "c"},
            reply,
        )
    finally:
        await peer.close()


async def limits_suite(ctx: Context) -> None:
    """What ``welcome.limits`` promises never limits a client within it."""
    report = ctx.report
    burst = int(ctx.limits.get("burst", RATE_BURST))
    per_s = float(ctx.limits.get("per_s", RATE_PER_S))
    peer = await Peer.open(ctx.url, report.log)
    try:
        await peer.hello()
        limited = await _flood(peer, [0.0] * burst)
        report.check(f"a burst of {burst} messages is not limited", limited == [], limited[:1])
        pace = [1 / per_s] * int(2 * per_s)
        limited = await _flood(peer, pace)
        report.check(f"then {per_s:g} a second for 2 s is not limited", limited == [], limited[:1])
        await _frame_sizes(ctx, peer)
    finally:
        await peer.close()


async def _flood(peer: Peer, gaps: list[float]) -> list[dict[str, Any]]:
    """Send one ``cancel`` after each gap while reading the replies; the refusals among them."""

    async def read() -> list[dict[str, Any]]:
        replies = [await peer.recv() for _ in gaps]
        return [reply for reply in replies if reply["type"] != "cancelled"]

    reader = asyncio.create_task(read())
    for i, gap in enumerate(gaps):
        if gap:
            await asyncio.sleep(gap)  # the pace promised: a rate, not a wait for an event
        await peer.send(type="cancel", id=i)
    return await reader


async def _frame_sizes(ctx: Context, peer: Peer) -> None:
    report = ctx.report
    size = int(ctx.limits.get("max_message", 4096))
    head = json.dumps({"type": "lobby", "id": "big", "pad": ""})
    frame = head[:-2] + "x" * (size - len(head)) + '"}'
    await peer.send_raw(frame)
    reply = await peer.recv()
    report.check(
        f"a frame of max_message ({size}) bytes is read",
        reply.get("id") == "big",
        reply.get("type"),
    )
    await peer.send_raw(frame[:-2] + 'x"}')
    code = await peer.closed()
    report.check("a frame over max_message is closed with 1009", code == 1009, code)
