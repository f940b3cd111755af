"""What one transaction writes, and the batch that gathers it on the loop.

:class:`Writes` is what a backend is given to write at once
(:meth:`server.store.interface.StoreBackend.write`); :class:`Batch` is how the
store machine gathers it from the calls of a pass of the loop, and the one
future they share (server/store/machine.py, "Batching").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from core.bots import is_bot
from core.race_log import Entry, FinishedRace, RaceStart

from .rows import race_ids

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Iterable, Iterator, Mapping

    from .end_rows import OwedEnds

__all__ = ["Batch", "RecordToWrite", "Writes", "fail", "resolve"]

T = TypeVar("T")

RecordToWrite: TypeAlias = tuple[FinishedRace, float, float, "OwedEnds | None"]
"""A finished race to write: its record, when it started and ended (wall clock), and
the ends its players are owed (:mod:`server.store.end_rows`), if any."""


@dataclass(slots=True)
class Writes:
    """What one transaction writes, in this order: race starts, journal entries, finished races.

    ``epochs`` is the writer's epoch of each race whose entries or record are
    here: its ownership of the race, which the store accepts only if it is the
    race's current epoch (server/store/machine.py, "Fencing").
    """

    starts: list[tuple[RaceStart, float]] = field(default_factory=list)
    entries: list[tuple[str, Entry]] = field(default_factory=list)
    races: list[RecordToWrite] = field(default_factory=list)
    epochs: dict[str, int] = field(default_factory=dict)
    ending: frozenset[str] = frozenset()
    """Races the batch these writes came from ends (:meth:`one_by_one`): their people are
    free to start another, as are those of the races recorded here."""

    def people(self) -> list[str]:
        """Who sits in the races started here, bots aside (a bot may race many at once)."""
        return [player for start, _ in self.starts for player in _people(start)]

    def double_starts(self, racing: Iterable[tuple[str, str]]) -> frozenset[str]:
        """The races started here that a person would race beside another live race.

        ``racing``: ``(race, person)`` for each person of :meth:`people` in a live
        race, as the store reads it in the transaction that would start these. A
        person races one race at a time: a worker paused or cut off may still pair
        someone who meanwhile started racing elsewhere, and the store, which every
        worker writes, is where that is known for sure. Races ended in this batch
        do not count: their people may be paired again at once.
        """
        ended = self.ending | {race[0].game_id for race in self.races}
        elsewhere: dict[str, set[str]] = {}
        for game_id, player in racing:
            if game_id not in ended:
                elsewhere.setdefault(player, set()).add(game_id)
        return frozenset(
            start.game_id
            for start, _ in self.starts
            for player in _people(start)
            if elsewhere.get(player, set()) - {start.game_id}
        )

    def without_starts(self, refused: frozenset[str]) -> Writes:
        """These writes but the starts of ``refused`` (their entries go with the epochs)."""
        if not refused:
            return self
        starts = [(start, wall) for start, wall in self.starts if start.game_id not in refused]
        return Writes(starts, self.entries, self.races, self.epochs, self.ending)

    def one_by_one(self) -> Iterator[Writes]:
        """Each item on its own, in the order they are written."""
        epochs = self.epochs
        ending = self.ending | {race[0].game_id for race in self.races}
        for start in self.starts:
            yield Writes(starts=[start], ending=ending)
        for game_id, entry in self.entries:
            yield Writes(entries=[(game_id, entry)], epochs={game_id: epochs[game_id]})
        for race in self.races:
            game_id = race[0].game_id
            yield Writes(races=[race], epochs={game_id: epochs[game_id]})
        written = {g for g, _ in self.entries} | {race[0].game_id for race in self.races}
        for game_id in epochs.keys() - written:  # a check alone (Batch.add_check)
            yield Writes(epochs={game_id: epochs[game_id]})

    def checked(self) -> list[str]:
        """The races whose current epoch the store must check: those with entries or a record."""
        return list(self.epochs)

    def kept(self, current: Mapping[str, int]) -> tuple[Writes, frozenset[str]]:
        """What may be written given each race's ``current`` epoch, and the races refused.

        A race is refused when it is not live (another worker finished it) or
        when its epoch is not the writer's (another worker took it since):
        none of its entries nor its record is written.
        """
        epochs = self.epochs
        refused = frozenset(g for g, epoch in epochs.items() if current.get(g) != epoch)
        if not refused:
            return self, refused
        kept = Writes(
            starts=self.starts,
            entries=[(g, entry) for g, entry in self.entries if g not in refused],
            races=[race for race in self.races if race[0].game_id not in refused],
            epochs={g: epoch for g, epoch in epochs.items() if g not in refused},
            ending=self.ending,
        )
        return kept, refused

    def race_ids(self) -> set[str]:
        """Every race this writes for."""
        ids = {start.game_id for start, _ in self.starts}
        return ids | self.epochs.keys()  # every entry, record and check names its epoch

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
            parts.append(f"the record of {race_ids(race[0].game_id for race in self.races)}")
        if not parts and self.epochs:  # checks alone (Batch.add_check)
            parts.append(f"the epoch of {race_ids(self.epochs)}")
        return "; ".join(parts) or "nothing"


def _people(start: RaceStart) -> Iterator[str]:
    """The people of ``start``: not a declared bot's seat, nor the server's bot or ghost."""
    for player, bot in zip(start.player_ids, start.bots, strict=True):
        if not (bot or is_bot(player)):
            yield player


class Batch:
    """Writes made by one transaction: those asked for since the last call was queued.

    Each transaction costs a commit. So a write joins the batch queued last,
    unless another call was made since (calls run in call order) or the
    worker has :meth:`take` n it (then it starts the next). All share
    :attr:`written`. Only the loop touches it, so it needs no lock.
    """

    __slots__ = ("_taken", "writes", "written")

    def __init__(self, written: asyncio.Future[frozenset[str]]) -> None:
        self._taken = False
        self.writes = Writes()
        self.written = written

    def add(self, items: list[T], item: T) -> bool:
        """Append ``item`` to one of :attr:`writes`' lists; False once taken."""
        if self._taken:
            return False
        items.append(item)
        return True

    def add_owned(self, kind: str, item: Any, game_id: str, epoch: int) -> bool:
        """:meth:`add` to ``entries`` or ``races`` (``kind``) an item of race ``game_id``,
        written under ``epoch``."""
        if not self.add(getattr(self.writes, kind), item):
            return False
        self.writes.epochs[game_id] = epoch
        return True

    def add_check(self, game_id: str, epoch: int) -> bool:
        """Have the store check that ``epoch`` is race ``game_id``'s current one, writing
        nothing for it; False once taken, or if the batch writes the race under another
        epoch (a batch checks one epoch a race: the check goes in the next)."""
        return not self._taken and self.writes.epochs.setdefault(game_id, epoch) == epoch

    def take(self) -> Writes:
        """Everything added so far; nothing can be added after."""
        self._taken = True
        return self.writes


def resolve(future: asyncio.Future[T], result: T) -> None:
    """Settle ``future`` with ``result``, unless someone who awaited it cancelled it
    (the write was made all the same)."""
    if not future.done():
        future.set_result(result)


def fail(future: asyncio.Future[T], error: Exception) -> None:
    """Settle ``future`` with ``error``, unless it is settled already."""
    if not future.done():
        future.set_exception(error)
