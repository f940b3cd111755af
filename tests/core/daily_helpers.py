"""Helpers for the daily deal's and the ghost's tests: a day, a line on its deal, a lobby."""

from __future__ import annotations

import itertools
import random
from typing import TYPE_CHECKING

import engine
from core.daily import DailyDeal, DailyPlace
from core.ghost import Ghost, LineMove
from core.lobby import Lobby
from protocol import Daily, GameOver, GameStart, Play

from .helpers import GRACE, IDLE, messages

if TYPE_CHECKING:
    from core.events import Output
    from core.race import Race

DAY, NEXT_DAY = "2025-06-01", "2025-06-02"
SEED, NEXT_SEED = bytes(range(32)), bytes(range(1, 33))


def layout_plays(seed: bytes) -> list[engine.Card]:
    """Every card of the day's layout, in an order that clears it."""
    board = engine.Board(engine.SeedDealer(seed).layout(True), 0)
    return engine.greedy_plays(board)


def line_of(seed: bytes, first_ms: int = 1000, every_ms: int = 700) -> tuple[LineMove, ...]:
    """A clear of the day's deal: its first card at ``first_ms``, one every ``every_ms``."""
    plays = layout_plays(seed)
    return tuple(LineMove(str(card), first_ms + every_ms * k) for k, card in enumerate(plays))


def new_lobby(deal: DailyDeal | None = None, players: tuple[str, ...] = ("ann", "bob")) -> Lobby:
    """A lobby told the day, with these players online (names their ids, titled)."""
    lobby = Lobby(rng=random.Random(3), idle_limit=IDLE, grace=GRACE)
    if deal is not None:
        lobby.daily_deal(deal)
    for player in players:
        lobby.connect(player, player.title(), 0.0)
    return lobby


def deal_with_ghost(name: str = "Cat", **line: int) -> DailyDeal:
    """The day with ``name``'s clear as its best (and only ranked race so far)."""
    ghost = Ghost(name, line_of(SEED, **line))
    assert ghost.time_ms is not None
    return DailyDeal(DAY, SEED, ghost, (DailyPlace("g0", name, ghost.time_ms, 52),))


def start_of(out: list[Output]) -> GameStart:
    return next(m for m in messages(out) if isinstance(m, GameStart))


def over_of(out: list[Output]) -> GameOver:
    return next(m for m in messages(out) if isinstance(m, GameOver))


def race_daily(lobby: Lobby, player: str, now: float, *, ghost: bool = True) -> Race:
    """``player`` starts a daily race at ``now``: the race."""
    race = lobby.race(start_of(lobby.handle(player, Daily(ghost=ghost), now)).game_id)
    assert race is not None
    return race


def play_cards(lobby: Lobby, player: str, cards: int, now: float) -> list[Output]:
    """``player`` plays their next ``cards`` cards (in greedy order), all at ``now``."""
    race = lobby.race_of(player)
    assert race is not None
    board = race.boards()[race.seat_of(player)]
    out: list[Output] = []
    for card in engine.greedy_plays(board)[:cards]:
        out += lobby.handle(player, Play(card=str(card)), now)
    return out


def clear_at(
    lobby: Lobby, player: str, every: float, start: float, *, regular: bool = False
) -> list[Output]:
    """``player`` plays every card, about one each ``every`` seconds from ``start`` (the
    gaps alternately 0.8 and 1.2 times ``every``, as a hand's vary; exactly ``every`` when
    ``regular``, as a program's are), the race's other deadlines applied as they fall,
    until the race is over."""
    race = lobby.race_of(player)
    assert race is not None
    out: list[Output] = []
    now = start
    for k in itertools.count():
        if race.over is not None:
            break
        gap = every if regular else every * (0.8 if k % 2 == 0 else 1.2)
        while race.over is None and (due := race.next_deadline()) is not None and due <= now + gap:
            out += lobby.tick(race.game_id, due)
        if race.over is None:
            now += gap
            out += play_cards(lobby, player, 1, now)
    return out
