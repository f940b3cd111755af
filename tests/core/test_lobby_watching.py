"""Races through the lobby core: spectators who watch one, and the moves its players send."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from protocol import Cancel, GameState, Play, Redeal, Resign, Watch, encode

from .helpers import messages
from .lobby_helpers import a_play, end_race, inbox, refusal, send, start_race, watchers

if TYPE_CHECKING:
    from core.lobby import Lobby
    from protocol import ClientMessage

# -- spectators ------------------------------------------------------------------------


def test_a_spectator_gets_the_race_without_a_seat_then_every_event(lobby: Lobby) -> None:
    game_id = start_race(lobby, "ann", "bob")
    (state,) = messages(send(lobby, "dan", Watch(game_id=game_id)))
    assert isinstance(state, GameState)
    assert (state.game_id, state.seat, state.seq, state.over) == (game_id, None, 0, None)
    assert "seat" not in json.loads(encode(state))
    assert watchers(lobby, game_id) == {"dan"}
    out = send(lobby, "ann", a_play(lobby, "ann"))
    assert [m.type for m in inbox(lobby, out, "dan")] == ["played"]


def test_a_spectator_sees_the_race_end(lobby: Lobby) -> None:
    game_id = start_race(lobby, "ann", "bob")
    send(lobby, "dan", Watch(game_id=game_id))
    out = send(lobby, "ann", Resign())
    assert [m.type for m in inbox(lobby, out, "dan")] == ["status", "game_over"]
    assert inbox(lobby, out, "dan") == inbox(lobby, out, "bob")
    assert watchers(lobby, game_id) == set()


def test_watching_an_unknown_race_is_game_not_found(lobby: Lobby) -> None:
    assert refusal(lobby, "dan", Watch(game_id="nope")) == "game_not_found"


def test_watching_while_racing_is_busy(lobby: Lobby) -> None:
    start_race(lobby, "ann", "bob")
    other = start_race(lobby, "cat", "dan")
    assert refusal(lobby, "ann", Watch(game_id=other)) == "busy"


def test_a_spectator_who_starts_racing_stops_watching(lobby: Lobby) -> None:
    game_id = start_race(lobby, "ann", "bob")
    send(lobby, "cat", Watch(game_id=game_id))
    start_race(lobby, "cat", "dan")
    assert watchers(lobby, game_id) == set()


# -- moves through the lobby --------------------------------------------------------------

MOVES = [Play(card="AS"), Redeal(), Resign()]


@pytest.mark.parametrize("move", MOVES, ids=lambda move: move.type)
def test_a_move_outside_a_race_is_not_in_game(lobby: Lobby, move: ClientMessage) -> None:
    assert refusal(lobby, "ann", move) == "not_in_game"


@pytest.mark.parametrize("move", MOVES, ids=lambda move: move.type)
def test_a_move_after_game_over_is_game_over(lobby: Lobby, move: ClientMessage) -> None:
    start_race(lobby, "ann", "bob")
    end_race(lobby, "bob")
    assert refusal(lobby, "ann", move) == "game_over"


def test_a_move_after_moving_on_from_a_finished_race_is_not_in_game(lobby: Lobby) -> None:
    start_race(lobby, "ann", "bob")
    end_race(lobby, "bob")
    send(lobby, "ann", Cancel())
    assert refusal(lobby, "ann", Resign()) == "not_in_game"


def test_a_play_reaches_both_players(lobby: Lobby) -> None:
    start_race(lobby, "ann", "bob")
    out = send(lobby, "bob", a_play(lobby, "bob"))
    assert inbox(lobby, out, "ann") == inbox(lobby, out, "bob") == messages(out)
