"""The daily deal desk of the lobby: ``daily``, the day's board as this lobby knows it, and
each race's place on it.

Each UTC day has one deal (PROTOCOL.md, "The daily deal"): a winnable layout
from the day's seed, mirror, ``tiebreak: first``, unrated (:data:`DAILY_RULES`).
The core has no calendar: the glue tells the desk the day it is
(:class:`DailyDeal`: the date, the seed, the day's best clear so far as a
:class:`~core.ghost.Ghost`, the board as the store has it) when it starts, at
00:00 UTC, and whenever the best or the board changes elsewhere.

``daily`` starts a race at once: the player in seat 0; in seat 1 the day's
best clear, replayed by a ghost, or, before anyone has cleared the deal or with
``ghost: false``, the level-:data:`DAILY_BOT_LEVEL` bot. A player's first daily
race of the day is *ranked*; the lobby is told at ``connect`` on which day the
player last raced it (``LobbyPlayer.last_daily``), and the desk marks the day
when a daily race starts. A race keeps its day (:class:`~core.race_kind.RaceKind`),
so a race started before midnight counts for its own day, ranked against that
day's board, which the desk keeps until the next day ends.

When a daily race ends, :meth:`DailyDesk.race_over` gives its
``game_over.daily``: a ranked race enters the board (by time to clear, then by
count: :func:`board_key`) and says its place; a ranked clear faster than the
day's best, not flagged by the fair-play rules, is the new ghost at once. The
store keeps the board from the races' records (:attr:`~core.race_log.FinishedRace.kind`).
A ghost or a bot never enters the board: a declared bot's races are never ranked.
"""

from __future__ import annotations

import bisect
import datetime
from dataclasses import dataclass
from typing import TYPE_CHECKING

import engine
from protocol import DailyInfo, DailyResult, Rules

from .bots import BOT_NAMES, bot_id, bot_of
from .events import Refused
from .ghost import GHOST_ID, GHOST_NAME, Ghost, GhostPolicy
from .race_kind import RaceKind
from .seat import SeatInfo

if TYPE_CHECKING:
    import random

    from .bot_policy import SeatPolicy
    from .events import Output
    from .lobby_player import LobbyHost, LobbyPlayer
    from .race import Race

__all__ = ["DAILY_BOT_LEVEL", "DAILY_RULES", "DailyDeal", "DailyDesk", "DailyPlace", "board_key"]

DAILY_RULES = Rules(deal="mirror", winnable_only=True, tiebreak="first")
"""The rules of every daily race: speed alone decides, and it is never rated."""
DAILY_BOT_LEVEL = 3
"""The bot a daily race is raced against before anyone cleared the day's deal."""


@dataclass(frozen=True, slots=True)
class DailyPlace:
    """One ranked daily race on its day's board."""

    game_id: str
    name: str
    time_ms: int | None
    """The time to clear; None if the player did not clear."""
    count: int


@dataclass(frozen=True, slots=True)
class DailyDeal:
    """The day it is, as the glue tells the lobby (see the module docstring)."""

    date: str
    """The UTC day, ``YYYY-MM-DD``."""
    seed: bytes
    """The day's 32-byte seed (``GET /api/daily`` shows its commit)."""
    best: Ghost | None = None
    """The day's best clear so far, its player's name and line; None before anyone cleared."""
    board: tuple[DailyPlace, ...] = ()
    """The day's ranked races as the store has them, in any order."""

    def __post_init__(self) -> None:
        if datetime.date.fromisoformat(self.date).isoformat() != self.date:  # ValueError too
            raise ValueError(f"a day is YYYY-MM-DD, not {self.date!r}")
        if len(self.seed) != engine.SEED_SIZE:
            raise ValueError(f"a day's seed is {engine.SEED_SIZE} bytes, not {len(self.seed)}")


def board_key(time_ms: int | None, count: int) -> tuple[int, int]:
    """How a race ranks on its day's board, lower first: every clear by its time, then
    every other race by its count, more first."""
    return (0, time_ms) if time_ms is not None else (1, -count)


class _Board:
    """One day's ranked races, kept in order of :func:`board_key`."""

    def __init__(self, places: tuple[DailyPlace, ...]) -> None:
        self.keys = sorted(board_key(place.time_ms, place.count) for place in places)
        self.games = {place.game_id for place in places}
        self.names = {place.name.casefold() for place in places}
        """Who is on it: a player already there (ranked on another worker, the store
        says) is not ranked again here, whatever this lobby's mark says."""

    def add(self, place: DailyPlace) -> int:
        """``place`` enters the board (once): its rank, shared with any equal to it."""
        key = board_key(place.time_ms, place.count)
        if place.game_id not in self.games:
            self.games.add(place.game_id)
            self.names.add(place.name.casefold())
            bisect.insort(self.keys, key)
        return bisect.bisect_left(self.keys, key) + 1


class DailyDesk:
    """The day's deal, its board and its best clear, as this lobby knows them."""

    def __init__(self, host: LobbyHost, rng: random.Random) -> None:
        self._host, self._rng = host, rng
        self._deal: DailyDeal | None = None
        self._boards: dict[str, _Board] = {}
        """Today's board, and yesterday's for the races started before midnight."""
        self._best: Ghost | None = None

    def set(self, deal: DailyDeal) -> None:
        """The day it is now: a new day, or a new best or board for today."""
        kept = {day: board for day, board in self._boards.items() if day >= _yesterday(deal.date)}
        self._boards = {**kept, deal.date: _Board(deal.board)}
        self._deal, self._best = deal, deal.best

    def info(self) -> DailyInfo | None:
        """``lobby.daily``: today's date, how many raced it, its best time."""
        if self._deal is None:
            return None
        board = self._boards[self._deal.date]
        times = [key[1] for key in board.keys[:1] if key[0] == 0]
        if self._best is not None and self._best.time_ms is not None:
            times.append(self._best.time_ms)
        return DailyInfo(
            date=self._deal.date, players=len(board.keys), best_ms=min(times, default=None)
        )

    def check(self) -> None:
        """Raise ``unavailable`` while the lobby has not been told the day."""
        if self._deal is None:
            raise Refused("unavailable", "the daily deal is not ready yet; try again soon")

    def race(self, player: LobbyPlayer, ghost: bool, now: float) -> list[Output]:
        """``player``, free (the lobby checks), races today's deal: against its best clear
        if ``ghost`` and there is one, else against the bot."""
        self.check()
        deal = self._deal
        assert deal is not None
        best = self._best if ghost else None
        on_board = player.name.casefold() in self._boards[deal.date].names
        ranked = not player.bot and player.last_daily != deal.date and not on_board
        player.last_daily = deal.date
        kind = RaceKind(daily=deal.date, ranked=ranked, ghost=best)
        dealer = engine.SeedDealer(deal.seed)
        seat: tuple[SeatInfo, SeatPolicy | None]
        if best is None:
            level = bot_id(DAILY_BOT_LEVEL)
            seat = (SeatInfo(level, BOT_NAMES[DAILY_BOT_LEVEL]), bot_of(level, self._rng))
        else:
            seat = (SeatInfo(GHOST_ID, GHOST_NAME), GhostPolicy(best.line))
        _race, started = self._host.start(
            player, None, DAILY_RULES, now, bot=seat, dealers=(dealer, dealer), kind=kind
        )
        return started

    def race_over(self, race: Race) -> DailyResult | None:
        """The ``game_over.daily`` of a race that has just ended; None if not a daily race.

        A ranked race enters its day's board, and a ranked clear faster than
        the day's best, not flagged, is the day's ghost from now on.
        """
        kind, over = race.kind, race.over
        if kind.daily is None or over is None:
            return None
        player = race.seats[0]
        time_ms = player.last_card_ms() if player.status == "cleared" else None
        board = self._boards.get(kind.daily)
        if not kind.ranked or board is None or over.reason == "aborted":
            return DailyResult(date=kind.daily, ranked=kind.ranked, rank=None, time_ms=time_ms)
        place = DailyPlace(race.game_id, player.info.name, time_ms, player.board.count)
        rank = board.add(place)
        self._maybe_best(race, kind.daily, time_ms)
        return DailyResult(date=kind.daily, ranked=True, rank=rank, time_ms=time_ms)

    def _maybe_best(self, race: Race, day: str, time_ms: int | None) -> None:
        """Seat 0's clear of ``day`` in ``race`` is the ghost now, if it is today's best."""
        flagged = race.fair_play[0] is not None and race.fair_play[0].flagged
        if time_ms is None or flagged or self._deal is None or day != self._deal.date:
            return
        best = None if self._best is None else self._best.time_ms
        if best is None or time_ms < best:
            player = race.seats[0]
            self._best = Ghost.of_moves(player.info.name, player.moves, 0)


def _yesterday(day: str) -> str:
    return (datetime.date.fromisoformat(day) - datetime.timedelta(days=1)).isoformat()
