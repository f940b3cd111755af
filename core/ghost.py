"""A ghost: a recorded line, replayed card by card at its own times by the race core.

A daily race (:mod:`core.daily`) puts the day's best clear so far in seat 1.
That clear is a :class:`Ghost`: whose it was, and its line, each card (or
``redeal``) with its ``t_ms`` from the race's start, as its race announced
them. :class:`GhostPolicy` is a :class:`~core.bot_policy.SeatPolicy`, so the
race plays a ghost's seat as it plays a bot's (:meth:`core.seat.Seat.plan_bot`):
asked after each of its own moves, it answers the line's next move, due at the
line's time of it. A ghost's move is timed when the race takes it, as a bot's
is (``t_ms`` never goes back along ``seq``): a race ticked at the line's instants
announces the line's own ``t_ms``.

The line travels with the race (:class:`~core.race_kind.RaceKind`, in its
:class:`~core.race_log.RaceStart`), so a race restored on any worker rebuilds
its ghost, and the ghost, told how many moves its seat has made, goes on from
where the journal left it.

A line that does not fit its board (a card not playable when its turn comes,
a redeal on a board that is not stuck, a code that is not a card) ends the
ghost there: it makes no move the race would refuse, and its seat's count is
what it had reached. A line recorded under a longer idle limit than the
server's plays each move before the idle limit, as a bot does
(:func:`~core.bot_policy.within_idle`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import engine

from .bot_policy import BotMove, within_idle

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from .race_log import MoveRecord

__all__ = ["GHOST_ID", "GHOST_NAME", "REDEAL", "Ghost", "GhostPolicy", "LineMove"]

GHOST_ID = "ghost"
"""The player who sits in a ghost's seat: one player of the store, as each bot level is."""
GHOST_NAME = "BOT-Ghost"
"""Its name in ``players``; ``game_start.ghost`` names whose clear it replays."""
REDEAL = "redeal"


class LineMove(NamedTuple):
    """One move of a line: a card's code, or ``redeal``; ``t_ms`` from the race's start."""

    what: str
    t_ms: int


@dataclass(frozen=True, slots=True)
class Ghost:
    """A recorded clear: the name of the player who made it, and its line."""

    name: str
    line: tuple[LineMove, ...]

    @property
    def time_ms(self) -> int | None:
        """The ``t_ms`` of the line's last card: its time to clear; None without a card."""
        return next((move.t_ms for move in reversed(self.line) if move.what != REDEAL), None)

    @classmethod
    def of_moves(cls, name: str, moves: Iterable[MoveRecord], seat: int) -> Ghost:
        """The ghost of ``seat``'s moves in a race (its record's or its seat's)."""
        # Imported here: core.race_log imports this module (through core.race_kind).
        from .race_log import to_ms

        line = tuple(LineMove(move.card, to_ms(move.at)) for move in moves if move.seat == seat)
        return cls(name, line)

    def to_json(self) -> object:
        """The ghost as JSON-ready values: ``{"name", "line": [[what, t_ms], ...]}``."""
        return {"name": self.name, "line": [list(move) for move in self.line]}

    @classmethod
    def from_json(cls, value: object) -> Ghost:
        """The ghost :meth:`to_json` gave; ``ValueError`` if ``value`` is not one."""
        if not isinstance(value, dict) or not isinstance(value.get("line"), list):
            raise ValueError(f"not a ghost: {json.dumps(value)[:80]}")
        line = tuple(_line_move(item) for item in value["line"])
        return cls(str(value["name"]), line)


def _line_move(item: object) -> LineMove:
    if not isinstance(item, list) or len(item) != 2:
        raise ValueError(f"not a move of a line: {item!r}")
    what, t_ms = item
    if not isinstance(what, str) or type(t_ms) is not int or t_ms < 0:
        raise ValueError(f"not a move of a line: {item!r}")
    return LineMove(what, t_ms)


class GhostPolicy:
    """Plays a seat by a recorded line (see the module docstring)."""

    def __init__(self, line: Sequence[LineMove]) -> None:
        self.line = tuple(line)

    def next_move(
        self,
        board: engine.Board,
        *,
        idle_left: float | None,
        clock_left: float | None,
        elapsed: float,
        moves: int,
    ) -> BotMove | None:
        """The line's move after the seat's ``moves``, due at its time; None at the line's
        end, when the move does not fit ``board``, or when it would come after the clock."""
        if moves >= len(self.line):
            return None
        what, t_ms = self.line[moves]
        card = self._card(board, what)
        if card is None and (what != REDEAL or board.status is not engine.Status.STUCK):
            return None
        delay = within_idle(max(0.0, t_ms / 1000 - elapsed), idle_left)
        if clock_left is not None and delay >= clock_left:
            return None
        return BotMove(delay, card, 0.0)

    @staticmethod
    def _card(board: engine.Board, what: str) -> engine.Card | None:
        """The card ``what`` names if it is playable on ``board`` now, else None."""
        if what == REDEAL:
            return None
        try:
            card = engine.Card.parse(what)
        except engine.MalformedCard:
            return None
        return card if board.is_legal(card) else None
