"""The race core: one race between two seats, without I/O.

Theory of operation
-------------------
A :class:`Race` holds both boards, the rules, the seeds and every deadline.
It is driven by calls, each given the current time ``now`` (seconds on a
monotonic clock), and each returning the outputs the glue must carry out
(:mod:`core.events`); those that can move a deadline end with a
:class:`~core.events.Wake` that gives the race's next one:

* :meth:`start` deals and announces the race (``game_start``, seq 0), and ends
  it at once when neither player can ever play;
* :meth:`play`, :meth:`redeal`, :meth:`resign` are the players' moves; a
  refused move raises :class:`~core.events.Refused` and changes nothing;
* :meth:`leave` and :meth:`come_back` follow a player's connection;
* :meth:`watch` and :meth:`unwatch` follow its spectators, so that every
  event names them among its receivers;
* :meth:`tick` applies every deadline that has passed (idle limit, grace,
  clock); :meth:`next_deadline` says when the next one falls, so the glue can
  sleep until then and tests can move time by hand.

Every race event (``game_start``, ``played``, ``redealt``, ``status``,
``game_over``) takes the next ``seq`` and goes to both players and every
spectator; the same objects go to every receiver. A ``played`` is a plain
:class:`~core.events.SendPlayed`, not a model: one is made per play.

Deciding (PROTOCOL.md, "Deciding the race") is :mod:`core.deciding`; the
race ends itself only for what needs no comparison: resigning, and being away
past the grace while still racing.

Each event is timed when the race takes it (:meth:`Race._at`), a bot's move
included, and never before the event ahead of it: ``t_ms`` never goes back
along ``seq``. The race's data and what it answers are its base class,
:class:`~core.race_state.RaceState`; what it announces and keeps is built in
:mod:`core.race_views`; each seat's own state and deadlines, :mod:`core.seat`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import engine
from protocol import (
    GameOver,
    OpponentAway,
    OpponentBack,
    Redealt,
    StatusChanged,
    board_to_wire,
    wire_status,
)

from .deciding import by_counts, decided
from .events import (
    Journaled,
    Output,
    RaceEnded,
    RaceStarted,
    Refused,
    Send,
    SendPlayed,
    Wake,
)
from .fair_play import judge_seats, why_unrated
from .glicko2 import rate_race
from .race_log import Entry, MoveRecord, to_seconds
from .race_log import to_ms as _ms
from .race_state import RaceState
from .race_views import finished_race, game_over, game_starts, race_start
from .seat import Seat, SeatInfo

if TYPE_CHECKING:
    from protocol import BoardStatus


__all__ = ["Race", "SeatInfo"]


class Race(RaceState):
    """One race. See the module docstring for how to drive it."""

    # -- inputs ----------------------------------------------------------------

    def watch(self, player_id: str, now: float) -> list[Output]:
        """``player_id`` spectates: the whole race for them, and every event from now on."""
        self._audience.add(player_id)
        return [Send((player_id,), self.state(None, now))]

    def unwatch(self, player_id: str) -> None:
        """``player_id`` spectates no more."""
        self._audience.discard(player_id)

    def start(self, now: float) -> list[Output]:
        """Announce the race to both players; end it at once if nobody can play."""
        self.started = now
        if self.rules.time_limit_s is not None:
            self._clock = now + self.rules.time_limit_s
        for seat in self._seats:
            seat.restart_idle(now, self.idle_limit)
            seat.timing.saw(seat.board, 0.0)
            self._plan_bot(seat, now)
        out: list[Output] = [RaceStarted(race_start(self)), *game_starts(self)]
        return self._woken(out + self._decide(now))

    def play(self, seat: int, card: engine.Card, now: float) -> list[Output]:
        """Play ``card`` from ``seat``'s board."""
        return self._woken(self._play(seat, card, now))

    def _play(self, seat: int, card: engine.Card, now: float) -> list[Output]:
        player = self._moving(seat)
        try:
            move = player.board.play(card)
        except engine.IllegalPlay as exc:
            raise Refused("illegal_move", str(exc)) from None
        code = str(card)
        at = self._accepted(player, seat, code, now)
        player.timing.played(card, move.bed, player.board, at)
        player.last_play_seq = self.seq
        # A plain tuple, not a model: validating a model per play only to
        # serialize it cost more than the rest of this method (bench/README.md, item 18).
        played = SendPlayed(
            self._audience.all, self.game_id, seat, code, move.bed, player.board.count,
            player.status, _ms(at), self.seq,
        )  # fmt: skip
        return self._announced(player, Entry(self.seq, seat, code, at), played, now)

    def redeal(self, seat: int, now: float) -> list[Output]:
        """Use ``seat``'s redeal; only a stuck board with one left may."""
        return self._woken(self._redeal(seat, now))

    def _redeal(self, seat: int, now: float) -> list[Output]:
        player = self._moving(seat)
        try:
            player.board.redeal(player.dealer.redeal)
        except engine.IllegalRedeal as exc:
            raise Refused("illegal_move", str(exc)) from None
        at = self._accepted(player, seat, "redeal", now)
        player.timing.saw(player.board, at)
        board = board_to_wire(player.board, player.status)
        redealt = Redealt(game_id=self.game_id, seat=seat, board=board, t_ms=_ms(at), seq=self.seq)
        entry = Entry(self.seq, seat, "redeal", at)
        return self._announced(player, entry, self._broadcast(redealt), now)

    def resign(self, seat: int, now: float) -> list[Output]:
        """``seat`` gives up and loses at once."""
        self._check_live()
        return self._woken(self._leave_race(seat, "resigned", now))

    def leave(self, seat: int, now: float) -> list[Output]:
        """``seat``'s connection dropped: the grace starts and the opponent is told."""
        player = self._seats[seat]
        if self.over is not None or player.away:
            return self._woken([])
        player.away = True
        player.away_deadline = now + self.grace
        player.idle_deadline = None
        away = OpponentAway(game_id=self.game_id, grace_s=to_seconds(self.grace))
        return self._woken([Send((self._seats[1 - seat].info.player_id,), away)])

    def come_back(self, seat: int, now: float) -> list[Output]:
        """``seat`` is connected again: the game_state for them, and the opponent is told."""
        player = self._seats[seat]
        out: list[Output] = [Send((player.info.player_id,), self.state(seat, now))]
        if not player.away or self.over is not None:
            return self._woken(out)
        player.away, player.away_deadline = False, None
        player.restart_idle(now, self.idle_limit)
        back = OpponentBack(game_id=self.game_id)
        return self._woken([*out, Send((self._seats[1 - seat].info.player_id,), back)])

    def tick(self, now: float) -> list[Output]:
        """Apply every deadline that has passed by ``now``, earliest first."""
        out: list[Output] = []
        while (due := self.next_deadline()) is not None and due <= now:
            out += self._expire(due, now)
        return self._woken(out)

    def pause(self, now: float) -> list[Output]:
        """Hold the race where it stands at ``now``: its worker is not sure it still owns it.

        A worker whose lease it could not renew in time stops acting for its
        races before the lease can lapse (docs/design.md, "Several workers"):
        no deadline falls and no move is taken (``unavailable``) until
        :meth:`resume`, or until the race leaves this worker for good.
        """
        if self.paused_at is None and self.over is None:
            self.paused_at = now
        return self._woken([])

    def resume(self, now: float) -> list[Output]:
        """Go on from where :meth:`pause` held the race: the time between does not count."""
        if self.paused_at is not None:
            held, self.paused_at = now - self.paused_at, None
            self.started += held
            self._clock = None if self._clock is None else self._clock + held
            for seat in self._seats:
                seat.shift(held)
        return self._woken([])

    def abort(self, now: float) -> list[Output]:
        """End the race as a draw, ``aborted``: its journal could not be replayed."""
        self._check_live()
        return self._woken(self._finish(now, None, "aborted"))

    def clock_ran_out(self, now: float) -> list[Output]:
        """The time limit ran out at ``now``: the journal's ``time`` (the tick applies its own)."""
        self._check_live()
        return self._woken(self._time_up(now))

    def seat_ended(self, seat: int, status: BoardStatus, now: float) -> list[Output]:
        """``seat`` was ``abandoned`` or ``timed_out`` at ``now``: its journal says so."""
        self._check_live()
        if not self._seats[seat].racing or status not in ("abandoned", "timed_out"):
            raise ValueError(f"seat {seat} cannot be {status} now")
        if status == "abandoned":
            return self._woken(self._leave_race(seat, status, now))
        return self._woken(self._time_out(seat, now))

    # -- internals -------------------------------------------------------------

    def _at(self, now: float) -> float:
        """Seconds into the race at ``now`` for the next event: never before the last one's.

        The glue's clock only moves on, but a deadline (a bot's move, an idle
        limit) may be applied after a play that came in later than it was due:
        each event is timed when the race takes it, and never goes back.
        """
        at = max(now - self.started, self._last_at)
        self._last_at = at
        return at

    def _accepted(self, player: Seat, seat: int, what: str, now: float) -> float:
        """``seat``'s move (a card's code, or ``redeal``) is taken at ``now``: its time in."""
        player.status = wire_status(player.board.status)
        self.seq += 1
        at = self._at(now)
        player.moves.append(MoveRecord(self.seq, seat, what, at))
        player.restart_idle(now, self.idle_limit)
        return at

    def _announced(self, player: Seat, entry: Entry, event: Output, now: float) -> list[Output]:
        """A move's journal entry, then its event, then the race's end if it decided it."""
        out = [Journaled(self.game_id, entry), event, *self._decide(now)]
        self._plan_bot(player, now)
        return out

    def _woken(self, out: list[Output]) -> list[Output]:
        """``out``, and last the race's next deadline, for the glue's timer."""
        out.append(Wake(self.game_id, self.next_deadline()))
        return out

    def _expire(self, due: float, now: float) -> list[Output]:
        """Apply the deadline that falls at ``due``; the tick runs at ``now``."""
        if self._clock == due:
            return self._time_up(due)
        for index, seat in enumerate(self._seats):
            if seat.bot_at == due:
                # A bot's move is taken when the race takes it, as a person's
                # is: at ``now``, never at the instant it was planned for.
                return self._bot_moves(index, now)
            if seat.away_deadline == due:
                seat.away_deadline = None
                # A player whose count is final is no longer racing: nothing to abandon.
                return self._leave_race(index, "abandoned", due) if seat.racing else []
            if seat.idle_deadline == due:
                return self._time_out(index, due)
        raise AssertionError("a deadline fell that no seat holds")  # pragma: no cover

    def _plan_bot(self, seat: Seat, now: float) -> None:
        if self.over is None:
            seat.plan_bot(now, self._clock, self.started)

    def _bot_moves(self, index: int, now: float) -> list[Output]:
        """The bot in seat ``index`` makes the move it planned."""
        move = self._seats[index].take_bot_move()
        if move.card is None:
            return self._redeal(index, now)
        return self._play(index, move.card, now)

    def _time_out(self, index: int, now: float) -> list[Output]:
        """``index`` went the idle limit without a play."""
        seat = self._seats[index]
        seat.idle_deadline = None
        seat.status = "timed_out"
        return [*self._status_change(index, now), *self._decide(now)]

    def _time_up(self, now: float) -> list[Output]:
        self._clock = None
        out: list[Output] = []
        for index, seat in enumerate(self._seats):
            if seat.racing:
                seat.status = "timed_out"
                seat.idle_deadline = None
                out.append(self._status_event(index))
        # One entry for the clock, before every status it sets.
        journaled = Journaled(self.game_id, Entry(self.seq, 0, "time", self._at(now)))
        first, second = self._seats
        winner, _ = by_counts(first, second, self.rules.tiebreak)
        return [journaled, *out, *self._finish(now, winner, "time")]

    def _leave_race(self, seat: int, status: BoardStatus, now: float) -> list[Output]:
        self._seats[seat].status = status
        return [*self._status_change(seat, now), *self._finish(now, 1 - seat, status)]

    def _moving(self, seat: int) -> Seat:
        self._check_live()
        player = self._seats[seat]
        if not player.racing:
            raise Refused("illegal_move", f"your count is final ({player.status})")
        return player

    def _check_live(self) -> None:
        if self.over is not None:
            raise Refused("game_over", "this race is over")
        if self.paused_at is not None:
            raise Refused("unavailable", "this race is held for a moment; try again")

    def _broadcast(self, message: Redealt | StatusChanged | GameOver) -> Send:
        return Send(self._audience.all, message)

    def _status_change(self, seat: int, now: float) -> list[Output]:
        """The journal entry and the event of ``seat``'s new status (not by a play)."""
        event = self._status_event(seat)
        status = self._seats[seat].status
        return [Journaled(self.game_id, Entry(self.seq, seat, status, self._at(now))), event]

    def _status_event(self, seat: int) -> Send:
        player = self._seats[seat]
        self.seq += 1
        changed = StatusChanged(
            game_id=self.game_id,
            seat=seat,
            status=player.status,
            count=player.board.count,
            seq=self.seq,
        )
        return self._broadcast(changed)

    def _decide(self, now: float) -> list[Output]:
        """End the race if its result can no longer change."""
        first, second = self._seats
        result = decided(first, second, self.rules.tiebreak)
        return [] if result is None else self._finish(now, *result)

    def _finish(self, now: float, winner: int | None, reason: str) -> list[Output]:
        self.seq += 1
        for seat in self._seats:
            seat.stop()
        self._clock = None
        self.ended = now
        self.fair_play = judge_seats(self._seats)
        if self.ratings is not None and reason != "aborted":  # an aborted race is never rated
            self.unrated = why_unrated(self._seats, self.fair_play)
            if self.unrated is None:
                score = 0.5 if winner is None else 1.0 - winner
                self.ratings_after = rate_race(*self.ratings, score)
        self.over = game_over(self, winner, reason)
        return [RaceEnded(finished_race(self, now)), self._broadcast(self.over)]
