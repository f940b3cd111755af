"""Rows as both stores keep them: reading a live race back, writing a race's moves.

SQLite (:mod:`server.sqlite`) and PostgreSQL (:mod:`server.pg_database`) keep
the same columns, so what turns them into values, and back, is written once.
Reading never raises on what a row holds: what cannot be read comes back in a
form that :func:`server.restore.restore` refuses (rules ``""``, seeds ``()``),
so that race ends ``aborted`` instead of stopping the server from starting.
"""

from __future__ import annotations

import json
import logging
import math
from typing import TYPE_CHECKING, Any, TypeAlias

from .faults import StoreRefused
from .record import Entry, MoveRecord, RaceStart, to_ms

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["LiveRace", "live_race", "moves_json", "outcome", "race_ids"]

log = logging.getLogger("flowergarden.server")

LiveRace: TypeAlias = tuple[RaceStart, list[Entry], float]
"""A live race as kept: its start, its journal in ``seq`` order, and its elapsed seconds."""

_compact_json = json.JSONEncoder(separators=(",", ":")).encode


def live_race(row: tuple[object, ...], entries: list[Entry]) -> LiveRace:
    """A live race's row (id, rules, dealing, seeds, player ids, names, elapsed) and its journal.

    Each race with something unreadable is logged by its id; its entries are
    given as they are, for restoring to judge.
    """
    game_id, rules, dealing, seeds, player0, player1, name0, name1, elapsed = row
    unread = []
    if not isinstance(rules, str):
        unread.append("rules")
        rules = ""
    if not isinstance(dealing, str):
        unread.append("dealing")
        dealing = ""
    seed_list = _json_list(seeds)
    if seed_list is None:
        unread.append("seeds")
        seed_list = []
    if not isinstance(name0, str) or not isinstance(name1, str):
        unread.append("player names")
    kept = _seconds(elapsed)
    if kept is None:
        unread.append("elapsed")
    last = _seconds(entries[-1].at) if entries else None
    if entries and last is None:
        unread.append("last entry's time")
    if unread:
        log.error("live race %s: cannot read its %s", game_id, ", ".join(unread))
    start = RaceStart(
        game_id=str(game_id),
        rules_json=rules,
        dealing=dealing,
        seeds=tuple(seed_list),
        player_ids=(str(player0), str(player1)),
        names=(str(name0), str(name1)),
    )
    return start, entries, max(kept or 0.0, last or 0.0, 0.0)


def moves_json(moves: Iterable[MoveRecord]) -> str:
    """The ``races.moves`` column; moves with a seq twice or no such seat are refused."""
    moves = tuple(moves)
    if len({move.seq for move in moves}) != len(moves):
        raise StoreRefused("a race's moves repeat a seq")
    if any(move.seat not in (0, 1) for move in moves):
        raise StoreRefused("a move's seat is not 0 or 1")
    return _compact_json([(m.seq, m.seat, m.card, to_ms(m.at)) for m in moves])


def outcome(winner: int | None, seat: int) -> tuple[int, int, int]:
    """What a race adds to a seat's (wins, losses, draws)."""
    if winner is None:
        return (0, 0, 1)
    return (1, 0, 0) if winner == seat else (0, 1, 0)


def race_ids(game_ids: Iterable[object]) -> str:
    """``race g1`` or ``races g1, g2``: each id once, in order of appearance."""
    ids = [str(game_id) for game_id in dict.fromkeys(game_ids)]
    return f"race{'s' if len(ids) != 1 else ''} {', '.join(ids)}"


def _json_list(text: object) -> list[Any] | None:
    """The JSON array in ``text``, or None if it holds anything else."""
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, list) else None


def _seconds(value: object) -> float | None:
    """``value`` as a finite number of seconds, or None."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None
