"""Persistence: every player and every finished race, in SQLite by default.

Theory of operation
-------------------
The glue talks to a :class:`Store`, a small async interface. :class:`SqliteStore`
implements it with one connection owned by one worker thread: every call runs
there through ``loop.run_in_executor``, so no SQLite call blocks the event loop,
and calls run one at a time, in the order they were made. A call, once made,
runs to the end even if the coroutine awaiting it is cancelled (it is shielded),
so a server shutting down still writes every race it has announced, and
:meth:`Store.close` waits for every call made before it.

Durability: :meth:`Store.add_player` and :meth:`Store.record_race` return only
once their transaction is committed. The database is in WAL mode with
``synchronous=NORMAL``: a committed transaction is already in the OS's hands
when the commit returns, so a killed process (even by SIGKILL) loses nothing;
only a power loss or an OS crash can take the last few commits, which
``durable=True`` (``synchronous=FULL``, an fsync per commit) prevents too.

Times: the ``races`` table keeps wall-clock times (seconds since the epoch), since
the cores' monotonic ``now`` means nothing to another process; a move's ``at``
stays relative to the start of its race, kept to the millisecond. So
:meth:`Store.race` returns a record whose ``started`` and ``ended`` are
wall-clock times.

Races end in bursts: races that start together end together, and each
``game_over`` waits for its race's commit. So recording a race is made cheap:
- a race's moves are one JSON column of its row, ``races.moves``, an array of
  ``[seq, seat, card, at_ms]``, rather than a row each (schema version 1). The
  ``moves`` view shows them as rows again (``race_id, seq, seat, card, at``)
  for anyone reading the file with SQL;
- races recorded while the worker is busy are written together, in one
  transaction (:class:`_RaceBatch`).
A race of 104 moves cost 0.67 ms of CPU to write as rows, one transaction
each; it costs 0.24 ms as a column, and 0.11 ms in a batch of 500
(``python -m bench.store``; bench/README.md).

Errors: every failure of the store (a duplicate player, an unknown player, a
closed store, an SQLite error) raises :class:`StoreError`, and a failed write
changes nothing.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeAlias, TypeVar

from .identity import Identity
from .record import MoveRecord, RaceRecord

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

__all__ = ["SCHEMA_VERSION", "PlayerStats", "SqliteStore", "Store", "StoreError"]

T = TypeVar("T")

_Race: TypeAlias = tuple[RaceRecord, float, float]
"""A finished race to write: its record, and when it started and ended (wall clock)."""

_BUSY_TIMEOUT_MS = 5000
"""How long a write waits for another connection to the same file to let go."""

_MOVES_VIEW = """CREATE VIEW moves (race_id, seq, seat, card, at) AS
    SELECT races.id,
        json_extract(move.value, '$[0]'),
        json_extract(move.value, '$[1]'),
        json_extract(move.value, '$[2]'),
        json_extract(move.value, '$[3]') / 1000.0
    FROM races, json_each(races.moves) AS move"""
"""Each move of each race as a row, as schema version 1 kept them."""

_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 0 -> 1: the first schema.
    (
        """CREATE TABLE players (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            name_key TEXT NOT NULL UNIQUE,
            token_hash TEXT NOT NULL UNIQUE,
            created REAL NOT NULL,
            last_seen REAL NOT NULL,
            games INTEGER NOT NULL DEFAULT 0,
            wins INTEGER NOT NULL DEFAULT 0,
            losses INTEGER NOT NULL DEFAULT 0,
            draws INTEGER NOT NULL DEFAULT 0
        )""",
        # Seeds are JSON: a seed may not fit SQLite's 64-bit INTEGER.
        """CREATE TABLE races (
            id TEXT PRIMARY KEY,
            rules TEXT NOT NULL,
            seeds TEXT NOT NULL,
            player0 TEXT NOT NULL REFERENCES players(id),
            player1 TEXT NOT NULL REFERENCES players(id),
            started REAL NOT NULL,
            ended REAL NOT NULL,
            result TEXT NOT NULL,
            winner INTEGER CHECK (winner IN (0, 1)),
            reason TEXT NOT NULL,
            count0 INTEGER NOT NULL,
            count1 INTEGER NOT NULL
        )""",
        "CREATE INDEX races_player0 ON races(player0)",
        "CREATE INDEX races_player1 ON races(player1)",
        """CREATE TABLE moves (
            race_id TEXT NOT NULL REFERENCES races(id),
            seq INTEGER NOT NULL,
            seat INTEGER NOT NULL CHECK (seat IN (0, 1)),
            card TEXT NOT NULL,
            at REAL NOT NULL,
            PRIMARY KEY (race_id, seq)
        ) WITHOUT ROWID""",
    ),
    # 1 -> 2: a race's moves move into its row, as JSON; a view keeps the rows.
    (
        "ALTER TABLE races ADD COLUMN moves TEXT NOT NULL DEFAULT '[]'",
        """UPDATE races SET moves = (
            SELECT json_group_array(json_array(seq, seat, card, CAST(round(at * 1000) AS INTEGER)))
            FROM (SELECT seq, seat, card, at FROM moves WHERE moves.race_id = races.id ORDER BY seq)
        )""",
        "DROP TABLE moves",
        _MOVES_VIEW,
    ),
)
"""``_MIGRATIONS[n]`` takes a database from ``user_version`` n to n + 1."""

SCHEMA_VERSION = len(_MIGRATIONS)
"""The ``PRAGMA user_version`` this module writes and reads."""


class StoreError(Exception):
    """The store failed, or refused a write; nothing was written."""


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


class Store(Protocol):
    """Where players and finished races are kept."""

    async def open(self) -> list[Identity]:
        """Create or upgrade the schema; return every player, for the registry."""

    async def add_player(self, identity: Identity) -> None:
        """Keep a new player, committed before returning; a taken name, id or token raises."""

    def record_race(
        self, record: RaceRecord, started_wall: float, ended_wall: float
    ) -> asyncio.Future[None]:
        """Keep a finished race and both players' stats at once; a known race is a no-op.

        Done once the race is committed; cancelling the future does not stop the write.
        """

    async def touch(self, player_id: str, wall: float) -> None:
        """Set when the player was last seen."""

    async def close(self) -> None:
        """Finish every call already made and close; closing again does nothing."""

    async def player_stats(self, player_id: str) -> PlayerStats | None:
        """A player's record, or None for an unknown id."""

    async def race(self, game_id: str) -> RaceRecord | None:
        """A finished race with wall-clock ``started`` and ``ended``, or None."""

    async def race_count(self) -> int:
        """How many races are kept."""


class SqliteStore:
    """A :class:`Store` in one SQLite file (or ``":memory:"``), see the module docstring."""

    def __init__(self, path: str | Path, *, durable: bool = False) -> None:
        self._path = str(path)
        self._durable = durable
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="store")
        self._db: _Database | None = None
        """Only ever read or written on the worker thread."""
        self._closing: asyncio.Future[None] | None = None
        self._batch: _RaceBatch | None = None
        """The races the worker will write next, if it is the last job queued."""

    def __repr__(self) -> str:
        return f"SqliteStore({self._path!r}, durable={self._durable!r})"

    async def open(self) -> list[Identity]:
        return await self._submit(self._open_on_worker)

    async def add_player(self, identity: Identity) -> None:
        await self._run(lambda db: db.add_player(identity))

    def record_race(
        self, record: RaceRecord, started_wall: float, ended_wall: float
    ) -> asyncio.Future[None]:
        # The future is settled straight from the worker's one call back to
        # the loop, with no task or future chain in between: a busy loop takes
        # tens of milliseconds per pass, and each game_over waits for this.
        loop = asyncio.get_running_loop()
        written: asyncio.Future[None] = loop.create_future()
        if self._closing is not None:  # a failure comes through the future, as any other
            written.set_exception(StoreError("the store is closed"))
            return written
        race = (record, started_wall, ended_wall)
        batch = self._batch
        if batch is None or not batch.add(race, written):
            batch = _RaceBatch()
            batch.add(race, written)
            self._start(lambda: self._write_batch_on_worker(batch, loop))
            self._batch = batch
        return written

    async def touch(self, player_id: str, wall: float) -> None:
        await self._run(lambda db: db.touch(player_id, wall))

    async def player_stats(self, player_id: str) -> PlayerStats | None:
        return await self._run(lambda db: db.player_stats(player_id))

    async def race(self, game_id: str) -> RaceRecord | None:
        return await self._run(lambda db: db.race(game_id))

    async def race_count(self) -> int:
        return await self._run(lambda db: db.race_count())

    async def close(self) -> None:
        if self._closing is None:
            loop = asyncio.get_running_loop()
            self._closing = loop.run_in_executor(self._executor, self._close_on_worker)
            # The job is queued, so the worker runs it before it stops.
            self._executor.shutdown(wait=False)
        await asyncio.shield(self._closing)

    async def _run(self, call: Callable[[_Database], T]) -> T:
        return await self._submit(lambda: self._call_on_worker(call))

    async def _submit(self, job: Callable[[], T]) -> T:
        # Shielded: a cancelled caller must not drop a write already promised.
        return await asyncio.shield(self._start(job))

    def _start(self, job: Callable[[], T]) -> asyncio.Future[T]:
        """Queue ``job`` for the worker, behind every call made before it."""
        if self._closing is not None:
            raise StoreError("the store is closed")
        # A race recorded from now on must not be written before this job.
        self._batch = None
        return asyncio.get_running_loop().run_in_executor(self._executor, job)

    def _write_batch_on_worker(self, batch: _RaceBatch, loop: asyncio.AbstractEventLoop) -> None:
        races, futures = batch.take()
        failures: list[Exception | None]
        try:
            failures = self._write_races_on_worker(races)
        except Exception as exc:  # a bug: still settle every future, or game_over never goes
            failures = [exc] * len(races)
        loop.call_soon_threadsafe(_settle, futures, failures)

    def _write_races_on_worker(self, races: list[_Race]) -> list[Exception | None]:
        """Write ``races`` in one transaction; what each call gets: None or its error."""
        try:
            self._call_on_worker(lambda db: db.record_races(races))
        except StoreError:
            # One race was refused, and with it all: write each on its own,
            # so that only the refused one fails.
            return [self._write_alone_on_worker(race) for race in races]
        return [None] * len(races)

    def _write_alone_on_worker(self, race: _Race) -> Exception | None:
        """Write one race in its own transaction; its error, or None."""
        try:
            self._call_on_worker(lambda db: db.record_races([race]))
        except StoreError as exc:
            return exc
        return None

    def _call_on_worker(self, call: Callable[[_Database], T]) -> T:
        if self._db is None:
            raise StoreError("the store is not open")
        try:
            return call(self._db)
        except sqlite3.Error as exc:
            raise StoreError(f"{type(exc).__name__}: {exc}") from exc

    def _open_on_worker(self) -> list[Identity]:
        if self._db is not None:
            raise StoreError("the store is already open")
        try:
            db = _Database(self._path, durable=self._durable)
            identities = db.open()
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open {self._path!r}: {exc}") from exc
        self._db = db
        return identities

    def _close_on_worker(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            try:
                db.close()
            except sqlite3.Error as exc:
                raise StoreError(f"closing {self._path!r}: {exc}") from exc


class _RaceBatch:
    """Races that one transaction writes: those recorded while the worker was busy.

    Races that start together end together, and each transaction costs a
    commit and, on a busy event loop, a wait for the GIL at every statement.
    So a race recorded while the previous batch is being written joins the
    batch queued behind it, unless another call was made in between (calls
    run in the order they are made). The worker :meth:`take` s the batch when
    it starts on it; a race that comes later starts the next batch.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._races: list[_Race] = []
        self._written: list[asyncio.Future[None]] = []
        self._taken = False

    def add(self, race: _Race, written: asyncio.Future[None]) -> bool:
        """Add the race, whose ``written`` is settled with the batch; False once taken."""
        with self._lock:
            if self._taken:
                return False
            self._races.append(race)
            self._written.append(written)
            return True

    def take(self) -> tuple[list[_Race], list[asyncio.Future[None]]]:
        """Every race added so far, and their futures; none can be added after (on the worker)."""
        with self._lock:
            self._taken = True
            return self._races, self._written


class _Database:
    """The synchronous half of :class:`SqliteStore`: lives on its worker thread."""

    def __init__(self, path: str, *, durable: bool) -> None:
        # Autocommit mode: transactions are explicit, see _transaction.
        self._conn = sqlite3.connect(path, isolation_level=None)
        try:
            self._conn.execute("PRAGMA journal_mode=WAL")
            # NORMAL is safe against a killed process in WAL mode (module docstring).
            self._conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._conn.execute(f"PRAGMA busy_timeout={_BUSY_TIMEOUT_MS}")
        except BaseException:
            self._conn.close()
            raise

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        # IMMEDIATE takes the write lock up front, so a transaction that reads
        # before it writes cannot fail half-way on another writer.
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
            self._conn.execute("COMMIT")
        except BaseException:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise

    def open(self) -> list[Identity]:
        try:
            self._migrate()
        except BaseException:
            self._conn.close()
            raise
        rows = self._conn.execute(
            "SELECT id, name, token_hash, created FROM players ORDER BY created, id"
        )
        return [Identity(*row) for row in rows]

    def _migrate(self) -> None:
        # Read the version inside the write transaction: two processes opening
        # a new file at once must not both create the schema.
        with self._transaction() as conn:
            (version,) = conn.execute("PRAGMA user_version").fetchone()
            if version > SCHEMA_VERSION:
                raise StoreError(f"schema version {version} is newer than {SCHEMA_VERSION}")
            for migration in _MIGRATIONS[version:]:
                for statement in migration:
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        try:
            # Fold the WAL into the main file, so the file stands alone once closed.
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._conn.close()

    def add_player(self, identity: Identity) -> None:
        try:
            with self._transaction() as conn:
                conn.execute(
                    "INSERT INTO players (id, name, name_key, token_hash, created, last_seen)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        identity.player_id,
                        identity.name,
                        identity.name.lower(),
                        identity.token_hash,
                        identity.created,
                        identity.created,
                    ),
                )
        except sqlite3.IntegrityError as exc:
            raise StoreError(f"cannot add player {identity.name!r}: {exc}") from exc

    def record_races(self, races: list[_Race]) -> None:
        """Write every race in one transaction (or none of them); a known race is skipped."""
        with self._transaction():
            for record, started_wall, ended_wall in races:
                self._insert_race(record, started_wall, ended_wall)

    def _insert_race(self, record: RaceRecord, started_wall: float, ended_wall: float) -> None:
        moves = _moves_json(record.moves)
        conn = self._conn
        known = conn.execute("SELECT 1 FROM races WHERE id = ?", (record.game_id,))
        if known.fetchone() is None:
            conn.execute(
                "INSERT INTO races (id, rules, seeds, player0, player1, started, ended,"
                " result, winner, reason, count0, count1, moves)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.game_id,
                    record.rules_json,
                    json.dumps(list(record.seeds)),
                    *record.player_ids,
                    started_wall,
                    ended_wall,
                    record.result,
                    record.winner,
                    record.reason,
                    *record.counts,
                    moves,
                ),
            )
            for seat, player_id in enumerate(record.player_ids):
                self._count_race(player_id, _outcome(record.winner, seat), ended_wall)

    def _count_race(self, player_id: str, outcome: tuple[int, int, int], wall: float) -> None:
        wins, losses, draws = outcome
        self._conn.execute(
            "UPDATE players SET games = games + 1, wins = wins + ?, losses = losses + ?,"
            " draws = draws + ?, last_seen = ? WHERE id = ?",
            (wins, losses, draws, wall, player_id),
        )

    def touch(self, player_id: str, wall: float) -> None:
        with self._transaction() as conn:
            updated = conn.execute(
                "UPDATE players SET last_seen = ? WHERE id = ?", (wall, player_id)
            ).rowcount
            if updated != 1:
                raise StoreError(f"no player has the id {player_id!r}")

    def player_stats(self, player_id: str) -> PlayerStats | None:
        row = self._conn.execute(
            "SELECT id, name, created, last_seen, games, wins, losses, draws"
            " FROM players WHERE id = ?",
            (player_id,),
        ).fetchone()
        return None if row is None else PlayerStats(*row)

    def race(self, game_id: str) -> RaceRecord | None:
        # No transaction needed: a race is one row, written once.
        row = self._conn.execute(
            "SELECT rules, seeds, player0, player1, started, ended,"
            " result, winner, reason, count0, count1, moves FROM races WHERE id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        (rules, seeds, player0, player1, started, ended) = row[:6]
        (result, winner, reason, count0, count1, moves) = row[6:]
        return RaceRecord(
            game_id=game_id,
            rules_json=rules,
            seeds=tuple(json.loads(seeds)),
            player_ids=(player0, player1),
            started=started,
            ended=ended,
            moves=tuple(
                MoveRecord(seq, seat, card, at_ms / 1000)
                for seq, seat, card, at_ms in json.loads(moves)
            ),
            result=result,
            winner=winner,
            reason=reason,
            counts=(count0, count1),
        )

    def race_count(self) -> int:
        (count,) = self._conn.execute("SELECT count(*) FROM races").fetchone()
        return int(count)


def _settle(futures: list[asyncio.Future[None]], failures: list[Exception | None]) -> None:
    """On the loop: each race's future done, with its error if it has one."""
    for future, failure in zip(futures, failures, strict=True):
        if future.done():  # cancelled by whoever awaited it; the race is written all the same
            continue
        if failure is None:
            future.set_result(None)
        else:
            future.set_exception(failure)


_compact_json = json.JSONEncoder(separators=(",", ":")).encode


def _moves_json(moves: tuple[MoveRecord, ...]) -> str:
    """The ``races.moves`` column; moves with a seq twice or no such seat raise."""
    if len({move.seq for move in moves}) != len(moves):
        raise StoreError("a race's moves repeat a seq")
    if any(move.seat not in (0, 1) for move in moves):
        raise StoreError("a move's seat is not 0 or 1")
    return _compact_json([(m.seq, m.seat, m.card, round(m.at * 1000)) for m in moves])


def _outcome(winner: int | None, seat: int) -> tuple[int, int, int]:
    """What a race adds to a seat's (wins, losses, draws)."""
    if winner is None:
        return (0, 0, 1)
    return (1, 0, 0) if winner == seat else (0, 1, 0)
