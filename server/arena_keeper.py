"""Arenas between the lobby core and the store: scheduled, kept, restored, fenced.

The arenas desk (:mod:`core.arenas`) decides everything about an arena; this is
what it needs done with I/O, as :mod:`server.delivery` is for races:

* :meth:`ArenaKeeper.create` claims a new arena among the workers (the peers),
  keeps it (:func:`server.store.arena_rows.schedule`) and, if its id was free,
  gives it to this worker's lobby core: this worker owns it, at epoch 1. The
  operator's ``POST /api/admin/arenas`` and the recurring schedule
  (:mod:`server.arena_schedule`) both come here; workers that run the same
  schedule make each arena once, whoever claims it first.
* :meth:`ArenaKeeper.write` keeps each :class:`~core.events.ArenaChanged` under the
  epoch this worker owns the arena at, before the frames after it go out. A write
  the store refuses (a later take fenced this worker out) lets go of the arena:
  it leaves the core, its free players here go to its new owner (1012), and the
  frames waiting on the write are dropped, as for a race.
* :meth:`ArenaKeeper.restore` takes arenas from the store (all at a process's
  start; those of a dead worker on failover), each one's epoch grown by one,
  and gives them to the core with their entrants.

Times: the store keeps an arena's start and end on the wall clock; the cores
run on the monotonic clock, so each arena is given to the core with both
(:func:`scheduled`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from core.arena_state import ScheduledArena
from core.events import ArenaChanged
from server.store import StoreError
from server.store.arena_rows import KeptArena, changed, schedule, take

if TYPE_CHECKING:
    from collections.abc import Collection

    from core.events import Output
    from protocol import Rules

    from .app import GameServer

__all__ = ["ArenaFenced", "ArenaKeeper", "iso", "scheduled"]

log = logging.getLogger("flowergarden.server")


class ArenaFenced(StoreError):
    """The store kept none of a write to an arena: another worker owns it now."""


def iso(wall: float) -> str:
    """A wall-clock time as the wire shows it: ISO 8601 in UTC, to the second."""
    return datetime.fromtimestamp(wall, UTC).isoformat(timespec="seconds")


def scheduled(kept: KeptArena, now: float, wall: float) -> ScheduledArena:
    """``kept`` as the lobby core takes it, its times moved to the cores' clock (``now``
    there is ``wall`` on the wall clock)."""
    shift = now - wall
    return ScheduledArena(
        kept.arena_id, kept.name, kept.rules, kept.starts_wall + shift, kept.ends_wall + shift,
        iso(kept.starts_wall), iso(kept.ends_wall),
    )  # fmt: skip


class ArenaKeeper:
    """The arenas this worker owns, by the epoch it owns each at (see the module docstring)."""

    def __init__(self, server: GameServer) -> None:
        self._server = server
        self.epochs: dict[str, int] = {}
        """The epoch under which this worker owns each of its arenas (the store's)."""

    async def create(
        self, arena_id: str, name: str, rules: Rules, starts_wall: float, ends_wall: float
    ) -> KeptArena | None:
        """Keep a new arena and run it here; None, and nothing done, if its id is taken."""
        kept = KeptArena(arena_id, name, rules, starts_wall, ends_wall, "upcoming", 1)
        server = self._server
        if not await server.peers.claim_arena(arena_id):
            return None  # another worker makes it, or made it
        if not await server.store.run(schedule(kept, time.time())):
            server.peers.arena_done(arena_id)
            return None
        log.info("arena %s (%s) scheduled from %s", arena_id, name, iso(starts_wall))
        self.epochs[arena_id] = 1
        now = server.clock()
        spec = scheduled(kept, now, time.time())
        server.deliver(server.lobby.schedule_arena(spec, now), "", None)
        return kept

    async def restore(self, only: Collection[str] | None = None) -> list[KeptArena]:
        """Take the unfinished arenas of the store (or those in ``only``) and run them here;
        each as it was taken. Whoever ran them before is fenced out."""
        server = self._server
        taken = await server.store.run(take(only))
        now, wall = server.clock(), time.time()
        for kept in taken:
            self.epochs[kept.arena_id] = kept.epoch
            # Started while nobody ran it: kept so before the core's own changes.
            started: list[Output] = []
            if kept.status == "upcoming" and wall >= kept.starts_wall:
                started.append(ArenaChanged(kept.arena_id, "running"))
            spec = scheduled(kept, now, wall)
            outputs = server.lobby.restore_arena(spec, kept.entrants, now)
            server.deliver([*started, *outputs], "", None)
        if taken:
            log.info("restored %d arenas: %s", len(taken), ", ".join(a.arena_id for a in taken))
        return taken

    def write(self, out: ArenaChanged) -> asyncio.Future[None]:
        """Keep ``out`` under this worker's epoch (the frames after it wait for this)."""
        return asyncio.ensure_future(self._write(out, self.epochs.get(out.arena_id, 1)))

    async def _write(self, out: ArenaChanged, epoch: int) -> None:
        script = changed(out.arena_id, out.status, out.entrants, epoch)
        if not await self._server.store.run(script):
            self._fenced(out.arena_id)
            raise ArenaFenced(f"arena {out.arena_id}: the store kept none of this write")
        if out.status == "finished" and self.epochs.pop(out.arena_id, None) is not None:
            log.info("arena %s finished", out.arena_id)
            self._server.peers.arena_done(out.arena_id)

    def _fenced(self, arena_id: str) -> None:
        """Another worker took ``arena_id``: it leaves here, and its free players go there."""
        if self.epochs.pop(arena_id, None) is None:
            return  # already let go of, by an earlier write of the same pass
        log.warning("arena %s: another worker owns it now; letting it go", arena_id)
        self._server.let_go_of_arena(arena_id)
