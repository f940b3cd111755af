"""Hostile timing: requests that arrive together and compete.

Whatever the order the server reads them in, exactly one outcome wins, and
every receiver of a race sees the same ``seq`` stream.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from .conftest import WINNABLE, legal, play_out
from .hostile_helpers import assert_seq_stream, events_of, watch, write_at_once

if TYPE_CHECKING:
    from .conftest import Client, Race


def _play(card: str, request: str) -> str:
    return json.dumps({"type": "play", "card": card, "id": request})


async def _to_last_card(racing: Race) -> tuple[str, list[dict[str, Any]]]:
    """Play all but ``a``'s last card: that card, and ``a``'s acks."""
    board, acks = await play_out(racing.a, racing.board_a(), limit=51)
    assert board["count"] == 51
    (last,) = [*board["bouquet"], *(bed[-1] for bed in board["beds"] if bed)]
    return last, acks


async def _rest(client: Client) -> list[dict[str, Any]]:
    """The client's race events up to ``game_over``."""
    return events_of(await client.until("game_over"))


async def test_two_identical_plays_in_one_write(server, race, player):
    racing = await race(server)
    spectator = await player(server)
    await watch(spectator, racing.game_id)
    card = legal(racing.board_a())[0]
    write_at_once(racing.a, _play(card, "twice"), _play(card, "twice"))
    ack = await racing.a.recv("played")
    assert (ack["card"], ack["id"], ack["seq"]) == (card, "twice", 1)
    await racing.a.error("illegal_move", id="twice")
    event = events_of([ack])[0]
    assert await racing.b.recv() == event
    assert await spectator.recv() == event
    for client in (racing.a, racing.b, spectator):
        await client.quiet()  # one played each, nothing more


async def test_two_players_join_one_room_at_once(server, player):
    host = await player(server)
    await host.send(type="create_room", rules=WINNABLE)
    code = (await host.recv("room"))["code"]
    first, second = await player(server), await player(server)
    await asyncio.gather(
        first.send(type="join_room", code=code, id="j"),
        second.send(type="join_room", code=code.lower(), id="j"),
    )
    replies = [await first.recv(), await second.recv()]
    kinds = sorted(r["type"] if r["type"] != "error" else r["code"] for r in replies)
    assert kinds == ["game_start", "room_full"], replies
    start = next(r for r in replies if r["type"] == "game_start")
    assert start["id"] == "j"
    host_start = await host.recv("game_start")
    assert host_start["game_id"] == start["game_id"]
    assert (host_start["seat"], start["seat"]) == (0, 1)
    for client in (host, first, second):
        await client.quiet()


async def test_three_seekers_at_once_make_one_pair(server, player):
    seekers = [await player(server) for _ in range(3)]
    await asyncio.gather(*(s.send(type="seek", rules=WINNABLE) for s in seekers))
    for seeker in seekers:
        await seeker.recv("seeking")
    starts = []
    for seeker in seekers:
        await seeker.send(type="lobby", id="after")
        seen = await seeker.until("lobby")
        starts += [m for m in seen if m["type"] == "game_start"]
    assert len(starts) == 2, starts
    assert starts[0]["game_id"] == starts[1]["game_id"]
    assert sorted(s["seat"] for s in starts) == [0, 1]


async def test_two_connections_with_one_token_at_once(server, player, connect):
    original = await player(server)
    one, two = await connect(server), await connect(server)
    await asyncio.gather(
        one.send(type="hello", name="x", token=original.token),
        two.send(type="hello", name="x", token=original.token),
    )
    await original.expect_close(4000)
    # Both welcomed first: each hello takes its player over as it is welcomed, so only
    # then has the later one replaced the earlier (under load, the earlier could answer
    # a lobby before the later hello's store read was done, and seemed kept).
    for client in (one, two):
        welcome = await client.recv("welcome")
        assert welcome["player_id"] == original.player_id
    outcomes = []
    for client in (one, two):
        try:
            await client.quiet()
            outcomes.append("kept")
        except Exception:  # closed by the newer one: 4000
            outcomes.append("replaced")
    assert sorted(outcomes) == ["kept", "replaced"], outcomes


async def test_last_play_and_resign_in_one_write(server, race, player):
    racing = await race(server)
    spectator = await player(server)
    await watch(spectator, racing.game_id)
    last, acks = await _to_last_card(racing)
    write_at_once(racing.a, _play(last, "last"), json.dumps({"type": "resign", "id": "quit"}))
    mine = events_of(acks) + await _rest(racing.a)
    await racing.a.error("game_over", id="quit")  # the resign came too late
    assert mine == await _rest(racing.b) == await _rest(spectator)
    assert_seq_stream(mine)
    over = mine[-1]
    assert (over["reason"], over["winner"]) == ("cleared", racing.seat_a)
    for client in (racing.a, racing.b, spectator):
        await client.quiet()


async def test_resign_then_last_play_in_one_write(server, race, player):
    racing = await race(server)
    spectator = await player(server)
    await watch(spectator, racing.game_id)
    last, acks = await _to_last_card(racing)
    write_at_once(racing.a, json.dumps({"type": "resign", "id": "quit"}), _play(last, "last"))
    mine = events_of(acks) + await _rest(racing.a)
    await racing.a.error("game_over", id="last")  # the play came too late
    assert mine == await _rest(racing.b) == await _rest(spectator)
    assert_seq_stream(mine)
    assert mine[-2]["type"] == "status"
    over = mine[-1]
    assert (over["reason"], over["winner"]) == ("resigned", racing.seat_b)
    for client in (racing.a, racing.b, spectator):
        await client.quiet()


async def test_last_play_against_the_opponents_resign(server, race, player):
    racing = await race(server)
    spectator = await player(server)
    await watch(spectator, racing.game_id)
    last, acks = await _to_last_card(racing)
    await asyncio.gather(
        racing.a.send(type="play", card=last, id="last"),
        racing.b.send(type="resign", id="quit"),
    )
    mine, theirs = await racing.a.until("game_over"), await racing.b.until("game_over")
    assert events_of(acks) + events_of(mine) == events_of(theirs) == await _rest(spectator)
    over = theirs[-1]
    assert over["winner"] == racing.seat_a  # either way: a cleared, or b resigned
    # Whoever came second was told the race was over; nothing else happened.
    late = racing.b if over["reason"] == "cleared" else racing.a
    await late.error("game_over", id="quit" if late is racing.b else "last")
    assert_seq_stream(events_of(acks) + events_of(mine))
    for client in (racing.a, racing.b, spectator):
        await client.quiet()
