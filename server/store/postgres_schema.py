"""The PostgreSQL store's schema, versioned by the one row of ``schema_version``.

``MIGRATIONS[n]`` takes a database from version n to n + 1. :func:`migrate` runs
those a database lacks in one transaction, the same that sets the version:
DDL is transactional in PostgreSQL, so an upgrade is whole or not at all. A
transaction-scoped advisory lock makes two servers opening one new database
at once take turns, so the second finds the schema made. A migration, once
released, is never changed: a new one is added after it.

Version 1 is the end state of the SQLite schema (``server/store/sqlite_schema.py``,
version 3), not its history: there are no older PostgreSQL databases to
upgrade. Types map as TEXT -> text and REAL -> double precision; seeds stay
JSON text (a seed is wider than bigint, and a row that does not parse must
reach :func:`core.restore.restore` as unreadable, not fail the read); a
race's moves are one ``jsonb`` array, shown as rows by the ``moves`` view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from psycopg.rows import TupleRow

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "NewerSchema", "migrate", "schema_version"]

_LOCK_KEY = 0x466C6F77  # "Flow": any constant; names this schema's migration lock

_RACE_COLUMNS = (
    b"time0", b"time1", b"rating0_before", b"rating0_after", b"rating1_before", b"rating1_after",
)  # fmt: skip
"""Each seat's time of its last card (ms), and the ratings of a rated race."""

_LAST_CARD = b"""UPDATE races SET time%d = (
    SELECT (move->>3)::integer FROM jsonb_array_elements(races.moves) AS move
    WHERE (move->>1)::integer = %d AND move->>2 <> 'redeal'
    ORDER BY (move->>0)::integer DESC LIMIT 1)"""
"""A race's seat's time of its last card, from its moves ([seq, seat, card, ms])."""

_BEST_CLEAR = b"""UPDATE players SET best_clear_ms = (
    SELECT min(CASE winner WHEN 0 THEN time0 ELSE time1 END) FROM races
    WHERE reason = 'cleared'
    AND ((winner = 0 AND player0 = players.id) OR (winner = 1 AND player1 = players.id)))"""

MIGRATIONS: tuple[tuple[bytes, ...], ...] = (
    # 0 -> 1: the first schema, as SQLite's stands at its version 3.
    (
        b"""CREATE TABLE players (
            id text PRIMARY KEY,
            name text NOT NULL,
            name_key text NOT NULL UNIQUE,
            token_hash text NOT NULL UNIQUE,
            created double precision NOT NULL,
            last_seen double precision NOT NULL,
            games integer NOT NULL DEFAULT 0,
            wins integer NOT NULL DEFAULT 0,
            losses integer NOT NULL DEFAULT 0,
            draws integer NOT NULL DEFAULT 0
        )""",
        b"""CREATE TABLE races (
            id text PRIMARY KEY,
            rules text NOT NULL,
            seeds text NOT NULL,
            player0 text NOT NULL REFERENCES players(id),
            player1 text NOT NULL REFERENCES players(id),
            started double precision NOT NULL,
            ended double precision NOT NULL,
            result text NOT NULL,
            winner integer CHECK (winner IN (0, 1)),
            reason text NOT NULL,
            count0 integer NOT NULL,
            count1 integer NOT NULL,
            moves jsonb NOT NULL DEFAULT '[]'
        )""",
        b"CREATE INDEX races_player0 ON races(player0)",
        b"CREATE INDEX races_player1 ON races(player1)",
        # Each move as a row: [seq, seat, card, milliseconds] in the column.
        b"""CREATE VIEW moves (race_id, seq, seat, card, at) AS
            SELECT races.id, (move->>0)::integer, (move->>1)::integer, move->>2,
                (move->>3)::double precision / 1000.0
            FROM races, jsonb_array_elements(races.moves) AS move""",
        # ``elapsed`` is set on shutdown only.
        b"""CREATE TABLE live_races (
            id text PRIMARY KEY,
            rules text NOT NULL,
            seeds text NOT NULL,
            player0 text NOT NULL REFERENCES players(id),
            player1 text NOT NULL REFERENCES players(id),
            started double precision NOT NULL,
            elapsed double precision NOT NULL DEFAULT 0
        )""",
        # A row a play, keyed by its race and seq; no entry outlives its race.
        b"""CREATE TABLE journal (
            race_id text NOT NULL REFERENCES live_races(id),
            seq integer NOT NULL,
            seat integer NOT NULL CHECK (seat IN (0, 1)),
            what text NOT NULL,
            at double precision NOT NULL,
            PRIMARY KEY (race_id, seq)
        )""",
    ),
    # 1 -> 2: which algorithm dealt a race (core/seeding.py). Every race
    # before this one was dealt by CPython's random from integer seeds.
    (
        b"ALTER TABLE races ADD COLUMN dealing text NOT NULL DEFAULT 'mt19937'",
        b"ALTER TABLE live_races ADD COLUMN dealing text NOT NULL DEFAULT 'mt19937'",
    ),
    # 2 -> 3: ratings (core/glicko2.py), race times, and what the HTTP API
    # reads (server/store/reads.py). Times of races recorded before come from their moves.
    (
        b"ALTER TABLE players ADD COLUMN rating double precision NOT NULL DEFAULT 1500",
        b"ALTER TABLE players ADD COLUMN deviation double precision NOT NULL DEFAULT 500",
        b"ALTER TABLE players ADD COLUMN volatility double precision NOT NULL DEFAULT 0.09",
        b"ALTER TABLE players ADD COLUMN rated_races integer NOT NULL DEFAULT 0",
        b"ALTER TABLE players ADD COLUMN best_clear_ms integer",
        *(b"ALTER TABLE races ADD COLUMN %s integer" % column for column in _RACE_COLUMNS),
        b"ALTER TABLE live_races ADD COLUMN ratings text",
        *(_LAST_CARD % (seat, seat) for seat in (0, 1)),
        _BEST_CLEAR,
        b"CREATE INDEX races_by_player0 ON races (player0, ended)",
        b"CREATE INDEX races_by_player1 ON races (player1, ended)",
        b"CREATE INDEX players_by_rating ON players (rating)",
    ),
    # 3 -> 4: a live race's epoch, its current ownership (server/store/machine.py,
    # "Fencing"): the store writes a race's entries only under its current epoch.
    (b"ALTER TABLE live_races ADD COLUMN epoch integer NOT NULL DEFAULT 1",),
    # 4 -> 5: fair play and the operator's tools, as SQLite's 8 -> 9: declared bots,
    # bans, forgotten players, races' fair-play judgements and full ratings, live races'
    # declared bots, the marks the operator reviews, and the audit log. Flags are
    # integers 0 or 1, as in SQLite, so that one statement serves both stores.
    (
        b"ALTER TABLE players ADD COLUMN bot integer NOT NULL DEFAULT 0",
        b"ALTER TABLE players ADD COLUMN banned integer NOT NULL DEFAULT 0",
        b"ALTER TABLE players ADD COLUMN forgotten double precision",
        b"ALTER TABLE races ADD COLUMN unrated text",
        b"ALTER TABLE races ADD COLUMN fair_play text",
        b"ALTER TABLE races ADD COLUMN glicko text",
        b"ALTER TABLE races ADD COLUMN annulled double precision",
        b"ALTER TABLE live_races ADD COLUMN bot0 integer NOT NULL DEFAULT 0",
        b"ALTER TABLE live_races ADD COLUMN bot1 integer NOT NULL DEFAULT 0",
        b"""CREATE TABLE marks (
            player_id text NOT NULL REFERENCES players(id),
            race_id text NOT NULL REFERENCES races(id),
            kind text NOT NULL CHECK (kind IN ('flag', 'report')),
            reporter text NOT NULL DEFAULT '',
            reason text,
            at double precision NOT NULL,
            cleared double precision,
            PRIMARY KEY (race_id, kind, reporter, player_id)
        )""",
        b"CREATE INDEX marks_by_player ON marks (player_id, cleared)",
        b"CREATE INDEX marks_by_reporter ON marks (reporter, at)",
        # Ids drawn under a lock (server/store/postgres.py, PgDatabase.run), so that they
        # commit in their order and a worker reading the log after its last id misses none.
        b"""CREATE TABLE actions (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            at double precision NOT NULL,
            action text NOT NULL,
            target text NOT NULL,
            reason text NOT NULL,
            done_by text NOT NULL,
            player_id text,
            detail text
        )""",
        b"CREATE INDEX players_unused ON players (games, last_seen)",
    ),
    # 5 -> 6: the daily deal, as SQLite's 9 -> 10 (server/store/daily_rows.py): races' kinds,
    # each day's seed and commit, each day's ranked races, and each player's streak.
    (
        b"ALTER TABLE live_races ADD COLUMN kind text",
        b"ALTER TABLE races ADD COLUMN kind text",
        b"ALTER TABLE players ADD COLUMN daily_last text",
        b"ALTER TABLE players ADD COLUMN daily_streak integer NOT NULL DEFAULT 0",
        b"ALTER TABLE players ADD COLUMN daily_best_streak integer NOT NULL DEFAULT 0",
        b"""CREATE TABLE daily_deals (
            day text PRIMARY KEY,
            seed text NOT NULL,
            commitment text NOT NULL,
            drawn double precision NOT NULL
        )""",
        b"""CREATE TABLE daily_results (
            day text NOT NULL,
            player_id text NOT NULL REFERENCES players(id),
            race_id text NOT NULL UNIQUE REFERENCES races(id),
            time_ms integer,
            count integer NOT NULL,
            flagged integer NOT NULL DEFAULT 0,
            ended double precision NOT NULL,
            PRIMARY KEY (day, player_id)
        )""",
        b"CREATE INDEX daily_results_by_time ON daily_results (day, time_ms)",
    ),
    # 6 -> 7: arenas, as SQLite's: each one scheduled, with its owner's epoch, and each
    # player who joined one.
    (
        b"""CREATE TABLE arenas (
            id text PRIMARY KEY,
            name text NOT NULL,
            rules text NOT NULL,
            starts_at double precision NOT NULL,
            ends_at double precision NOT NULL,
            status text NOT NULL CHECK (status IN ('upcoming', 'running', 'finished')),
            epoch integer NOT NULL DEFAULT 1,
            created double precision NOT NULL
        )""",
        b"CREATE INDEX arenas_by_status ON arenas (status, starts_at)",
        b"""CREATE TABLE arena_entrants (
            arena_id text NOT NULL REFERENCES arenas(id),
            player_id text NOT NULL,
            name text NOT NULL,
            bot integer NOT NULL,
            ord integer NOT NULL,
            joined integer NOT NULL,
            score integer NOT NULL,
            streak integer NOT NULL,
            races integer NOT NULL,
            last_opponent text,
            PRIMARY KEY (arena_id, player_id)
        )""",
    ),
    # 7 -> 8: each player's last race's end, as SQLite's (server/store/end_rows.py).
    (
        b"""CREATE TABLE owed_ends (
            player_id text PRIMARY KEY,
            race_id text NOT NULL,
            teller text NOT NULL,
            ended double precision NOT NULL,
            state text NOT NULL
        )""",
    ),
)
"""``MIGRATIONS[n]`` takes a database from ``schema_version`` n to n + 1."""

SCHEMA_VERSION = len(MIGRATIONS)
"""The version the store writes and reads."""


class NewerSchema(Exception):
    """The database was made by a newer server: this one must not touch it."""


async def schema_version(conn: AsyncConnection[TupleRow]) -> int:
    """The database's version: 0 for one this store never opened."""
    cursor = await conn.execute(b"SELECT to_regclass('schema_version') IS NOT NULL")
    row = await cursor.fetchone()
    if row is None or not row[0]:
        return 0
    cursor = await conn.execute(b"SELECT version FROM schema_version")
    row = await cursor.fetchone()
    return 0 if row is None else int(str(row[0]))


async def migrate(conn: AsyncConnection[TupleRow]) -> None:
    """Bring the database to :data:`SCHEMA_VERSION`; raise :class:`NewerSchema` past it."""
    async with conn.transaction():
        await conn.execute(b"SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        version = await schema_version(conn)
        if version > SCHEMA_VERSION:
            raise NewerSchema(f"schema version {version} is newer than {SCHEMA_VERSION}")
        if version == SCHEMA_VERSION:
            return
        if version == 0:
            # One row, forced by the key: there is one version for the database.
            await conn.execute(
                b"CREATE TABLE schema_version ("
                b" one boolean PRIMARY KEY DEFAULT true CHECK (one),"
                b" version integer NOT NULL)"
            )
            await conn.execute(b"INSERT INTO schema_version (version) VALUES (0)")
        for migration in MIGRATIONS[version:]:
            for statement in migration:
                await conn.execute(statement)
        await conn.execute(b"UPDATE schema_version SET version = %s", (SCHEMA_VERSION,))
