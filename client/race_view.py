"""One race as this client sees it: boards, statuses, time, and how it ended.

Plain data, changed only by :class:`~client.state.ClientState`; the screens
read it. Times are of two kinds: monotonic ``now`` values of this client
(``started_at``, the deadlines), and the server's milliseconds from the race's
start (``t_ms``), kept as the server said them (``reached``, the outcome's
``times_ms``), so that the result shows the server's times, not this client's
view of them through the network.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import engine
from core.bots import NAME_PREFIX
from lang import t
from protocol import RACING, GameStart, OpponentAway, OpponentBack, Rules

from .keys import assign_labels

if TYPE_CHECKING:
    from collections.abc import Sequence

    from protocol import (
        ArenaResult,
        BoardStatus,
        BotRequest,
        DailyResult,
        GameOver,
        GameState,
        Played,
        RatingChange,
        RematchOffered,
        WireBoard,
    )

    from .bests import Best, PracticeBest
    from .dealcheck import DealCheck

__all__ = ["Outcome", "RaceView", "ReportState", "Waiting"]

ReportState = Literal["open", "sent", "done", "twice", "limit", "gone"]
"""Where this player's report of a finished race stands: not made (``open``), asked, or
answered: ``reported`` (``done``), or refused as ``not_allowed`` (``twice``),
``rate_limited`` (``limit``) or ``game_not_found`` (``gone``)."""
_REPORT_REFUSED: dict[str, ReportState] = {
    "not_allowed": "twice",
    "rate_limited": "limit",
    "game_not_found": "gone",
}


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a race ended: ``game_over``, or the end of a practice game (``winner`` None)."""

    result: Literal["win", "draw", "solo"]
    winner: int | None
    reason: str
    counts: tuple[int, ...]
    times_ms: tuple[int | None, ...] = ()
    """Each seat's ``t_ms`` of its last card (None: it played none); empty when unknown."""
    seeds: tuple[str, ...] = ()
    timed_out: tuple[bool, ...] = ()
    """Each seat's board ended ``timed_out``: by the idle limit, or the clock (reason ``time``)."""
    ratings: tuple[RatingChange, ...] = ()
    unrated: str | None = None
    """Why a race with rated rules changed no rating (``no_play``, ``fair_play``), or None."""
    daily: DailyResult | None = None
    """A daily race: whether it was ranked, its rank and time."""
    arena: ArenaResult | None = None
    """An arena race: each seat's points."""

    @classmethod
    def of(cls, over: GameOver, statuses: Sequence[BoardStatus] = ()) -> Outcome:
        return cls(
            over.result,
            over.winner,
            over.reason,
            tuple(over.counts),
            tuple(over.times_ms),
            tuple(over.seeds),
            tuple(status == "timed_out" for status in statuses),
            tuple(over.ratings or ()),
            over.unrated,
            over.daily,
            over.arena,
        )


@dataclass(frozen=True, slots=True)
class Waiting:
    """In the lobby, waiting for an opponent: in the quick-match queue, or in one's room."""

    kind: Literal["seeking", "room"]
    rules: Rules
    code: str = ""
    bot: BotRequest | None = None
    """The bot this seek asked for (the server's ``seeking`` does not repeat it)."""
    bot_at: float | None = None
    """When that bot takes the seat if nobody comes: this client's ``now``."""


@dataclass(slots=True)
class RaceView:
    """One race as this client sees it; ``seat`` is None for a spectator."""

    game_id: str
    seat: int | None
    players: list[str]
    rules: Rules
    boards: list[engine.Board]
    statuses: list[BoardStatus]
    seq: int
    labels: dict[engine.Card, str] = field(default_factory=dict)
    """Bouquet labels of the main board (see :mod:`client.keys`)."""
    bots: list[bool] = field(default_factory=list)
    ratings: list[int | None] = field(default_factory=list)
    """Each seat's rating before a rated race (``game_start``); None, or empty, when unrated."""
    provisional: list[bool | None] = field(default_factory=list)
    """Whether each seat's rating is provisional, as far as known (``welcome``, the API)."""
    commits: list[str] = field(default_factory=list)
    """Each seat's seed commit (``game_start``, ``game_state``); empty in practice."""
    dealt: list[WireBoard] | None = None
    """The boards as dealt, from ``game_start``; None when this client never saw them."""
    started_at: float = 0.0
    """This client's ``now`` at the race's start (from ``elapsed_ms`` when joined later)."""
    stopped_after: float | None = None
    """Seconds of racing when the race ended: the stopwatch stands still there."""
    held: tuple[float, float | None] | None = None
    """While the line to the server is down: the stopwatch and the clock's time left when it
    went down. They stand still there (this client cannot know the server's time) until
    ``game_state`` gives the race again, with the server's ``elapsed_ms``."""
    clock_deadline: float | None = None
    idle_s: float | None = None
    """The server's idle limit (``welcome.limits``); None in practice."""
    idle_deadline: float | None = None
    """When one's own idle limit runs out, if nothing is played or redealt before."""
    reached: list[dict[int, int]] = field(default_factory=list)
    """For each seat, the ``t_ms`` at which it reached each count, as far as seen."""
    away_until: float | None = None
    over: Outcome | None = None
    deal_check: DealCheck | None = None
    best: PracticeBest | None = None
    target: Best | None = None
    """In practice: the personal best for these rules when the deal began, the time to beat."""
    rematch_offered: bool = False
    rematch_asked: bool = False
    report: ReportState = "open"
    daily: str | None = None
    """The day of the daily deal this race is on (``game_start.daily``), or None."""
    ghost: str | None = None
    """In a daily race, whose clear seat 1 replays; None: the server's bot."""
    arena_id: str | None = None
    """The arena that paired this race, or None."""
    resyncing: bool = False
    sent: list[engine.Card] = field(default_factory=list)
    """Cards this client played that no ``played`` has acknowledged yet, in order."""

    @property
    def main(self) -> int:
        """The seat drawn large: one's own, or seat 0 for a spectator."""
        return 0 if self.seat is None else self.seat

    @property
    def other(self) -> int | None:
        """The seat drawn small; None in practice, where there is one board."""
        return None if len(self.boards) == 1 else 1 - self.main

    @property
    def board(self) -> engine.Board:
        return self.boards[self.main]

    @property
    def racing(self) -> bool:
        """Whether this client plays in this race and its count is not final yet."""
        return self.seat is not None and self.over is None and self.statuses[self.seat] in RACING

    @property
    def can_play(self) -> bool:
        """Whether this client may play or redeal now."""
        return self.racing and not self.resyncing

    @property
    def reportable(self) -> bool:
        """Whether this player may still report this race: one they raced, now over, against
        no bot of the server's (whose play is the server's own) and no ghost (a daily race's
        seat 1 replays a clear the server took), not reported yet."""
        if self.seat is None or self.other is None or self.over is None or self.daily:
            return False
        server_bot = any(
            bot and name.startswith(NAME_PREFIX)
            for name, bot in zip(self.players, self.bots, strict=False)
        )
        return not server_bot and self.report == "open"

    def report_refused(self, code: str) -> bool:
        """The server refused this race's report with ``code``: True if that settles it (the
        result says so); False if it may be asked again (``unavailable``: said as an error)."""
        if self.report != "sent":
            return False
        self.report = _REPORT_REFUSED.get(code, "open")
        return self.report != "open"

    def why_not_playing(self) -> str:
        """Why this client may not play now (when :attr:`can_play` is False)."""
        if self.seat is None:
            return t("tui.race.watching_only")
        if self.over is not None:
            return t("error.game_over")
        if self.resyncing:
            return t("tui.race.catching_up")
        return t("tui.race.final", status=t(f"status.{self.statuses[self.seat]}"))

    # -- time ------------------------------------------------------------------

    def elapsed(self, now: float) -> float:
        """Seconds of racing at ``now``; frozen once the race is over, held while the line
        is down."""
        if self.stopped_after is not None:
            return self.stopped_after
        if self.held is not None:
            return self.held[0]
        return max(0.0, now - self.started_at)

    def clock_left(self, now: float) -> float | None:
        """Seconds left on the race's clock at ``now`` (None: no clock); held with the line."""
        if self.held is not None:
            return self.held[1]
        return None if self.clock_deadline is None else self.clock_deadline - now

    def hold(self, now: float) -> None:
        """The line to the server went down: hold the stopwatch and the clock where they are."""
        if self.held is None and self.over is None and self.other is not None:
            self.held = (self.elapsed(now), self.clock_left(now))

    def stop(self, now: float) -> None:
        """The race ended: stop the stopwatch (at the last card, when that is known)."""
        if self.stopped_after is None:
            self.stopped_after = self.elapsed(now)

    def opponent_news(
        self, message: OpponentAway | OpponentBack | RematchOffered, now: float
    ) -> None:
        """The opponent dropped (and has ``grace_s`` to come back), came back, or asks for a
        rematch."""
        if isinstance(message, OpponentAway):
            self.away_until = now + message.grace_s
        elif isinstance(message, OpponentBack):
            self.away_until = None
        else:
            self.rematch_offered = True

    def set_kind(self, message: GameStart | GameState, old: RaceView | None) -> None:
        """Daily, arena or neither: ``game_start`` says; ``game_state`` does not, so a race
        resumed keeps what its start said (``game_over`` says the rest)."""
        if isinstance(message, GameStart):
            self.daily, self.ghost, self.arena_id = message.daily, message.ghost, message.arena_id
        elif old is not None and old.game_id == self.game_id:
            self.daily, self.ghost, self.arena_id = old.daily, old.ghost, old.arena_id

    def set_clocks(self, message: GameStart | GameState, now: float) -> None:
        """The stopwatch, the race's clock and one's idle limit, at a start or a (re)join."""
        if isinstance(message, GameStart):
            self.dealt = list(message.boards)
            self.started_at = now
            limit = message.rules.time_limit_s
            self.clock_deadline = None if limit is None else now + limit
        else:
            if message.seq == 0 and self.dealt is None:
                self.dealt = list(message.boards)  # nothing has happened yet: as dealt
            self.started_at = now - message.elapsed_ms / 1000
            left = message.clock_left_ms
            self.clock_deadline = None if left is None else now + left / 1000
        self.restart_idle(now)  # the deal, or coming back

    def restart_idle(self, now: float) -> None:
        """The idle limit starts again: at the deal, an own play or redeal, coming back."""
        if self.idle_s and self.seat is not None:  # 0 or None: no idle limit
            self.idle_deadline = now + self.idle_s

    def idle_left(self, now: float) -> float | None:
        """Seconds to one's own idle limit, while it runs (one's count not final); else None."""
        if self.idle_deadline is None or not self.racing or self.held is not None:
            return None  # nothing can be played while the line is down
        return self.idle_deadline - now

    def record_play(self, seat: int, count: int, t_ms: int) -> None:
        """Seat ``seat`` reached ``count`` cards at ``t_ms`` (a practice's time at its end)."""
        while len(self.reached) <= seat:
            self.reached.append({})
        self.reached[seat][count] = t_ms

    def apply_played(self, message: Played) -> bool:
        """Make the play ``played`` announces; False if it does not fit this copy."""
        board = self.boards[message.seat]
        card = engine.Card.parse(message.card)
        try:
            board.play(card)
        except engine.EngineError:
            return False
        if board.count != message.count:
            return False
        self.record_play(message.seat, message.count, message.t_ms)
        if message.seat == self.seat and card in self.sent:
            self.sent.remove(card)
        return True

    # -- keys ------------------------------------------------------------------

    def projected(self) -> engine.Board:
        """The main board with the unacknowledged plays made: what the next key acts on.

        Without it a racer who types faster than the round trip would be told
        that the 2 must wait for the Ace they played a moment ago.
        """
        if not self.sent:
            return self.board
        board = self.board.copy()
        for card in self.sent:
            if board.is_legal(card):
                board.play(card)
        return board

    def rating(self, seat: int) -> tuple[int | None, bool | None]:
        """The seat's rating before the race and whether it is provisional (None: not known)."""
        rating = self.ratings[seat] if seat < len(self.ratings) else None
        provisional = self.provisional[seat] if seat < len(self.provisional) else None
        return rating, provisional

    def relabel(self) -> None:
        self.labels = assign_labels(self.labels, self.board.bouquet)
