"""The arenas' paths of the HTTP API, read from the store; and the operator's scheduling.

``GET /api/arenas`` lists the upcoming and running arenas and the last finished
one; ``GET /api/arenas/ARENA_ID`` gives one with its whole standings, ranked
by the arenas desk's own rule (:func:`core.arena_rules.ranked`); both read what
the store keeps (:mod:`server.store.arena_rows`), which the owner of each
arena writes before any player is told. ``POST /api/admin/arenas`` schedules
an arena through :class:`~server.arena_keeper.ArenaKeeper`: this worker owns it.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import replace
from http import HTTPStatus
from typing import TYPE_CHECKING

from core.arena_rules import Placed, ranked
from protocol import Standing
from server.arena_keeper import iso
from server.store.arena_rows import ENTRANTS, LAST_FINISHED, LISTED, ONE, entrant, kept_arena
from server.store.reads import each, first

from .api import ApiRefused
from .arena_models import ArenaDetail, ArenaLine, ArenasAnswer

if TYPE_CHECKING:
    from core.arena_state import Entrant
    from protocol import ArenaStatus
    from server.arena_keeper import ArenaKeeper
    from server.store import Store
    from server.store.arena_rows import KeptArena

    from .arena_models import ArenaOrder

__all__ = ["arena", "arenas", "schedule"]


def _line(kept: KeptArena) -> ArenaLine:
    return ArenaLine(
        arena_id=kept.arena_id, name=kept.name, status=kept.status, rules=kept.rules,
        starts_at=iso(kept.starts_wall), ends_at=iso(kept.ends_wall), players=kept.players,
    )  # fmt: skip


def standings(entrants: list[Entrant]) -> list[Standing]:
    """Every place of an arena's standings: those joined, and those who raced and left."""
    by_id = {one.player_id: one for one in entrants}
    places = [Placed(e.player_id, e.score, e.races, e.order) for e in entrants if e.listed]
    return [
        Standing(rank=rank, name=(e := by_id[place.player_id]).name, score=e.score,
                 streak=e.streak, races=e.races, bot=e.bot)
        for rank, place in ranked(places)
    ]  # fmt: skip


async def arenas(store: Store) -> ArenasAnswer:
    """``GET /api/arenas``."""
    listed = await store.read(LISTED, (), each(kept_arena))
    last = await store.read(LAST_FINISHED, (), first(kept_arena))
    return ArenasAnswer(arenas=[_line(kept) for kept in [*listed, *filter(None, [last])]])


async def arena(store: Store, arena_id: str) -> ArenaDetail:
    """``GET /api/arenas/ARENA_ID``; ``404`` for an id no arena has."""
    kept = await store.read(ONE, (arena_id,), first(kept_arena))
    if kept is None:
        raise ApiRefused(HTTPStatus.NOT_FOUND, "arena_not_found", f"no arena has the id {arena_id}")
    entrants = await store.read(ENTRANTS, (arena_id,), each(entrant))
    return ArenaDetail(**_line(kept).model_dump(), standings=standings(entrants))


async def schedule(keeper: ArenaKeeper, order: ArenaOrder) -> ArenaDetail:
    """``POST /api/admin/arenas``: the arena, as ``GET /api/arenas/ARENA_ID`` gives it."""
    now = time.time()
    starts = now if order.starts_at is None else order.starts_at.timestamp()
    ends = starts + order.minutes * 60.0
    if ends <= now:
        raise ApiRefused(HTTPStatus.BAD_REQUEST, "bad_request", "the arena would end in the past")
    kept = await keeper.create(secrets.token_hex(8), order.name, order.rules, starts, ends)
    if kept is None:  # a fresh id of 64 random bits is free: the workers' Redis is away
        raise ApiRefused(HTTPStatus.SERVICE_UNAVAILABLE, "unavailable", "try again later")
    status: ArenaStatus = "running" if starts <= now else "upcoming"  # as the core has it now
    return ArenaDetail(**_line(replace(kept, status=status)).model_dump(), standings=[])
