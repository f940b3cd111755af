"""The synchronous side of the SQLite store: its one connection and every statement.

:class:`Database` is one connection and what the store does with it. It knows
nothing of asyncio or threads: :class:`server.store.sqlite_store.SqliteStore` owns one and
calls it from its worker thread only, and ``bench/store.py`` calls it directly.

It raises only :mod:`sqlite3`'s errors, so that the store maps one family of
errors onto its own (``server/store/sqlite_store.py``, "Errors"): a refusal it finds itself
(moves that repeat a ``seq``, an unknown player) raises
:class:`sqlite3.IntegrityError`, as a constraint of the schema would.

The schema and its migrations are :mod:`server.store.sqlite_schema`.
"""

from __future__ import annotations

import json
import logging
import operator
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

from core.identity import Identity
from core.race_log import Entry, MoveRecord, RaceRecord, RaceStart

from . import reads
from .journal_lines import entries_text, read_entries
from .rows import (
    UPDATE_BEST_CLEAR,
    UPDATE_RATING,
    LiveRace,
    best_clear,
    last_cards,
    live_race,
    moves_json,
    outcome,
    race_ids,
    rating_updates,
    ratings_json,
    shown_ratings,
)
from .sqlite_schema import MIGRATIONS, SCHEMA_VERSION

if TYPE_CHECKING:
    from collections.abc import Iterator

    from core.glicko2 import Glicko

__all__ = ["SCHEMA_VERSION", "Database", "FinishedRace", "LiveRace", "PlayerStats", "Writes"]

log = logging.getLogger("flowergarden.server")

FinishedRace: TypeAlias = tuple[RaceRecord, float, float]
"""A finished race to write: its record, and when it started and ended (wall clock)."""

ABORTED = "aborted"
"""The reason of a race that could not be restored: it counts for nobody."""

_seq = operator.attrgetter("seq")

_BUSY_TIMEOUT_MS = 5000
"""How long a write waits for another connection to the same file to let go."""


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


@dataclass(slots=True)
class Writes:
    """What one transaction writes, in this order: race starts, journal entries, finished races."""

    starts: list[tuple[RaceStart, float]] = field(default_factory=list)
    entries: list[tuple[str, Entry]] = field(default_factory=list)
    races: list[FinishedRace] = field(default_factory=list)

    def one_by_one(self) -> Iterator[Writes]:
        """Each item on its own, in the order they are written."""
        for start in self.starts:
            yield Writes(starts=[start])
        for entry in self.entries:
            yield Writes(entries=[entry])
        for race in self.races:
            yield Writes(races=[race])

    def __str__(self) -> str:
        # What a log line says: every race concerned, by its game id.
        parts = []
        if self.starts:
            parts.append(f"the start of {race_ids(start.game_id for start, _ in self.starts)}")
        if len(self.entries) == 1:
            ((game_id, entry),) = self.entries
            parts.append(f"journal entry {entry.seq} of race {game_id}")
        elif self.entries:
            ids = race_ids(game_id for game_id, _ in self.entries)
            parts.append(f"{len(self.entries)} journal entries of {ids}")
        if self.races:
            parts.append(f"the record of {race_ids(record.game_id for record, _, _ in self.races)}")
        return "; ".join(parts) or "nothing"


_NEXT_ENTRY = "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'journal'), 0) + 1"
"""The id the journal's next entry will get: AUTOINCREMENT ids only grow."""


class Database:
    """One connection to an SQLite file, and every statement the store runs on it."""

    def __init__(self, path: str, *, durable: bool, checkpoints: bool = True) -> None:
        """``checkpoints=False``: the owner calls :meth:`checkpoint` itself, on a
        thread where its fsync may wait (server/store/sqlite_store.py)."""
        # Autocommit mode: transactions are explicit, see _transaction. Any
        # thread: the store hands the connection between its worker and the
        # event loop, never to both at once (server/store/sqlite_store.py).
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            self._conn.execute("PRAGMA journal_mode=WAL")
            # NORMAL is safe against a killed process in WAL mode (server/store/sqlite_store.py).
            self._conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            if not checkpoints:
                self._conn.execute("PRAGMA wal_autocheckpoint=0")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._conn.execute(f"PRAGMA busy_timeout={_BUSY_TIMEOUT_MS}")
        except BaseException:
            self._conn.close()
            raise

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

    def checkpoint(self) -> None:
        """Fold what the WAL holds into the main file, as far as no reader needs it."""
        self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def execute(self, sql: str) -> list[tuple[object, ...]]:
        """Run one statement outside any transaction of the store's; its rows (tests, tools)."""
        return self._conn.execute(sql).fetchall()

    def add_player(self, identity: Identity) -> None:
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

    def write_now(self, writes: Writes) -> None:
        """:meth:`write`, but fail at once (SQLITE_BUSY) rather than wait for another
        process's lock: the store calls this on the event loop (server/store/sqlite_store.py)."""
        self._conn.execute("PRAGMA busy_timeout=0")
        try:
            self.write(writes)
        finally:
            self._conn.execute(f"PRAGMA busy_timeout={_BUSY_TIMEOUT_MS}")

    def write(self, writes: Writes) -> None:
        """Write everything in one transaction, or nothing; a known start or race is skipped."""
        with self._transaction() as conn:
            if writes.starts:
                # A race's entries will have ids past the last one ever given.
                (first,) = conn.execute(_NEXT_ENTRY).fetchone()
                conn.executemany(
                    "INSERT INTO live_races (id, rules, dealing, seeds, ratings, player0, player1,"
                    " started, first_entry) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (id) DO NOTHING",
                    [
                        (
                            s.game_id,
                            s.rules_json,
                            s.dealing,
                            json.dumps(list(s.seeds)),
                            ratings_json(s.ratings),
                            *s.player_ids,
                            wall,
                            first,
                        )
                        for s, wall in writes.starts
                    ],
                )
            if writes.entries:  # one row for the batch (server/store/journal_lines.py)
                conn.execute(
                    "INSERT INTO journal (entries) VALUES (?)", (entries_text(writes.entries),)
                )
            for record, started_wall, ended_wall in writes.races:
                self._insert_race(record, started_wall, ended_wall)
                # A finished race is its record: its journal is done with.
                conn.execute("DELETE FROM live_races WHERE id = ?", (record.game_id,))
            if writes.races:
                # The log's head, up to the oldest live race's first entry,
                # is finished races' only: a prefix of the table, cheap to cut.
                conn.execute(
                    "DELETE FROM journal WHERE id < coalesce("
                    f"(SELECT min(first_entry) FROM live_races), ({_NEXT_ENTRY}))"
                )

    def _insert_race(self, record: RaceRecord, started_wall: float, ended_wall: float) -> None:
        moves = moves_json(record.moves)
        conn = self._conn
        known = conn.execute("SELECT 1 FROM races WHERE id = ?", (record.game_id,))
        if known.fetchone() is not None:
            return
        conn.execute(
            "INSERT INTO races (id, rules, dealing, seeds, player0, player1, started, ended,"
            " result, winner, reason, count0, count1, moves, time0, time1, rating0_before,"
            " rating0_after, rating1_before, rating1_after)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.game_id,
                record.rules_json,
                record.dealing,
                json.dumps(list(record.seeds)),
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
        if record.reason == ABORTED:  # not a race anyone won, lost or drew
            return
        for seat, player_id in enumerate(record.player_ids):
            self._count_race(player_id, outcome(record.winner, seat), ended_wall)
        for player_id, rating in rating_updates(record):
            self._conn.execute(UPDATE_RATING, (*rating, player_id))
        clear = best_clear(record)
        if clear is not None:
            self._conn.execute(UPDATE_BEST_CLEAR, clear)

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
                raise sqlite3.IntegrityError(f"no player has the id {player_id!r}")

    def suspend(self, elapsed: dict[str, float]) -> None:
        """Set each live race's elapsed seconds; an id that is not live is skipped."""
        with self._transaction() as conn:
            conn.executemany(
                "UPDATE live_races SET elapsed = ? WHERE id = ?",
                [(seconds, game_id) for game_id, seconds in elapsed.items()],
            )

    def live_races(self) -> list[LiveRace]:
        """Every live race, oldest first, as far as its rows can be read (rows.live_race)."""
        # One read transaction: the races and their entries as of one moment.
        with self._transaction("DEFERRED") as conn:
            races = conn.execute(
                "SELECT l.id, l.rules, l.dealing, l.seeds, l.ratings, l.player0, l.player1,"
                " p0.name, p1.name, l.elapsed FROM live_races AS l"
                " LEFT JOIN players AS p0 ON p0.id = l.player0"
                " LEFT JOIN players AS p1 ON p1.id = l.player1 ORDER BY l.started, l.id"
            ).fetchall()
            # A live race's entries are in rows from its first_entry on; finished
            # races' entries may still be there too: only live ones count.
            rows = conn.execute(
                "SELECT entries FROM journal WHERE id >= "
                "(SELECT coalesce(min(first_entry), 0) FROM live_races) ORDER BY id"
            ).fetchall()
        journals: dict[object, list[Entry]] = {row[0]: [] for row in races}
        for (text,) in rows:
            for race_id, entry in read_entries(text):
                journal = journals.get(race_id)
                if journal is not None:
                    journal.append(entry)
        return [live_race(row, sorted(journals[row[0]], key=_seq)) for row in races]

    def find_player(self, token_hash: str) -> Identity | None:
        row = self._conn.execute(
            "SELECT id, name, token_hash, created FROM players WHERE token_hash = ?", (token_hash,)
        ).fetchone()
        return None if row is None else Identity(*row)

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
            "SELECT rules, dealing, seeds, player0, player1, started, ended,"
            " result, winner, reason, count0, count1, moves FROM races WHERE id = ?",
            (game_id,),
        ).fetchone()
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
            moves=tuple(
                MoveRecord(seq, seat, card, at_ms / 1000)
                for seq, seat, card, at_ms in json.loads(moves)
            ),
            result=result,
            winner=winner,
            reason=reason,
            counts=(count0, count1),
        )

    # -- what the HTTP API reads (server/store/reads.py) ------------------------------

    def rating(self, player_id: str) -> Glicko | None:
        return reads.rating(self._conn.execute(reads.RATING, (player_id,)).fetchone())

    def leaderboard(self, limit: int) -> list[reads.Ranked]:
        return [reads.ranked(row) for row in self._conn.execute(reads.LEADERBOARD, (limit,))]

    def profile(self, name: str) -> reads.Profile | None:
        row = self._conn.execute(reads.PROFILE, (name.lower(),)).fetchone()
        return None if row is None else reads.profile(row)

    def history(self, player_id: str, limit: int, before: str | None) -> list[reads.Summary]:
        """Up to ``limit`` of the player's races, newest first, ended before race ``before``."""
        if before is None:
            rows = self._conn.execute(reads.HISTORY, (player_id, player_id, limit))
        else:
            arguments = (player_id, player_id, before, before, before, limit)
            rows = self._conn.execute(reads.HISTORY_BEFORE, arguments)
        return [reads.summary(row) for row in rows]

    def summary(self, game_id: str) -> reads.Summary | None:
        row = self._conn.execute(reads.SUMMARY, (game_id,)).fetchone()
        return None if row is None else reads.summary(row)

    def race_count(self) -> int:
        (count,) = self._conn.execute("SELECT count(*) FROM races").fetchone()
        return int(count)
