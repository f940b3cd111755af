"""The store's two faces: :class:`Store`, what the server calls, and
:class:`StoreBackend`, what the store machine calls in turn.

The server talks to a :class:`Store` (:class:`server.store.machine.StoreMachine`
is the one there is, on SQLite or PostgreSQL). The machine owns the order of
calls, batching, retries and closing; it hands each call to a
:class:`StoreBackend`: one connection, its statements in one SQL dialect, and
the way its calls run (SQLite's on a thread, PostgreSQL's awaited on the
loop). A backend raises only the store's errors (:mod:`server.store.faults`),
its driver's mapped onto them, and is called one call at a time.

A race is its log (DESIGN.md): :meth:`~Store.begin_race` keeps its start before
``game_start`` goes out, :meth:`~Store.journal` each accepted event before it is
announced, and :meth:`~Store.record_race` its record, which replaces its journal
in the same transaction. A restarted server replays :meth:`~Store.live_races`
(:func:`core.restore.restore`); :meth:`~Store.suspend`, on shutdown, keeps how
far each race's clock had run. Times kept are wall-clock, since the cores'
monotonic ``now`` means nothing to another process; an entry's or a move's
``at`` stays relative to the start of its race.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable, Collection, Sequence

    from core.glicko2 import Glicko
    from core.identity import Identity
    from core.race_log import Entry, FinishedRace, RaceStart

    from .batch import Writes
    from .end_rows import OwedEnds
    from .reads import PlayerStats, ProfileRow, Ranked, Row, StandingRow, Summary
    from .rows import LiveRace
    from .scripts import Script

__all__ = ["Store", "StoreBackend"]

T = TypeVar("T")


class Store(Protocol):
    """Where players, live races and finished races are kept (:mod:`server.store.machine`)."""

    on_settled: Callable[[asyncio.Future[frozenset[str]]], None]
    """Told of a batch's future in the call that settles it, before its callbacks run a
    pass later: the frames that wait on the batch go out in the pass it was written in."""

    @property
    def failing(self) -> bool:
        """True from a transient write failure until a write succeeds again."""

    async def open(self) -> list[Identity]:
        """Create or upgrade the schema; return every player, for the registry."""

    async def add_player(self, identity: Identity) -> None:
        """Keep a new player, committed on return; never retried.

        A taken name, id or token raises :class:`StoreRefused`, a transient
        failure :class:`StoreUnavailable`.
        """

    def begin_race(self, start: RaceStart, started_wall: float) -> asyncio.Future[frozenset[str]]:
        """Keep a live race's start, at epoch 1 (batched, as :meth:`journal`); a known
        race is a no-op."""

    def journal(self, game_id: str, entry: Entry, epoch: int = 1) -> asyncio.Future[frozenset[str]]:
        """Keep one accepted event of a live race, owned at ``epoch`` (batched).

        The future is the batch's, shared: done once the batch is committed,
        with the races of which something was not written: those whose
        current epoch is not the writer's (another worker took them: fenced),
        and those of an item the store refused (logged and dropped). Failed
        with :class:`StoreUnavailable` if the store gave up on closing, or
        :class:`StoreError` if closed. Cancelling it stops no write, but
        cancels it for all: shield it.
        """

    def record_race(
        self,
        record: FinishedRace,
        started_wall: float,
        ended_wall: float,
        epoch: int = 1,
        ends: OwedEnds | None = None,
    ) -> asyncio.Future[frozenset[str]]:
        """Keep a finished race and both players' stats, and drop its journal (batched),
        under ``epoch`` as :meth:`journal`; with ``ends``, the ends its players are owed
        (:mod:`server.store.end_rows`), in the same transaction.

        A known race is a no-op; an ``aborted`` race counts for nobody.
        """

    def confirm(self, game_id: str, epoch: int) -> asyncio.Future[frozenset[str]]:
        """Whether this worker still runs live race ``game_id`` at ``epoch``: written as a
        write with nothing in it (batched, as :meth:`journal`), whose future names the race
        among those refused if it is not live or its epoch is another's now.

        What a snapshot of a race (``game_state``) waits for: it records nothing,
        yet must not show a race that another worker has moved on or ended.
        """

    async def suspend(self, elapsed: dict[str, float]) -> None:
        """Keep live races' elapsed seconds, on shutdown; never retried; other ids are skipped."""

    def take_races(
        self, only: Collection[str] | None = None
    ) -> asyncio.Future[list[tuple[LiveRace, int]]]:
        """Take every live race, or those in ``only``, to run them here: each one's epoch
        grows by one, and each is read (as :meth:`live_races`) in the same transaction.

        From then on a write under an older epoch is refused: whoever ran the
        race before is fenced out, however long it was paused. Queued when
        called, as :meth:`journal` is: the writes made before it are read by it.
        """

    async def live_races(self) -> list[LiveRace]:
        """Every live race, oldest first: its start, its entries by ``seq``, its elapsed seconds.

        Elapsed is the most of the kept elapsed, the last entry's ``at`` and 0.
        A row that cannot be read is logged by its race's id and given back as
        far as it can be (an unreadable field as ``""`` or ``()``), so that
        :func:`core.restore.restore` aborts that race instead of the server
        failing to start.
        """

    async def touch(self, player_id: str, wall: float) -> None:
        """Set when the player was last seen."""

    async def run(self, script: Script[T]) -> T:
        """Run a script of statements in one transaction (:mod:`server.store.scripts`), in
        its turn; its result, or what it raised. Never retried."""

    async def read(
        self, sql: str, arguments: Sequence[object], reader: Callable[[list[Row]], T]
    ) -> T:
        """One query (``?`` placeholders) in its turn; what ``reader`` makes of its rows."""

    async def standing(self, player_id: str) -> StandingRow | None:
        """A player's name, rating, bot, ban and flags now, or None for an unknown id."""

    async def close(self) -> None:
        """Finish every call already made and close; closing again does nothing."""

    async def players(self) -> list[Identity]:
        """Every player not forgotten, for the registry (as :meth:`open` gives them)."""

    async def player_stats(self, player_id: str) -> PlayerStats | None:
        """A player's record, or None for an unknown id."""

    async def live_race_of(self, player_id: str) -> str | None:
        """The id of the live race ``player_id`` sits in, if any."""

    async def find_player(self, token_hash: str) -> Identity | None:
        """The player with this token's hash, or None: one another worker made."""

    async def race(self, game_id: str) -> FinishedRace | None:
        """A finished race with wall-clock ``started`` and ``ended``, or None."""

    async def race_count(self) -> int:
        """How many finished races are kept."""

    async def rating(self, player_id: str) -> Glicko | None:
        """A player's rating as the last race they finished left it, or None if unknown."""

    async def leaderboard(self, limit: int) -> list[Ranked]:
        """The highest rated established players (server/store/reads.py), at most ``limit``."""

    async def profile(self, name: str) -> ProfileRow | None:
        """The player of this name (any case), or None."""

    async def history(self, player_id: str, limit: int, before: str | None) -> list[Summary]:
        """Up to ``limit`` of a player's finished races, newest first, before race ``before``."""

    async def summary(self, game_id: str) -> Summary | None:
        """A finished race as a history lists it, or None."""


class StoreBackend(Protocol):
    """One database as the machine drives it: one call at a time, each awaited to its end.

    Every method raises the store's errors only: a transient one is retried
    or answered ``unavailable`` by the machine, any other is not.
    """

    @property
    def inline(self) -> bool:
        """Whether :meth:`write_now` may write a batch on the loop while no call runs."""

    async def open(self) -> None:
        """Connect, and create or upgrade the schema."""

    async def close(self) -> None:
        """Let go of the connection; what is committed is kept."""

    async def read(
        self, sql: str, arguments: Sequence[object], reader: Callable[[list[Row]], T]
    ) -> T:
        """Run one query (``?`` placeholders) and give ``reader`` its rows, where it runs."""

    async def change(self, sql: str, many: Sequence[Sequence[object]]) -> int:
        """Run ``sql`` with each of ``many`` in one transaction; how many rows it changed."""

    async def add_player(self, identity: Identity) -> None:
        """Insert a new player; a taken id, name or token is :class:`StoreRefused`."""

    async def run(self, script: Script[T]) -> T:
        """Run ``script`` in one transaction of its own; what it raises rolls it back."""

    async def write(self, writes: Writes) -> frozenset[str]:
        """Write everything in one transaction, or nothing; a known start or race is skipped.

        Entries and records are written only under their race's current epoch,
        checked in the same transaction: the races refused are returned.
        """

    def write_now(self, writes: Writes) -> frozenset[str]:
        """:meth:`write`, here on the loop, failing at once where it would wait."""

    async def checkpoint(self) -> None:
        """What writes on the loop put off (SQLite: folding the WAL into the file)."""

    async def live_races(self) -> list[LiveRace]:
        """Every live race, as of one moment (:meth:`Store.live_races`)."""

    async def take_races(self, only: Sequence[str] | None) -> list[tuple[LiveRace, int]]:
        """Take live races (all, or those in ``only``): each one's epoch grows by one, and
        each is read as of that moment, in one transaction (:meth:`Store.take_races`)."""

    async def execute(self, sql: str) -> list[Row]:
        """One statement outside any transaction of the store's; its rows (tests)."""
