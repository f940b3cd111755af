"""What the store keeps of arenas: each one the operator scheduled, and each player who joined.

An arena is one row of ``arenas`` (its spec: name, rules, its start and end on
the wall clock, its status, and its owner's *epoch*) and one row of
``arena_entrants`` per player who joined it, as the arenas desk last described
them (:class:`~core.events.ArenaChanged`, :class:`~core.arena_state.Entrant`).
Every write is a script (:mod:`server.store.scripts`), the SQL once for both
stores:

* :func:`schedule` adds an arena, or nothing if its id is taken: so workers
  that each run the same recurring schedule make one arena of each slot, and
  the one whose insert took owns it.
* :func:`take` is a take as for races (docs/design.md, "Fencing"): each
  unfinished arena taken (all, or those named) has its epoch grow by one, and
  is read in the same transaction.
* :func:`changed` writes an arena's status and entrants only under the
  writer's epoch: its ``UPDATE`` of the arena's row checks the epoch and
  holds the row until the commit, so a take waits for it, and a write under an
  older epoch changes nothing (the writer learns it was fenced out).

The HTTP API reads arenas with :data:`LISTED`, :data:`LAST_FINISHED`,
:data:`ONE` and :data:`ENTRANTS`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from core.arena_state import Entrant
from protocol import Rules

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable

    from protocol import ArenaStatus

    from .reads import Row
    from .scripts import Did, Script

__all__ = [
    "ENTRANTS",
    "LAST_FINISHED",
    "LISTED",
    "ONE",
    "KeptArena",
    "changed",
    "entrant",
    "kept_arena",
    "schedule",
    "take",
]

_COLUMNS = "id, name, rules, starts_at, ends_at, status, epoch"
_PLAYERS = (
    "(SELECT count(*) FROM arena_entrants e"
    " WHERE e.arena_id = arenas.id AND (e.joined = 1 OR e.races > 0))"
)
"""How many the standings list: joined, or raced before leaving (Entrant.listed)."""
_ENTRANT_COLUMNS = "player_id, name, bot, ord, joined, score, streak, races, last_opponent"

LISTED = (
    f"SELECT {_COLUMNS}, {_PLAYERS} FROM arenas WHERE status <> 'finished' ORDER BY starts_at, id"
)
"""The upcoming and running arenas, soonest first, each with its players."""
LAST_FINISHED = (
    f"SELECT {_COLUMNS}, {_PLAYERS} FROM arenas WHERE status = 'finished'"
    " ORDER BY ends_at DESC, id LIMIT 1"
)
ONE = f"SELECT {_COLUMNS}, {_PLAYERS} FROM arenas WHERE id = ?"
ENTRANTS = f"SELECT {_ENTRANT_COLUMNS} FROM arena_entrants WHERE arena_id = ? ORDER BY ord"

_INSERT = (
    "INSERT INTO arenas (id, name, rules, starts_at, ends_at, status, epoch, created)"
    " VALUES (?, ?, ?, ?, ?, 'upcoming', 1, ?) ON CONFLICT (id) DO NOTHING"
)
_SET_STATUS = "UPDATE arenas SET status = ? WHERE id = ? AND epoch = ?"
_UPSERT = (
    f"INSERT INTO arena_entrants (arena_id, {_ENTRANT_COLUMNS})"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (arena_id, player_id) DO UPDATE SET"
    " name = excluded.name, bot = excluded.bot, joined = excluded.joined,"
    " score = excluded.score, streak = excluded.streak, races = excluded.races,"
    " last_opponent = excluded.last_opponent"
)
_TAKE = "UPDATE arenas SET epoch = epoch + 1 WHERE status <> 'finished'"


@dataclass(frozen=True, slots=True)
class KeptArena:
    """An arena as the store keeps it; times on the wall clock (seconds since the epoch)."""

    arena_id: str
    name: str
    rules: Rules
    starts_wall: float
    ends_wall: float
    status: ArenaStatus
    epoch: int
    players: int = 0
    """How many its standings list."""
    entrants: tuple[Entrant, ...] = ()
    """Its players in the order they joined (read by :func:`take`, or with :data:`ENTRANTS`)."""


def kept_arena(row: Row) -> KeptArena:
    """A row of :data:`LISTED`, :data:`LAST_FINISHED` or :data:`ONE`, or of :func:`take`."""
    arena_id, name, rules, starts, ends, status, epoch, *players = row
    listed = int(str(players[0])) if players else 0
    return KeptArena(
        str(arena_id), str(name), Rules.model_validate_json(str(rules)), float(str(starts)),
        float(str(ends)), status_of(status), int(str(epoch)), listed,
    )  # fmt: skip


def status_of(value: object) -> ArenaStatus:
    if value == "upcoming":
        return "upcoming"
    if value == "running":
        return "running"
    if value == "finished":
        return "finished"
    raise ValueError(f"an arena's status cannot be {value!r}")


def entrant(row: Row) -> Entrant:
    """A row of :data:`ENTRANTS`."""
    player_id, name, bot, order, joined, score, streak, races, last = row
    return Entrant(
        str(player_id), str(name), bool(bot), int(str(order)), joined=bool(joined),
        score=int(str(score)), streak=int(str(streak)), races=int(str(races)),
        last_opponent=None if last is None else str(last),
    )  # fmt: skip


def schedule(arena: KeptArena, created_wall: float) -> Script[bool]:
    """Keep a newly scheduled arena at epoch 1; False if its id is taken (nothing written)."""
    did: Did = yield (
        _INSERT,
        (
            arena.arena_id, arena.name, arena.rules.model_dump_json(), arena.starts_wall,
            arena.ends_wall, created_wall,
        ),
    )  # fmt: skip
    return did.changed == 1


def changed(
    arena_id: str, status: ArenaStatus, entrants: Iterable[Entrant], epoch: int
) -> Script[bool]:
    """Write an arena's status and these entrants under ``epoch``; False, and nothing
    written, if its epoch is another (a later take fenced the writer out)."""
    did: Did = yield (_SET_STATUS, (status, arena_id, epoch))
    if did.changed != 1:
        return False
    for one in entrants:
        yield (
            _UPSERT,
            (
                arena_id, one.player_id, one.name, int(one.bot), one.order, int(one.joined),
                one.score, one.streak, one.races, one.last_opponent,
            ),
        )  # fmt: skip
    return True


def take(only: Collection[str] | None = None) -> Script[list[KeptArena]]:
    """Take the unfinished arenas (all, or those in ``only``): each one's epoch grows by one,
    and each is read, entrants and all, in the same transaction."""
    sql, arguments = _TAKE, tuple(sorted(only or ()))
    if only is not None:
        if not only:
            return []
        sql += f" AND id IN ({', '.join('?' * len(arguments))})"
    did: Did = yield (sql + f" RETURNING {_COLUMNS}", arguments)
    taken = []
    for row in did.rows:
        arena = kept_arena(row)
        rows: Did = yield (ENTRANTS, (arena.arena_id,))
        players = tuple(entrant(one) for one in rows.rows)
        listed = sum(1 for one in players if one.listed)
        taken.append(replace(arena, players=listed, entrants=players))
    return sorted(taken, key=lambda arena: (arena.starts_wall, arena.arena_id))
