"""The PostgreSQL backend: its connection, its statements in PostgreSQL's dialect, its errors.

:class:`PgDatabase` is one :class:`psycopg.AsyncConnection` in autocommit mode
(transactions are explicit, ``conn.transaction()``), awaited on the loop:
psycopg's async API waits on the socket and needs no thread. It knows nothing
of batches or retries: :class:`server.store.machine.StoreMachine` calls it one
call at a time. The statements both stores share, and what turns values into
their arguments and rows back into values, are :mod:`server.store.rows` and
:mod:`server.store.reads`, written with SQLite's ``?``: :func:`for_postgres`
makes them PostgreSQL's.

A lost connection is a passing fault: the call fails :class:`StoreUnavailable`
and the next one connects again, so a restarted or failed-over server is
ridden out like a full disk. :func:`classified_pg` is the one place that maps
psycopg's errors onto the store's, by SQLSTATE: a passing fault (the
connection lost, a server shutting down or read-only, a serialization
failure, a full disk) is :class:`~server.store.faults.StoreUnavailable`, a
broken constraint :class:`~server.store.faults.StoreRefused`.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from typing import TYPE_CHECKING, Any, TypeVar

import psycopg
from psycopg import pq

from core.race_log import Entry

from . import rows
from .faults import StoreError, StoreRefused, StoreUnavailable
from .postgres_schema import NewerSchema, migrate
from .scripts import Did, drive_async

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Sequence

    from psycopg.rows import TupleRow

    from core.identity import Identity

    from .batch import Writes
    from .reads import Row
    from .rows import LiveRace, Statement
    from .scripts import Script

__all__ = ["PgDatabase", "classified_pg", "for_postgres", "where"]

T = TypeVar("T")

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
IDLE_IN_TRANSACTION = 2.0
"""Seconds a transaction of the store's may wait on the store before PostgreSQL ends it.

None of its transactions ever waits on anything but PostgreSQL: one that does, its
worker is stopped (SIGSTOP, a frozen machine) in the middle of it, holding its row
locks, and the worker that takes its races over (server/cluster/failover.py) would
wait for them until it woke up. Ended, the transaction is undone; the stopped worker,
awake, writes again and finds itself fenced out. Shorter than the time a lease takes
to lapse (server/cluster/shared.py), so the locks are gone before the takeover."""
_IDLE_LIMIT = b"SET idle_in_transaction_session_timeout = %d" % int(IDLE_IN_TRANSACTION * 1000)

_TAKEN = b"SELECT 1 FROM players WHERE id = %s OR name_key = %s OR token_hash = %s"
_INSERT_START = (
    b"INSERT INTO live_races (id, rules, dealing, seeds, ratings, player0, player1, started,"
    b" bot0, bot1, kind) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
    b" ON CONFLICT (id) DO NOTHING"
)
_INSERT_ENTRY = b"INSERT INTO journal (race_id, seq, seat, what, at) VALUES (%s, %s, %s, %s, %s)"


@functools.cache
def for_postgres(sql: str) -> bytes:
    """``sql`` with PostgreSQL's placeholders (no statement of the store has a literal ``?``)."""
    return sql.replace("?", "%s").encode()


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


def reusable(conn: psycopg.AsyncConnection[TupleRow]) -> bool:
    """Whether ``conn`` can carry the next call: open, with no transaction and no
    pipeline left over from the last (each call is one, and calls take turns).

    A connection lost in the middle of a pipeline may be left in pipeline mode,
    though not known closed: psycopg could not leave it ("cannot exit pipeline
    mode while busy"), and libpq refuses every query after, without ever looking
    at the socket. Retried on it, a worker's writes failed until it was shut down
    (``make chaos``'s PostgreSQL stop, once in a fresh clone's CI).
    """
    if conn.closed or conn.broken:
        return False
    return (
        conn.info.pipeline_status == pq.PipelineStatus.OFF
        and conn.info.transaction_status == pq.TransactionStatus.IDLE
    )


def where(url: str) -> str:
    """The host, port and database ``url`` names, for a log line: never its password."""
    try:
        params = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.Error:
        return "<a URL libpq cannot parse>"
    return repr({key: params[key] for key in ("host", "port", "dbname") if key in params})


class PgDatabase:
    """The PostgreSQL backend: one connection to the database at ``url``, made again if lost."""

    inline = False
    """Every call is awaited on the worker: a write on the loop would wait on the network."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._conn: psycopg.AsyncConnection[TupleRow] | None = None

    def __repr__(self) -> str:
        return f"PgDatabase({where(self._url)})"

    async def open(self) -> None:
        try:
            conn = await self._connect()
            try:
                await migrate(conn)
            except BaseException:
                await conn.close()
                raise
        except psycopg.Error as exc:
            raise classified_pg(exc) from exc
        except NewerSchema as exc:
            raise StoreError(str(exc)) from exc
        self._conn = conn

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                await conn.close()
            except psycopg.Error as exc:
                raise classified_pg(exc) from exc

    async def read(
        self, sql: str, arguments: Sequence[object], reader: Callable[[list[Row]], T]
    ) -> T:
        async with self._connected() as conn:
            cursor = await conn.execute(for_postgres(sql), arguments)
            return reader(await cursor.fetchall())

    async def change(self, sql: str, many: Sequence[Sequence[object]]) -> int:
        async with self._connected() as conn, conn.transaction(), conn.cursor() as cursor:
            # executemany sends every row in one pipeline: one round trip, not one a row.
            await cursor.executemany(for_postgres(sql), many)
            return cursor.rowcount

    async def add_player(self, identity: Identity) -> None:
        async with self._connected() as conn, conn.transaction():
            # Looked up first, so that a taken name is refused even while the
            # server refuses writes (read-only): refused, not unavailable. The
            # unique constraints still decide between two servers at once.
            key = (identity.player_id, identity.name.lower(), identity.token_hash)
            if await (await conn.execute(_TAKEN, key)).fetchone() is not None:
                raise StoreRefused(f"the name, id or token of {identity.player_id} is taken")
            await conn.execute(for_postgres(rows.INSERT_PLAYER), rows.player_row(identity))

    async def write(self, writes: Writes) -> frozenset[str]:
        async with self._connected() as conn, conn.transaction(), conn.cursor() as cursor:
            refused: frozenset[str] = frozenset()
            if people := writes.people():
                # The people's rows locked first: two workers starting a race for one
                # person at once take turns, and the second sees the first's start.
                await cursor.execute(_LOCK_PEOPLE, (sorted(set(people)),))
                among = for_postgres(rows.in_list(rows.PEOPLE_RACING, len(people)))
                racing = await cursor.execute(among, people + people)
                refused = writes.double_starts(await racing.fetchall())
                writes = writes.without_starts(refused)
            if writes.starts:
                await cursor.executemany(
                    _INSERT_START, [rows.start_row(start, wall) for start, wall in writes.starts]
                )
            if checked := writes.checked():
                # FOR SHARE: a worker taking one of these races waits for this commit.
                current = await cursor.execute(_EPOCHS, (checked,))
                writes, fenced = writes.kept(dict(await current.fetchall()))
                refused |= fenced
            if writes.entries:  # a row per entry: the round trip, not the row, is what costs
                await cursor.executemany(
                    _INSERT_ENTRY, [(game_id, *entry) for game_id, entry in writes.entries]
                )
            for record, started_wall, ended_wall, ends in writes.races:
                row = rows.race_row(record, started_wall, ended_wall)
                if await (await cursor.execute(for_postgres(rows.INSERT_RACE), row)).fetchone():
                    for sql, arguments in rows.counted(record, ended_wall, ends):
                        await cursor.execute(for_postgres(sql), arguments)
                await cursor.execute(b"DELETE FROM journal WHERE race_id = %s", (record.game_id,))
                await cursor.execute(for_postgres(rows.END_LIVE_RACE), (record.game_id,))
        return refused

    def write_now(self, writes: Writes) -> frozenset[str]:
        raise StoreError("PostgreSQL is written on the worker only")  # inline is False

    async def run(self, script: Script[T]) -> T:
        """Run ``script`` in one transaction (server/store/scripts.py); its result.

        The audit log's lock is taken first: the scripts are what writes the log, and
        so its ids commit in the order they are drawn (server/operator/watch.py).
        """
        async with self._connected() as conn, conn.transaction(), conn.cursor() as cursor:
            await cursor.execute(_LOCK_ACTIONS)

            async def execute(statement: Statement) -> Did:
                sql, arguments = statement
                await cursor.execute(for_postgres(sql), arguments)
                found = await cursor.fetchall() if cursor.description is not None else []
                return Did(list(found), cursor.rowcount)

            return await drive_async(script, execute)

    async def checkpoint(self) -> None:
        """Nothing is put off: PostgreSQL checkpoints on its own."""

    async def live_races(self) -> list[LiveRace]:
        async with self._connected() as conn, conn.transaction():
            # One snapshot: the races and their entries as of one moment.
            await conn.execute(b"SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            return await _live_races(conn)

    async def take_races(self, only: Sequence[str] | None) -> list[tuple[LiveRace, int]]:
        async with self._connected() as conn, conn.transaction():
            # The update locks each row taken: a write under the old epoch that
            # holds it commits first, and is read below; any later one is refused.
            if only is None:
                taken = await conn.execute(for_postgres(rows.TAKE_ALL))
            else:
                taken = await conn.execute(_TAKE, (list(only),))
            epochs: dict[str, int] = dict(await taken.fetchall())
            # Only those taken, journals included: a hello adopting its one race
            # must not read every race's journal (under load, a second each).
            races = await _live_races(conn, list(epochs))
        return [(race, epochs[race[0].game_id]) for race in races]

    async def execute(self, sql: str) -> list[Row]:
        async with self._connected() as conn:
            cursor = await conn.execute(sql.encode())
            return list(await cursor.fetchall()) if cursor.description is not None else []

    @contextlib.asynccontextmanager
    async def _connected(self) -> AsyncIterator[psycopg.AsyncConnection[TupleRow]]:
        """The connection, made again if it was lost; psycopg's errors as the store's."""
        try:
            yield await self._connection()
        except psycopg.Error as exc:
            raise classified_pg(exc) from exc

    async def _connection(self) -> psycopg.AsyncConnection[TupleRow]:
        conn = self._conn
        if conn is not None and reusable(conn):
            return conn
        self._conn = None
        if conn is not None:
            log.warning(
                "store: the connection to %r was lost or left unusable; connecting again", self
            )
            with contextlib.suppress(psycopg.Error):
                await conn.close()
        self._conn = await self._connect()
        return self._conn

    async def _connect(self) -> psycopg.AsyncConnection[TupleRow]:
        params: dict[str, Any] = {}
        if "connect_timeout" not in psycopg.conninfo.conninfo_to_dict(self._url):
            params["connect_timeout"] = _CONNECT_TIMEOUT
        conn = await psycopg.AsyncConnection.connect(self._url, autocommit=True, **params)
        try:
            await conn.execute(_IDLE_LIMIT)
        except BaseException:
            await conn.close()
            raise
        return conn


async def _live_races(
    conn: psycopg.AsyncConnection[TupleRow], among: list[str] | None = None
) -> list[LiveRace]:
    """Every live race (or those ``among``) and its journal, read in the transaction
    under way."""
    if among is None:
        races = await (await conn.execute(for_postgres(rows.LIVE_RACES))).fetchall()
        entries = await conn.execute(_JOURNALS)
    else:
        races = await (await conn.execute(_LIVE_RACES_AMONG, (among,))).fetchall()
        entries = await conn.execute(_JOURNALS_AMONG, (among,))
    journals: dict[object, list[Entry]] = {}
    for race_id, seq, seat, what, at in await entries.fetchall():
        journals.setdefault(race_id, []).append(Entry(seq, seat, what, at))
    return [rows.live_race(row, journals.get(row[0], [])) for row in races]


_EPOCHS = b"SELECT id, epoch FROM live_races WHERE id = ANY(%s) FOR SHARE"
_LOCK_PEOPLE = b"SELECT 1 FROM players WHERE id = ANY(%s) ORDER BY id FOR UPDATE"
_LIVE_RACES_AMONG = for_postgres(rows.LIVE_RACES_WHERE.format(" WHERE l.id = ANY(?)"))
_JOURNALS = b"SELECT race_id, seq, seat, what, at FROM journal ORDER BY race_id, seq"
_JOURNALS_AMONG = (
    b"SELECT race_id, seq, seat, what, at FROM journal WHERE race_id = ANY(%s)"
    b" ORDER BY race_id, seq"
)
_LOCK_ACTIONS = b"LOCK TABLE actions IN SHARE ROW EXCLUSIVE MODE"
"""Scripts take turns (the mode conflicts with itself), and reads of the log go on."""
_TAKE = b"UPDATE live_races SET epoch = epoch + 1 WHERE id = ANY(%s) RETURNING id, epoch"
