"""What a ``lobby`` reply lists, before it is a message: one lobby's, or several workers' merged.

A :class:`Listing` keeps, beside each public room and live race, when it
opened or began, so that the lists can be cut to the newest
:data:`~protocol.LIST_CAP` and still merge right: the newest hundred of
several workers are among the newest hundred of each. One lobby core makes a
listing on its own clock; a worker moves it onto the wall clock
(:meth:`Listing.shifted`) before it publishes it for the others
(:mod:`server.cluster.shared`), and a ``lobby`` anywhere merges every worker's
(:func:`merge`). The totals and the seeks per rule set are sums. The arenas
are each listed once, as the worker that holds it (the most players) has it;
the daily deal is the newest day's, with the most players any worker counts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from protocol import (
    LIST_CAP,
    ArenaInfo,
    DailyInfo,
    GameInfo,
    LobbySnapshot,
    RoomInfo,
    Rules,
    SeekInfo,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

__all__ = ["Listed", "Listing", "merge"]

T = TypeVar("T", RoomInfo, GameInfo)


@dataclass(frozen=True, slots=True)
class Listed(Generic[T]):
    """A room or a race, and when it opened or began."""

    at: float
    info: T


@dataclass(frozen=True, slots=True)
class Listing:
    """A lobby's counts, its seeks per rule set, and its newest rooms and races."""

    online: int
    seeks: Mapping[Rules, int]
    rooms: Sequence[Listed[RoomInfo]]
    """Newest first, at most :data:`~protocol.LIST_CAP`."""
    rooms_total: int
    games: Sequence[Listed[GameInfo]]
    """Newest first, at most :data:`~protocol.LIST_CAP`."""
    games_total: int
    arenas: Sequence[ArenaInfo] = field(default_factory=list)
    """The upcoming and running arenas, soonest first."""
    daily: DailyInfo | None = None
    """Today's deal; None before the lobby is told the day."""

    def snapshot(self) -> LobbySnapshot:
        """The ``lobby`` reply: seeks most wanted first."""
        seeks = sorted(self.seeks.items(), key=lambda item: -item[1])
        return LobbySnapshot(
            online=self.online,
            seeking=sum(self.seeks.values()),
            seeks=[SeekInfo(rules=rules, count=count) for rules, count in seeks],
            rooms=[room.info for room in self.rooms],
            rooms_total=self.rooms_total,
            games=[game.info for game in self.games],
            games_total=self.games_total,
            arenas=list(self.arenas),
            daily=self.daily,
        )

    def shifted(self, by: float) -> Listing:
        """The same listing with every time moved by ``by`` seconds (onto another clock)."""
        return Listing(
            self.online,
            self.seeks,
            [Listed(room.at + by, room.info) for room in self.rooms],
            self.rooms_total,
            [Listed(game.at + by, game.info) for game in self.games],
            self.games_total,
            self.arenas,
            self.daily,
        )

    def to_json(self) -> str:
        """The listing as a worker publishes it."""
        return json.dumps(
            {
                "online": self.online,
                "seeks": [[rules.model_dump(), count] for rules, count in self.seeks.items()],
                "rooms": [[room.at, room.info.model_dump()] for room in self.rooms],
                "rooms_total": self.rooms_total,
                "games": [[game.at, game.info.model_dump()] for game in self.games],
                "games_total": self.games_total,
                "arenas": [arena.model_dump() for arena in self.arenas],
                "daily": None if self.daily is None else self.daily.model_dump(),
            }
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> Listing:
        """A published listing; ``ValueError`` (pydantic's included) if it is not one."""
        data: dict[str, Any] = json.loads(text)
        return cls(
            online=int(data["online"]),
            seeks={Rules.model_validate(rules): int(count) for rules, count in data["seeks"]},
            rooms=[Listed(float(at), RoomInfo.model_validate(info)) for at, info in data["rooms"]],
            rooms_total=int(data["rooms_total"]),
            games=[Listed(float(at), GameInfo.model_validate(info)) for at, info in data["games"]],
            games_total=int(data["games_total"]),
            arenas=[ArenaInfo.model_validate(arena) for arena in data.get("arenas", [])],
            daily=None if data.get("daily") is None else DailyInfo.model_validate(data["daily"]),
        )


def merge(parts: Iterable[Listing]) -> Listing:
    """Several lobbies' listings as one: sums, and the newest rooms and races of them all."""
    parts = list(parts)
    seeks: dict[Rules, int] = {}
    for part in parts:
        for rules, count in part.seeks.items():
            seeks[rules] = seeks.get(rules, 0) + count
    rooms = sorted((room for part in parts for room in part.rooms), key=lambda r: -r.at)
    games = sorted((game for part in parts for game in part.games), key=lambda g: -g.at)
    arenas: dict[str, ArenaInfo] = {}
    for arena in (arena for part in parts for arena in part.arenas):
        held = arenas.get(arena.arena_id)
        if held is None or arena.players > held.players:
            arenas[arena.arena_id] = arena
    days = [part.daily for part in parts if part.daily is not None]
    return Listing(
        online=sum(part.online for part in parts),
        seeks=seeks,
        rooms=rooms[:LIST_CAP],
        rooms_total=sum(part.rooms_total for part in parts),
        games=games[:LIST_CAP],
        games_total=sum(part.games_total for part in parts),
        arenas=sorted(arenas.values(), key=lambda arena: arena.starts_at),
        daily=max(days, key=lambda day: (day.date, day.players), default=None),
    )
