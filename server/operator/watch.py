"""The operator's actions reaching a running server: every worker reads the audit log.

Theory of operation
-------------------
An action is done by one process (the admin API of one worker, or
``flowergarden-admin``, another process altogether) in the shared store, with
its line in the audit log (:mod:`server.operator.actions`). What it changes in
the store, every server sees at once: a banned player's next hello is
``banned``, a forgotten one's ``bad_token``, a renamed one is welcomed under
the new name. What lives in a server's memory must follow, on every worker:

* ``ban``: the player's connections here are closed with 4001, their socket
  and, when it is on another worker, the link to it (that worker closes its
  side too, reading the same line);
* ``rename``, ``forget``: this worker's registry (``core.identity.Registry``):
  the old name is free here too, the token names nobody;
* ``bot``, ``clear``: the lobby core's player (``Lobby.update``,
  ``Lobby.clear_flags``); ``annul``: their rating, as the store now has it.

So each worker reads the lines after the last one it has seen, every
:data:`POLL_S` seconds (one indexed query), and applies each, in order. The
lines are numbered in the order they commit (SQLite writes one transaction at
a time; PostgreSQL's scripts take the log's lock, server/store/postgres.py), so
reading after the last id misses none. An action made by this worker's own
API is applied at once, and skipped when its line comes by. Applying is
idempotent, so a line applied twice does no harm. Where the log stands is
read at start, before the registry is loaded: a line written between is
applied to a registry that has it already.

The same task sweeps the names that free themselves (:mod:`server.operator.forgetting`)
at start and every :data:`~server.operator.forgetting.SWEEP_EVERY` seconds.
"""

from __future__ import annotations

import json
import logging
import time
from typing import TYPE_CHECKING

from protocol.close_codes import CloseCode
from server.loops import Loop, SaidOnce
from server.store import StoreError

from .actions import perform
from .forgetting import SWEEP_EVERY, sweep
from .review import last_line, since

if TYPE_CHECKING:
    from server.app import GameServer

    from .actions import Logged

__all__ = ["POLL_S", "OperatorWatch"]

log = logging.getLogger("flowergarden.server")

POLL_S = 1.0
"""Seconds between two reads of the audit log: how long an action made by another process
takes at most, and a little more, to reach this worker."""


class OperatorWatch:
    """What reaches one worker of the operator's actions (see the module docstring)."""

    def __init__(self, server: GameServer, *, poll: float = POLL_S) -> None:
        self._server = server
        self._poll = poll
        self._last = 0
        """The last line of the log this worker has applied or skipped."""
        self._made_here: set[int] = set()
        """Lines this worker applied as it made them, to skip when they come by."""
        self._next_sweep = 0.0
        """When to sweep unused names next (the monotonic clock)."""
        self._watching = Loop("operator", self._round, first=0.0)
        self._failing = SaidOnce("operator: cannot read the audit log now")

    async def begin(self) -> None:
        """Learn where the log stands, before the registry is loaded (module docstring)."""
        self._last = await last_line(self._server.store)

    def start(self) -> None:
        """Watch the log, and sweep unused names, from now on."""
        self._watching.start()

    async def close(self) -> None:
        await self._watching.stop()

    async def made(self, line: Logged) -> None:
        """This worker made the action of ``line``: apply it now."""
        self._made_here.add(line.id)
        await self.apply(line)

    async def apply(self, line: Logged) -> None:
        """Carry out what ``line`` changes in this worker's memory."""
        server, player_id = self._server, line.player_id
        log.info("operator: %s %s by %s (%s)", line.action, line.target, line.by, line.reason)
        if line.action == "annul" and line.detail is not None:
            for each in json.loads(line.detail)["players"]:
                now = await server.store.standing(each)
                if now is not None:
                    server.lobby.update(each, rating=now.rating)
        if player_id is None:
            return
        if line.action == "ban":
            server.banish(player_id, CloseCode.BANNED, "banned")
        elif line.action == "rename" and line.detail is not None:
            name = json.loads(line.detail)["name"]
            server.identities.registry.rename(player_id, name)
            server.lobby.update(player_id, name=name)
        elif line.action == "forget":
            server.identities.registry.forget(player_id)
        elif line.action == "bot":
            server.lobby.update(player_id, bot=True)
        elif line.action == "clear":
            server.lobby.clear_flags(player_id)

    async def _round(self) -> float:
        """Read the log (and sweep, when due); the next round comes ``poll`` s later."""
        try:
            if time.monotonic() >= self._next_sweep:
                self._next_sweep = time.monotonic() + SWEEP_EVERY
                await self._sweep()
            await self._read()
        except StoreError as exc:  # the next round tries again; said once
            self._failing.failed(exc)
        else:
            self._failing.succeeded()
        return self._poll

    async def _read(self) -> None:
        for line in await since(self._server.store, self._last):
            self._last = line.id
            if line.id in self._made_here:
                self._made_here.discard(line.id)
            else:
                await self.apply(line)

    async def _sweep(self) -> None:
        days = self._server.settings.forget_after_days
        for line in await perform(self._server.store, sweep(time.time(), days)):
            await self.made(line)
