"""One seat of a race: who sits in it, its board, its deadlines, and the bot that may play it.

The race core (:mod:`core.race`) holds two :class:`Seat` values and changes
them only through its inputs; a seat keeps what belongs to one player alone:

* its board, its dealer (layout and redeal) and its wire status;
* its deadlines: the idle limit (restarted at the deal, at each accepted play
  or redeal, and on coming back), the grace while it is away, and the instant
  its bot (a :class:`~core.bot_policy.SeatPolicy`: a bot of a level, or a
  ghost) makes its next move;
* its moves, with their times, for the record and each seat's ``times_ms``;
* its timing (:mod:`core.reactions`): when each card became playable, and the
  reaction and gap of each play, which :mod:`core.fair_play` judges.

A seat is what :func:`core.deciding.decided` reads (a :class:`~core.deciding.Stand`):
its ``status``, its ``cards`` and the ``seq`` of its last play.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from protocol import RACING

from .race_log import MoveRecord, to_ms
from .reactions import Timing

if TYPE_CHECKING:
    from collections.abc import Iterable

    import engine
    from protocol import BoardStatus

    from .bot_policy import BotMove, SeatPolicy

__all__ = ["Seat", "SeatInfo", "earliest"]


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who sits in a seat."""

    player_id: str
    name: str
    bot: bool = False
    """A declared bot: a program that plays its own cards over the socket (``hello.bot``)."""


@dataclass(slots=True)
class Seat:
    """A seat's state in a race (see the module docstring)."""

    info: SeatInfo
    board: engine.Board
    dealer: engine.Dealer
    status: BoardStatus
    idle_deadline: float | None = None
    away_deadline: float | None = None
    away: bool = False
    """Disconnected; outlives ``away_deadline`` when the grace ends on a final count."""
    last_play_seq: int = 0
    moves: list[MoveRecord] = field(default_factory=list)
    timing: Timing = field(default_factory=Timing)
    """When each card became playable and when its play came: what fair play judges."""
    bot: SeatPolicy | None = None
    """The policy that plays this seat, if a bot or a ghost sits in it (the core plays
    for it)."""
    bot_move: BotMove | None = None
    bot_at: float | None = None
    """When the bot makes ``bot_move``: a deadline like the others."""

    @property
    def cards(self) -> int:
        """The seat's count, as deciding reads it (a :class:`~core.deciding.Stand`)."""
        return self.board.count

    @property
    def racing(self) -> bool:
        return self.status in RACING

    def restart_idle(self, now: float, limit: float | None) -> None:
        """The idle limit starts again at ``now`` for a seat still racing and here."""
        racing = self.status in RACING and not self.away
        self.idle_deadline = now + limit if racing and limit is not None else None

    def plan_bot(self, now: float, clock: float | None, started: float) -> None:
        """A bot's next move, planned when its own board has changed (or nothing to do).

        ``clock`` is when the race's time limit runs out, if it has one;
        ``started``, when the race started (a ghost's line is timed from it).
        """
        if self.bot is None:
            return
        self.bot_move = self.bot_at = None
        if self.status not in RACING:
            return
        idle = None if self.idle_deadline is None else self.idle_deadline - now
        left = None if clock is None else clock - now
        move = self.bot.next_move(
            self.board,
            idle_left=idle,
            clock_left=left,
            elapsed=now - started,
            moves=len(self.moves),
        )
        if move is not None:
            self.bot_move, self.bot_at = move, now + move.delay

    def take_bot_move(self) -> BotMove:
        """The move the bot planned, now due; the seat plans again once it is made."""
        move, self.bot_move, self.bot_at = self.bot_move, None, None
        assert move is not None, "no bot move was planned"
        return move

    def shift(self, seconds: float) -> None:
        """Every deadline of this seat falls ``seconds`` later (the race was held)."""
        if self.idle_deadline is not None:
            self.idle_deadline += seconds
        if self.away_deadline is not None:
            self.away_deadline += seconds
        if self.bot_at is not None:
            self.bot_at += seconds

    def stop(self) -> None:
        """The race is over: no deadline of this seat falls any more."""
        self.idle_deadline = self.away_deadline = self.bot_at = None

    def last_card_ms(self) -> int | None:
        """The seat's ``times_ms``: the time of its last card, None if it played none."""
        for move in reversed(self.moves):
            if move.card != "redeal":
                return to_ms(move.at)
        return None


def earliest(seats: Iterable[Seat], clock: float | None) -> float | None:
    """The earliest of the seats' deadlines and the race's ``clock``; None if none is set."""
    # Asked after every play: a loop, not a list for min(), costs a third.
    due = clock
    for seat in seats:
        for t in (seat.idle_deadline, seat.away_deadline, seat.bot_at):
            if t is not None and (due is None or t < due):
                due = t
    return due
