"""The daily deal in the store: each day's seed and commit, its ranked races, the players' streaks.

PROTOCOL.md, "The daily deal"; the lobby's side is :mod:`core.daily`. Three things are kept,
the same on SQLite and PostgreSQL:

* ``daily_deals``: a row a UTC day (``YYYY-MM-DD``): its seed, the commit to it
  (:func:`engine.commit`, what ``game_start.commits`` shows for a daily race) and
  when it was drawn. Whichever worker first needs a day draws its seed from
  ``secrets`` and offers it (:func:`draw`): the row is inserted if absent and then
  read, in one transaction, so every worker, however many race to draw it, deals
  from the row that won. The glue draws today's and tomorrow's (server/daily_watch.py),
  so a day is committed a day before anyone races it.
* ``daily_results``: a row a player and day, their ranked race (their first of
  the day): its time to clear (null if they did not clear), its count, whether
  the fair-play rules flagged it. It is written in the transaction that records
  the race (:func:`results`, from :func:`server.store.rows.counted`), keyed by
  day and player, so the store keeps one ranked race a player a day, whatever
  several workers thought.
* ``players.daily_last``, ``daily_streak``, ``daily_best_streak``: the last day
  with a ranked race, the days in a row up to it, the most ever in a row; moved
  on in the same transaction. A streak still stands the day after its last day
  (the player may race today yet), and is 0 after that (:func:`streaks`).

The board is ranked by :func:`core.daily.board_key`: every clear by its time,
then every other race by its count, more first; equal races share a rank.
"""

from __future__ import annotations

import datetime
import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import engine
from core.daily import DailyPlace, board_key
from core.ghost import Ghost, LineMove
from core.race_log import to_ms

from .reads import first

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.race_log import FinishedRace

    from .interface import Store
    from .reads import Row
    from .rows import Statement
    from .scripts import Script

__all__ = [
    "DailyRow",
    "Streaks",
    "best",
    "board",
    "day_row",
    "draw",
    "next_day",
    "previous_day",
    "ranks",
    "results",
    "results_count",
    "since",
    "streaks",
    "utc_day",
]

_INSERT_DAY = (
    "INSERT INTO daily_deals (day, seed, commitment, drawn) VALUES (?, ?, ?, ?)"
    " ON CONFLICT (day) DO NOTHING"
)
_DAY = "SELECT day, seed, commitment FROM daily_deals WHERE day = ?"
_INSERT_RESULT = (
    "INSERT INTO daily_results (day, player_id, race_id, time_ms, count, flagged, ended)"
    " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (day, player_id) DO NOTHING"
)
_STREAK = (
    "UPDATE players SET daily_streak = CASE WHEN daily_last = ? THEN daily_streak + 1 ELSE 1 END,"
    " daily_last = ? WHERE id = ? AND (daily_last IS NULL OR daily_last < ?)"
)
"""A ranked race on a day after the player's last: the streak goes on from yesterday's, or
starts again. A day already counted (or an earlier one) changes nothing."""
_BEST_STREAK = (
    "UPDATE players SET daily_best_streak = daily_streak"
    " WHERE id = ? AND daily_streak > daily_best_streak"
)
_ORDER = "ORDER BY time_ms IS NULL, time_ms, count DESC, ended, race_id"
_BOARD = (
    "SELECT d.race_id, p.name, d.time_ms, d.count FROM"
    f" (SELECT race_id, player_id, time_ms, count, ended FROM daily_results WHERE day = ? {_ORDER}"
    "{}) AS d JOIN players AS p ON p.id = d.player_id"
    f" {_ORDER.replace('BY ', 'BY d.').replace(', ', ', d.')}"
)
"""A day's ranked races (``{}``: all, or `` LIMIT ?``), best first (:func:`core.daily.board_key`),
earlier first if equal: a page's rows are found before any is joined to its player's name."""
_SINCE = (
    "SELECT d.race_id, p.name, d.time_ms, d.count, d.ended FROM daily_results AS d"
    " JOIN players AS p ON p.id = d.player_id WHERE d.day = ? AND d.ended >= ?"
)
"""A day's ranked races kept from a moment on, in no order (what a worker's poll reads)."""
_COUNT = "SELECT count(*) FROM daily_results WHERE day = ?"
# CAST: PostgreSQL keeps moves as jsonb; text reads the same on both (as reads.RACE).
_BEST = (
    "SELECT p.name, CAST(r.moves AS text) FROM daily_results AS d"
    " JOIN races AS r ON r.id = d.race_id JOIN players AS p ON p.id = d.player_id"
    " WHERE d.day = ? AND d.time_ms IS NOT NULL AND d.flagged = 0"
    " ORDER BY d.time_ms, d.ended, d.race_id LIMIT 1"
)
"""The day's best clear not flagged: its player's name and the race's moves."""
_STREAKS = "SELECT daily_last, daily_streak, daily_best_streak FROM players WHERE id = ?"


@dataclass(frozen=True, slots=True)
class DailyRow:
    """A day's deal as the store keeps it."""

    day: str
    seed: bytes
    commit: str


class Streaks(NamedTuple):
    """A player's days in a row with a ranked daily race: now, and the most ever."""

    streak: int
    best: int


def utc_day(wall: float) -> str:
    """The UTC day (``YYYY-MM-DD``) at wall-clock ``wall``: how the store names days."""
    return datetime.datetime.fromtimestamp(wall, datetime.UTC).date().isoformat()


def previous_day(day: str) -> str:
    """The UTC day before ``day`` (``YYYY-MM-DD``)."""
    return (datetime.date.fromisoformat(day) - datetime.timedelta(days=1)).isoformat()


def next_day(day: str) -> str:
    """The UTC day after ``day``."""
    return (datetime.date.fromisoformat(day) + datetime.timedelta(days=1)).isoformat()


def draw(day: str, seed: bytes, wall: float | None = None) -> Script[DailyRow]:
    """Offer ``seed`` (fresh from ``secrets``) as ``day``'s, and read the day's deal: the
    seed offered if no worker drew one first, else theirs (run by :meth:`Store.run`)."""
    drawn = time.time() if wall is None else wall
    yield (_INSERT_DAY, (day, seed.hex(), engine.commit(seed), drawn))
    did = yield (_DAY, (day,))
    return _day(did.rows[0])


async def day_row(store: Store, day: str) -> DailyRow | None:
    """``day``'s deal, or None if nobody drew it."""
    return await store.read(_DAY, (day,), first(_day))


def results(record: FinishedRace, ended_wall: float) -> list[Statement]:
    """What a finished race adds to its day's board and its player's streak, in the
    transaction that records it: nothing unless it is a ranked daily race that counts."""
    kind = record.kind
    if kind.daily is None or not kind.ranked or record.reason == "aborted":
        return []
    player_id, day = record.player_ids[0], kind.daily
    cleared = record.reason == "cleared" and record.winner == 0
    time_ms = _last_card(record) if cleared else None
    flagged = int(record.flagged[0])
    row = (day, player_id, record.game_id, time_ms, record.counts[0], flagged, ended_wall)
    return [
        (_INSERT_RESULT, row),
        (_STREAK, (previous_day(day), day, player_id, day)),
        (_BEST_STREAK, (player_id,)),
    ]


async def board(store: Store, day: str, limit: int | None = None) -> list[DailyPlace]:
    """``day``'s ranked races, best first; the first ``limit`` of them if not None, whose
    ranks are the same as on the whole board (:func:`ranks` looks only at those before)."""
    if limit is None:
        return await store.read(_BOARD.format(""), (day,), _places)
    return await store.read(_BOARD.format(" LIMIT ?"), (day, limit), _places)


async def since(store: Store, day: str, wall: float) -> list[tuple[DailyPlace, float]]:
    """``day``'s ranked races recorded at ``wall`` or later (by their ``ended``), each with
    its ``ended``, in no order."""
    return await store.read(_SINCE, (day, wall), _places_ended)


async def results_count(store: Store, day: str) -> int:
    """How many ranked races ``day`` has: what a worker checks to learn that its board moved."""
    rows: list[Row] = await store.read(_COUNT, (day,), list)
    return int(str(rows[0][0]))


async def best(store: Store, day: str) -> Ghost | None:
    """``day``'s best clear so far as a ghost (its player's name and seat 0's line), or None."""
    return await store.read(_BEST, (day,), first(_ghost))


async def streaks(store: Store, player_id: str, today: str) -> Streaks:
    """``player_id``'s streak as of ``today``, and their best."""
    found = await store.read(_STREAKS, (player_id,), first(lambda row: row))
    if found is None:
        return Streaks(0, 0)
    last, streak, most = found
    standing = isinstance(last, str) and last >= previous_day(today)
    return Streaks(int(str(streak)) if standing else 0, int(str(most)))


def ranks(places: Sequence[DailyPlace]) -> list[int]:
    """Each place's rank on a board in order: one more than the places strictly better."""
    out: list[int] = []
    for index, place in enumerate(places):
        same = index > 0 and _key(places[index - 1]) == _key(place)
        out.append(out[-1] if same else index + 1)
    return out


def _key(place: DailyPlace) -> tuple[int, int]:
    return board_key(place.time_ms, place.count)


def _day(row: Row) -> DailyRow:
    day, seed, commitment = row
    return DailyRow(str(day), engine.seed_from_hex(str(seed)), str(commitment))


def _places(rows: list[Row]) -> list[DailyPlace]:
    return [
        DailyPlace(str(game_id), str(name), None if ms is None else int(str(ms)), int(str(count)))
        for game_id, name, ms, count in rows
    ]


def _places_ended(rows: list[Row]) -> list[tuple[DailyPlace, float]]:
    places = _places([row[:4] for row in rows])
    return [(place, float(str(row[4]))) for place, row in zip(places, rows, strict=True)]


def _ghost(row: Row) -> Ghost:
    """The ghost of seat 0's moves in a race's ``moves`` column ([seq, seat, card, ms] each)."""
    name, moves = row
    ordered = sorted(json.loads(str(moves)))
    return Ghost(str(name), tuple(LineMove(card, ms) for _, seat, card, ms in ordered if seat == 0))


def _last_card(record: FinishedRace) -> int | None:
    """Seat 0's time of its last card, in ms."""
    times = [move.at for move in record.moves if move.seat == 0 and move.card != "redeal"]
    return to_ms(times[-1]) if times else None
