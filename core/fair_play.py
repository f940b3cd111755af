"""Play no person could make: the rules that judge a seat's timing, and when a race is unrated.

Theory of operation
-------------------
The race core keeps, per seat, when each card became playable and when its
play arrived (:class:`~core.reactions.Timing`). When the race ends, :func:`judge`
reads that record and gives the seat's :class:`Evidence`: a few measures, and
the rules it broke, if any. A seat is *flagged* when it broke one:

* **too fast** (``fast``): more than :data:`FAST_ALLOWED` plays came less than
  :data:`FLOOR_S` after their card became playable. No hand presses keys in a
  planned sequence that fast; the few allowed are what the network does (a
  delayed message arrives together with the next one) and key rollover.
* **too regular** (``regular_reactions``, ``regular_gaps``): over at least
  :data:`MIN_PLAYS` plays, the spread of the reactions (from playable to
  played) is under :data:`REACTION_SPREAD_MIN`, or the spread of the gaps
  between plays under :data:`GAP_SPREAD_MIN`. A program that waits a fixed
  time after each card shows the first; one that plays a card every so often,
  whichever it finds, the second.

The spread is the *quartile coefficient of dispersion*,
``(Q3 - Q1) / (Q3 + Q1)``, not lichess's coefficient of variation (standard
deviation over mean): a program can raise its coefficient of variation at will
with a few long pauses, which leave its quartiles where they were.

The thresholds come from the server's own bots (:mod:`core.bot_policy`, the
project's model of a person's pace), which must never be flagged, and from
programs that must be: ``python -m bench.fairplay`` measures both, and
docs/fair-play.md gives the figures and the margins. A bot the server runs,
and a declared bot (``hello.bot``), is never judged: it is never rated anyway.

:func:`why_unrated` says why a race with rated rules changes no rating
(PROTOCOL.md, "Fair play"): a flagged seat (``fair_play``), or a player who
made no play (``no_play``).
"""

from __future__ import annotations

import bisect
import json
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from protocol import Unrated

    from .reactions import Timing
    from .seat import Seat

__all__ = [
    "FAST_ALLOWED",
    "FLOOR_S",
    "GAP_SPREAD_MIN",
    "MIN_PLAYS",
    "REACTION_SPREAD_MIN",
    "Evidence",
    "judge",
    "judge_seats",
    "quartiles",
    "spread",
    "why_unrated",
]

FLOOR_S = 0.05
"""Seconds from a card becoming playable to its play under which a play is too fast."""
FAST_ALLOWED = 5
"""Plays under :data:`FLOOR_S` a race allows a seat before flagging it."""
MIN_PLAYS = 20
"""Plays a seat must have made before its spreads are measured at all."""
REACTION_SPREAD_MIN = 0.10
"""The spread of a seat's reactions under which its timing is too regular for a hand."""
GAP_SPREAD_MIN = 0.05
"""The spread of the gaps between a seat's plays under which it is too regular."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the timing of one seat in one race showed: its measures, and the rules it broke.

    Times are in seconds; a spread is None when the seat made fewer than
    :data:`MIN_PLAYS` plays. ``reasons`` names the rules broken, empty for a
    seat that was not flagged: ``fast``, ``regular_reactions``, ``regular_gaps``.
    """

    plays: int
    fast: int
    """Plays that came under :data:`FLOOR_S` after their card became playable."""
    fastest: float | None
    """The shortest reaction; None without a play."""
    median: float | None
    """The median reaction; None without a play."""
    reaction_spread: float | None
    gap_spread: float | None
    reasons: tuple[str, ...] = ()

    @property
    def flagged(self) -> bool:
        return bool(self.reasons)

    def to_json(self) -> str:
        """The evidence as the store keeps it: one JSON object."""
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Evidence:
        """The evidence :meth:`to_json` wrote."""
        fields = json.loads(text)
        return cls(**{**fields, "reasons": tuple(fields["reasons"])})


def spread(values: Sequence[float]) -> float:
    """The quartile coefficient of dispersion of ``values`` (one or more): 0 when all are 0."""
    return _dispersion(quartiles(sorted(values)))


def quartiles(ordered: Sequence[float]) -> tuple[float, float, float]:
    """The quartiles of ``ordered`` (sorted, one or more), the median in the middle: the
    cut points ``statistics.quantiles(..., n=4, method="inclusive")`` gives."""
    last = len(ordered) - 1
    first, median, third = (
        (ordered[index] * (4 - part) + ordered[index + (part > 0)] * part) / 4
        for index, part in (divmod(quarter * last, 4) for quarter in (1, 2, 3))
    )
    return first, median, third


def _dispersion(cuts: tuple[float, float, float]) -> float:
    first, _, third = cuts
    return 0.0 if first + third <= 0.0 else (third - first) / (third + first)


def judge(timing: Timing) -> Evidence:
    """The evidence of one seat's timing in a race (see the module docstring)."""
    # Once per seat and race: one sort serves the floor, the median and the
    # quartiles, where the statistics module would sort for each.
    reactions = sorted(timing.reactions)
    cuts = quartiles(reactions) if reactions else None
    measured = len(reactions) >= MIN_PLAYS
    reaction_spread = _dispersion(cuts) if measured and cuts is not None else None
    gap_spread = spread(timing.gaps) if measured else None
    fast = bisect.bisect_left(reactions, FLOOR_S)
    reasons = []
    if fast > FAST_ALLOWED:
        reasons.append("fast")
    if reaction_spread is not None and reaction_spread < REACTION_SPREAD_MIN:
        reasons.append("regular_reactions")
    if gap_spread is not None and gap_spread < GAP_SPREAD_MIN:
        reasons.append("regular_gaps")
    return Evidence(
        plays=len(reactions),
        fast=fast,
        fastest=reactions[0] if reactions else None,
        median=None if cuts is None else cuts[1],
        reaction_spread=reaction_spread,
        gap_spread=gap_spread,
        reasons=tuple(reasons),
    )


def judge_seats(seats: Sequence[Seat]) -> tuple[Evidence | None, Evidence | None]:
    """Each seat's evidence; None for a bot's seat, the server's or a declared one."""
    first, second = (
        None if seat.bot is not None or seat.info.bot else judge(seat.timing) for seat in seats
    )
    return first, second


def why_unrated(seats: Sequence[Seat], evidence: Sequence[Evidence | None]) -> Unrated | None:
    """Why a race with rated rules, over, changes no rating; None if it is rated."""
    if any(seat is not None and seat.flagged for seat in evidence):
        return "fair_play"
    if any(seat.timing.plays == 0 for seat in seats):
        return "no_play"
    return None
