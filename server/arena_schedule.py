"""The recurring arenas of ``--arenas``: an hourly arena, a daily one, each made on time.

A plan is a line of ``key=value`` words (shell quoting, so a name may have
spaces); plans are separated by ``;``::

    every=60 minutes=30 name="Hourly blitz" deal=mirror winnable_only=true rated=true

``every`` is minutes between two starts (1 to 10,080, a week), counted from
00:00 UTC, 1 January 1970: ``every=60`` starts on the hour, ``every=1440`` at
midnight UTC. ``minutes`` is each arena's length (1 to 1,440; ``every`` when
left out); ``name`` its name (:data:`NAME_LENGTH`). Every other key is a field of the
race rules (PROTOCOL.md, ``rules``).

At start, at each start of a slot and every :data:`_AGAIN` seconds, the server
makes (if nobody has) the arena of the slot under way (if it still runs) and of
the next one, so the next is always
listed as upcoming. An arena's id is its plan's name and its start
(``hourly-blitz-20261202T0500Z``): workers that run the same plans make each
arena once (:meth:`~server.arena_keeper.ArenaKeeper.create`), and a restarted
server finds the arenas it made.
"""

from __future__ import annotations

import json
import logging
import re
import shlex
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import ValidationError

from protocol import Rules
from server.loops import Loop
from server.store import StoreError

if TYPE_CHECKING:
    from .arena_keeper import ArenaKeeper

__all__ = ["ARENA_MINUTES", "NAME_LENGTH", "ArenaPlan", "ArenaSchedule", "arena_plans"]

log = logging.getLogger("flowergarden.server")

ARENA_MINUTES = (1, 1440)
"""An arena's shortest and longest length, in minutes (PROTOCOL.md, ``POST /api/admin/arenas``)."""
NAME_LENGTH = (1, 64)
"""An arena's name's shortest and longest length, in characters."""
_EVERY = (1, 7 * 1440)
_SLUG = re.compile(r"[^a-z0-9]+")
_AGAIN = 60.0
"""Seconds at most between two looks at the plans."""


@dataclass(frozen=True, slots=True)
class ArenaPlan:
    """One recurring arena: every ``every`` minutes, an arena of ``minutes``."""

    name: str
    every: int
    minutes: int
    rules: Rules

    def slots(self, wall: float) -> list[tuple[str, float]]:
        """The arenas to have at ``wall``: the slot under way, if it still runs, and the
        next; each as its id and start."""
        period = self.every * 60.0
        current = wall // period * period
        wanted = [current + period]
        if wall < current + self.minutes * 60.0:
            wanted.insert(0, current)
        return [(self.arena_id(start), start) for start in wanted]

    def arena_id(self, starts_wall: float) -> str:
        slug = _SLUG.sub("-", self.name.lower()).strip("-")[:40] or "arena"
        return f"{slug}-{time.strftime('%Y%m%dT%H%MZ', time.gmtime(starts_wall))}"


def arena_plans(text: str) -> list[ArenaPlan]:
    """The plans of ``--arenas`` (see the module docstring); ValueError says what is wrong."""
    return [_plan(part) for part in text.split(";") if part.strip()]


def _plan(text: str) -> ArenaPlan:
    fields: dict[str, str] = {}
    for word in shlex.split(text):
        key, equals, value = word.partition("=")
        if not equals or not key:
            raise ValueError(f"{word!r} is not key=value")
        fields[key] = value
    every = _whole(fields.pop("every", ""), "every", _EVERY)
    minutes = _whole(fields.pop("minutes", str(every)), "minutes", ARENA_MINUTES)
    name = fields.pop("name", "Arena")
    if not NAME_LENGTH[0] <= len(name) <= NAME_LENGTH[1] or not name.isprintable():
        raise ValueError(f"name must be 1 to {NAME_LENGTH[1]} printable characters")
    try:
        rules = Rules.model_validate({key: _value(value) for key, value in fields.items()})
    except ValidationError as exc:
        raise ValueError(f"rules: {exc.errors()[0]['msg']}") from None
    unknown = set(fields) - set(Rules.model_fields)
    if unknown:
        raise ValueError(f"unknown key {sorted(unknown)[0]!r}")
    return ArenaPlan(name, every, minutes, rules)


def _whole(text: str, key: str, bounds: tuple[int, int]) -> int:
    if not text.isascii() or not text.isdigit() or not bounds[0] <= int(text) <= bounds[1]:
        raise ValueError(f"{key} must be a whole number of minutes from {bounds[0]} to {bounds[1]}")
    return int(text)


def _value(text: str) -> object:
    """A rule's value: JSON where it parses (``true``, ``300``), else the word itself."""
    try:
        return json.loads(text)
    except ValueError:
        return text


class ArenaSchedule:
    """Makes the arenas of ``plans`` on time, through ``keeper``, while the server runs."""

    def __init__(self, keeper: ArenaKeeper, plans: list[ArenaPlan]) -> None:
        self._keeper, self._plans = keeper, plans
        self._making = Loop("arena schedule", self._round, first=0.0)

    def start(self) -> None:
        if self._plans:
            self._making.start()

    async def close(self) -> None:
        await self._making.stop()

    async def make_due(self, wall: float) -> float:
        """Make the arenas due at ``wall`` (those made already are left as they are); when
        to look again: the next slot's start, or in :data:`_AGAIN` seconds if sooner (an
        arena not made for a passing fault is made then)."""
        for plan in self._plans:
            for arena_id, starts in plan.slots(wall):
                ends = starts + plan.minutes * 60.0
                await self._keeper.create(arena_id, plan.name, plan.rules, starts, ends)
        return min(wall + _AGAIN, *(plan.slots(wall)[-1][1] for plan in self._plans))

    async def _round(self) -> float:
        """Make the arenas due; seconds to the next round: the next slot's start, a little
        after (a clock's time, not an event: the wall clock is what the plans count in)."""
        try:
            next_slot = await self.make_due(time.time())
        except StoreError as exc:  # the store is away: try again soon
            log.warning("arena schedule: %s", exc)
            next_slot = time.time() + _AGAIN
        return max(0.0, next_slot - time.time()) + 0.5
