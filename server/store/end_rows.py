"""Race ends kept in the store for players who may not have been told them (server/cluster/owed.py).

``owed_ends`` has a row a player: the ``game_state`` of their last race, over, as
the worker that ended it would tell it to them on coming back, with that worker's
incarnation and the moment the race ended (wall clock). A newer end replaces an
older one, and an end too old to be told goes as another is kept: the table holds
the ends of the last few minutes.

It was kept in Redis before (``fg:owed:<player>``), and Redis lost it in the very
faults it is for: a worker cut off from Redis ended a race and could not write
it; a Redis restarted empty forgot it. The store, which holds the race's record,
holds its end as surely (``make chaos``: 8 racers welcomed back and told nothing).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .reads import first

if TYPE_CHECKING:
    from .interface import Store
    from .reads import Row
    from .rows import Statement
    from .scripts import Script

__all__ = ["OwedEnd", "keep", "owed_end", "settle"]

_KEEP = (
    "INSERT INTO owed_ends (player_id, race_id, teller, ended, state) VALUES (?, ?, ?, ?, ?)"
    " ON CONFLICT (player_id) DO UPDATE SET race_id = excluded.race_id,"
    " teller = excluded.teller, ended = excluded.ended, state = excluded.state"
    " WHERE owed_ends.ended <= excluded.ended"
)
"""A player's last race's end: a newer end replaces an older one, never the reverse."""

_OWED = "SELECT race_id, teller, ended, state FROM owed_ends WHERE player_id = ?"
_SETTLE = "DELETE FROM owed_ends WHERE player_id = ? AND race_id = ?"
_FORGET = "DELETE FROM owed_ends WHERE ended < ?"


class OwedEnd(NamedTuple):
    """A player's last race's end, as the store keeps it."""

    race_id: str
    teller: str
    """The incarnation of the worker that ended the race (its lobby core tells it)."""
    ended: float
    """When the race ended, on the wall clock."""
    state: str
    """The player's ``game_state`` of it, over, as JSON."""


def keep(
    race_id: str, teller: str, ended: float, states: dict[str, bytes], *, told_since: float
) -> Script[None]:
    """Keep each of ``states`` (a player's ``game_state`` JSON) as their race's end; the
    ends before ``told_since``, which nobody is told any more, go (the table stays small)."""
    yield (_FORGET, (told_since,))
    for player_id, state in states.items():
        statement: Statement = (_KEEP, (player_id, race_id, teller, ended, state.decode()))
        yield statement


def settle(player_id: str, race_id: str) -> Script[None]:
    """``player_id`` is told the end of ``race_id``: it is owed no more."""
    yield (_SETTLE, (player_id, race_id))


async def owed_end(store: Store, player_id: str) -> OwedEnd | None:
    """The end of ``player_id``'s last race that the store keeps, if any."""
    return await store.read(_OWED, (player_id,), first(_row))


def _row(row: Row) -> OwedEnd:
    race_id, teller, ended, state = row
    return OwedEnd(str(race_id), str(teller), float(str(ended)), str(state))
