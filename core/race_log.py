"""What the store keeps of a race: its start and journal while it is live, its record once finished.

A race is fully determined by its rules, its seeds and the ordered events the
server accepted, since the engine is deterministic. So a live race is kept as
its :class:`RaceStart` and a journal of :class:`Entry`, from which a restarted
server rebuilds it (:meth:`core.race.Race.restore`); a finished race is its
:class:`FinishedRace`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from .race_kind import PLAIN, RaceKind

if TYPE_CHECKING:
    from protocol import Unrated

    from .fair_play import Evidence
    from .glicko2 import Glicko

__all__ = ["ENTRY_KINDS", "Entry", "FinishedRace", "MoveRecord", "RaceStart", "to_ms", "to_seconds"]


def to_ms(seconds: float) -> int:
    """Seconds from a race's start as the wire's whole milliseconds (``t_ms``): one rounding."""
    return round(seconds * 1000)


def to_seconds(seconds: float) -> int | float:
    """A setting in seconds as the wire gives it: ``60``, not ``60.0``; ``2.5`` as it is."""
    return int(seconds) if float(seconds).is_integer() else seconds


class MoveRecord(NamedTuple):
    """An accepted move: ``card`` is a card code or ``"redeal"``; ``at`` is seconds in.

    A named tuple, not a frozen dataclass: one is made per play, and a tuple
    is built in C where a frozen dataclass sets each field through
    ``object.__setattr__``.
    """

    seq: int
    seat: int
    card: str
    at: float


@dataclass(frozen=True, slots=True)
class FinishedRace:
    """A finished race. Times are the core's ``now`` (monotonic); the glue adds wall time."""

    game_id: str
    rules_json: str
    dealing: str
    """The algorithm that dealt the race (:mod:`core.seeding`)."""
    seeds: tuple[str | int, ...]
    player_ids: tuple[str, str]
    started: float
    ended: float
    moves: tuple[MoveRecord, ...]
    result: str
    winner: int | None
    reason: str
    counts: tuple[int, int]
    ratings: tuple[Glicko, Glicko] | None = None
    """The players' ratings before a rated race; None if it was not rated."""
    ratings_after: tuple[Glicko, Glicko] | None = None
    """Their ratings after it, which the store keeps with the record, in one transaction.
    None for a rated race that ``unrated`` says changed no rating."""
    unrated: Unrated | None = None
    """Why a race with rated rules changed no rating (``no_play``, ``fair_play``), or None."""
    fair_play: tuple[Evidence | None, Evidence | None] = (None, None)
    """Each seat's timing as :mod:`core.fair_play` judged it, for the operator's review;
    None for a bot's seat (never judged) and in a record read back without it."""
    kind: RaceKind = PLAIN
    """A daily race (its day, whether it was ranked, its ghost) or an arena's; the store
    keeps the day's board and each player's streak from the daily ones."""
    arena_points: tuple[int, int] | None = None
    """What an arena race scored for each seat (``game_over.arena.points``); None for
    any other race, and for an arena race its arena did not score (aborted)."""

    @property
    def flagged(self) -> tuple[bool, bool]:
        """Whether each seat was flagged for play no person could make."""
        first, second = (seat is not None and seat.flagged for seat in self.fair_play)
        return first, second


ENTRY_KINDS = frozenset({"redeal", "resigned", "abandoned", "timed_out", "time"})
"""What an :class:`Entry` holds besides a card code."""


class Entry(NamedTuple):
    """One accepted event of a live race, as its journal keeps it.

    ``what`` is the card played (its code), or one of :data:`ENTRY_KINDS`:
    ``redeal``; ``resigned``, ``abandoned`` or ``timed_out`` (the idle limit) for
    ``seat``; ``time`` for the race's clock running out (``seat`` is 0 then).
    ``seq`` is the race's ``seq`` once the event is applied, ``at`` is seconds
    from the race's start: what a replay checks and needs.
    """

    seq: int
    seat: int
    what: str
    at: float


@dataclass(frozen=True, slots=True)
class RaceStart:
    """What a race is made of, written before its ``game_start`` goes out."""

    game_id: str
    rules_json: str
    dealing: str
    """The algorithm that dealt the race (:mod:`core.seeding`)."""
    seeds: tuple[str | int, ...]
    player_ids: tuple[str, str]
    names: tuple[str, str]
    ratings: tuple[Glicko, Glicko] | None = None
    """The players' ratings before a rated race, for a restored race to rate from."""
    bots: tuple[bool, bool] = (False, False)
    """Which seats a declared bot (``hello.bot``) sits in, for a restored race to label;
    the server's own bots are known by their ids (:mod:`core.bots`)."""
    kind: RaceKind = PLAIN
    """A daily race's day, whether it is ranked, and its ghost's name and line; an arena
    race's arena: what a restored race needs to be what it was (:mod:`core.race_kind`)."""
