"""A finished race played again from its record, move by move, on a clock the caller moves.

Theory of operation
-------------------
A record (``GET /api/races/GAME_ID``) holds both boards as dealt and every
move with its seat and ``t_ms``. :class:`Replay` reads it with the engine's own
reading (:func:`engine.record.read_record`: the layouts, each seat's dealer,
the moves in seq order), sets up an :class:`engine.Board` per seat from its
board as dealt, and makes the moves on them as the engine makes them: a card
is played, ``redeal`` deals from that seat's dealer, as the verifier replays.
The boards live in a :class:`~client.race_view.RaceView` (a spectator's:
``seat`` None), so the race screen's drawing shows them unchanged.

Time is the replay's own: ``position(now)`` is the race's time in ms, which
runs ``speed`` times as fast as ``now`` (1, 2, 4 or 8) unless paused, and every
move whose ``t_ms`` it has reached is made. ``now`` always comes from the
caller (the app's clock), never from a sleep, so a test moves it by hand.
Stepping pauses and makes (or takes back: the boards are set up again and
replayed up to the move before) one move, with the stopwatch at that move's
``t_ms``. At the end the replay stands still at the last move's time, and the
whole record is checked once with :func:`engine.verify_record`. A move the
engine refuses (a record that was tampered with) ends the replay there, and
says so; the check then says what failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import engine
from engine.record import MalformedRecord, RaceRecord, RecordedMove, read_record
from lang import t
from protocol import wire_status

from .card_faces import card_name
from .race_view import Outcome, RaceView
from .timing import seconds_text

if TYPE_CHECKING:
    from .apidata import RaceRecordData, RaceSummary

__all__ = ["SPEEDS", "Replay", "ReplayError"]

SPEEDS = (1, 2, 4, 8)


class ReplayError(ValueError):
    """The record does not read: it cannot be replayed (the words say where)."""


@dataclass(slots=True)
class Replay:
    """One race played again; see the module docstring."""

    summary: RaceSummary
    data: RaceRecordData
    record: RaceRecord
    view: RaceView
    index: int = 0
    """How many moves are made."""
    speed: int = 1
    paused: bool = False
    base_ms: float = 0.0
    """The race's time at ``base_now``, from which the replay's time runs."""
    base_now: float = 0.0
    fault: str | None = None
    """Why the move at ``index`` could not be made; None while every move could."""
    verdict: engine.Verdict | None = field(default=None)

    @classmethod
    def of(cls, data: RaceRecordData, now: float) -> Replay:
        """The replay at the race's start, playing at 1x from ``now``; ReplayError if unreadable."""
        try:
            record = read_record(data.record)
        except MalformedRecord as exc:
            raise ReplayError(f"the record does not read: {exc}") from None
        summary = data.summary
        view = RaceView(
            game_id=summary.game_id,
            seat=None,
            players=list(summary.players),
            rules=summary.rules,
            boards=[],
            statuses=[],
            seq=0,
            bots=list(summary.bots),
            ratings=[summary.rating_before(seat) for seat in (0, 1)],
        )
        replay = cls(summary, data, record, view, base_now=now)
        replay._set_up()
        return replay

    @property
    def moves(self) -> tuple[RecordedMove, ...]:
        return self.record.moves

    @property
    def ended(self) -> bool:
        """Every move is made, or one could not be."""
        return self.fault is not None or self.index >= len(self.moves)

    def position(self, now: float) -> float:
        """The race's time, in ms, that the replay shows at ``now``."""
        if self.paused or self.ended:
            return self.base_ms
        return self.base_ms + (now - self.base_now) * 1000 * self.speed

    # -- playing ---------------------------------------------------------------

    def advance(self, now: float) -> None:
        """Make every move the replay's time has reached by ``now``."""
        at = self.position(now)
        while not self.ended and self.moves[self.index].t_ms <= at:
            self._make_next()
        if self.ended:
            self._stand_still()

    def control(self, action: str, now: float) -> None:
        """A key's action: ``pause``, ``step``, ``back``, ``restart``, ``end``, or a speed."""
        if action.isdigit():
            self.set_speed(int(action), now)
            return
        controls = {
            "pause": self.toggle_pause,
            "step": self.step,
            "back": self.back,
            "restart": self.restart,
            "end": self.to_end,
        }
        controls[action](now)

    def toggle_pause(self, now: float) -> None:
        """Pause, or play on from where it stands (from the start again once it has ended)."""
        self.advance(now)
        if self.ended:
            self.restart(now)
            return
        self._rebase(now)
        self.paused = not self.paused

    def set_speed(self, speed: int, now: float) -> None:
        if speed not in SPEEDS:
            raise ValueError(f"a speed is one of {SPEEDS}")
        self.advance(now)
        self._rebase(now)
        self.speed = speed

    def step(self, now: float) -> None:
        """Pause, and make the next move: the stopwatch shows its ``t_ms``."""
        self.advance(now)
        self.paused = True
        if not self.ended:
            self._make_next()
            self.base_ms = self.moves[self.index - 1].t_ms
        if self.ended:
            self._stand_still()

    def back(self, now: float) -> None:
        """Pause, and take back the last move made."""
        self.advance(now)
        self.paused = True
        self._replay_to(max(0, self.index - 1))

    def restart(self, now: float) -> None:
        """From the deal again, playing."""
        self._set_up()
        self.paused = False
        self.base_ms, self.base_now = 0.0, now

    def to_end(self, now: float) -> None:
        """Every move made at once, and the check."""
        while not self.ended:
            self._make_next()
        self._stand_still()

    # -- what to show ----------------------------------------------------------

    def last_move_words(self, *, ascii: bool = False) -> str:
        """``move 12 of 104: bob played 7♣ at 12.3 s``, or where the replay stands."""
        total = len(self.moves)
        if self.fault is not None:
            return t("tui.replay.fault", index=self.index + 1, total=total, fault=str(self.fault))
        if self.index == 0:
            return t("tui.replay.deal", count=total)
        move = self.moves[self.index - 1]
        name, at = self.view.players[move.seat], seconds_text(move.t_ms)
        if move.card is None:
            return t("tui.replay.redealt", index=self.index, total=total, name=name, time=at)
        card = card_name(move.card, ascii=ascii)
        return t("tui.replay.played", index=self.index, total=total, name=name, card=card, time=at)

    def outcome(self) -> Outcome:
        """How the race ended, as its record says (for the words of a result)."""
        summary = self.summary
        return Outcome(
            "win" if summary.result == "win" else "draw",
            summary.winner,
            summary.reason,
            tuple(summary.counts),
            tuple(summary.times_ms),
        )

    # -- the boards ------------------------------------------------------------

    def _set_up(self) -> None:
        """The boards as dealt, no move made."""
        redeals = self.record.rules.redeals
        self.view.boards = [engine.Board(layout, redeals) for layout in self.record.boards]
        self.view.statuses = [wire_status(board.status) for board in self.view.boards]
        self.view.reached = [{}, {}]
        self.view.seq, self.index, self.fault = 0, 0, None

    def _replay_to(self, index: int) -> None:
        """The boards after the first ``index`` moves, the stopwatch at the last one's time."""
        self._set_up()
        while self.index < index and not self.ended:
            self._make_next()
        self.base_ms = self.moves[self.index - 1].t_ms if self.index else 0.0

    def _make_next(self) -> None:
        move = self.moves[self.index]
        board = self.view.boards[move.seat]
        if move.card is None:
            try:
                board.redeal(self.record.dealers[move.seat].redeal)
            except engine.EngineError as exc:
                self.fault = f"{self.view.players[move.seat]} cannot redeal: {exc}"
                return
        else:
            reason = board.why_illegal(move.card)
            if reason is not None:
                self.fault = f"{self.view.players[move.seat]} cannot play {move.card}: {reason}"
                return
            board.play(move.card)
            self.view.record_play(move.seat, board.count, move.t_ms)
        self.view.statuses[move.seat] = wire_status(board.status)
        self.view.seq = move.seq
        self.index += 1

    def _rebase(self, now: float) -> None:
        self.base_ms, self.base_now = self.position(now), now

    def _stand_still(self) -> None:
        """The end: the stopwatch at the last move made, and the record checked (once)."""
        if self.index < len(self.moves) and self.fault is not None:
            self.base_ms = self.moves[self.index].t_ms
        elif self.index:
            self.base_ms = self.moves[self.index - 1].t_ms
        if self.verdict is None:
            self.verdict = engine.verify_record(self.data.record)
