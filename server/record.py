"""The record of a finished race: what the store keeps, and all it needs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

__all__ = ["MoveRecord", "RaceRecord"]


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
class RaceRecord:
    """A finished race. Times are the core's ``now`` (monotonic); the glue adds wall time."""

    game_id: str
    rules_json: str
    seeds: tuple[int, ...]
    player_ids: tuple[str, str]
    started: float
    ended: float
    moves: tuple[MoveRecord, ...]
    result: str
    winner: int | None
    reason: str
    counts: tuple[int, int]
