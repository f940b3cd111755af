"""The HTTP API's arenas: ``GET /api/arenas``, ``GET /api/arenas/ARENA_ID`` and the
operator's ``POST /api/admin/arenas`` (PROTOCOL.md, "HTTP"), as pydantic models.

Beside :mod:`server.http.models`, whose :class:`~server.http.models.ApiAnswer`
they derive from: the OpenAPI document is made from them
(:mod:`server.http.openapi`). A standing is the wire's own
(:class:`protocol.Standing`), as the ``arena`` message shows it.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AwareDatetime, Field

from protocol import ArenaStatus, Rules, Standing
from server.arena_schedule import ARENA_MINUTES, NAME_LENGTH

from .models import ApiAnswer

__all__ = ["ArenaDetail", "ArenaLine", "ArenaOrder", "ArenasAnswer"]


class ArenaLine(ApiAnswer):
    """One arena as ``GET /api/arenas`` lists it."""

    arena_id: str
    """16 hex digits for the operator's; a recurring one's is its plan's name and start
    (server/arena_schedule.py)."""
    name: str
    status: ArenaStatus
    rules: Rules
    starts_at: str
    """ISO 8601, UTC."""
    ends_at: str
    players: int
    """How many its standings list: those joined, and those who raced before leaving."""


class ArenasAnswer(ApiAnswer):
    """``GET /api/arenas``: the upcoming and running arenas, soonest first, then the last
    finished one."""

    arenas: list[ArenaLine]


class ArenaDetail(ArenaLine):
    """``GET /api/arenas/ARENA_ID``: one arena with its whole standings (as its ``arena``
    messages give them, not only the first 50); final once it is ``finished``."""

    standings: list[Standing]


class ArenaOrder(ApiAnswer):
    """The body of ``POST /api/admin/arenas``: an arena to schedule."""

    name: Annotated[str, Field(min_length=NAME_LENGTH[0], max_length=NAME_LENGTH[1])]
    rules: Rules = Rules()
    """The rules of its races (rated ones are rated where the rated rules allow)."""
    starts_at: AwareDatetime | None = None
    """When it starts (ISO 8601 with its offset); null for now."""
    minutes: Annotated[int, Field(ge=ARENA_MINUTES[0], le=ARENA_MINUTES[1])]
    """How long it runs; races still running at the end count when they end."""
