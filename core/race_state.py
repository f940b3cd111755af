"""What a race is at one moment: its seats, rules, seeds, time and audience, to read.

:class:`RaceState` holds a race's data and answers questions about it; the
race core (:class:`core.race.Race`, its subclass) is the only code that
changes it, through its inputs. The views of a race (:mod:`core.race_views`)
and the lobby read it here.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import engine
from protocol import wire_status

from .events import Audience
from .race_kind import PLAIN
from .race_views import game_state
from .seat import Seat, SeatInfo, earliest
from .seeding import wire

if TYPE_CHECKING:
    from protocol import BoardStatus, GameOver, GameState, Rules, Unrated

    from .bot_policy import SeatPolicy
    from .fair_play import Evidence
    from .glicko2 import Glicko
    from .race_kind import RaceKind
    from .seeding import Dealers

__all__ = ["RaceState"]


class RaceState:
    """What a race is at one moment; :class:`~core.race.Race` changes it."""

    # Over 40 lines because it declares every attribute once, each with what it
    # means; the only work in it is dealing the seats.
    def __init__(
        self,
        game_id: str,
        seats: tuple[SeatInfo, SeatInfo],
        rules: Rules,
        dealers: Dealers,
        *,
        idle_limit: float | None,
        grace: float,
        ratings: tuple[Glicko, Glicko] | None = None,
        bots: tuple[SeatPolicy | None, SeatPolicy | None] = (None, None),
        kind: RaceKind = PLAIN,
    ) -> None:
        """``dealers``: each seat's, which deals its layout and its redeal.

        ``idle_limit`` None: no idle limit (practice, where nobody waits).
        ``ratings``: the players' before a rated race (None: unrated).
        ``bots``: the policy of each seat a bot or a ghost sits in; the race plays for it.
        ``kind``: a daily race or an arena's (:mod:`core.race_kind`).
        """
        self.game_id = game_id
        self.kind = kind
        self.rules = rules
        self.rules_json = json.dumps(rules.model_dump(mode="json"), sort_keys=True)
        """The rules as the store keeps them, for the race's start and its record."""
        self.dealers = dealers
        self.idle_limit = idle_limit
        self.grace = grace
        self.seq = 0
        self.started = 0.0
        self._last_at = 0.0
        """Seconds into the race of its last event: no event's time goes back along ``seq``."""
        self.ended: float | None = None
        self.over: GameOver | None = None
        self.ratings = ratings
        self.ratings_after: tuple[Glicko, Glicko] | None = None
        """The players' new ratings, once a rated race has ended."""
        self.fair_play: tuple[Evidence | None, Evidence | None] = (None, None)
        """Each seat's timing judged, once the race has ended; None for a bot's seat."""
        self.unrated: Unrated | None = None
        """Why a race with rated rules changed no rating, once over (:mod:`core.fair_play`)."""
        self.shown_ratings = [None, None] if ratings is None else [g.shown for g in ratings]
        """The ratings ``game_start`` and ``game_state`` show: whole numbers, or None."""
        winnable = rules.winnable_only
        # A mirror race deals one layout (immutable) for both seats: half the
        # work of starting it, which comes in bursts when many races end at once.
        layouts = {dealer: dealer.layout(winnable) for dealer in set(dealers)}
        self._seats = [
            Seat(info, board, dealer, wire_status(board.status))
            for info, dealer, board in (
                (info, dealer, engine.Board(layouts[dealer], rules.redeals))
                for info, dealer in zip(seats, dealers, strict=True)
            )
        ]
        self.seeds, self.commits = wire(dealers)
        for seat, bot in zip(self._seats, bots, strict=True):
            seat.bot = bot
        # The server's bots and declared ones alike are labelled bots.
        self._bots = [bot is not None or info.bot for bot, info in zip(bots, seats, strict=True)]
        self._clock: float | None = None
        self.paused_at: float | None = None
        """While its worker is not sure it still owns it: since when (see :meth:`Race.pause`)."""
        self._players = tuple(seat.info.player_id for seat in self._seats)
        self._audience = Audience(self._players)
        """Who hears the race's events: its players, then its spectators."""

    # -- reading ---------------------------------------------------------------

    @property
    def player_ids(self) -> tuple[str, ...]:
        return self._players

    @property
    def seats(self) -> tuple[Seat, Seat]:
        """Both seats, to read (the race alone changes them)."""
        return self._seats[0], self._seats[1]

    @property
    def watchers(self) -> frozenset[str]:
        """The race's spectators."""
        return self._audience.watchers

    @property
    def names(self) -> list[str]:
        return [seat.info.name for seat in self._seats]

    @property
    def counts(self) -> list[int]:
        return [seat.board.count for seat in self._seats]

    def seat_of(self, player_id: str) -> int:
        """The seat of ``player_id``; raises ``ValueError`` if they are not in this race."""
        return self._players.index(player_id)

    def status_of(self, seat: int) -> BoardStatus:
        return self._seats[seat].status

    def boards(self) -> list[engine.Board]:
        return [seat.board for seat in self._seats]

    def state(self, seat: int | None, now: float) -> GameState:
        """The whole race at ``now`` for a player (``seat``) or a spectator (None)."""
        return game_state(self, seat, now)

    @property
    def bots(self) -> list[bool]:
        """Which seats a bot sits in."""
        return list(self._bots)

    def next_deadline(self) -> float | None:
        """The earliest time at which :meth:`tick` has something to do, or None."""
        if self.over is not None or self.paused_at is not None:
            return None
        return earliest(self._seats, self._clock)
