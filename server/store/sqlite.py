"""The synchronous side of the SQLite store: its one connection, its statements, its errors.

:class:`Database` is one connection and what the store does with it in
SQLite's dialect. It knows nothing of asyncio or threads:
:class:`server.store.sqlite_store.SqliteOnThread` owns one and calls it on its
thread (or on the loop, :meth:`Database.write_now`), and ``bench/store.py``
calls it directly. The statements both stores share, and what turns values
into their arguments and rows back into values, are :mod:`server.store.rows`
and :mod:`server.store.reads`.

It raises :mod:`sqlite3`'s errors, and :class:`~server.store.faults.StoreRefused`
for a refusal it finds itself (moves that repeat a ``seq``);
:func:`classified` maps the first onto the store's errors by SQLite's result
code. The schema and its migrations are :mod:`server.store.sqlite_schema`.
"""

from __future__ import annotations

import operator
import os
import sqlite3
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

from . import rows
from .faults import StoreError, StoreRefused, StoreUnavailable
from .journal_lines import entries_text, read_entries
from .scripts import Did, drive
from .sqlite_schema import MIGRATIONS, SCHEMA_VERSION

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from core.identity import Identity
    from core.race_log import Entry

    from .batch import Writes
    from .reads import Row
    from .rows import LiveRace, Statement
    from .scripts import Script

__all__ = ["SCHEMA_VERSION", "Database", "classified", "refuse_empty"]

_seq = operator.attrgetter("seq")
T = TypeVar("T")

_BUSY_TIMEOUT_MS = 500
"""How long a statement waits inside SQLite for another connection to the same file to
let go. Longer, the store's machine tries again with backoff, where a shutdown's
deadline is seen: no interrupt ends SQLite's own wait, so it is kept short."""

_TRANSIENT = frozenset(
    getattr(sqlite3, f"SQLITE_{name}")
    for name in ("BUSY", "LOCKED", "NOMEM", "READONLY", "IOERR", "FULL", "CANTOPEN", "PROTOCOL")
)
"""SQLite's primary result codes for what may work if tried again."""

_NEXT_ENTRY = "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'journal'), 0) + 1"
"""The id the journal's next entry will get: AUTOINCREMENT ids only grow."""

_INSERT_START = (
    "INSERT INTO live_races (id, rules, dealing, seeds, ratings, player0, player1,"
    " started, bot0, bot1, kind, first_entry) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (id) DO NOTHING"
)


def refuse_empty(path: str) -> None:
    """:class:`StoreError` if ``path`` is a file that exists but is empty.

    SQLite takes an empty file for a new database, and would start with no
    players and no races where a database lost its contents (a file
    truncated by a full disk, a wrong copy, a volume mounted empty): the
    server refuses to, and ``--init-db`` makes one on purpose. A missing file
    is made as ever (the first ``make serve``).
    """
    if path == ":memory:" or path.startswith("file:"):
        return
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        return
    if size == 0:
        raise StoreError(
            f"{path} is empty, not a database: if a new one is meant, start once with"
            " --init-db (FLOWERGARDEN_INIT_DB=1); else restore the file"
        )


def classified(exc: sqlite3.Error) -> StoreError:
    """SQLite's error as the store's: transient, a refusal, or neither (a bug, a corrupt file)."""
    code = getattr(exc, "sqlite_errorcode", None)  # absent on errors raised by our own checks
    message = f"{type(exc).__name__}: {exc}"
    if code is not None and code & 0xFF in _TRANSIENT:
        return StoreUnavailable(message)
    if isinstance(exc, sqlite3.IntegrityError):
        return StoreRefused(message)
    return StoreError(message)


class Database:
    """One connection to an SQLite file, and every statement the store runs on it."""

    def __init__(
        self, path: str, *, durable: bool, checkpoints: bool = True, init: bool = False
    ) -> None:
        """``checkpoints=False``: the owner calls :meth:`checkpoint` itself, on a
        thread where its fsync may wait (server/store/machine.py). ``init``: an
        empty file is made a new database (:func:`refuse_empty`)."""
        if not init:
            refuse_empty(path)
        # Autocommit mode: transactions are explicit, see _transaction. Any
        # thread: the store hands the connection between its thread and the
        # event loop, never to both at once (server/store/machine.py).
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            self._first(path, "PRAGMA journal_mode=WAL")
            # NORMAL is safe against a killed process in WAL mode (server/store/sqlite_store.py).
            self._conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            if not checkpoints:
                self._conn.execute("PRAGMA wal_autocheckpoint=0")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._conn.execute(f"PRAGMA busy_timeout={_BUSY_TIMEOUT_MS}")
        except BaseException:
            self._conn.close()
            raise

    def _first(self, path: str, sql: str) -> None:
        """The first statement, which reads the file: one that is no database says so."""
        try:
            self._conn.execute(sql)
        except sqlite3.DatabaseError as exc:
            if getattr(exc, "sqlite_errorcode", None) != sqlite3.SQLITE_NOTADB:
                raise
            raise StoreError(
                f"{path} is not an SQLite database: move it away, or name another file"
                " with --db (FLOWERGARDEN_DB)"
            ) from None

    @contextmanager
    def _transaction(self, mode: str = "IMMEDIATE") -> Iterator[sqlite3.Connection]:
        # IMMEDIATE takes the write lock up front, so a transaction that reads
        # before it writes cannot fail half-way on another writer.
        self._conn.execute(f"BEGIN {mode}")
        try:
            yield self._conn
            self._conn.execute("COMMIT")
        except BaseException:
            # SQLite may have rolled back already (a full disk does).
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise

    def open(self) -> None:
        """Create or upgrade the schema; on failure the connection is closed."""
        try:
            self._migrate()
        except BaseException:
            self._conn.close()
            raise

    def _migrate(self) -> None:
        # Read the version inside the write transaction: two processes opening
        # a new file at once must not both create the schema.
        with self._transaction() as conn:
            (version,) = conn.execute("PRAGMA user_version").fetchone()
            if version > SCHEMA_VERSION:
                raise sqlite3.DatabaseError(
                    f"schema version {version} is newer than {SCHEMA_VERSION}"
                )
            for migration in MIGRATIONS[version:]:
                for statement in migration:
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        try:
            # Fold the WAL into the main file, so the file stands alone once closed.
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._conn.close()

    def interrupt(self) -> None:
        """Make the statement running now fail (SQLITE_INTERRUPT); safe from any thread.

        A wait for another connection's lock is not ended: ``busy_timeout``
        bounds that (:data:`_BUSY_TIMEOUT_MS`)."""
        self._conn.interrupt()

    def checkpoint(self) -> None:
        """Fold what the WAL holds into the main file, as far as no reader needs it."""
        self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def execute(self, sql: str) -> list[Row]:
        """Run one statement outside any transaction of the store's; its rows (tests, tools)."""
        return self._conn.execute(sql).fetchall()

    def fetch(self, sql: str, arguments: Sequence[object]) -> list[Row]:
        """The rows of one query; a query of one statement needs no transaction."""
        return self._conn.execute(sql, arguments).fetchall()

    def change(self, sql: str, many: Sequence[Sequence[object]]) -> int:
        """Run ``sql`` with each of ``many`` in one transaction; how many rows it changed."""
        with self._transaction() as conn:
            return conn.executemany(sql, many).rowcount

    def add_player(self, identity: Identity) -> None:
        self.change(rows.INSERT_PLAYER, [rows.player_row(identity)])

    def run(self, script: Script[T]) -> T:
        """Run ``script`` in one transaction (server/store/scripts.py); its result."""
        with self._transaction() as conn:

            def execute(statement: Statement) -> Did:
                cursor = conn.execute(*statement)
                return Did(cursor.fetchall(), cursor.rowcount)

            return drive(script, execute)

    def write_now(self, writes: Writes) -> frozenset[str]:
        """:meth:`write`, but fail at once (SQLITE_BUSY) rather than wait for another
        process's lock: the store calls this on the event loop (server/store/machine.py)."""
        self._conn.execute("PRAGMA busy_timeout=0")
        try:
            return self.write(writes)
        finally:
            self._conn.execute(f"PRAGMA busy_timeout={_BUSY_TIMEOUT_MS}")

    def write(self, writes: Writes) -> frozenset[str]:
        """Write everything in one transaction, or nothing; a known start or race is skipped.

        Entries and records go in only under their race's current epoch, read
        in the same transaction (which holds the write lock), and a race starts
        only if none of its people races another live race: the races refused
        are returned.
        """
        with self._transaction() as conn:
            refused: frozenset[str] = frozenset()
            if people := writes.people():
                sql = rows.in_list(rows.PEOPLE_RACING, len(people))
                refused = writes.double_starts(conn.execute(sql, people + people).fetchall())
                writes = writes.without_starts(refused)
            if writes.starts:
                # A race's entries will have ids past the last one ever given.
                (first,) = conn.execute(_NEXT_ENTRY).fetchone()
                conn.executemany(
                    _INSERT_START, [(*rows.start_row(s, wall), first) for s, wall in writes.starts]
                )
            if checked := writes.checked():
                current = conn.execute(rows.in_list(rows.EPOCHS, len(checked)), checked)
                writes, fenced = writes.kept(dict(current.fetchall()))
                refused |= fenced
            if writes.entries:  # one row for the batch (server/store/journal_lines.py)
                conn.execute(
                    "INSERT INTO journal (entries) VALUES (?)", (entries_text(writes.entries),)
                )
            for record, started_wall, ended_wall, ends in writes.races:
                row = rows.race_row(record, started_wall, ended_wall)
                if conn.execute(rows.INSERT_RACE, row).fetchall():
                    for sql, arguments in rows.counted(record, ended_wall, ends):
                        conn.execute(sql, arguments)
                conn.execute(rows.END_LIVE_RACE, (record.game_id,))
            if writes.races:
                # The log's head, up to the oldest live race's first entry,
                # is finished races' only: a prefix of the table, cheap to cut.
                conn.execute(
                    "DELETE FROM journal WHERE id < coalesce("
                    f"(SELECT min(first_entry) FROM live_races), ({_NEXT_ENTRY}))"
                )
        return refused

    def take_races(self, only: Sequence[str] | None) -> list[tuple[LiveRace, int]]:
        """Take live races, all or those in ``only``: their next epochs, and the races as
        they stand, in one transaction (the write lock keeps any other writer out)."""
        with self._transaction() as conn:
            taken = (
                conn.execute(rows.TAKE_ALL)
                if only is None
                else conn.execute(rows.in_list(rows.TAKE, len(only)), list(only))
            )
            epochs: dict[str, int] = dict(taken.fetchall())
            races = [race for race in self._live_races(conn) if race[0].game_id in epochs]
        return [(race, epochs[race[0].game_id]) for race in races]

    def live_races(self) -> list[LiveRace]:
        """Every live race, oldest first, as far as its rows can be read (rows.live_race)."""
        # One read transaction: the races and their entries as of one moment.
        with self._transaction("DEFERRED") as conn:
            return self._live_races(conn)

    def _live_races(self, conn: sqlite3.Connection) -> list[LiveRace]:
        races = conn.execute(rows.LIVE_RACES).fetchall()
        # A live race's entries are in rows from its first_entry on; finished
        # races' entries may still be there too: only live ones count.
        lines = conn.execute(
            "SELECT entries FROM journal WHERE id >= "
            "(SELECT coalesce(min(first_entry), 0) FROM live_races) ORDER BY id"
        ).fetchall()
        journals: dict[object, list[Entry]] = {row[0]: [] for row in races}
        for (text,) in lines:
            for race_id, entry in read_entries(text):
                journal = journals.get(race_id)
                if journal is not None:
                    journal.append(entry)
        return [rows.live_race(row, sorted(journals[row[0]], key=_seq)) for row in races]
