"""Names that free themselves: players who never finished a race and have not come back.

PROTOCOL.md, "Names": a player who never finished a race and has not come back
for ``--forget-after-days`` days (30) is forgotten: their token is ``bad_token``
and their name is free again, as if the operator had forgotten them
(:data:`server.operator.actions.PLAYER_ACTIONS`, ``forget``), and the audit log
says so, by ``server``. Every other name is kept.

Which players go is :func:`unused`, a pure function of the players' rows and
``now``, tested with a hand-moved clock; :func:`sweep` is the store's
transaction around it, which checks each player again as it forgets them, so
that two workers sweeping at once forget each player once, and a player who
came back meanwhile is kept. Each worker sweeps at start and every
:data:`SWEEP_EVERY` seconds (server/operator/watch.py).

"Came back" is the store's ``last_seen``: set when the player is made, when
their connection ends and when a race of theirs is recorded. A player's
finished races are ``games`` (aborted races are nobody's). Kept whatever
their age: the server's own bots, and banned players (the operator's to
forget: a ban that forgot itself would free the name for whoever was banned).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.bots import is_bot

from .actions import Logged, Order, forget_statement, log_line, number, real

if TYPE_CHECKING:
    from collections.abc import Iterable

    from server.store.scripts import Script

__all__ = ["DAY", "FORGET_AFTER_DAYS", "SWEEP_EVERY", "Unfinished", "sweep", "unused"]

DAY = 86_400.0
FORGET_AFTER_DAYS = 30.0
"""The default of ``--forget-after-days``."""
SWEEP_EVERY = 3600.0
"""Seconds between two sweeps of a running server: a name frees itself within the hour."""
AT_ONCE = 1000
"""Players one sweep forgets at most: one transaction stays short; the next goes on."""

_CANDIDATES = (
    "SELECT id, name, games, last_seen, banned FROM players"
    " WHERE forgotten IS NULL AND games = 0 AND last_seen < ? ORDER BY last_seen, id LIMIT ?"
)


@dataclass(frozen=True, slots=True)
class Unfinished:
    """A player who may be forgotten, as the store has them (wall-clock seconds)."""

    player_id: str
    name: str
    games: int
    """Races they finished (aborted ones are nobody's)."""
    last_seen: float
    banned: bool


def unused(players: Iterable[Unfinished], now: float, after_days: float) -> list[Unfinished]:
    """The players to forget at ``now``: no finished race, not seen for ``after_days`` days,
    neither banned nor one of the server's bots. ``after_days`` 0 forgets nobody."""
    if after_days <= 0:
        return []
    cutoff = now - after_days * DAY
    return [
        player
        for player in players
        if player.games == 0
        and player.last_seen < cutoff
        and not player.banned
        and not is_bot(player.player_id)
    ]


def sweep(now: float, after_days: float) -> Script[list[Logged]]:
    """Forget the players :func:`unused` names at ``now``, each with a line of the log by
    ``server``; the lines. Each is checked again inside the transaction."""
    if after_days <= 0:
        return []
    cutoff = now - after_days * DAY
    rows = (yield (_CANDIDATES, (cutoff, AT_ONCE))).rows
    found = [
        Unfinished(str(i), str(name), number(games), real(seen), bool(banned))
        for i, name, games, seen, banned in rows
    ]
    order = Order(f"unused for {after_days:g} days: no race finished", "server", now)
    lines = []
    for player in unused(found, now, after_days):
        if (yield forget_statement(player.player_id, now, cutoff)).changed != 1:
            continue  # came back, or forgotten by another worker's sweep, meanwhile
        lines.append((yield from log_line(order, "forget", player.name, player.player_id)))
    return lines
