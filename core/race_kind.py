"""What kind of race a race is: a plain one, a daily race (with its ghost, if any), an arena's.

A race carries its kind from its start to its record, so that every worker
that holds it, a restored one included, announces and ends it as what it is:
``game_start.daily``, ``ghost`` and ``arena_id`` come from it, and the desks
that end it (:mod:`core.daily`, :mod:`core.arenas`) read it when it is over.
It is part of what the journal keeps of a live race
(:attr:`~core.race_log.RaceStart.kind`, one JSON text: :meth:`RaceKind.to_json`)
and of its record (:attr:`~core.race_log.FinishedRace.kind`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .ghost import Ghost

__all__ = ["PLAIN", "RaceKind"]


@dataclass(frozen=True, slots=True)
class RaceKind:
    """A race's kind; every field empty for a plain race (:data:`PLAIN`)."""

    daily: str | None = None
    """The day (``YYYY-MM-DD``) of the daily deal the race is on; fixed when it starts,
    so a race started before midnight counts for its own day."""
    ranked: bool = False
    """A daily race that counts on its day's board: its player's first that day."""
    ghost: Ghost | None = None
    """The clear seat 1 replays, in a daily race against a ghost."""
    arena_id: str | None = None
    """The arena that paired the race."""

    @property
    def plain(self) -> bool:
        return self == PLAIN

    def to_json(self) -> str:
        """The kind as the store keeps it: one JSON object, empty fields left out."""
        fields: dict[str, object] = {}
        if self.daily is not None:
            fields["daily"], fields["ranked"] = self.daily, self.ranked
        if self.ghost is not None:
            fields["ghost"] = self.ghost.to_json()
        if self.arena_id is not None:
            fields["arena_id"] = self.arena_id
        return json.dumps(fields, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | None) -> RaceKind:
        """The kind :meth:`to_json` wrote (None or ``""``: a plain race); ``ValueError``
        if ``text`` is not one."""
        if not text:
            return PLAIN
        fields = json.loads(text)
        if not isinstance(fields, dict):
            raise ValueError(f"not a race's kind: {text[:80]!r}")
        daily, arena_id = fields.get("daily"), fields.get("arena_id")
        if not (daily is None or isinstance(daily, str)) or not (
            arena_id is None or isinstance(arena_id, str)
        ):
            raise ValueError(f"not a race's kind: {text[:80]!r}")
        ghost = fields.get("ghost")
        return cls(
            daily=daily,
            ranked=fields.get("ranked") is True,
            ghost=None if ghost is None else Ghost.from_json(ghost),
            arena_id=arena_id,
        )


PLAIN = RaceKind()
"""The kind of every race that is neither daily nor an arena's."""
