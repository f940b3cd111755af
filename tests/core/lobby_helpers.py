"""Helpers for the lobby core's tests: a lobby with Ann, Bob, Cat and Dan online, commands
sent to it, and what it answers."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest

import engine
from core.events import Queued, Refused, RoomListed, Send, SendPlayed
from core.lobby import Lobby
from protocol import (
    CreateRoom,
    GameOver,
    GameStart,
    LobbyRequest,
    LobbySnapshot,
    Play,
    Resign,
    Room,
    Rules,
    Seek,
)

from .helpers import GRACE, IDLE, message, messages

if TYPE_CHECKING:
    from core.events import Output
    from protocol import ClientMessage, ServerMessage

PLAYERS = ("ann", "bob", "cat", "dan")
MIRROR = Rules(deal="mirror")


def new_lobby(rng: random.Random | None = None) -> Lobby:
    """A lobby with Ann, Bob, Cat and Dan online (ids ``ann`` ... ``dan``)."""
    lobby = Lobby(rng=rng or random.Random(1), idle_limit=IDLE, grace=GRACE)
    for player in PLAYERS:
        lobby.connect(player, player.title(), 0.0)
    return lobby


def send(lobby: Lobby, player: str, message: ClientMessage, now: float = 1.0) -> list[Output]:
    """A command's outputs, but for what only other workers need (test_lobby_shared.py)."""
    outputs = lobby.handle(player, message, now)
    return [out for out in outputs if not isinstance(out, Queued | RoomListed)]


def refusal(lobby: Lobby, player: str, message: ClientMessage, now: float = 1.0) -> str:
    with pytest.raises(Refused) as refused:
        lobby.handle(player, message, now)
    return refused.value.code


def inbox(lobby: Lobby, outputs: list[Output], player: str) -> list[ServerMessage]:
    """What ``player`` receives of ``outputs``: the outputs name every receiver."""
    return [
        message(out) for out in outputs if isinstance(out, Send | SendPlayed) and player in out.to
    ]


def watchers(lobby: Lobby, game_id: str) -> frozenset[str]:
    """The spectators of a live race; nobody once it is over."""
    race = lobby.race(game_id)
    return race.watchers if race is not None else frozenset()


def snapshot(lobby: Lobby) -> LobbySnapshot:
    (reply,) = messages(send(lobby, "ann", LobbyRequest()))
    assert isinstance(reply, LobbySnapshot)
    return reply


def start_race(lobby: Lobby, first: str, second: str, rules: Rules = MIRROR) -> str:
    """Seek with ``first`` then ``second``; the id of their live race."""
    send(lobby, first, Seek(rules=rules))
    (start, _) = (
        m for m in messages(send(lobby, second, Seek(rules=rules))) if m.type == "game_start"
    )
    assert isinstance(start, GameStart)
    assert lobby.race(start.game_id) is not None, "pick another rng seed: this race ended at once"
    return start.game_id


def open_room(lobby: Lobby, host: str, **options: object) -> str:
    (reply,) = messages(send(lobby, host, CreateRoom(**options)))
    assert isinstance(reply, Room)
    return reply.code


def end_race(lobby: Lobby, loser: str) -> GameOver:
    """``loser`` resigns their race; the ``game_over``."""
    (over,) = (m for m in messages(send(lobby, loser, Resign())) if isinstance(m, GameOver))
    return over


def a_play(lobby: Lobby, player: str) -> Play:
    race = lobby.race_of(player)
    assert race is not None
    board = race.boards()[race.seat_of(player)]
    return Play(card=str(engine.greedy_plays(board)[0]))


def game_over_of(outputs: list[Output]) -> GameOver:
    (over,) = (m for m in messages(outputs) if isinstance(m, GameOver))
    return over
