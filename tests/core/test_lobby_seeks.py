"""The lobby core's quick match: seekers with equal rules race, and a player in a game
asks for no other."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from core.events import Send
from protocol import (
    Cancel,
    Cancelled,
    CreateRoom,
    GameStart,
    Hello,
    JoinRoom,
    Rules,
    Seek,
    Seeking,
    decode,
)

from .helpers import kinds, messages
from .lobby_helpers import MIRROR, open_room, refusal, send, snapshot, start_race

if TYPE_CHECKING:
    from core.lobby import Lobby
    from protocol import ClientMessage

# -- quick match -------------------------------------------------------------------


def test_two_seekers_with_equal_rules_race_and_the_longest_waiting_takes_seat_0(
    lobby: Lobby,
) -> None:
    assert send(lobby, "ann", Seek()) == [Send(("ann",), Seeking(rules=Rules()))]
    out = send(lobby, "bob", Seek())
    assert kinds(out) == ["seeking", "game_start", "game_start"]
    assert out[0] == Send(("bob",), Seeking(rules=Rules()))
    starts = {send.to: send.message for send in out[1:] if isinstance(send, Send)}
    ann, bob = starts[("ann",)], starts[("bob",)]
    assert isinstance(ann, GameStart) and isinstance(bob, GameStart)
    assert (ann.seat, bob.seat, ann.players) == (0, 1, ["Ann", "Bob"])
    assert ann.game_id == bob.game_id
    assert lobby.race_of("ann") is lobby.race_of("bob") is lobby.race(ann.game_id)


def test_rules_match_once_their_defaults_are_filled_in(lobby: Lobby) -> None:
    send(lobby, "ann", decode('{"type": "seek"}'))
    out = send(
        lobby, "bob", decode('{"type": "seek", "rules": {"deal": "independent", "redeals": 0}}')
    )
    assert kinds(out) == ["seeking", "game_start", "game_start"]


def test_seekers_with_different_rules_do_not_match(lobby: Lobby) -> None:
    send(lobby, "ann", Seek())
    assert kinds(send(lobby, "bob", Seek(rules=MIRROR))) == ["seeking"]
    assert lobby.race_of("bob") is None
    assert snapshot(lobby).seeking == 2


def test_of_three_seekers_the_first_two_race(lobby: Lobby) -> None:
    for player in ("ann", "bob", "cat"):
        send(lobby, player, Seek())
    race = lobby.race_of("ann")
    assert race is not None and race.player_ids == ("ann", "bob")
    assert lobby.race_of("cat") is None
    assert snapshot(lobby).seeking == 1


def test_mirror_deals_both_players_the_same_board(lobby: Lobby) -> None:
    send(lobby, "ann", Seek(rules=MIRROR))
    start = messages(send(lobby, "bob", Seek(rules=MIRROR)))[1]
    assert isinstance(start, GameStart)
    assert start.boards[0] == start.boards[1]


def test_independent_deals_differ(lobby: Lobby) -> None:
    send(lobby, "ann", Seek())
    start = messages(send(lobby, "bob", Seek()))[1]
    assert isinstance(start, GameStart)
    assert start.boards[0] != start.boards[1]


def test_cancel_leaves_the_queue(lobby: Lobby) -> None:
    send(lobby, "ann", Seek())
    assert send(lobby, "ann", Cancel()) == [Send(("ann",), Cancelled())]
    assert kinds(send(lobby, "bob", Seek())) == ["seeking"]


def test_cancel_with_nothing_to_cancel_is_answered_all_the_same(lobby: Lobby) -> None:
    assert send(lobby, "ann", Cancel()) == [Send(("ann",), Cancelled())]


def be(lobby: Lobby, state: str) -> None:
    """Put Ann in ``state``."""
    if state == "seeking":
        send(lobby, "ann", Seek())
    elif state == "hosting":
        open_room(lobby, "ann")
    else:
        start_race(lobby, "ann", "bob")


@pytest.mark.parametrize("state", ["seeking", "hosting", "racing"])
@pytest.mark.parametrize("command", ["seek", "create_room", "join_room"])
def test_asking_for_another_game_while_in_one_is_busy(
    lobby: Lobby, state: str, command: str
) -> None:
    code = open_room(lobby, "dan")
    be(lobby, state)
    message: dict[str, ClientMessage] = {
        "seek": Seek(),
        "create_room": CreateRoom(),
        "join_room": JoinRoom(code=code),
    }
    before = snapshot(lobby)
    assert refusal(lobby, "ann", message[command]) == "busy"
    assert snapshot(lobby) == before


def test_a_second_hello_is_busy(lobby: Lobby) -> None:
    assert refusal(lobby, "ann", Hello(name="Ann")) == "busy"
