"""Race time in words: the stopwatch, the clocks and each player's time.

Pure functions of numbers the state holds. Times on the wire are milliseconds
from the race's start (``t_ms``, ``times_ms``); :func:`client.words.margin_words`
says how far ahead a winner finished.
"""

from __future__ import annotations

import lang

__all__ = [
    "IDLE_WARNING",
    "clock_text",
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
    """A race time, ``41.2 s`` (``41,2 s`` in German); from a minute on, ``2:05.3``.

    Tenths are cut, never rounded up: a time shown is never a time not yet reached.
    """
    tenths = max(0, ms) // 100
    if tenths < 600:
        return lang.t("tui.time.seconds", seconds=lang.number(tenths / 10, decimals=1))
    minutes, rest = divmod(tenths, 600)
    return f"{minutes}:{lang.number(rest / 10, decimals=1).zfill(4)}"
