"""Carrying out the cores' outputs: frames to each receiver, writes to the store, timers.

The cores (:mod:`core.events`) name every receiver and every write; this is
the one place that acts on them, the hot path of every play:

* a :class:`~core.events.Send` or :class:`~core.events.SendPlayed` is encoded
  once, to bytes, and pushed to the outbox of each receiver connected here
  (the sender's copy carries the request's ``id``);
* a :class:`~core.events.RaceStarted`, :class:`~core.events.Journaled` or
  :class:`~core.events.RaceEnded` is handed to the store, and every frame after
  it waits (a barrier) until the store has committed it: nothing is announced
  that a crash could lose;
* an :class:`~core.events.ArenaChanged` is kept by the arena keeper
  (:mod:`server.arena_keeper`), under the arena's epoch, with the same barrier;
* a :class:`~core.events.Wake` sets the race's timer (:mod:`server.timers`);
* what other workers must see (a room, a race's owner, a seeker) goes to the
  :class:`~server.peers.Peers`, whose write the frames after it may wait for too.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from core.events import ArenaChanged, Journaled, RaceEnded, RaceStarted, Send, SendPlayed, Wake
from protocol import GameStart, GameState, encode_bytes
from protocol.close_codes import CloseCode
from server.store import StoreError

from .conn import with_id

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable

    from core.events import Output
    from core.race_log import FinishedRace
    from protocol import RequestId

    from .cluster.remote import RemoteConn
    from .conn import Conn
    from .http.metrics import Metrics
    from .peers import Peers
    from .store import Store
    from .timers import RaceTimers

__all__ = ["Delivery"]

log = logging.getLogger("flowergarden.server")


class Delivery:
    """Delivers outputs to the connections in ``conns`` (every player whose home is here)."""

    def __init__(
        self,
        conns: dict[str, Conn | RemoteConn],
        store: Store,
        peers: Peers,
        metrics: Metrics,
        timers: RaceTimers,
        *,
        refused: Callable[[str], None],
        arenas: Callable[[ArenaChanged], Awaitable[None]],
    ) -> None:
        """``refused`` is told of each race the store would not write for: the frames it
        holds back for that race are dropped first, since they announce nothing recorded.
        ``arenas`` keeps an arena's change (server/arena_keeper.py)."""
        self._conns, self._store, self._peers, self._arenas = conns, store, peers, arenas
        self._metrics, self._timers, self._refused = metrics, timers, refused
        store.on_settled = self._settled  # the gates open as the batch is written, not after
        self.writes: set[asyncio.Future[Any]] = set()
        """Store writes not yet done (shutdown waits for them)."""
        self._gates: dict[asyncio.Future[Any], dict[str | None, asyncio.Future[None]]] = {}
        """For each store write under way, the barrier each race's frames wait on (see
        :meth:`persist`)."""
        self.epochs: dict[str, int] = {}
        """The epoch under which this worker owns each of its live races (the store's)."""
        self._unwritten: dict[str, asyncio.Future[None]] = {}
        """Each race's last gate not yet open. A frame of the race that records nothing
        (a ``game_state``, made from the race in memory) waits on it too: it must not
        show a play that the store has not kept, and may yet refuse."""

    def deliver(self, outputs: list[Output], sender: str, request_id: RequestId | None) -> None:
        """Carry out the cores' outputs in order; the sender's first frame carries the id."""
        barrier: asyncio.Future[Any] | None = None
        conns = self._conns
        for out in outputs:
            held = barrier
            if isinstance(out, SendPlayed):
                frame = out.frame()
                self._metrics.plays += 1
            elif isinstance(out, Send):
                frame = encode_bytes(out.message)
                if isinstance(out.message, GameStart) and out.message.seat == 0:
                    start = out.message
                    log.info("race %s started: %s", start.game_id, " v ".join(start.players))
                if isinstance(out.message, GameState):
                    held = self._confirmed(out.message.game_id, held)
                elif held is None:  # behind what is still being written of its race
                    held = self._unwritten.get(getattr(out.message, "game_id", ""))
            else:
                written = self._carry_out(out)
                if written is not None:
                    barrier = written
                continue
            for player_id in out.to:
                conn = conns.get(player_id)
                if conn is None:
                    continue
                if player_id == sender and request_id is not None:
                    conn.outbox.push(with_id(frame, request_id), held)
                    request_id = None
                else:
                    conn.outbox.push(frame, held)

    def _confirmed(
        self, game_id: str, held: asyncio.Future[Any] | None
    ) -> asyncio.Future[Any] | None:
        """The barrier of a ``game_state`` of race ``game_id``: behind ``held``, and, for
        a live race run here, behind the store's word that this worker still runs it.

        A snapshot records nothing, so no write fences it: a worker stopped, cut
        off, or handed a stale take of the race would send it as it stood here,
        older than what the race's owner has told. Told means recorded, for a
        snapshot too: the store's current epoch must still be this worker's, or
        the frame is dropped and the race leaves (as for a refused write).
        """
        epoch = self.epochs.get(game_id)
        if epoch is None:  # ended here (a missed game_over), or not run here
            return held if held is not None else self._unwritten.get(game_id)
        return self.persist(self._store.confirm(game_id, epoch), game_id)

    def once_confirmed(self, game_id: str, outputs: Callable[[], list[Output]]) -> None:
        """Deliver ``outputs()`` once the store says this worker still runs race
        ``game_id``; never if it does not (the race leaves, as for a refused write). At
        once for a race this worker runs under no epoch (one it does not run)."""
        epoch = self.epochs.get(game_id)
        if epoch is None:
            self.deliver(outputs(), "", None)
            return

        def then(gate: asyncio.Future[None]) -> None:
            if not gate.cancelled() and gate.exception() is None:
                self.deliver(outputs(), "", None)

        self.persist(self._store.confirm(game_id, epoch), game_id).add_done_callback(then)

    def let_go(self, game_id: str, player_ids: Iterable[str]) -> None:
        """Race ``game_id`` is another worker's now: its people here go to it (1012), and
        nothing said of it here waits any more on this worker's take of it, which the store
        refuses: its end, told from the store's record, went nowhere (``make chaos``)."""
        self.epochs.pop(game_id, None)
        self._unwritten.pop(game_id, None)
        self.send_away(player_ids, "your race moved; connect again")

    def send_away(self, player_ids: Iterable[str], reason: str) -> None:
        """Close the connections of ``player_ids`` here with 1012, so that they come back
        to a race's new owner; what was queued for them is not written."""
        for player_id in player_ids:
            conn = self._conns.get(player_id)
            if conn is not None:
                conn.discard()
                conn.close(CloseCode.SERVICE_RESTART, reason)

    def persist(self, write: Awaitable[Any], game_id: str | None = None) -> asyncio.Future[None]:
        """Keep track of a store write (for race ``game_id``); the barrier the frames
        announcing it wait on.

        The barrier is not the write's own future but a gate, one for each race
        of the batch, opened once the write is done *and* its refusals are dealt
        with. The gate of a race the store refused is cancelled, and a write
        that failed fails every gate: either way those frames are never written,
        on whichever connection holds them (one closing, or replaced, included).
        """
        # The store's calls give futures; ensure_future's checks cost a play a microsecond.
        future = write if isinstance(write, asyncio.Future) else asyncio.ensure_future(write)
        gates = self._gates.get(future)
        if gates is None:  # the store shares one future per batch
            gates = self._gates[future] = {}
            self.writes.add(future)
            future.add_done_callback(self._written)
            self._metrics.store_timed(future)
        gate = gates.get(game_id)
        if gate is None:
            gate = gates[game_id] = future.get_loop().create_future()
            if game_id is not None:
                self._unwritten[game_id] = gate
        return gate

    def _carry_out(self, out: Output) -> asyncio.Future[Any] | None:
        """An output that sends nothing; the write that frames after it wait for, if any."""
        if isinstance(out, Wake):
            self._timers.wake(out.game_id, out.at)
            return None
        # What other workers must see; a room's code and a race's owner before
        # the frames that announce them.
        shared = self._peers.mirror(out)
        if isinstance(out, Journaled):
            epoch = self.epochs.get(out.game_id, 1)
            return self.persist(self._store.journal(out.game_id, out.entry, epoch), out.game_id)
        if isinstance(out, RaceStarted):
            game_id = out.start.game_id
            self.epochs[game_id] = 1  # a race begins at the first epoch
            stored = self.persist(self._store.begin_race(out.start, time.time()), game_id)
            return stored if shared is None else _both(stored, shared)
        if isinstance(out, RaceEnded):
            return self._record(out.record)
        if isinstance(out, ArenaChanged):
            return self.persist(self._arenas(out))
        return shared  # Queued, RoomListed: only other workers need them

    def _record(self, record: FinishedRace) -> asyncio.Future[Any]:
        ended = time.time()
        started = ended - (record.ended - record.started)
        log.info(
            "race %s ended: %s %s, counts %s",
            record.game_id,
            record.result,
            record.reason,
            "-".join(map(str, record.counts)),
        )
        epoch = self.epochs.pop(record.game_id, 1)
        ends = self._peers.owed_ends(record.game_id, record.player_ids)
        written = self._store.record_race(record, started, ended, epoch, ends)
        return self.persist(written, record.game_id)

    def _settled(self, future: asyncio.Future[Any]) -> None:
        """:meth:`_written`, called by the store's worker: a bug here must not stop it
        (every later write would wait for ever): it is logged, as a callback's would be."""
        try:
            self._written(future)
        except Exception:
            log.exception("opening the gates of a store write failed")

    def _written(self, future: asyncio.Future[Any]) -> None:
        """A write is done: the races it refused leave this worker with their frames,
        then its gate opens (or fails, with the write). Told by the store as it settles
        a batch (``on_settled``), then again as the future's callback: once is enough."""
        self.writes.discard(future)
        gates = self._gates.pop(future, None)
        if gates is None:
            return
        for game_id, gate in gates.items():
            if game_id is not None and self._unwritten.get(game_id) is gate:
                del self._unwritten[game_id]
        if future.cancelled():
            for gate in gates.values():
                gate.cancel()
            return
        if (error := future.exception()) is not None:
            # The store logs what it lost race by race (server/store/machine.py); a
            # traceback here would only repeat it. Anything else is a bug, and says where.
            if not isinstance(error, StoreError):
                log.error("store write failed", exc_info=error)
            for gate in gates.values():
                gate.set_exception(error)
                gate.add_done_callback(_retrieved)
            return
        refused = future.result() or frozenset()
        for game_id in refused:
            log.warning("race %s: the store kept none of this worker's last writes", game_id)
            self.epochs.pop(game_id, None)
            self._refused(game_id)
        for game_id, gate in gates.items():
            if game_id in refused:
                gate.cancel()  # fails closed: nothing of what was refused is announced
            else:
                gate.set_result(None)


def _both(first: asyncio.Future[Any], second: asyncio.Future[Any]) -> asyncio.Future[Any]:
    """A barrier done once both are done, as the first ends: the store's write decides
    (the second, announcing to other workers, is bounded by its owner and may fail)."""
    both: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def check(_: object) -> None:
        if not (first.done() and second.done()) or both.done():
            return
        if first.cancelled():
            both.cancel()
        elif (error := first.exception()) is not None:
            both.set_exception(error)
        else:
            both.set_result(first.result())

    first.add_done_callback(check)
    second.add_done_callback(check)
    return both


def _retrieved(future: asyncio.Future[Any]) -> None:
    """Mark a failed barrier's error as seen: it was logged, and no frame may need it."""
    if not future.cancelled():
        future.exception()
