"""Helpers for the arenas' tests: a scheduled arena, a lobby, and reading what it says."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from core.arena_state import ScheduledArena
from core.arenas import ARENA_TIMER
from core.events import ArenaChanged, Send
from core.lobby import Lobby
from protocol import Arena, GameOver, GameStart, JoinArena, Rules

from .helpers import GRACE, IDLE

if TYPE_CHECKING:
    from core.arena_state import Entrant
    from core.events import Output
    from core.race import Race

SPEED = Rules(deal="mirror", winnable_only=True)
KEY = ARENA_TIMER + "a1"


def spec(starts: float = 10.0, ends: float = 100.0, rules: Rules = SPEED) -> ScheduledArena:
    return ScheduledArena(
        "a1", "Evening", rules, starts, ends, "2025-06-01T18:00:00Z", "2025-06-01T18:01:30Z"
    )


def new_lobby(*players: str, arena: ScheduledArena | None = None) -> Lobby:
    """A lobby with these players online (ids; names titled) and the arena scheduled at 0."""
    lobby = Lobby(rng=random.Random(11), idle_limit=IDLE, grace=GRACE)
    for player in players:
        lobby.connect(player, player.title(), 0.0)
    lobby.schedule_arena(arena or spec(), 0.0)
    return lobby


def join(lobby: Lobby, *players: str, now: float = 0.0) -> list[Output]:
    out: list[Output] = []
    for player in players:
        out += lobby.handle(player, JoinArena(arena_id="a1"), now)
    return out


def sent(out: list[Output]) -> list[tuple[tuple[str, ...], object]]:
    return [(o.to, o.message) for o in out if isinstance(o, Send)]


def starts(out: list[Output]) -> list[tuple[str, str]]:
    """Each race started, as its two players' names (seat 0 first)."""
    return [
        (m.players[0], m.players[1])
        for to, m in sent(out)
        if isinstance(m, GameStart) and m.seat == 0
    ]


def overs(out: list[Output]) -> list[GameOver]:
    seen: dict[str, GameOver] = {}
    for _, m in sent(out):
        if isinstance(m, GameOver):
            seen[m.game_id] = m
    return list(seen.values())


def pushes(out: list[Output], player: str) -> list[Arena]:
    """The ``arena`` messages ``player`` got."""
    return [m for to, m in sent(out) if isinstance(m, Arena) and to == (player,)]


def entrants(out: list[Output]) -> dict[str, Entrant]:
    """Each player's row as the last :class:`ArenaChanged` among ``out`` gave it."""
    rows: dict[str, Entrant] = {}
    for o in out:
        if isinstance(o, ArenaChanged):
            rows.update({e.player_id: e for e in o.entrants})
    return rows


def racing(lobby: Lobby, player: str) -> Race:
    race = lobby.race_of(player)
    assert race is not None, f"{player} is not racing"
    return race


def opponent(lobby: Lobby, player: str) -> str:
    race = racing(lobby, player)
    return race.player_ids[1 - race.seat_of(player)]
