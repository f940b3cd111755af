"""Rated quick match: the closest ratings first, and a gap that widens with waiting.

A rated seeker accepts an opponent within :func:`window` rating points of
them: :data:`WINDOW_START` at once, :data:`WINDOW_GROWTH` more for every second
they have waited (100 points at once, 300 after 10 s, 700 after 30 s: on a
quiet server anyone is matched within a minute or so). Two seekers are paired
when their gap is within the wider of their two windows, so the one who has
waited longer decides. Among those acceptable, the closest rating wins, then
the one who has waited longest. A pair that ``allowed`` refuses (the limits
on rated races, :mod:`core.rated`) is never made, nor one that
:func:`pairs_with` refuses (a declared bot and a player who did not ask for one).

Pure functions of the queue and ``now``, so the lobby core
(:mod:`core.lobby`) can be tested with a hand-moved clock;
:func:`next_pairing` says when waiting alone would make a pair acceptable,
which the core gives the glue as a deadline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = [
    "WINDOW_GROWTH",
    "WINDOW_START",
    "Seeker",
    "best_match",
    "next_pairing",
    "pairs_with",
    "window",
]

WINDOW_START = 100.0
"""Rating points a rated seeker accepts at once."""
WINDOW_GROWTH = 20.0
"""Rating points more for every second waited."""


@dataclass(frozen=True, slots=True)
class Seeker:
    """A seeker: who, their rating, and since when they wait; whether a bot, or asks for one."""

    player_id: str
    rating: float
    since: float
    bot: bool = False
    """A declared bot (``hello.bot``): a program that plays its own cards."""
    wants_bot: bool = False
    """The seek asked for a bot (``seek.bot``): a declared bot may take the other seat."""


def pairs_with(a: Seeker, b: Seeker) -> bool:
    """Whether ``a`` and ``b`` may race: a declared bot races only bots and who asked for one."""
    return a.bot == b.bot or (a.bot and b.wants_bot) or (b.bot and a.wants_bot)


def window(seeker: Seeker, now: float) -> float:
    """The rating gap ``seeker`` accepts at ``now``."""
    return WINDOW_START + WINDOW_GROWTH * max(0.0, now - seeker.since)


def acceptable(a: Seeker, b: Seeker, now: float) -> bool:
    return abs(a.rating - b.rating) <= max(window(a, now), window(b, now))


def best_match(
    seeker: Seeker,
    queue: Sequence[Seeker],
    now: float,
    allowed: Callable[[str, str], bool],
) -> Seeker | None:
    """The opponent in ``queue`` (oldest first) that ``seeker`` is paired with now, if any."""
    fits = [
        other
        for other in queue
        if other.player_id != seeker.player_id
        and pairs_with(seeker, other)
        and acceptable(seeker, other, now)
        and allowed(seeker.player_id, other.player_id)
    ]
    # min keeps the first of equals: the queue is oldest first.
    return min(fits, key=lambda other: abs(other.rating - seeker.rating), default=None)


def next_pairing(queue: Sequence[Seeker], allowed: Callable[[str, str], bool]) -> float | None:
    """When the first pair in ``queue`` becomes acceptable by waiting alone; None if never."""
    times = [
        max(a.since, b.since) if abs(a.rating - b.rating) <= WINDOW_START else
        min(a.since, b.since) + (abs(a.rating - b.rating) - WINDOW_START) / WINDOW_GROWTH
        for i, a in enumerate(queue)
        for b in queue[i + 1 :]
        if pairs_with(a, b) and allowed(a.player_id, b.player_id)
    ]  # fmt: skip
    return min(times, default=None)
