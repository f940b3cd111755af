"""Rows as both stores keep them: reading a live race back, writing a race's moves.

SQLite (:mod:`server.store.sqlite`) and PostgreSQL (:mod:`server.store.postgres`) keep
the same columns, so what turns them into values, and back, is written once.
Reading never raises on what a row holds: what cannot be read comes back in a
form that :func:`core.restore.restore` refuses (rules ``""``, seeds ``()``),
so that race ends ``aborted`` instead of stopping the server from starting.
"""

from __future__ import annotations

import json
import logging
import math
from typing import TYPE_CHECKING, Any, TypeAlias

from core.glicko2 import Glicko
from core.race_log import Entry, MoveRecord, RaceRecord, RaceStart, to_ms

from .faults import StoreRefused

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "UPDATE_BEST_CLEAR",
    "UPDATE_RATING",
    "LiveRace",
    "best_clear",
    "last_cards",
    "live_race",
    "moves_json",
    "outcome",
    "race_ids",
    "rating_updates",
    "ratings_json",
    "shown_ratings",
]

UPDATE_RATING = (
    "UPDATE players SET rating = ?, deviation = ?, volatility = ?,"
    " rated_races = rated_races + 1 WHERE id = ?"
)
"""A rated race's new rating for one player (``?`` placeholders: PostgreSQL swaps them)."""
UPDATE_BEST_CLEAR = (
    "UPDATE players SET best_clear_ms = ? WHERE id = ?"
    " AND (best_clear_ms IS NULL OR best_clear_ms > ?)"
)

log = logging.getLogger("flowergarden.server")

LiveRace: TypeAlias = tuple[RaceStart, list[Entry], float]
"""A live race as kept: its start, its journal in ``seq`` order, and its elapsed seconds."""

_compact_json = json.JSONEncoder(separators=(",", ":")).encode


def live_race(row: tuple[object, ...], entries: list[Entry]) -> LiveRace:
    """A live race's row (id, rules, dealing, seeds, ratings, player ids, names, elapsed) and
    its journal.

    Each race with something unreadable is logged by its id; its entries are
    given as they are, for restoring to judge.
    """
    game_id, rules, dealing, seeds, ratings, player0, player1, name0, name1, elapsed = row
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
    before = _ratings(ratings)
    if ratings is not None and before is None:
        unread.append("ratings")
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
        ratings=before,
    )
    return start, entries, max(kept or 0.0, last or 0.0, 0.0)


def moves_json(moves: Iterable[MoveRecord]) -> str:
    """The ``races.moves`` column; moves with a seq twice or no such seat are refused."""
    rows = [(seq, seat, card, to_ms(at)) for seq, seat, card, at in moves]
    if len({row[0] for row in rows}) != len(rows):
        raise StoreRefused("a race's moves repeat a seq")
    if not {row[1] for row in rows} <= {0, 1}:
        raise StoreRefused("a move's seat is not 0 or 1")
    return _compact_json(rows)


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


def last_cards(record: RaceRecord) -> tuple[int | None, int | None]:
    """Each seat's time of its last card, in ms (``times_ms``); None if it played none."""
    times: list[int | None] = [None, None]
    for move in reversed(record.moves):  # in seq order: the first found from the end
        if move.card != "redeal" and times[move.seat] is None:
            times[move.seat] = to_ms(move.at)
            if None not in times:
                break
    return times[0], times[1]


def shown_ratings(record: RaceRecord) -> tuple[int | None, ...]:
    """``rating0_before, rating0_after, rating1_before, rating1_after``: whole numbers, or None."""
    if record.ratings is None or record.ratings_after is None:
        return (None,) * 4
    (before0, before1), (after0, after1) = record.ratings, record.ratings_after
    return before0.shown, after0.shown, before1.shown, after1.shown


def rating_updates(record: RaceRecord) -> list[tuple[str, tuple[float, float, float]]]:
    """Each player's new (rating, deviation, volatility), if the race was rated."""
    if record.ratings_after is None:
        return []
    return [
        (player_id, (g.rating, g.deviation, g.volatility))
        for player_id, g in zip(record.player_ids, record.ratings_after, strict=True)
    ]


def best_clear(record: RaceRecord) -> tuple[int, str, int] | None:
    """The arguments of :data:`UPDATE_BEST_CLEAR` for a race won by clearing, else None."""
    if record.reason != "cleared" or record.winner is None:
        return None
    time = last_cards(record)[record.winner]
    if time is None:
        return None
    return time, record.player_ids[record.winner], time


def ratings_json(ratings: tuple[Glicko, Glicko] | None) -> str | None:
    """A live race's players' ratings before it, as ``live_races.ratings`` keeps them."""
    if ratings is None:
        return None
    return _compact_json([[g.rating, g.deviation, g.volatility] for g in ratings])


def _ratings(text: object) -> tuple[Glicko, Glicko] | None:
    values = _json_list(text)
    if values is None or len(values) != 2:
        return None
    try:
        first, second = (Glicko(*(float(x) for x in value)) for value in values)
    except (TypeError, ValueError):
        return None
    return first, second
