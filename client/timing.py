"""Race time in words: the stopwatch, the clocks, each player's time and the winning margin.

Pure functions of numbers the state holds. Times on the wire are milliseconds
from the race's start (``t_ms``, ``times_ms``); the margin is worked out from
the times each seat reached each count (see :func:`margin_ms`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = [
    "IDLE_WARNING",
    "clock_text",
    "margin_ms",
    "seconds_text",
    "stopwatch_text",
]

IDLE_WARNING = 15.0
"""Seconds before the idle limit from which the race screen counts down."""


def clock_text(seconds: float) -> str:
    """A countdown, ``4:59``: whole seconds, rounded up (0:00 only once it has run out)."""
    seconds = max(0, int(seconds + 0.999))
    return f"{seconds // 60}:{seconds % 60:02d}"


def stopwatch_text(seconds: float) -> str:
    """The time so far, ``0:41``, ``12:05``: whole seconds, rounded down."""
    whole = max(0, int(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def seconds_text(ms: int) -> str:
    """A race time, ``41.2 s``; from a minute on, ``2:05.3``."""
    tenths = max(0, ms) // 100
    if tenths < 600:
        return f"{tenths // 10}.{tenths % 10} s"
    minutes, rest = divmod(tenths, 600)
    return f"{minutes}:{rest // 10:02d}.{rest % 10}"


def margin_ms(
    winner: int,
    counts: Sequence[int],
    times_ms: Sequence[int | None],
    reached: Sequence[Mapping[int, int]],
) -> int | None:
    """How far ahead the winner was, in ms, or None if that is not known here.

    Compared where the loser's race ended: the loser reached their final count
    at ``times_ms[loser]``; the winner reached that same count at
    ``reached[winner][count]`` (the ``t_ms`` of the play that made it), and the
    margin is the difference. With equal counts that is the difference of the
    two times. A client that did not see the winner's plays up to that count
    (it joined or came back later) does not know it; nor is there a margin
    when the loser played no card, or got there first.
    """
    loser = 1 - winner
    count, lost_at = counts[loser], times_ms[loser]
    if count == 0 or lost_at is None:
        return None
    won_at = times_ms[winner] if counts[winner] == count else reached[winner].get(count)
    if won_at is None or won_at > lost_at:
        return None
    return lost_at - won_at
