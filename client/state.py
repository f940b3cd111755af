"""The client-state model: everything the screens show, fed by server messages.

Theory of operation
-------------------
:class:`ClientState` is a plain object with no Textual and no sockets in it.
The app feeds it every server message with :meth:`ClientState.apply` and
``now`` (a monotonic time, injected so that tests choose it), then asks its
screens to render it again. Local events (a refused key, the link state) are
set with small methods too, so the screens never hold state of their own.

A race is a :class:`RaceView`: both boards as engine boards, kept in step by
applying each ``played`` and ``redealt`` with the engine's own moves. Every
race event carries ``seq``; an event already seen is skipped, and an event
that skips a number (or that the engine cannot apply) means this copy has
drifted: :meth:`ClientState.apply` returns True, and the app resynchronises
(a player by reconnecting, which resumes with ``game_state``; a spectator by
``watch``). Events are then ignored until the ``game_state`` arrives.

A race can also be gone when the client comes back: a server on a fresh
database, or one that lost it. The server sends a returning player's
``game_state`` right after ``welcome`` (and answers a spectator's ``watch``
with one), and the app asks for ``lobby`` after those; one connection keeps
its messages in order. So a ``welcome`` while a live race is on screen makes
the state wait for that race (:attr:`ClientState.resuming`), and a lobby
snapshot that comes first means no ``game_state`` is coming: the race is
dropped, and the client says so, instead of showing a race that every key
would be refused in (``not_in_game``).

Time: the stopwatch runs from ``game_start`` (or from ``game_state``'s
``elapsed_ms``), the race's clock from its time limit (or ``clock_left_ms``);
both stand still while the line is down, until ``game_state`` gives the server's
time again (a server that was down does not count that time either),
and one's own idle limit (``welcome.limits.idle_s``) restarts at the deal, at
each of one's own plays and redeals the server acknowledges, and on coming
back. At ``game_over`` the deal is checked against the revealed seeds
(:mod:`client.dealcheck`).

A seek that asks for a bot (``seek.bot``) is remembered until its ``seeking``
comes (which does not repeat it); from then the lobby counts down to the bot's
taking the seat on this client's clock (:attr:`Waiting.bot_at`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Literal

import engine
from lang import t
from protocol import (
    RACING,
    Arena,
    Cancelled,
    CreateRoom,
    Error,
    GameOver,
    GameStart,
    GameState,
    LobbySnapshot,
    OpponentAway,
    OpponentBack,
    Play,
    Played,
    Rating,
    Redealt,
    Rematch,
    RematchOffered,
    Report,
    Reported,
    Room,
    Rules,
    Seek,
    Seeking,
    StatusChanged,
    Welcome,
    board_from_wire,
    wire_status,
)

from .apidata import Profile, whole
from .competition_words import ArenaView
from .dealcheck import check_deal
from .keys import assign_labels
from .lookups import Lookups
from .race_view import Outcome, RaceView, Waiting
from .words import REMATCH_ID, REPORT_ID, error_words, outcome_words

if TYPE_CHECKING:
    from collections.abc import Callable

    from protocol import BotRequest, ClientMessage, Limits, ServerMessage

    from .bests import Best, PracticeBest
    from .lookups import Answer, Query

__all__ = ["ClientState", "Link", "Outcome", "RaceView", "Waiting", "outcome_words"]

Link = Literal["offline", "connecting", "online", "reconnecting", "replaced", "banned", "failed"]


class ClientState:
    """Everything the client knows; see the module's theory of operation."""

    def __init__(self, server: str = "", name: str = "", *, ascii: bool = False) -> None:
        self.server = server
        self.name = name
        self.ascii = ascii
        self.player_id: str | None = None
        self.limits: Limits | None = None
        """The server's settings (``welcome.limits``); None before a welcome, and in practice."""
        self.link: Link = "offline"
        self.attempt = 0
        self.retry_at: float | None = None
        self.link_reason = ""
        """Why the last connection attempt ended, or why the client gave up."""
        self.resuming: str | None = None
        """The race a ``welcome`` should resume, until its ``game_state`` or a lobby snapshot."""
        self.rating: Rating | None = None
        """One's own rating (``welcome``, then each rated race's end and one's profile)."""
        self.opponent: str | None = None
        """The last opponent raced, for the lobby's key to their profile."""
        self.lookups = Lookups()
        """What the HTTP API answered (:mod:`client.lookups`)."""
        self.lobby: LobbySnapshot | None = None
        self.waiting: Waiting | None = None
        self.asked_bot: BotRequest | None = None
        """The bot the last ``seek`` sent asked for, until its ``seeking`` comes."""
        self.race: RaceView | None = None
        self.bot = False
        """Whether this player is a bot (``welcome.bot``): why a rated race is refused."""
        self.asked: dict[str, Seek | CreateRoom] = {}
        """The last ``seek`` and ``create_room`` sent, by type: what a refusal answers."""
        self.offer: Seek | CreateRoom | None = None
        """The same request unrated, after a rated one was refused (``not_allowed``)."""
        self.arena: ArenaView | None = None
        """The arena one joined (the last ``arena``), while it matters."""
        self.wall: Callable[[], float] = time.time
        """The epoch's clock (a test's own): an arena's end is put on ``now`` by it."""
        self.notice = ""
        self.notice_is_error = False

    # -- local events ----------------------------------------------------------

    def note(self, text: str, *, error: bool = False) -> None:
        """Set the feedback line (a refused key, a server error, a hint)."""
        self.notice, self.notice_is_error = text, error

    def set_link(
        self,
        link: Link,
        now: float,
        attempt: int = 0,
        retry_at: float | None = None,
        reason: str = "",
    ) -> None:
        """The line's state; a line gone down holds the race's stopwatch and clock, which
        start again from the server's own time when it sends the race (``game_state``)."""
        self.link, self.attempt, self.retry_at = link, attempt, retry_at
        self.link_reason = "" if link == "online" else reason
        if link != "online" and self.race is not None:
            self.race.hold(now)

    def begin_practice(
        self, board: engine.Board, rules: Rules, now: float, target: Best | None = None
    ) -> None:
        """A one-board race with no server (``flowergarden practice``) against ``target``,
        the personal best for ``rules``."""
        self.race = RaceView(
            game_id="practice",
            seat=0,
            players=[self.name or "you"],
            rules=rules,
            boards=[board],
            statuses=[wire_status(board.status)],
            seq=0,
            started_at=now,
            reached=[{}],
            target=target,
        )
        self.race.relabel()
        self.note("")
        self._end_if_solo_final(now)

    def set_best(self, best: PracticeBest) -> None:
        """What the practice result says of the personal best (the app keeps the file)."""
        if self.race is not None:
            self.race.best = best

    def sending(self, message: ClientMessage) -> None:
        """Note what this client just sent, until the server's answer comes."""
        if isinstance(message, Seek):
            self.asked_bot = message.bot
        if isinstance(message, Seek | CreateRoom):
            self.asked[message.type], self.offer = message, None
        race = self.race
        if race is None:
            return
        if isinstance(message, Play):
            race.sent.append(engine.Card.parse(message.card))
        elif isinstance(message, Rematch):
            race.rematch_asked = True
        elif isinstance(message, Report) and message.game_id == race.game_id:
            race.report = "sent"

    def answered(self, query: Query, answer: Answer, now: float) -> None:
        """The HTTP API answered ``query``: keep it; a profile also tells who is provisional."""
        self.lookups.answered(query, answer, now)
        if isinstance(answer, Profile):
            self._profile(answer)

    def _profile(self, profile: Profile) -> None:
        if profile.name.casefold() == self.name.casefold():
            self.rating = Rating(rating=whole(profile.rating), provisional=profile.provisional)
        race = self.race
        if race is None:
            return
        for seat, name in enumerate(race.players):
            if name.casefold() == profile.name.casefold() and seat < len(race.provisional):
                race.provisional[seat] = profile.provisional

    def _provisional(self, name: str) -> bool | None:
        """Whether ``name``'s rating is provisional, as far as this client knows."""
        if name.casefold() == self.name.casefold() and self.rating is not None:
            return self.rating.provisional
        known = self.lookups.known(name)
        return None if known is None else known.provisional

    def leave_race(self) -> None:
        """Back to the lobby: forget the race (the server has, once it is over)."""
        self.race = None
        self.note("")

    # -- server messages -------------------------------------------------------

    def apply(self, message: ServerMessage, now: float) -> bool:
        """Apply one server message; True means this copy drifted and needs a resync."""
        if isinstance(message, Played | Redealt | StatusChanged | GameOver):
            return self._race_event(message, now)
        if isinstance(message, GameStart | GameState):
            self.resuming = None
            self._new_race(message, now)
        elif isinstance(message, Welcome):
            self.name, self.player_id = message.name, message.player_id
            self.limits, self.rating, self.bot = message.limits, message.rating, message.bot
            self._wait_for_resume()
        elif isinstance(message, LobbySnapshot):
            self.lobby = message
            if self.resuming is not None:  # no game_state came first: none is coming
                self._race_gone()
        elif isinstance(message, OpponentAway | OpponentBack | RematchOffered):
            if self.race is not None and self.race.game_id == message.game_id:
                self.race.opponent_news(message, now)
        elif isinstance(message, Reported):
            self._reported(message)
        elif isinstance(message, Seeking | Room | Cancelled | Arena):
            self._lobby(message, now)
        elif isinstance(message, Error):
            self._error(message)
        return False

    def _lobby(self, message: Seeking | Room | Cancelled | Arena, now: float) -> None:
        """What one waits for in the lobby: a seek, a room, an arena."""
        if isinstance(message, Seeking):
            bot, self.asked_bot = self.asked_bot, None
            bot_at = None if bot is None else now + bot.after_s  # the server's timer, near enough
            self.waiting = Waiting("seeking", message.rules, bot=bot, bot_at=bot_at)
        elif isinstance(message, Room):
            self.waiting = Waiting("room", message.rules, message.code)
        elif isinstance(message, Cancelled):
            self.waiting = None
        else:
            self.arena = ArenaView.of(message, now, self.wall())

    def _error(self, error: Error) -> None:
        """An error in words, by its code and the request it answers (its ``id``)."""
        race = self.race
        if error.id == REPORT_ID and race is not None and race.report_refused(error.code):
            return  # the result says it, where the report was asked
        self.note(error_words(error, bot=self.bot), error=True)
        asked = self.asked.pop(error.id, None) if isinstance(error.id, str) else None
        if asked is not None and error.code == "not_allowed":  # refused as rated: offer unrated
            unrated = asked.rules.model_copy(update={"rated": False})
            self.offer = asked.model_copy(update={"rules": unrated, "id": None})
        if race is not None:
            race.sent.clear()  # whatever was in flight is refused or stale
            if error.code == "game_not_found" or error.id == REMATCH_ID:
                race.rematch_asked = False

    def _reported(self, message: Reported) -> None:
        race = self.race
        if race is not None and race.game_id == message.game_id:
            race.report = "done"
        else:  # the player left the result before the answer came
            self.note(t("tui.report.done"))

    def _wait_for_resume(self) -> None:
        """A welcome: a live race on screen is resumed, or gone (see the theory of operation)."""
        race = self.race
        if race is None or race.over is not None or race.other is None:
            self.resuming = None  # nothing to resume: a finished race's result stays up
        else:
            self.resuming = race.game_id

    def _race_gone(self) -> None:
        watched = self.race is not None and self.race.seat is None
        self.resuming, self.race = None, None
        self.note(t("tui.race.watched_gone" if watched else "tui.race.gone"), error=True)

    def _new_race(self, message: GameStart | GameState, now: float) -> None:
        old = self.race
        same = old is not None and old.game_id == message.game_id
        race = RaceView(
            game_id=message.game_id,
            seat=message.seat,
            players=list(message.players),
            rules=message.rules,
            boards=[board_from_wire(board) for board in message.boards],
            statuses=[board.status for board in message.boards],
            seq=message.seq,
            labels=dict(old.labels) if old is not None and same else {},
            bots=list(message.bots),
            ratings=list(message.ratings),
            provisional=[self._provisional(name) for name in message.players],
            commits=list(message.commits),
            idle_s=None if self.limits is None else self.limits.idle_s,
            reached=[{}, {}],
        )
        if old is not None and same:
            race.dealt, race.reached = old.dealt, old.reached  # came back: what was seen stays
        race.set_clocks(message, now)
        race.set_kind(message, old)
        race.relabel()
        self.race, self.waiting = race, None
        if race.seat is not None:
            self.opponent = race.players[1 - race.seat]
        if isinstance(message, GameState) and message.over is not None:
            self._end(race, message.over, now)
        if not same:
            self.note("")

    def _end(self, race: RaceView, over: GameOver, now: float) -> None:
        """``game_over``: the result, the stopwatch stopped, the deal checked."""
        race.over = Outcome.of(over, race.statuses)
        race.stop(now)
        if over.ratings is not None and race.seat is not None and self.rating is not None:
            after = over.ratings[race.seat].after
            self.rating = Rating(rating=after, provisional=self.rating.provisional)
        if race.commits:
            race.deal_check = check_deal(race.rules, race.commits, over.seeds, race.dealt)

    def _race_event(self, message: Played | Redealt | StatusChanged | GameOver, now: float) -> bool:
        race = self.race
        if race is None or race.game_id != message.game_id or race.resyncing:
            return False
        if message.seq <= race.seq:
            return False  # already in the game_state this client resumed from
        if message.seq != race.seq + 1 or not self._apply_event(race, message, now):
            race.resyncing = True
            self.note(t("tui.race.out_of_step"), error=True)
            return True
        race.seq = message.seq
        return False

    def _apply_event(
        self, race: RaceView, message: Played | Redealt | StatusChanged | GameOver, now: float
    ) -> bool:
        """Apply one in-sequence race event; False if it does not fit this copy."""
        if isinstance(message, GameOver):
            self._end(race, message, now)
            return True
        seat = message.seat
        if seat >= len(race.boards):
            return False
        if isinstance(message, Played):
            if not race.apply_played(message):
                return False
        elif isinstance(message, Redealt):
            race.boards[seat] = board_from_wire(message.board)
            if seat == race.main:
                race.labels = {}
        race.statuses[seat] = (
            message.status if not isinstance(message, Redealt) else (message.board.status)
        )
        if seat == race.seat and isinstance(message, Played | Redealt):
            race.restart_idle(now)  # the server accepted a move of ours
        if seat == race.main:
            race.labels = assign_labels(race.labels, race.board.bouquet)
        self._end_if_solo_final(now)
        return True

    def _end_if_solo_final(self, now: float) -> None:
        race = self.race
        if race is None or race.other is not None or race.statuses[0] in RACING:
            return
        count = race.board.count
        last = race.reached[0].get(count) if race.reached else None
        race.over = Outcome("solo", None, race.statuses[0], (count,), (last,))
        race.stop(now)
