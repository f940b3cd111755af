"""The PostgreSQL store's connection and every statement it runs, and its errors.

:class:`PgDatabase` is one :class:`psycopg.AsyncConnection` in autocommit mode
(transactions are explicit, ``conn.transaction()``) and what the store does
with it: the same statements as :class:`server.store.sqlite.Database`, in
PostgreSQL's dialect. It knows nothing of batches or retries:
:class:`server.store.postgres_store.PostgresStore` calls it one call at a time.

It raises :mod:`psycopg`'s errors, and :class:`~server.store.faults.StoreRefused`
for a refusal it finds itself (moves that repeat a ``seq``, an unknown
player). :func:`classified_pg` is the one place that maps psycopg's errors
onto the store's, by SQLSTATE: a passing fault (the connection lost, a server
shutting down or read-only, a serialization failure, a full disk) is
:class:`~server.store.faults.StoreUnavailable`, a broken constraint is
:class:`~server.store.faults.StoreRefused`.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

import psycopg

from core.identity import Identity
from core.race_log import Entry, MoveRecord, RaceRecord

from . import reads
from .faults import StoreError, StoreRefused, StoreUnavailable
from .postgres_schema import migrate
from .rows import (
    UPDATE_BEST_CLEAR,
    UPDATE_RATING,
    LiveRace,
    best_clear,
    last_cards,
    live_race,
    moves_json,
    outcome,
    rating_updates,
    ratings_json,
    shown_ratings,
)
from .sqlite import ABORTED, PlayerStats

if TYPE_CHECKING:
    from psycopg.rows import TupleRow

    from core.glicko2 import Glicko
    from core.race_log import RaceStart

    from .sqlite import Writes

__all__ = ["PgDatabase", "classified_pg"]

log = logging.getLogger("flowergarden.server")

_TRANSIENT_CLASSES = frozenset({"08", "40", "53", "58"})
"""SQLSTATE classes that may pass: connection, transaction rollback (serialization,
deadlock), insufficient resources (disk full, memory, connections), system error."""

_TRANSIENT_STATES = frozenset(
    {
        "25006",  # read_only_sql_transaction: a standby, or the server made read-only
        "25P03",  # idle_in_transaction_session_timeout
        "55006",  # object_in_use
        "55P03",  # lock_not_available (lock_timeout)
        "57014",  # query_canceled (statement_timeout)
        "57P01",  # admin_shutdown
        "57P02",  # crash_shutdown
        "57P03",  # cannot_connect_now: starting up or shutting down
        "57P05",  # idle_session_timeout
    }
)

_CONNECT_TIMEOUT = 10
"""Seconds a connection attempt may take, unless the URL says otherwise."""


def classified_pg(exc: psycopg.Error) -> StoreError:
    """psycopg's error as the store's: transient, a refusal, or neither (a bug)."""
    state = exc.sqlstate
    message = f"{type(exc).__name__}: {exc}".strip()
    if state is None:
        # Raised by libpq or psycopg, not the server: an OperationalError is a
        # failed or lost connection; anything else is a misuse, a bug.
        transient = isinstance(exc, psycopg.OperationalError)
    else:
        transient = state[:2] in _TRANSIENT_CLASSES or state in _TRANSIENT_STATES
    if transient:
        return StoreUnavailable(message)
    if isinstance(exc, psycopg.IntegrityError):
        return StoreRefused(message)
    return StoreError(message)


class PgDatabase:
    """One connection to a PostgreSQL database, and every statement the store runs on it."""

    def __init__(self, conn: psycopg.AsyncConnection[TupleRow]) -> None:
        self._conn = conn

    @classmethod
    async def connect(cls, url: str) -> PgDatabase:
        params: dict[str, Any] = {}
        if "connect_timeout" not in psycopg.conninfo.conninfo_to_dict(url):
            params["connect_timeout"] = _CONNECT_TIMEOUT
        return cls(await psycopg.AsyncConnection.connect(url, autocommit=True, **params))

    @property
    def broken(self) -> bool:
        """The connection is lost: the store needs a new one."""
        return self._conn.closed or self._conn.broken

    async def open(self) -> list[Identity]:
        await migrate(self._conn)
        cursor = await self._conn.execute(
            b"SELECT id, name, token_hash, created FROM players ORDER BY created, id"
        )
        return [Identity(*row) for row in await cursor.fetchall()]

    async def close(self) -> None:
        await self._conn.close()

    async def execute(self, sql: str) -> list[tuple[object, ...]]:
        """Run one statement outside any transaction of the store's; its rows (tests, tools)."""
        cursor = await self._conn.execute(sql.encode())
        return list(await cursor.fetchall()) if cursor.description is not None else []

    async def add_player(self, identity: Identity) -> None:
        conn = self._conn
        async with conn.transaction():
            # Looked up first, so that a taken name is refused even while the
            # server refuses writes (read-only): refused, not unavailable. The
            # unique constraints still decide between two servers at once.
            taken = await conn.execute(
                b"SELECT 1 FROM players WHERE id = %s OR name_key = %s OR token_hash = %s",
                (identity.player_id, identity.name.lower(), identity.token_hash),
            )
            if await taken.fetchone() is not None:
                raise StoreRefused(f"the name, id or token of {identity.player_id} is taken")
            await conn.execute(
                b"INSERT INTO players (id, name, name_key, token_hash, created, last_seen)"
                b" VALUES (%s, %s, %s, %s, %s, %s)",
                (
                    identity.player_id,
                    identity.name,
                    identity.name.lower(),
                    identity.token_hash,
                    identity.created,
                    identity.created,
                ),
            )

    async def write(self, writes: Writes) -> None:
        """Write everything in one transaction, or nothing; a known start or race is skipped."""
        conn = self._conn
        async with conn.transaction(), conn.cursor() as cursor:
            # executemany sends every row in one pipeline: one round trip, not one a row.
            if writes.starts:
                await cursor.executemany(
                    b"INSERT INTO live_races (id, rules, dealing, seeds, ratings, player0, player1,"
                    b" started) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
                    b" ON CONFLICT (id) DO NOTHING",
                    [_start_row(s, wall) for s, wall in writes.starts],
                )
            if writes.entries:
                await cursor.executemany(
                    b"INSERT INTO journal (race_id, seq, seat, what, at)"
                    b" VALUES (%s, %s, %s, %s, %s)",
                    [(game_id, *entry) for game_id, entry in writes.entries],
                )
            for record, started_wall, ended_wall in writes.races:
                await self._insert_race(record, started_wall, ended_wall)
                # A finished race is its record: its journal is done with.
                await conn.execute(b"DELETE FROM journal WHERE race_id = %s", (record.game_id,))
                await conn.execute(b"DELETE FROM live_races WHERE id = %s", (record.game_id,))

    async def _insert_race(
        self, record: RaceRecord, started_wall: float, ended_wall: float
    ) -> None:
        moves = moves_json(record.moves)
        # ON CONFLICT: a known race is skipped atomically, even against another server.
        inserted = await self._conn.execute(
            b"INSERT INTO races (id, rules, dealing, seeds, player0, player1, started, ended,"
            b" result, winner, reason, count0, count1, moves, time0, time1, rating0_before,"
            b" rating0_after, rating1_before, rating1_after)"
            b" VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb,"
            b" %s, %s, %s, %s, %s, %s)"
            b" ON CONFLICT (id) DO NOTHING RETURNING id",
            (
                record.game_id,
                record.rules_json,
                record.dealing,
                _seeds(record.seeds),
                *record.player_ids,
                started_wall,
                ended_wall,
                record.result,
                record.winner,
                record.reason,
                *record.counts,
                moves,
                *last_cards(record),
                *shown_ratings(record),
            ),
        )
        if await inserted.fetchone() is None or record.reason == ABORTED:
            return  # known already, or not a race anyone won, lost or drew
        for seat, player_id in enumerate(record.player_ids):
            wins, losses, draws = outcome(record.winner, seat)
            await self._conn.execute(
                b"UPDATE players SET games = games + 1, wins = wins + %s, losses = losses + %s,"
                b" draws = draws + %s, last_seen = %s WHERE id = %s",
                (wins, losses, draws, ended_wall, player_id),
            )
        for player_id, rating in rating_updates(record):
            await self._conn.execute(_UPDATE_RATING, (*rating, player_id))
        clear = best_clear(record)
        if clear is not None:
            await self._conn.execute(_UPDATE_BEST_CLEAR, clear)

    async def touch(self, player_id: str, wall: float) -> None:
        cursor = await self._conn.execute(
            b"UPDATE players SET last_seen = %s WHERE id = %s", (wall, player_id)
        )
        if cursor.rowcount != 1:
            raise StoreRefused(f"no player has the id {player_id!r}")

    async def suspend(self, elapsed: dict[str, float]) -> None:
        """Set each live race's elapsed seconds; an id that is not live is skipped."""
        conn = self._conn
        async with conn.transaction(), conn.cursor() as cursor:
            await cursor.executemany(
                b"UPDATE live_races SET elapsed = %s WHERE id = %s",
                [(seconds, game_id) for game_id, seconds in elapsed.items()],
            )

    async def live_races(self) -> list[LiveRace]:
        """Every live race, oldest first, as far as its rows can be read (rows.live_race)."""
        conn = self._conn
        # One snapshot: the races and their entries as of one moment.
        async with conn.transaction():
            await conn.execute(b"SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            races = await conn.execute(
                b"SELECT l.id, l.rules, l.dealing, l.seeds, l.ratings, l.player0, l.player1,"
                b" p0.name, p1.name, l.elapsed FROM live_races AS l"
                b" LEFT JOIN players AS p0 ON p0.id = l.player0"
                b" LEFT JOIN players AS p1 ON p1.id = l.player1 ORDER BY l.started, l.id"
            )
            race_rows = await races.fetchall()
            entries = await conn.execute(
                b"SELECT race_id, seq, seat, what, at FROM journal ORDER BY race_id, seq"
            )
            entry_rows = await entries.fetchall()
        journals: dict[object, list[Entry]] = {}
        for race_id, seq, seat, what, at in entry_rows:
            journals.setdefault(race_id, []).append(Entry(seq, seat, what, at))
        return [live_race(row, journals.get(row[0], [])) for row in race_rows]

    async def find_player(self, token_hash: str) -> Identity | None:
        cursor = await self._conn.execute(
            b"SELECT id, name, token_hash, created FROM players WHERE token_hash = %s",
            (token_hash,),
        )
        row = await cursor.fetchone()
        return None if row is None else Identity(*row)

    async def player_stats(self, player_id: str) -> PlayerStats | None:
        cursor = await self._conn.execute(
            b"SELECT id, name, created, last_seen, games, wins, losses, draws"
            b" FROM players WHERE id = %s",
            (player_id,),
        )
        row = await cursor.fetchone()
        return None if row is None else PlayerStats(*row)

    async def race(self, game_id: str) -> RaceRecord | None:
        cursor = await self._conn.execute(
            b"SELECT rules, dealing, seeds, player0, player1, started, ended,"
            b" result, winner, reason, count0, count1, moves FROM races WHERE id = %s",
            (game_id,),
        )
        row = await cursor.fetchone()
        if row is None:
            return None
        (rules, dealing, seeds, player0, player1, started, ended) = row[:7]
        (result, winner, reason, count0, count1, moves) = row[7:]
        return RaceRecord(
            game_id=game_id,
            rules_json=rules,
            dealing=dealing,
            seeds=tuple(json.loads(seeds)),
            player_ids=(player0, player1),
            started=started,
            ended=ended,
            # jsonb comes back parsed: [seq, seat, card, milliseconds] each.
            moves=tuple(
                MoveRecord(seq, seat, card, at_ms / 1000) for seq, seat, card, at_ms in moves
            ),
            result=result,
            winner=winner,
            reason=reason,
            counts=(count0, count1),
        )

    async def race_count(self) -> int:
        cursor = await self._conn.execute(b"SELECT count(*) FROM races")
        row = await cursor.fetchone()
        return 0 if row is None else int(row[0])

    # -- what the HTTP API reads (server/store/reads.py) ------------------------------

    async def _rows(self, sql: str, arguments: tuple[object, ...]) -> list[tuple[object, ...]]:
        cursor = await self._conn.execute(reads.for_postgres(sql), arguments)
        return list(await cursor.fetchall())

    async def rating(self, player_id: str) -> Glicko | None:
        rows = await self._rows(reads.RATING, (player_id,))
        return reads.rating(rows[0] if rows else None)

    async def leaderboard(self, limit: int) -> list[reads.Ranked]:
        return [reads.ranked(row) for row in await self._rows(reads.LEADERBOARD, (limit,))]

    async def profile(self, name: str) -> reads.Profile | None:
        rows = await self._rows(reads.PROFILE, (name.lower(),))
        return reads.profile(rows[0]) if rows else None

    async def history(self, player_id: str, limit: int, before: str | None) -> list[reads.Summary]:
        if before is None:
            rows = await self._rows(reads.HISTORY, (player_id, player_id, limit))
        else:
            arguments = (player_id, player_id, before, before, before, limit)
            rows = await self._rows(reads.HISTORY_BEFORE, arguments)
        return [reads.summary(row) for row in rows]

    async def summary(self, game_id: str) -> reads.Summary | None:
        rows = await self._rows(reads.SUMMARY, (game_id,))
        return reads.summary(rows[0]) if rows else None


def _seeds(seeds: tuple[str | int, ...]) -> str:
    return json.dumps(list(seeds))


_UPDATE_RATING = reads.for_postgres(UPDATE_RATING)
_UPDATE_BEST_CLEAR = reads.for_postgres(UPDATE_BEST_CLEAR)


def _start_row(start: RaceStart, wall: float) -> tuple[object, ...]:
    seeds, ratings = _seeds(start.seeds), ratings_json(start.ratings)
    return (start.game_id, start.rules_json, start.dealing, seeds, ratings, *start.player_ids, wall)
