"""When a race is decided, and how: PROTOCOL.md's "Deciding the race" as two pure functions.

The race core (:mod:`core.race`) asks :func:`decided` after every change of
a seat's status or count, and :func:`by_counts` when the clock runs out. Both
read what a seat stands at (a :class:`Stand`: the race passes its seats
themselves, so that a play builds nothing to ask) and return ``(winner,
reason)``: the winning seat, or None for a draw.

* Clearing wins at once (``cleared``). Resigning and being away past the grace
  lose at once; the race core ends those itself, since they need no comparison.
* A count is final when its player is ``stalled`` or ``timed_out``. The race
  ends when both counts are final, or when one is final and the other player
  already has strictly more cards: the server never predicts plays.
* More cards wins (``most_cards``); equal counts draw (``equal_cards``) or, with
  ``tiebreak: first``, go to whoever played their last card earlier by ``seq``
  (``first_to_count``; no card at all is a draw).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Protocol

from protocol import FINAL, RACING

if TYPE_CHECKING:
    from protocol import BoardStatus

__all__ = ["Result", "SeatStanding", "Stand", "by_counts", "decided"]

Result = tuple[int | None, str]
"""The winning seat (None: a draw) and the ``game_over`` reason."""


class Stand(Protocol):
    """What deciding reads of one seat."""

    @property
    def status(self) -> BoardStatus: ...
    @property
    def cards(self) -> int:
        """The seat's count: cards on its foundations."""
        ...

    @property
    def last_play_seq(self) -> int:
        """The ``seq`` of the seat's last play, 0 before its first."""
        ...


class SeatStanding(NamedTuple):
    """A :class:`Stand` as a value."""

    status: BoardStatus
    cards: int
    """The seat's count: cards on its foundations."""
    last_play_seq: int
    """The ``seq`` of the seat's last play, 0 before its first."""


def decided(a: Stand, b: Stand, tiebreak: str) -> Result | None:
    """The result, if the race can no longer change; None while it can."""
    if a.status in RACING and b.status in RACING:
        return None  # both can still move: nothing is decided (most plays end here)
    for seat, standing in enumerate((a, b)):
        if standing.status == "cleared":
            return seat, "cleared"
    final_a, final_b = a.status in FINAL, b.status in FINAL
    if (final_a and final_b) or (final_a and b.cards > a.cards) or (final_b and a.cards > b.cards):
        return by_counts(a, b, tiebreak)
    return None


def by_counts(a: Stand, b: Stand, tiebreak: str) -> Result:
    """More cards wins; equal counts draw, or with ``tiebreak: first`` go to the first."""
    if a.cards != b.cards:
        return (0 if a.cards > b.cards else 1), "most_cards"
    if tiebreak == "first" and a.cards > 0:
        return (0 if a.last_play_seq < b.last_play_seq else 1), "first_to_count"
    return None, "equal_cards"
