"""A bot's policy: which card it plays next, and after how long. Pure: no clock, no I/O.

Theory of operation
-------------------
:meth:`BotPolicy.next_move` looks at the bot's board, as a person looks at
theirs, and says what to do next and how many seconds after seeing the board:
a :class:`BotMove` that plays a card, or uses the redeal when the board is stuck
with one left, or None when there is nothing to do (the board is stalled or
cleared, or the next card would come after the race's clock has run out). The
caller waits ``delay`` seconds and makes the move, and asks again each time the
bot's own board changes (the deal, each of its plays and its redeal accepted, a
resync); the opponent's plays do not change it. Randomness comes only from the
``random.Random`` it is given: the server seeds one from :mod:`secrets` at the
edge, a test seeds its own.

The time before a card (PROTOCOL.md, "Bots": about 2.0, 1.2, 0.8, 0.5 and 0.3 s
a card for levels 1 to 5) is a reaction plus a search, as a person's is:

* **reaction**: lognormal, with the level's mean (:attr:`Pace.reaction`) and a
  spread of :data:`REACTION_SIGMA` (on the log scale): the time to take in a
  changed board and move a hand, about the same for every card;
* **search**: the level's seconds per unit of effort (:attr:`Pace.unit`) times
  the chosen card's effort, times a lognormal noise of mean 1 and spread
  :data:`SEARCH_SIGMA`. The effort is ``place * (visible + 1) / (playable + 1)``:
  looking over ``visible`` cards (the bouquet and the beds' fronts) in no
  particular order, a person meets the first of ``playable`` good ones after
  ``(visible + 1) / (playable + 1)`` looks on average, so a full board with one
  card to find is slow and a thin one with three is quick; ``place`` says how
  hard the card is to see where it is: :data:`PLACE` (the bouquet, fanned out
  in view, 1.0; a bed's front, 1.6; a follow-up, 0.5).

A *follow-up* is where the eyes already are: the next card of the suit this bot
just played, or the card its play uncovered in that bed. Which card the bot
plays is drawn among the playable ones with the weights :data:`NOTICE`
(follow-up 4, bouquet 2, bed 1): like a person it mostly takes the obvious
card, not a planned order. Any order is as good: a play never makes another
unplayable, so every order of legal plays reaches the same final count.

Calibration: a level's unit is ``(seconds - reaction) / MEAN_EFFORT``, where
:data:`MEAN_EFFORT` is the mean effort per card over winnable deals played by
this policy (``python -m bench.bot_pace --calibrate`` measures it). So the
long-run mean per card is the level's :attr:`Pace.seconds` within the ±10% that
``docs/bots.md`` states and ``tests/core/test_bot_policy.py`` holds it to.

A redeal comes after a reaction and a search of the whole board that found
nothing (effort ``visible + 1``). The idle limit is honoured: no delay exceeds
the idle time left minus :data:`IDLE_MARGIN` (half of it, when less than two
margins are left), so a bot never times out from idling. The clock asks
nothing special: a move that would come after it is not made (None). There is
no resigning: :class:`BotMove` cannot say it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import engine

if TYPE_CHECKING:
    import random

__all__ = [
    "IDLE_MARGIN",
    "LEVELS",
    "MEAN_EFFORT",
    "NOTICE",
    "PACES",
    "PLACE",
    "REACTION_SIGMA",
    "SEARCH_SIGMA",
    "BotMove",
    "BotPolicy",
    "Pace",
    "SeatPolicy",
    "effort",
    "within_idle",
]

LEVELS = (1, 2, 3, 4, 5)
IDLE_MARGIN = 1.0
"""Seconds a bot keeps between its move and the idle limit: network and scheduling slack."""
REACTION_SIGMA = 0.3
SEARCH_SIGMA = 0.6
MEAN_EFFORT = 3.85
"""Mean effort per card on winnable deals with this policy: ``bench.bot_pace --calibrate``."""

FOLLOW_UP, BOUQUET, BED = "follow-up", "bouquet", "bed"
PLACE = {FOLLOW_UP: 0.5, BOUQUET: 1.0, BED: 1.6}
"""How hard a card is to see where it is: a factor of its search."""
NOTICE = {FOLLOW_UP: 4.0, BOUQUET: 2.0, BED: 1.0}
"""How likely a card is to be the one found: weights among the playable cards."""


@dataclass(frozen=True, slots=True)
class Pace:
    """A level's pace: ``seconds`` a card on average, ``reaction`` of them before any search."""

    seconds: float
    reaction: float

    @property
    def unit(self) -> float:
        """Seconds of search per unit of effort, so that the mean per card is ``seconds``."""
        return (self.seconds - self.reaction) / MEAN_EFFORT


PACES = {
    1: Pace(2.0, 0.60),
    2: Pace(1.2, 0.45),
    3: Pace(0.8, 0.35),
    4: Pace(0.5, 0.25),
    5: Pace(0.3, 0.17),
}
"""Levels 1 to 5, PROTOCOL.md's "about 2.0, 1.2, 0.8, 0.5 and 0.3 seconds a card"."""


@dataclass(frozen=True, slots=True)
class BotMove:
    """What the bot does next, ``delay`` seconds after it saw the board.

    ``card``: the card to play, or None to use the redeal (see :attr:`redeal`).
    """

    delay: float
    card: engine.Card | None
    effort: float
    """The search effort ``delay`` was drawn for (see the module's docstring)."""

    @property
    def redeal(self) -> bool:
        return self.card is None


class SeatPolicy(Protocol):
    """What plays a seat for the server: a bot of a level, or a ghost (:mod:`core.ghost`).

    The seat (:meth:`core.seat.Seat.plan_bot`) asks each time its own board
    has changed, and makes the move after ``delay`` seconds. Besides the board
    and the limits, a policy is told the race's ``elapsed`` seconds and how many
    ``moves`` its seat has made: a bot looks only at the board, a ghost follows
    a recorded line by its times.
    """

    def next_move(
        self,
        board: engine.Board,
        *,
        idle_left: float | None,
        clock_left: float | None,
        elapsed: float,
        moves: int,
    ) -> BotMove | None:
        """What to do next on ``board`` and after how long; None when there is nothing to do."""
        ...


def within_idle(delay: float, idle_left: float | None) -> float:
    """``delay``, cut so that the move comes :data:`IDLE_MARGIN` before the idle limit
    (half the time left, when less than two margins are left): a seat the server plays
    never times out from idling."""
    if idle_left is None:
        return delay
    latest = idle_left - IDLE_MARGIN if idle_left >= 2 * IDLE_MARGIN else idle_left / 2
    return min(delay, max(0.0, latest))


def effort(place: str, visible: int, playable: int) -> float:
    """The search effort of a card seen at ``place``, among ``visible`` and ``playable`` cards."""
    return PLACE[place] * (visible + 1) / (playable + 1)


class BotPolicy:
    """One bot's choices and timing in one race; see the module's docstring."""

    def __init__(self, level: int, rng: random.Random) -> None:
        if level not in PACES:
            raise ValueError(f"a bot's level is 1 to 5, not {level!r}")
        self.level = level
        self.pace = PACES[level]
        self._rng = rng
        self._last: engine.Card | None = None
        """The card this policy chose last, and the bed it was in (None: the bouquet)."""
        self._last_bed: int | None = None

    def next_move(
        self,
        board: engine.Board,
        *,
        idle_left: float | None,
        clock_left: float | None,
        elapsed: float = 0.0,
        moves: int = 0,
    ) -> BotMove | None:
        """What to do next on ``board`` and after how long; None when there is nothing to do.

        ``idle_left``: seconds until the idle limit would time the bot out
        (None: no limit); ``clock_left``: seconds until the race's clock runs
        out (None: no clock). ``elapsed`` and ``moves`` (:class:`SeatPolicy`)
        do not matter to a bot: it looks only at its board, as a person does.
        """
        status = board.status
        if status is engine.Status.PLAYING:
            card, work = self._choose(board)
            self._last, self._last_bed = card, _bed_of(board, card)
        elif status is engine.Status.STUCK:
            card, work = None, self._visible(board) + 1.0
            self._last = self._last_bed = None  # a redeal moves every card: no follow-up
        else:
            return None
        delay = within_idle(self._think(work), idle_left)
        if clock_left is not None and delay >= clock_left:
            return None
        return BotMove(delay, card, work)

    def efforts(self, board: engine.Board) -> list[tuple[engine.Card, str, float]]:
        """Each playable card with its place and its search effort, as the policy sees them."""
        visible, plays = self._visible(board), board.legal_plays()
        places = [self._place(board, card) for card in plays]
        return [
            (card, place, effort(place, visible, len(plays)))
            for card, place in zip(plays, places, strict=True)
        ]

    # -- internals -------------------------------------------------------------

    def _choose(self, board: engine.Board) -> tuple[engine.Card, float]:
        """The card the bot finds, drawn by how noticeable each is, and its effort."""
        seen = self.efforts(board)
        weights = [NOTICE[place] for _, place, _ in seen]
        card, _, work = self._rng.choices(seen, weights)[0]
        return card, work

    def _think(self, work: float) -> float:
        """Seconds of reaction plus search for ``work`` units of effort."""
        reaction = _lognormal(self._rng, self.pace.reaction, REACTION_SIGMA)
        return reaction + self.pace.unit * work * _lognormal(self._rng, 1.0, SEARCH_SIGMA)

    def _place(self, board: engine.Board, card: engine.Card) -> str:
        last = self._last
        if last is not None and board.foundations[last.suit] >= last.rank:  # it was played
            follows = card == last + 1 and card.suit == last.suit
            uncovered = self._last_bed is not None and _bed_of(board, card) == self._last_bed
            if follows or uncovered:
                return FOLLOW_UP
        return BOUQUET if board.where[card] == engine.BOUQUET else BED

    @staticmethod
    def _visible(board: engine.Board) -> int:
        """The cards a person looks over: the bouquet and the front of every bed."""
        return len(board.bouquet) + sum(1 for bed in board.beds if bed)


def _bed_of(board: engine.Board, card: engine.Card) -> int | None:
    where = board.where[card]
    return where if where >= 0 else None


def _lognormal(rng: random.Random, mean: float, sigma: float) -> float:
    """A lognormal draw with this mean and this spread on the log scale."""
    return rng.lognormvariate(math.log(mean) - sigma * sigma / 2, sigma)
