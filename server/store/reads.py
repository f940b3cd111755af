"""What is read from either store: the SQL once, and its rows made values once.

SQLite (:mod:`server.store.sqlite`) and PostgreSQL (:mod:`server.store.postgres`) keep
the same columns, so each query here is written once with ``?`` placeholders
(:func:`server.store.postgres.for_postgres` turns them into ``%s``), and each
row is read by one function. A backend runs the query and hands its rows to
the reader on its own side (:meth:`server.store.interface.StoreBackend.read`):
SQLite's on its thread. The API (:mod:`server.http.api`) turns these values
into JSON.

A player's history pages by a cursor: races of the player ended strictly
before the race named (by ``ended``, then id, both descending), one more than
asked so that the page knows whether another follows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias, TypeVar

from core.fair_play import Evidence
from core.glicko2 import PROVISIONAL_DEVIATION, Glicko
from core.identity import Identity
from core.race_log import FinishedRace, MoveRecord

from .marks import FLAGS_OF

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "FIND_PLAYER",
    "HISTORY",
    "HISTORY_BEFORE",
    "LEADERBOARD",
    "LEADERBOARD_RACES",
    "LIVE_RACE_OF",
    "PLAYERS",
    "PLAYER_STATS",
    "PROFILE",
    "RACE",
    "RACE_COUNT",
    "RATING",
    "STANDING",
    "SUMMARY",
    "SUMMARY_COLUMNS",
    "PlayerStats",
    "ProfileRow",
    "Ranked",
    "Row",
    "StandingRow",
    "Summary",
    "count",
    "each",
    "first",
    "history_query",
    "identity",
    "player_stats",
    "profile",
    "race",
    "ranked",
    "rating",
    "standing",
    "summary",
    "text",
]

T = TypeVar("T")

Row: TypeAlias = tuple[object, ...]

LEADERBOARD_RACES = 10
"""Rated races a player needs before the leaderboard lists them."""

PLAYERS = (
    "SELECT id, name, token_hash, created FROM players WHERE forgotten IS NULL ORDER BY created, id"
)
"""Every player the registry knows: a forgotten one's name is free and their token nobody's."""
FIND_PLAYER = (
    "SELECT id, name, token_hash, created FROM players WHERE token_hash = ? AND forgotten IS NULL"
)
STANDING = (
    f"SELECT name, rating, deviation, volatility, bot, banned, {FLAGS_OF}, forgotten,"
    " daily_last FROM players WHERE id = ?"
)
"""What a returning player's hello reads: their name, rating, bot, ban, flags and last
ranked daily race now."""
LIVE_RACE_OF = "SELECT id FROM live_races WHERE player0 = ? OR player1 = ? LIMIT 1"
"""The live race a player sits in, if any."""

PLAYER_STATS = (
    "SELECT id, name, created, last_seen, games, wins, losses, draws FROM players WHERE id = ?"
)
# CAST: PostgreSQL keeps moves as jsonb, which psycopg would parse; text reads the same on both.
RACE = (
    "SELECT id, rules, dealing, seeds, player0, player1, started, ended, result, winner,"
    " reason, count0, count1, CAST(moves AS text), unrated, fair_play FROM races WHERE id = ?"
)
RACE_COUNT = "SELECT count(*) FROM races"

RATING = "SELECT rating, deviation, volatility FROM players WHERE id = ?"

LEADERBOARD = (
    "SELECT name, rating, rated_races FROM players"
    f" WHERE deviation < {PROVISIONAL_DEVIATION} AND rated_races >= {LEADERBOARD_RACES}"
    " AND banned = 0 AND forgotten IS NULL"
    " ORDER BY rating DESC, name_key LIMIT ?"
)

PROFILE = (
    "SELECT id, name, rating, deviation, volatility, games, wins, draws, losses,"
    " best_clear_ms, created, bot FROM players WHERE name_key = ?"
)

SUMMARY_COLUMNS = (
    "r.id, r.ended, p0.name, p1.name, r.rules, r.result, r.winner, r.reason, r.count0,"
    " r.count1, r.time0, r.time1, r.rating0_before, r.rating0_after, r.rating1_before,"
    " r.rating1_after, r.player0, r.player1, p0.bot, p1.bot, r.annulled"
)
_FROM = (
    " FROM races AS r JOIN players AS p0 ON p0.id = r.player0"
    " JOIN players AS p1 ON p1.id = r.player1"
)
HISTORY = (
    f"SELECT {SUMMARY_COLUMNS}{_FROM} WHERE (r.player0 = ? OR r.player1 = ?)"
    " ORDER BY r.ended DESC, r.id DESC LIMIT ?"
)
HISTORY_BEFORE = (
    f"SELECT {SUMMARY_COLUMNS}{_FROM} WHERE (r.player0 = ? OR r.player1 = ?)"
    " AND (r.ended < (SELECT ended FROM races WHERE id = ?)"
    " OR (r.ended = (SELECT ended FROM races WHERE id = ?) AND r.id < ?))"
    " ORDER BY r.ended DESC, r.id DESC LIMIT ?"
)
SUMMARY = f"SELECT {SUMMARY_COLUMNS}{_FROM} WHERE r.id = ?"


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A player's record; times are wall-clock seconds since the epoch."""

    player_id: str
    name: str
    created: float
    last_seen: float
    games: int
    wins: int
    losses: int
    draws: int


@dataclass(frozen=True, slots=True)
class Ranked:
    """A leaderboard line."""

    name: str
    rating: int
    races: int


@dataclass(frozen=True, slots=True)
class ProfileRow:
    """A player as ``/api/players/NAME`` shows them; ``joined`` is wall-clock seconds."""

    player_id: str
    name: str
    rating: Glicko
    races: int
    wins: int
    draws: int
    losses: int
    best_clear_ms: int | None
    joined: float
    bot: bool = False
    """A declared bot (``hello.bot``); the server's own are known by their ids."""


@dataclass(frozen=True, slots=True)
class Summary:
    """A finished race as a history lists it; ``ended`` is wall-clock seconds."""

    game_id: str
    ended: float
    names: tuple[str, str]
    rules_json: str
    result: str
    winner: int | None
    reason: str
    counts: tuple[int, int]
    times_ms: tuple[int | None, int | None]
    ratings: tuple[tuple[int, int], tuple[int, int]] | None
    """Each player's rating before and after, if the race was rated (and not annulled)."""
    player_ids: tuple[str, str] = ("", "")
    bots: tuple[bool, bool] = (False, False)
    """Which players are declared bots (``hello.bot``); the server's own are known by id."""


@dataclass(frozen=True, slots=True)
class StandingRow:
    """A player as a returning hello finds them (:data:`STANDING`)."""

    name: str
    rating: Glicko
    bot: bool
    banned: bool
    flags: int
    """Races in which their play was flagged, not cleared (server/store/marks.py)."""
    forgotten: bool
    last_daily: str | None = None
    """The last day they raced the daily deal ranked (server/store/daily_rows.py)."""


def history_query(player_id: str, limit: int, before: str | None) -> tuple[str, Row]:
    """The query of a page of a player's history, and its arguments."""
    if before is None:
        return HISTORY, (player_id, player_id, limit)
    return HISTORY_BEFORE, (player_id, player_id, before, before, before, limit)


def first(read: Callable[[Row], T]) -> Callable[[list[Row]], T | None]:
    """A reader of the rows of a query that finds one row or none."""
    return lambda rows: read(rows[0]) if rows else None


def each(read: Callable[[Row], T]) -> Callable[[list[Row]], list[T]]:
    """A reader of every row of a query."""
    return lambda rows: [read(row) for row in rows]


def count(rows: list[Row]) -> int:
    """The one number of a ``SELECT count(*)``."""
    ((value,),) = rows
    return _int(value)


def identity(row: Row) -> Identity:
    player_id, name, token_hash, created = row
    return Identity(str(player_id), str(name), str(token_hash), _float(created))


def standing(row: Row) -> StandingRow:
    name, value, deviation, volatility, bot, banned, flags, forgotten, last_daily = row
    return StandingRow(
        name=str(name),
        rating=Glicko(_float(value), _float(deviation), _float(volatility)),
        bot=bool(bot),
        banned=bool(banned),
        flags=_int(flags),
        forgotten=forgotten is not None,
        last_daily=last_daily if isinstance(last_daily, str) else None,
    )


def player_stats(row: Row) -> PlayerStats:
    player_id, name, created, last_seen, games, wins, losses, draws = row
    return PlayerStats(
        str(player_id), str(name), _float(created), _float(last_seen),
        _int(games), _int(wins), _int(losses), _int(draws),
    )  # fmt: skip


def race(row: Row) -> FinishedRace:
    """A finished race with wall-clock ``started`` and ``ended``."""
    game_id, rules, dealing, seeds, player0, player1, started, ended = row[:8]
    result, winner, reason, count0, count1, moves, unrated, fair_play = row[8:]
    return FinishedRace(
        game_id=str(game_id),
        rules_json=str(rules),
        dealing=str(dealing),
        seeds=tuple(json.loads(str(seeds))),
        player_ids=(str(player0), str(player1)),
        started=_float(started),
        ended=_float(ended),
        # [seq, seat, card, milliseconds] each (rows.moves_json).
        moves=tuple(
            MoveRecord(seq, seat, card, at_ms / 1000)
            for seq, seat, card, at_ms in json.loads(str(moves))
        ),
        result=str(result),
        winner=_maybe_int(winner),
        reason=str(reason),
        counts=(_int(count0), _int(count1)),
        unrated="fair_play" if unrated == "fair_play" else "no_play" if unrated else None,
        fair_play=_evidence(fair_play),
    )


def _evidence(text: object) -> tuple[Evidence | None, Evidence | None]:
    """``races.fair_play`` (rows.py) read back: each seat's evidence, or None."""
    if text is None:
        return None, None
    first, second = (
        None if seat is None else Evidence.from_json(json.dumps(seat))
        for seat in json.loads(str(text))
    )
    return first, second


def rating(row: Row) -> Glicko:
    value, deviation, volatility = row
    return Glicko(_float(value), _float(deviation), _float(volatility))


def ranked(row: Row) -> Ranked:
    name, value, races = row
    return Ranked(str(name), round(_float(value)), _int(races))


def profile(row: Row) -> ProfileRow:
    player_id, name, value, deviation, volatility, games, wins, draws, losses = row[:9]
    best, created, bot = row[9:]
    return ProfileRow(
        player_id=str(player_id),
        name=str(name),
        rating=Glicko(_float(value), _float(deviation), _float(volatility)),
        races=_int(games),
        wins=_int(wins),
        draws=_int(draws),
        losses=_int(losses),
        best_clear_ms=_maybe_int(best),
        joined=_float(created),
        bot=bool(bot),
    )


def summary(row: Row) -> Summary:
    game_id, ended, name0, name1, rules, result, winner, reason, count0, count1 = row[:10]
    time0, time1 = row[10:12]
    before0, after0, before1, after1 = (_maybe_int(x) for x in row[12:16])
    player0, player1, bot0, bot1, annulled = row[16:]
    ratings = None
    shown = (before0, after0, before1, after1)
    if annulled is None and before0 is not None and after0 is not None:  # an annul rated none
        ratings = ((before0, after0), (_int(shown[2]), _int(shown[3])))
    return Summary(
        game_id=str(game_id),
        ended=_float(ended),
        names=(str(name0), str(name1)),
        rules_json=str(rules),
        result=str(result),
        winner=_maybe_int(winner),
        reason=str(reason),
        counts=(_int(count0), _int(count1)),
        times_ms=(_maybe_int(time0), _maybe_int(time1)),
        ratings=ratings,
        player_ids=(str(player0), str(player1)),
        bots=(bool(bot0), bool(bot1)),
    )


def _int(value: object) -> int:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    raise ValueError(f"not a number: {value!r}")


def _float(value: object) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise ValueError(f"not a number: {value!r}")


def _maybe_int(value: object) -> int | None:
    return None if value is None else _int(value)


def text(row: Row) -> str:
    """A row of one text column."""
    return str(row[0])
