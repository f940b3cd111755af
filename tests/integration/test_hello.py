"""``hello`` and ``welcome``, and the checks that come before anything else."""

from __future__ import annotations

import asyncio

import pytest

from protocol import PROTOCOL_VERSION

from .conftest import fresh_name


async def test_hello_makes_a_new_player(server, connect):
    client = await connect(server)
    name = fresh_name("Ann")
    await client.send(type="hello", name=name, protocol=1, id="h1")
    welcome = await client.recv("welcome")
    assert welcome["name"] == name
    assert welcome["protocol"] == PROTOCOL_VERSION == 1
    assert welcome["player_id"] and len(welcome["token"]) >= 32
    assert welcome["id"] == "h1"


async def test_welcome_gives_the_servers_limits(start_server, connect):
    server = await start_server(idle_timeout=45, grace=2.5, max_message=2048, hello_timeout=7.5)
    client = await connect(server)
    await client.send(type="hello", name=fresh_name("Lim"))
    welcome = await client.recv("welcome")
    assert welcome["limits"] == {
        "idle_s": 45,
        "grace_s": 2.5,
        "max_message": 2048,
        "burst": 200,
        "per_s": 50,
        "hello_timeout_s": 7.5,
    }
    assert (welcome["revision"], welcome["bot"]) == (3, False)


async def test_hello_without_protocol_is_protocol_1(server, connect):
    client = await connect(server)
    welcome = await client.hello()
    assert welcome["protocol"] == 1


async def test_token_brings_the_same_player_back_and_ignores_the_name(server, connect, player):
    first = await player(server)
    await first.close()
    again = await connect(server)
    # The name is ignored with a token, even one that would be refused.
    welcome = await again.hello("not a valid name!", token=first.token, id=7)
    assert welcome["player_id"] == first.player_id
    assert welcome["name"] == first.name
    assert welcome["token"] == first.token
    assert welcome["id"] == 7


async def test_unsupported_protocol(server, connect):
    client = await connect(server)
    await client.send(type="hello", name=fresh_name(), protocol=2, id="p")
    await client.error("unsupported_protocol", id="p")
    await client.hello()  # the connection stays open, and nothing was made


@pytest.mark.parametrize("name", ["", "two words", "x" * 21, "émile", "semi;colon"])
async def test_bad_name(server, connect, name):
    client = await connect(server)
    await client.send(type="hello", name=name, id="n")
    await client.error("bad_name", id="n")
    await client.hello()


async def test_longest_name_and_every_allowed_character(server, connect):
    client = await connect(server)
    name = "aZ09_-" + fresh_name()[-14:].rjust(14, "q")
    assert len(name) == 20
    welcome = await client.hello(name)
    assert welcome["name"] == name


async def test_name_taken_ignoring_case(server, connect, player):
    taken = await player(server, fresh_name("Bob"))
    client = await connect(server)
    await client.send(type="hello", name=taken.name.upper(), id=1)
    await client.error("name_taken", id=1)
    await client.send(type="hello", name=taken.name.lower())
    await client.error("name_taken")


async def test_a_name_stays_taken_after_its_player_left(server, connect, player):
    gone = await player(server)
    await gone.close()
    client = await connect(server)
    await client.send(type="hello", name=gone.name)
    await client.error("name_taken")


async def test_bad_token(server, connect):
    client = await connect(server)
    await client.send(type="hello", name=fresh_name(), token="no-such-token", id="t")
    await client.error("bad_token", id="t")
    await client.hello()


async def test_second_hello_is_busy(server, player):
    client = await player(server)
    await client.send(type="hello", name=fresh_name(), id="again")
    await client.error("busy", id="again")
    await client.quiet()


async def test_anything_before_hello_is_hello_first(server, connect):
    client = await connect(server)
    await client.send(type="lobby", id="early")
    await client.error("hello_first", id="early")
    await client.send(type="play", card="AS")
    await client.error("hello_first")
    await client.hello()


async def test_checks_come_in_order_before_hello(server, connect):
    """bad_json, bad_message, unknown_type, then hello_first (PROTOCOL.md, Transport)."""
    client = await connect(server)
    await client.send_raw("{not json")
    await client.error("bad_json")
    await client.send(type="play", card="1X", id="m")
    await client.error("bad_message", id="m")
    await client.send(type="dance", id="u")
    await client.error("unknown_type", id="u")
    await client.send(type="hello")  # hello without a name is malformed
    await client.error("bad_message")
    await client.hello()


async def test_two_hellos_with_one_name_at_once(server, connect):
    first, second = await connect(server), await connect(server)
    name = fresh_name("Twin")
    await asyncio.gather(
        first.send(type="hello", name=name), second.send(type="hello", name=name.lower())
    )
    replies = [await first.recv(), await second.recv()]
    assert sorted(reply["type"] for reply in replies) == ["error", "welcome"]
    assert next(r for r in replies if r["type"] == "error")["code"] == "name_taken"


async def test_a_bots_name_is_not_for_a_person(server, connect):
    for name in ("BOT-Hare", "bot-anything"):
        client = await connect(server)
        await client.send(type="hello", name=name)
        refused = await client.recv("error")
        assert refused["code"] == "bad_name", name
