"""Helpers for the core tests: deals with a known outcome, races, and reading outputs.

The cores take ``now`` on every input, so these tests drive time by hand and
never run an event loop.
"""

from __future__ import annotations

import itertools
from functools import cache
from typing import TYPE_CHECKING, Any

import pytest

import engine
from core.events import Journaled, Output, RaceEnded, RaceStarted, Refused, Send, SendPlayed, Wake
from core.race import Race, SeatInfo
from protocol import GameOver, Rules, decode_server

if TYPE_CHECKING:
    from protocol import ServerMessage

ANN = SeatInfo("p-ann", "Ann")
BOB = SeatInfo("p-bob", "Bob")
BOTH = (ANN.player_id, BOB.player_id)
IDLE = 60.0
GRACE = 30.0


@cache
def seed_with(count: int, start: int = 0) -> int:
    """The first seed from ``start`` whose deal's final count (without a redeal) is ``count``."""
    return next(s for s in itertools.count(start) if engine.final_count(engine.deal(s)) == count)


NO_PLAY = seed_with(0)
"""A deal with no play at all: all four Aces are buried."""
NO_PLAY_TOO = seed_with(0, NO_PLAY + 1)
"""Another one, so that two players can have different deals that both allow no play."""
ONE, TWO, THREE = seed_with(1), seed_with(2), seed_with(3)
"""Deals whose final counts are 1, 2 and 3."""


@cache
def seed_bytes_with(count: int, start: int = 0) -> bytes:
    """The first 32-byte seed from ``start`` whose classic layout's final count is ``count``."""
    for number in itertools.count(start):
        seed = number.to_bytes(engine.SEED_SIZE, "big")
        if engine.final_count(engine.dealing.classic(seed)) == count:
            return seed
    raise AssertionError("unreachable")  # pragma: no cover


@cache
def redeal_with_a_play(seed: int) -> int:
    """A redeal seed that gives the deal of ``seed``, played out, a play again."""
    for redeal in itertools.count():
        board = engine.Board(engine.deal(seed), 1)
        for card in engine.greedy_plays(board):
            board.play(card)
        board.redeal(engine.LegacyDealer(seed, redeal).redeal)
        if board.has_play():
            return redeal
    raise AssertionError("unreachable")  # pragma: no cover


def make_race(deal0: int, deal1: int, *, redeal0: int = 0, redeal1: int = 1, **rules: Any) -> Race:
    """A race between Ann (seat 0) and Bob (seat 1) on these deals, not yet started.

    Integer seeds, dealt as races were before verifiable deals (engine.LegacyDealer):
    the simplest way to ask for a deal with a known outcome, and a path the
    race core keeps for races restored from then.
    """
    dealers = (engine.LegacyDealer(deal0, redeal0), engine.LegacyDealer(deal1, redeal1))
    return Race("race-1", (ANN, BOB), Rules(**rules), dealers, idle_limit=IDLE, grace=GRACE)


def started(deal0: int, deal1: int, **rules: Any) -> Race:
    """A race started at time 0."""
    race = make_race(deal0, deal1, **rules)
    race.start(0.0)
    return race


def play(race: Race, seat: int, plays: int, now: float) -> list[Output]:
    """Make ``seat``'s next ``plays`` legal plays (in greedy order) at ``now``."""
    cards = engine.greedy_plays(race.boards()[seat])
    assert len(cards) >= plays, f"seat {seat} has only {len(cards)} plays"
    out: list[Output] = []
    for card in cards[:plays]:
        out += race.play(seat, card, now)
    return out


def play_out(race: Race, seat: int, now: float) -> list[Output]:
    """Make every play ``seat`` has left, at ``now``."""
    return play(race, seat, len(engine.greedy_plays(race.boards()[seat])), now)


def message(send: Send | SendPlayed) -> ServerMessage:
    """What ``send`` delivers, as a model (a ``played`` as the glue encodes it, decoded)."""
    if isinstance(send, Send):
        return send.message
    frame = send.frame()
    return decode_server(frame)


def messages(outputs: list[Output]) -> list[ServerMessage]:
    return [message(out) for out in outputs if isinstance(out, Send | SendPlayed)]


def sends(outputs: list[Output]) -> list[Output]:
    """``outputs`` without the timer's and the journal's (the tests of those read them)."""
    return [out for out in outputs if not isinstance(out, Wake | Journaled | RaceStarted)]


def journaled(outputs: list[Output]) -> list[Journaled]:
    return [out for out in outputs if isinstance(out, Journaled)]


def wakes(outputs: list[Output]) -> list[Wake]:
    return [out for out in outputs if isinstance(out, Wake)]


def kinds(outputs: list[Output]) -> list[str]:
    """Each output's message type, or ``"RaceEnded"``; the timer's and the journal's left out."""
    return [
        "RaceEnded" if isinstance(out, RaceEnded) else message(out).type for out in sends(outputs)
    ]


def game_over(outputs: list[Output]) -> GameOver:
    """The ``game_over`` among ``outputs``."""
    (over,) = (m for m in messages(outputs) if isinstance(m, GameOver))
    return over


def race_ended(outputs: list[Output]) -> RaceEnded:
    (ended,) = (out for out in outputs if isinstance(out, RaceEnded))
    return ended


ENDING = ["status", "RaceEnded", "game_over"]
"""What a status change that decides the race gives."""


def refusal(move: object) -> str:
    """The error code of a refused move (a callable taking no argument)."""
    assert callable(move)
    with pytest.raises(Refused) as refused:
        move()
    return refused.value.code
