"""Players leaving and coming back to the lobby core: the queue, rooms and watching
they leave, and the race they resume."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.events import Queued, Send, Wake
from protocol import GameState, JoinRoom, OpponentAway, OpponentBack, Seek, Watch

from .helpers import GRACE, IDLE, kinds, messages
from .lobby_helpers import (
    a_play,
    game_over_of,
    open_room,
    refusal,
    send,
    snapshot,
    start_race,
    watchers,
)

if TYPE_CHECKING:
    from core.lobby import Lobby

# -- connections ------------------------------------------------------------------------------


def test_disconnecting_leaves_the_queue(lobby: Lobby) -> None:
    send(lobby, "ann", Seek())
    assert lobby.disconnect("ann", 2.0) == [Queued("ann", None)]
    assert kinds(send(lobby, "bob", Seek())) == ["seeking"]
    assert snapshot(lobby).seeking == 1


def test_disconnecting_closes_ones_room(lobby: Lobby) -> None:
    code = open_room(lobby, "ann", public=True)
    lobby.disconnect("ann", 2.0)
    assert refusal(lobby, "bob", JoinRoom(code=code)) == "room_not_found"
    assert snapshot(lobby).rooms == []


def test_disconnecting_stops_watching(lobby: Lobby) -> None:
    game_id = start_race(lobby, "ann", "bob")
    send(lobby, "dan", Watch(game_id=game_id))
    lobby.disconnect("dan", 2.0)
    assert watchers(lobby, game_id) == set()


def test_disconnecting_while_racing_tells_the_opponent(lobby: Lobby) -> None:
    game_id = start_race(lobby, "ann", "bob")
    out = lobby.disconnect("ann", 2.0)
    assert out == [
        Send(("bob",), OpponentAway(game_id=game_id, grace_s=30)),
        Wake(game_id, 2.0 + GRACE),
    ]


def test_connecting_again_resumes_the_race(lobby: Lobby) -> None:
    game_id = start_race(lobby, "ann", "bob")
    send(lobby, "ann", a_play(lobby, "ann"))
    lobby.disconnect("ann", 2.0)
    state, back, wake = lobby.connect("ann", "Ann", 10.0)
    assert wake == Wake(
        game_id, 1.0 + IDLE
    )  # Bob's idle limit, from the deal, before Ann's fresh one
    assert isinstance(state, Send) and state.to == ("ann",)
    assert isinstance(state.message, GameState)
    assert (state.message.seat, state.message.seq, state.message.over) == (0, 1, None)
    assert back == Send(("bob",), OpponentBack(game_id=game_id))


def test_a_race_that_ended_while_away_is_shown_on_connecting(lobby: Lobby) -> None:
    game_id = start_race(lobby, "ann", "bob")
    lobby.disconnect("ann", 2.0)
    assert lobby.tick(game_id, 2.0 + GRACE - 0.001) == [Wake(game_id, 2.0 + GRACE)]
    out = lobby.tick(game_id, 2.0 + GRACE)
    over = game_over_of(out)
    assert (over.winner, over.reason) == (1, "abandoned")
    assert lobby.race(game_id) is None and out[-1] == Wake(game_id, None)
    (state,) = messages(lobby.connect("ann", "Ann", 40.0))
    assert isinstance(state, GameState)
    assert (state.seat, state.over) == (0, over)
    lobby.disconnect("ann", 41.0)
    assert lobby.connect("ann", "Ann", 42.0) == []  # shown once
