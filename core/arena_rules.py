"""An arena's rules, as pure functions: what a race scores, who is paired, how the standings go.

Nothing here holds state or takes a clock; the arenas desk (:mod:`core.arenas`)
applies these to its arenas.

* **Scoring** (:func:`scored`): a win scores :data:`WIN`, a draw :data:`DRAW`,
  a loss :data:`LOSS`. After :data:`STREAK_FROM` wins in a row a player is on a
  streak: wins score double until a race is not won (a draw scores its 1 and
  ends the streak). A race that the fair-play rules flagged scores nothing for
  the flagged player and ends their streak (:mod:`core.fair_play`).
* **Pairing** (:func:`pairings`): the players free to race are paired closest
  in score first, then closest in rating, never the same two twice in a row
  while anyone else is free. Sorted by score then rating, the closest pair of
  a set is always two neighbours, so the free players are put in that order
  and the closest neighbouring pair is taken again and again (a heap of
  neighbours, each removal making one new pair of neighbours): n log n for the
  thousand free players an arena has when it starts, where trying every pair
  each time would be n³. Two who just raced each other are not neighbours to
  pair: each is offered to the neighbour beyond the other instead. Whoever is
  left once no allowed neighbours remain is paired by trying every allowed
  pair (few). Two free alone race each other, even again: nobody else is free.
* **Standings** (:func:`ranked`): by score, then by points per race (more
  first), then by who joined first; places with the same score and points per
  race share their rank.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "DRAW",
    "LOSS",
    "STREAK_FROM",
    "WIN",
    "Candidate",
    "Outcome",
    "Placed",
    "pairings",
    "ranked",
    "scored",
]

WIN, DRAW, LOSS = 2, 1, 0
STREAK_FROM = 2
"""Wins in a row after which wins score double."""

Outcome: TypeAlias = Literal["win", "draw", "loss"]


def scored(outcome: Outcome, streak: int, flagged: bool) -> tuple[int, int]:
    """The points a race scores for a player with ``streak`` wins in a row before it, and
    their streak after it."""
    if flagged:
        return 0, 0
    if outcome == "win":
        return (2 * WIN if streak >= STREAK_FROM else WIN), streak + 1
    return (DRAW if outcome == "draw" else LOSS), 0


@dataclass(frozen=True, slots=True)
class Candidate:
    """A player free to be paired: their score, rating, last opponent and join order."""

    player_id: str
    score: int
    rating: float
    last: str | None
    """The player they raced last in this arena, if any."""
    order: int


def _again(a: Candidate, b: Candidate) -> bool:
    """Whether pairing ``a`` and ``b`` would be the same two twice in a row."""
    return a.last == b.player_id or b.last == a.player_id


def _distance(a: Candidate, b: Candidate) -> tuple[int, float]:
    return abs(a.score - b.score), abs(a.rating - b.rating)


class _Neighbours:
    """The free players in order, as a list that players leave, and a heap of the
    allowed pairs among neighbours (and, past two who may not race, one further)."""

    def __init__(self, free: Sequence[Candidate]) -> None:
        self.line = sorted(free, key=lambda c: (c.score, c.rating, c.order))
        count = len(self.line)
        self.before = list(range(-1, count - 1))
        self.after = list(range(1, count + 1))
        self.taken = [False] * count
        self.heap: list[tuple[int, float, int, int]] = []
        for index in range(count - 1):
            self.offer(index, index + 1)

    def offer(self, i: int, j: int) -> None:
        """Neighbours ``i`` and ``j``: their pair if allowed; else the pairs past them."""
        line, count = self.line, len(self.line)
        if i < 0 or j >= count:
            return
        if not _again(line[i], line[j]):
            heapq.heappush(self.heap, (*_distance(line[i], line[j]), i, j))
            return
        for a, b in ((i, self.after[j]), (self.before[i], j)):
            if a >= 0 and b < count and not _again(line[a], line[b]):
                heapq.heappush(self.heap, (*_distance(line[a], line[b]), a, b))

    def take(self, index: int) -> None:
        """``index`` is paired: it leaves the line, and its neighbours become neighbours."""
        self.taken[index] = True
        before, after = self.before[index], self.after[index]
        if before >= 0:
            self.after[before] = after
        if after < len(self.line):
            self.before[after] = before
        self.offer(before, after)

    def left(self) -> list[Candidate]:
        return [c for c, taken in zip(self.line, self.taken, strict=True) if not taken]


def pairings(free: Sequence[Candidate]) -> list[tuple[str, str]]:
    """The pairs to start now among ``free`` (see the module docstring), closest first;
    in each, the one with the higher score (then rating) first."""
    if len(free) == 2:  # nobody else is free: even two who just raced each other race
        first, second = sorted(free, key=lambda c: (c.score, c.rating, c.order), reverse=True)
        return [(first.player_id, second.player_id)]
    neighbours = _Neighbours(free)
    pairs: list[tuple[Candidate, Candidate]] = []
    while neighbours.heap:
        _, _, i, j = heapq.heappop(neighbours.heap)
        if not (neighbours.taken[i] or neighbours.taken[j]):
            pairs.append((neighbours.line[j], neighbours.line[i]))
            neighbours.take(i)
            neighbours.take(j)
    pairs += _rest(neighbours.left())
    return [(a.player_id, b.player_id) for a, b in pairs]


def _rest(left: list[Candidate]) -> list[tuple[Candidate, Candidate]]:
    """The few left once no allowed neighbours remain: every allowed pair tried, closest
    first."""
    pairs = []
    while len(left) > 1:
        allowed = [
            (_distance(a, b), index, a, b)
            for index, a in enumerate(left)
            for b in left[index + 1 :]
            if not _again(a, b)
        ]
        if not allowed:
            break
        _, _, a, b = min(allowed, key=lambda item: (item[0], item[1]))
        pairs.append((b, a))
        left = [c for c in left if c is not a and c is not b]
    return pairs


@dataclass(frozen=True, slots=True)
class Placed:
    """A player's score as the standings order it."""

    player_id: str
    score: int
    races: int
    order: int

    @property
    def per_race(self) -> float:
        return self.score / self.races if self.races else 0.0


def ranked(places: Sequence[Placed]) -> list[tuple[int, Placed]]:
    """``places`` in the standings' order, each with its rank (shared by equals)."""
    ordered = sorted(places, key=lambda p: (-p.score, -p.per_race, p.order))
    out: list[tuple[int, Placed]] = []
    for index, place in enumerate(ordered):
        tied = out and (out[-1][1].score, out[-1][1].per_race) == (place.score, place.per_race)
        out.append((out[-1][0] if tied else index + 1, place))
    return out
