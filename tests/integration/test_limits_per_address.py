"""What one IP address may do across all its connections: new players and room codes.

Every client here is 127.0.0.1, so each limit is reached from several
connections at once, and a player who is already known is served throughout.
"""

from __future__ import annotations

from .conftest import fresh_name


async def test_new_players_past_the_limit_are_rate_limited_and_the_known_go_on(
    start_server, connect, player
):
    server = await start_server(new_players_per_ip=3)
    known = await player(server)
    for _ in range(2):
        await player(server)
    refused_name = await connect(server)
    await refused_name.send(type="hello", name="not valid!", id="bad")
    await refused_name.error("bad_name", id="bad")  # a refused name makes nobody
    late = await connect(server)
    await late.send(type="hello", name=fresh_name(), id="new")
    error = await late.error("rate_limited", id="new")
    assert "address" in error["message"]
    await known.close()
    back = await connect(server)
    welcome = await back.hello(token=known.token)
    assert welcome["player_id"] == known.player_id
    await back.send(type="lobby", id="l")
    assert (await back.recv("lobby"))["online"] >= 1


async def test_wrong_room_codes_past_the_limit_refuse_every_join(start_server, player):
    server = await start_server(wrong_codes_per_ip=5)
    host, guesser, friend = [await player(server) for _ in range(3)]
    await host.send(type="create_room", id="r")
    code = (await host.recv("room"))["code"]
    for attempt in range(5):
        await guesser.send(type="join_room", code="ZZZZZZ", id=attempt)
        await guesser.error("room_not_found", id=attempt)
    await friend.send(type="join_room", code="YYYYYY", id="f")
    await friend.error("rate_limited", id="f")  # the same address
    await friend.send(type="join_room", code=code, id="right")
    await friend.error("rate_limited", id="right")  # even a right code: guessing stops
    await host.send(type="lobby", id="l")
    assert (await host.recv("lobby"))["online"] == 3  # the host is served meanwhile
