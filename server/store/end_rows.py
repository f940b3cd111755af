"""Race ends kept in the store for players who may not have been told them (server/cluster/owed.py).

``owed_ends`` has a row a player: the ``game_state`` of their last race, over, as
the worker that ended it would tell it to them on coming back, with that worker's
incarnation and the moment the race ended (wall clock). A newer end replaces an
older one, and an end too old to be told goes as another is kept: the table holds
the ends of the last few minutes.

The rows are written in the transaction that writes the race's record
(:func:`kept`, from the backends' writers), so a race recorded has its end kept.
It was kept in Redis before (``fg:owed:<player>``), and Redis lost it in the very
faults it is for: a worker cut off from Redis ended a race and could not write
it; a Redis restarted empty forgot it (``make chaos``: 8 racers welcomed back and
told nothing). Written after the record, in a transaction of its own, it left a
moment when a racer coming back was told the end of the race before (``make chaos``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .reads import first

if TYPE_CHECKING:
    from .interface import Store
    from .reads import Row
    from .rows import Statement
    from .scripts import Script

__all__ = ["OwedEnd", "OwedEnds", "kept", "owed_end", "settle"]

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


class OwedEnds(NamedTuple):
    """What a race's record keeps for its players who may not have been told its end."""

    teller: str
    """The incarnation of the worker that ended the race (its lobby core tells it)."""
    states: tuple[tuple[str, bytes], ...]
    """Each person's ``game_state`` of it, over, as JSON, by player id."""
    told_since: float
    """Ends before this moment (wall clock) are told nobody any more: they go."""


def kept(race_id: str, ends: OwedEnds, ended: float) -> list[Statement]:
    """The statements that keep ``ends`` of race ``race_id``, which ended at ``ended`` (wall
    clock), in the transaction that writes its record: once the record is, so is its end."""
    statements: list[Statement] = [(_FORGET, (ends.told_since,))]
    for player_id, state in ends.states:
        statements.append((_KEEP, (player_id, race_id, ends.teller, ended, state.decode())))
    return statements


def settle(player_id: str, race_id: str) -> Script[None]:
    """``player_id`` is told the end of ``race_id``: it is owed no more."""
    yield (_SETTLE, (player_id, race_id))


async def owed_end(store: Store, player_id: str) -> OwedEnd | None:
    """The end of ``player_id``'s last race that the store keeps, if any."""
    return await store.read(_OWED, (player_id,), first(_row))


def _row(row: Row) -> OwedEnd:
    race_id, teller, ended, state = row
    return OwedEnd(str(race_id), str(teller), float(str(ended)), str(state))
