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
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import engine
from protocol import (
    RACING,
    GameOver,
    GameStart,
    GameState,
    OpponentAway,
    OpponentBack,
    Redealt,
    StatusChanged,
    board_to_wire,
    wire_status,
)

from .deciding import by_counts, decided
from .events import Journaled, Output, RaceEnded, RaceStarted, Refused, Send, SendPlayed, Wake
from .glicko2 import rate_race
from .race_log import Entry, MoveRecord, RaceRecord, RaceStart
from .race_log import to_ms as _ms
from .seeding import stored, wire

if TYPE_CHECKING:
    from protocol import BoardStatus, Rules

    from .bot_policy import BotMove, BotPolicy
    from .glicko2 import Glicko
    from .seeding import Dealers

__all__ = ["Race", "SeatInfo"]


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who sits in a seat."""

    player_id: str
    name: str


@dataclass(slots=True)
class _Seat:
    info: SeatInfo
    board: engine.Board
    dealer: engine.Dealer
    status: BoardStatus
    idle_deadline: float | None = None
    away_deadline: float | None = None
    away: bool = False
    """Disconnected; outlives ``away_deadline`` when the grace ends on a final count."""
    last_play_seq: int = 0
    moves: list[MoveRecord] = field(default_factory=list)
    bot: BotPolicy | None = None
    """The policy that plays this seat, if a bot sits in it (the core plays for it)."""
    bot_move: BotMove | None = None
    bot_at: float | None = None
    """When the bot makes ``bot_move``: a deadline like the others."""

    @property
    def cards(self) -> int:
        """The seat's count, as deciding reads it (a :class:`~core.deciding.Stand`)."""
        return self.board.count


class Race:
    """One race. See the module docstring for how to drive it."""

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
        bots: tuple[BotPolicy | None, BotPolicy | None] = (None, None),
    ) -> None:
        """``dealers``: each seat's, which deals its layout and its redeal.

        ``idle_limit`` None: no idle limit (practice, where nobody waits).
        ``ratings``: the players' before a rated race (None: unrated).
        ``bots``: the policy of each seat a bot sits in; the race plays for it.
        """
        self.game_id = game_id
        self.rules = rules
        self._rules_json = json.dumps(rules.model_dump(mode="json"), sort_keys=True)
        """The rules as the store keeps them, for the race's start and its record."""
        self.dealers = dealers
        self.idle_limit = idle_limit
        self.grace = grace
        self.seq = 0
        self.started = 0.0
        self.ended: float | None = None
        self.over: GameOver | None = None
        self.ratings = ratings
        self.ratings_after: tuple[Glicko, Glicko] | None = None
        """The players' new ratings, once a rated race has ended."""
        self._shown = [None, None] if ratings is None else [g.shown for g in ratings]
        winnable = rules.winnable_only
        # A mirror race deals one layout (immutable) for both seats: half the
        # work of starting it, which comes in bursts when many races end at once.
        layouts = {dealer: dealer.layout(winnable) for dealer in set(dealers)}
        self._seats = [
            _Seat(info, board, dealer, wire_status(board.status))
            for info, dealer, board in (
                (info, dealer, engine.Board(layouts[dealer], rules.redeals))
                for info, dealer in zip(seats, dealers, strict=True)
            )
        ]
        self._seeds, self._commits = wire(dealers)
        for seat, bot in zip(self._seats, bots, strict=True):
            seat.bot = bot
        self._bots = [bot is not None for bot in bots]
        self._clock: float | None = None
        self._players = tuple(seat.info.player_id for seat in self._seats)
        self._watchers: set[str] = set()
        self._audience = self._players
        """Who hears the race's events: its players, then its spectators."""

    # -- reading ---------------------------------------------------------------

    @property
    def player_ids(self) -> tuple[str, ...]:
        return self._players

    @property
    def watchers(self) -> frozenset[str]:
        """The race's spectators."""
        return frozenset(self._watchers)

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
        until = now if self.ended is None else self.ended
        limit = self.rules.time_limit_s
        left = None if limit is None else _ms(max(0.0, self.started + limit - until))
        return GameState(
            game_id=self.game_id,
            seat=seat,
            players=self.names,
            bots=self.bots,
            ratings=self._shown,
            rules=self.rules,
            boards=[board_to_wire(s.board, s.status) for s in self._seats],
            commits=self._commits,
            elapsed_ms=_ms(max(0.0, until - self.started)),
            clock_left_ms=left,
            seq=self.seq,
            over=self.over,
        )

    @property
    def bots(self) -> list[bool]:
        """Which seats a bot sits in."""
        return list(self._bots)

    def next_deadline(self) -> float | None:
        """The earliest time at which :meth:`tick` has something to do, or None."""
        if self.over is not None:
            return None
        # Asked after every play: a loop, not a list for min(), costs a third.
        due = self._clock
        for seat in self._seats:
            for t in (seat.idle_deadline, seat.away_deadline, seat.bot_at):
                if t is not None and (due is None or t < due):
                    due = t
        return due

    # -- inputs ----------------------------------------------------------------

    def watch(self, player_id: str, now: float) -> list[Output]:
        """``player_id`` spectates: the whole race for them, and every event from now on."""
        self._watchers.add(player_id)
        self._audience = (*self._players, *sorted(self._watchers))
        return [Send((player_id,), self.state(None, now))]

    def unwatch(self, player_id: str) -> None:
        """``player_id`` spectates no more."""
        self._watchers.discard(player_id)
        self._audience = (*self._players, *sorted(self._watchers))

    def start(self, now: float) -> list[Output]:
        """Announce the race to both players; end it at once if nobody can play."""
        self.started = now
        if self.rules.time_limit_s is not None:
            self._clock = now + self.rules.time_limit_s
        for seat in self._seats:
            self._restart_idle(seat, now)
            self._plan_bot(seat, now)
        first, second = self._seats
        board = board_to_wire(first.board, first.status)
        # A mirror race deals both seats one layout: the same board on the wire.
        mirror = self.dealers[0] == self.dealers[1]
        boards = [board, board if mirror else board_to_wire(second.board, second.status)]
        out: list[Output] = [RaceStarted(self._race_start())]
        out += [
            Send(
                (seat.info.player_id,),
                GameStart(
                    game_id=self.game_id,
                    seat=index,
                    players=self.names,
                    bots=self.bots,
                    ratings=self._shown,
                    rules=self.rules,
                    boards=boards,
                    commits=self._commits,
                    seq=0,
                ),
            )
            for index, seat in enumerate(self._seats)
        ]
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
        player.status = wire_status(player.board.status)
        self.seq += 1
        player.last_play_seq = self.seq
        code = str(card)
        at = now - self.started
        player.moves.append(MoveRecord(self.seq, seat, code, at))
        self._restart_idle(player, now)
        # A plain tuple, not a model: validating a model per play only to
        # serialize it cost more than the rest of this method (bench/README.md, item 18).
        played = SendPlayed(
            self._audience,
            self.game_id,
            seat,
            code,
            move.bed,
            player.board.count,
            player.status,
            _ms(at),
            self.seq,
        )
        journaled = Journaled(self.game_id, Entry(self.seq, seat, code, at))
        out: list[Output] = [journaled, played, *self._decide(now)]
        self._plan_bot(player, now)
        return out

    def redeal(self, seat: int, now: float) -> list[Output]:
        """Use ``seat``'s redeal; only a stuck board with one left may."""
        return self._woken(self._redeal(seat, now))

    def _redeal(self, seat: int, now: float) -> list[Output]:
        player = self._moving(seat)
        try:
            player.board.redeal(player.dealer.redeal)
        except engine.IllegalRedeal as exc:
            raise Refused("illegal_move", str(exc)) from None
        player.status = wire_status(player.board.status)
        self.seq += 1
        at = now - self.started
        player.moves.append(MoveRecord(self.seq, seat, "redeal", at))
        self._restart_idle(player, now)
        board = board_to_wire(player.board, player.status)
        redealt = Redealt(game_id=self.game_id, seat=seat, board=board, t_ms=_ms(at), seq=self.seq)
        journaled = Journaled(self.game_id, Entry(self.seq, seat, "redeal", at))
        out = [journaled, self._broadcast(redealt), *self._decide(now)]
        self._plan_bot(player, now)
        return out

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
        away = OpponentAway(game_id=self.game_id, grace_s=math.ceil(self.grace))
        return self._woken([Send((self._seats[1 - seat].info.player_id,), away)])

    def come_back(self, seat: int, now: float) -> list[Output]:
        """``seat`` is connected again: the game_state for them, and the opponent is told."""
        player = self._seats[seat]
        out: list[Output] = [Send((player.info.player_id,), self.state(seat, now))]
        if not player.away or self.over is not None:
            return self._woken(out)
        player.away, player.away_deadline = False, None
        self._restart_idle(player, now)
        back = OpponentBack(game_id=self.game_id)
        return self._woken([*out, Send((self._seats[1 - seat].info.player_id,), back)])

    def tick(self, now: float) -> list[Output]:
        """Apply every deadline that has passed by ``now``, earliest first."""
        out: list[Output] = []
        while (due := self.next_deadline()) is not None and due <= now:
            out += self._expire(due)
        return self._woken(out)

    def abort(self, now: float) -> list[Output]:
        """End the race as a draw, ``aborted``: its journal could not be replayed."""
        self._check_live()
        return self._woken(self._finish(now, None, "aborted"))

    def replay(self, entry: Entry) -> list[Output]:
        """Apply a journal entry again, as it was accepted ``entry.at`` seconds in.

        Raises :class:`~core.events.Refused` or ``ValueError``, having changed
        nothing, when the entry does not fit the race as replayed so far: then
        the journal is not this race's (:func:`core.restore.restore` aborts it).
        """
        now, what, seat = self.started + entry.at, entry.what, entry.seat
        self._check_live()
        racing = sum(s.status in RACING for s in self._seats)
        if seat not in (0, 1) or entry.seq != self.seq + (racing if what == "time" else 1):
            raise ValueError(f"{entry} does not follow seq {self.seq}")
        if what == "redeal":
            return self.redeal(seat, now)
        if what == "resigned":
            return self.resign(seat, now)
        if what == "time":
            return self._time_up(now)
        if what not in {"abandoned", "timed_out"}:
            return self.play(seat, engine.Card.parse(what), now)
        if self._seats[seat].status not in RACING:
            raise ValueError(f"{entry}: seat {seat} is not racing")
        return (
            self._leave_race(seat, "abandoned", now)
            if what == "abandoned"
            else self._time_out(seat, now)
        )

    # -- internals -------------------------------------------------------------

    def _woken(self, out: list[Output]) -> list[Output]:
        """``out``, and last the race's next deadline, for the glue's timer."""
        out.append(Wake(self.game_id, self.next_deadline()))
        return out

    def _expire(self, due: float) -> list[Output]:
        if self._clock == due:
            return self._time_up(due)
        for index, seat in enumerate(self._seats):
            if seat.bot_at == due:
                return self._bot_moves(index, due)
            if seat.away_deadline == due:
                seat.away_deadline = None
                # A player whose count is final is no longer racing: nothing to abandon.
                return self._leave_race(index, "abandoned", due) if seat.status in RACING else []
            if seat.idle_deadline == due:
                return self._time_out(index, due)
        raise AssertionError("a deadline fell that no seat holds")  # pragma: no cover

    def _plan_bot(self, seat: _Seat, now: float) -> None:
        """A bot's next move, planned when its own board has changed (or nothing to do)."""
        if seat.bot is None:
            return
        seat.bot_move = seat.bot_at = None
        if self.over is not None or seat.status not in RACING:
            return
        idle = None if seat.idle_deadline is None else seat.idle_deadline - now
        clock = None if self._clock is None else self._clock - now
        move = seat.bot.next_move(seat.board, idle_left=idle, clock_left=clock)
        if move is not None:
            seat.bot_move, seat.bot_at = move, now + move.delay

    def _bot_moves(self, index: int, now: float) -> list[Output]:
        """The bot in seat ``index`` makes the move it planned."""
        seat = self._seats[index]
        move, seat.bot_move, seat.bot_at = seat.bot_move, None, None
        assert move is not None
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
            if seat.status in RACING:
                seat.status = "timed_out"
                seat.idle_deadline = None
                out.append(self._status_event(index))
        # One entry for the clock, before every status it sets.
        journaled = Journaled(self.game_id, Entry(self.seq, 0, "time", now - self.started))
        first, second = self._seats
        winner, _ = by_counts(first, second, self.rules.tiebreak)
        return [journaled, *out, *self._finish(now, winner, "time")]

    def _leave_race(self, seat: int, status: BoardStatus, now: float) -> list[Output]:
        self._seats[seat].status = status
        return [*self._status_change(seat, now), *self._finish(now, 1 - seat, status)]

    def _moving(self, seat: int) -> _Seat:
        self._check_live()
        player = self._seats[seat]
        if player.status not in RACING:
            raise Refused("illegal_move", f"your count is final ({player.status})")
        return player

    def _check_live(self) -> None:
        if self.over is not None:
            raise Refused("game_over", "this race is over")

    def _restart_idle(self, seat: _Seat, now: float) -> None:
        limit = self.idle_limit
        racing = seat.status in RACING and not seat.away
        seat.idle_deadline = now + limit if racing and limit is not None else None

    def _broadcast(self, message: Redealt | StatusChanged | GameOver) -> Send:
        return Send(self._audience, message)

    def _status_change(self, seat: int, now: float) -> list[Output]:
        """The journal entry and the event of ``seat``'s new status (not by a play)."""
        event = self._status_event(seat)
        status = self._seats[seat].status
        entry = Entry(self.seq, seat, status, now - self.started)
        return [Journaled(self.game_id, entry), event]

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
            seat.idle_deadline = seat.away_deadline = seat.bot_at = None
        self._clock = None
        self.ended = now
        self.over = GameOver.model_validate(
            {
                "game_id": self.game_id,
                "result": "draw" if winner is None else "win",
                "winner": winner,
                "reason": reason,
                "counts": self.counts,
                "times_ms": [self._last_card_ms(seat) for seat in self._seats],
                "seeds": self._seeds,
                "ratings": self._rate(winner, reason),
                "seq": self.seq,
            }
        )
        return [RaceEnded(self._record(now)), self._broadcast(self.over)]

    def _rate(self, winner: int | None, reason: str) -> list[dict[str, int]] | None:
        """A rated race's new ratings (``ratings_after``), as ``game_over`` shows them."""
        if self.ratings is None or reason == "aborted":  # an aborted race is never rated
            return None
        score = 0.5 if winner is None else 1.0 - winner
        self.ratings_after = rate_race(*self.ratings, score)
        pairs = zip(self.ratings, self.ratings_after, strict=True)
        return [{"before": before.shown, "after": after.shown} for before, after in pairs]

    @staticmethod
    def _last_card_ms(seat: _Seat) -> int | None:
        cards = [move for move in seat.moves if move.card != "redeal"]
        return _ms(cards[-1].at) if cards else None

    def _race_start(self) -> RaceStart:
        dealing, seeds = stored(self.dealers)
        return RaceStart(
            game_id=self.game_id,
            rules_json=self._rules_json,
            dealing=dealing,
            seeds=seeds,
            player_ids=(self._players[0], self._players[1]),
            names=(self._seats[0].info.name, self._seats[1].info.name),
            ratings=self.ratings,
        )

    def _record(self, now: float) -> RaceRecord:
        over = self.over
        assert over is not None
        # Each seat's moves are in seq order, and seqs are unique: tuples sort by seq.
        moves = sorted([*self._seats[0].moves, *self._seats[1].moves])
        dealing, seeds = stored(self.dealers)
        return RaceRecord(
            game_id=self.game_id,
            rules_json=self._rules_json,
            dealing=dealing,
            seeds=seeds,
            player_ids=(self._players[0], self._players[1]),
            started=self.started,
            ended=now,
            moves=tuple(moves),
            result=over.result,
            winner=over.winner,
            reason=over.reason,
            counts=(over.counts[0], over.counts[1]),
            ratings=self.ratings,
            ratings_after=self.ratings_after,
        )
