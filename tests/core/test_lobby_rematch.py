"""Rematches in the lobby core: offered, started with the same rules and seats, and
lapsed once either player moves on."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from core.events import Send
from protocol import (
    Cancel,
    GameStart,
    JoinRoom,
    Rematch,
    RematchOffered,
    RematchWaiting,
    Rules,
    Seek,
    Watch,
)

from .helpers import kinds
from .lobby_helpers import end_race, open_room, refusal, send, snapshot, start_race

if TYPE_CHECKING:
    from core.lobby import Lobby

# -- rematch -------------------------------------------------------------------------------


def test_a_rematch_is_registered_for_the_asker_and_offered_to_the_opponent(lobby: Lobby) -> None:
    game_id = start_race(lobby, "ann", "bob")
    end_race(lobby, "bob")
    assert send(lobby, "ann", Rematch()) == [
        Send(("ann",), RematchWaiting(game_id=game_id)),
        Send(("bob",), RematchOffered(game_id=game_id)),
    ]


def test_when_both_ask_a_rematch_starts_with_the_same_rules_and_seats(lobby: Lobby) -> None:
    rules = Rules(deal="mirror", tiebreak="first", redeals=1)
    code = open_room(lobby, "ann", rules=rules)
    send(lobby, "bob", JoinRoom(code=code))
    old = end_race(lobby, "ann").game_id
    send(lobby, "bob", Rematch())
    out = send(lobby, "ann", Rematch())
    assert kinds(out) == ["game_start", "game_start"]
    starts = {send.to: send.message for send in out if isinstance(send, Send)}
    for player, seat in (("ann", 0), ("bob", 1)):
        start = starts[(player,)]
        assert isinstance(start, GameStart)
        assert (start.seat, start.rules, start.players) == (seat, rules, ["Ann", "Bob"])
        assert start.game_id != old


def leave_for(lobby: Lobby, action: str) -> None:
    """Ann moves on after her race with Bob: ``action``."""
    if action == "seek":
        send(lobby, "ann", Seek())
    elif action == "create_room":
        open_room(lobby, "ann")
    elif action == "join_room":
        send(lobby, "ann", JoinRoom(code=open_room(lobby, "cat")))
    elif action == "watch":
        send(lobby, "ann", Watch(game_id=start_race(lobby, "cat", "dan")))
    elif action == "cancel":
        send(lobby, "ann", Cancel())
    else:
        lobby.disconnect("ann", 2.0)


@pytest.mark.parametrize(
    "action", ["seek", "create_room", "join_room", "watch", "cancel", "disconnect"]
)
def test_a_rematch_offer_lapses_when_either_player_moves_on(lobby: Lobby, action: str) -> None:
    start_race(lobby, "ann", "bob")
    end_race(lobby, "bob")
    send(lobby, "bob", Rematch())
    leave_for(lobby, action)
    assert refusal(lobby, "bob", Rematch()) == "game_not_found"
    if action not in {"join_room", "disconnect"}:  # Ann is not racing, nor gone
        assert refusal(lobby, "ann", Rematch()) == "game_not_found"


def test_a_rematch_offer_outlives_a_look_at_the_lobby_and_a_refused_command(lobby: Lobby) -> None:
    start_race(lobby, "ann", "bob")
    end_race(lobby, "bob")
    send(lobby, "bob", Rematch())
    snapshot(lobby)  # Ann looks at the lobby
    refusal(lobby, "ann", JoinRoom(code="ZZZZZZ"))  # changes nothing
    assert kinds(send(lobby, "ann", Rematch())) == ["game_start", "game_start"]


def test_no_rematch_is_offered_when_a_player_was_away_at_the_end(lobby: Lobby) -> None:
    start_race(lobby, "ann", "bob")
    lobby.disconnect("ann", 2.0)
    end_race(lobby, "bob")
    lobby.connect("ann", "Ann", 3.0)
    assert refusal(lobby, "ann", Rematch()) == "game_not_found"


def test_a_rematch_without_a_finished_race_is_not_in_game(lobby: Lobby) -> None:
    assert refusal(lobby, "ann", Rematch()) == "not_in_game"


def test_a_rematch_while_racing_is_busy(lobby: Lobby) -> None:
    start_race(lobby, "ann", "bob")
    assert refusal(lobby, "ann", Rematch()) == "busy"
