"""The Textual app: owns the client state, the backend (server or practice) and the screens.

Attributes down, messages up: the app alone changes :attr:`FlowerGardenApp.state`
(from :class:`~client.net.ServerEvent`, :class:`~client.net.LinkChanged` and the
screens' :class:`~client.messages.Command` and :class:`~client.messages.Notice`)
and then calls :meth:`sync`, which puts the right screen on top and has every
screen draw the state again. The websocket lives in one worker
(:meth:`~client.net.ServerConnection.run`).
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, ClassVar, Protocol

from textual.app import App

from lang import t
from protocol import (
    BotRequest,
    Cancel,
    CreateRoom,
    Error,
    JoinRoom,
    LobbyRequest,
    LobbySnapshot,
    Play,
    Seek,
    Watch,
    Welcome,
)

from .api_client import ApiClient, ApiError
from .bests import Best, BestStore, practice_key
from .failures import address
from .keys import Refusal, resolve_key, resolve_prompt
from .lookups import answer, queries_after
from .net import LinkChanged, NameRefused, ServerConnection, ServerEvent
from .practice import Dealt, Practice
from .render import player_names
from .screens import BrowseScreen, LobbyScreen, NameScreen, RaceScreen, ReplayScreen, StateScreen
from .screens.standing import BannedScreen, RatedRefusedScreen
from .state import ClientState, outcome_words
from .terminal import TerminalWatch
from .tokens import TokenStore
from .words import ANSWERED_BY_ID

if TYPE_CHECKING:
    from collections.abc import Callable

    from engine import Board, Card
    from protocol import ClientMessage

    from .lookups import Query
    from .messages import BackToLobby, CardKey, CardTyped, Command, Fetch, Notice, ReplayControl
    from .options import Options
    from .race_view import Waiting

__all__ = ["Backend", "FlowerGardenApp"]

LOBBY_POLL = 3.0
"""Seconds between lobby snapshots while the lobby is on screen (the server pushes none)."""
TERMINAL_GONE = 1
"""The exit code when the terminal went away under the app."""
REPLAY_TICK = 0.05
"""Seconds between a replay's steps on screen: at 8x a bot's card every 40 ms keeps up."""


class Backend(Protocol):
    """What the app sends through: :class:`~client.net.ServerConnection` or :class:`Practice`."""

    def send(self, message: ClientMessage) -> bool: ...

    def resync(self) -> None: ...


class FlowerGardenApp(App[int]):
    """``flowergarden``: race from the terminal, or practise alone."""

    TITLE = "Flower Garden"
    ENABLE_COMMAND_PALETTE = False
    CSS: ClassVar[str] = "Screen { background: $background; }"

    def __init__(
        self,
        options: Options,
        *,
        tokens: TokenStore | None = None,
        bests: BestStore | None = None,
        clock: Callable[[], float] = time.monotonic,
        api: ApiClient | None = None,
    ) -> None:
        super().__init__()
        self.options = options
        self.tokens = tokens if tokens is not None else TokenStore()
        self.bests = bests if bests is not None else BestStore()
        self.clock = clock
        self.state = ClientState(options.server, options.name or "", ascii=options.ascii)
        self.backend: Backend | None = None
        self.connection: ServerConnection | None = None
        if api is None and not options.practice:
            api = ApiClient(options.server)
        self.api = api
        """The server's HTTP API (:mod:`client.api_client`); None in practice."""
        self._start = self._first_action(options)
        self._welcomed = False
        self._polled = 0.0
        self._terminal = TerminalWatch(-1)

    # -- start -----------------------------------------------------------------

    def on_mount(self) -> None:
        # A test runs headless, on no terminal; a real run watches the one it started on.
        self._terminal = TerminalWatch(-1 if self.is_headless else None)
        self.set_interval(0.5, self._tick)
        self.set_interval(REPLAY_TICK, self._replay_tick)
        if self.options.practice:
            practice = Practice(
                self.post_message,
                seed=self.options.seed,
                winnable_only=self.options.rules.winnable_only,
                redeals=self.options.rules.redeals,
                clock=self.clock,
            )
            self.backend = practice
            self.state.name = self.options.name or "you"
            practice.start()
            return
        self.push_screen(LobbyScreen(self.state, self.clock, self.options.rules, self.options.bot))
        name = self.options.name
        if name is None and self.tokens.get(self.options.server) is None:
            self.push_screen(NameScreen(), self._connect)
        else:
            self._connect(name)

    def _connect(self, name: str | None) -> None:
        self.connection = ServerConnection(
            self.options.server, name, self.tokens, self.post_message
        )
        self.backend = self.connection
        self.run_worker(self.connection.run(), name="net", group="net", exclusive=True)

    @staticmethod
    def _first_action(options: Options) -> ClientMessage | None:
        if options.action == "seek":
            return Seek(rules=options.rules, bot=options.bot)
        if options.action == "create_room":
            return CreateRoom(rules=options.rules, public=options.public)
        if options.action == "join_room":
            return JoinRoom(code=options.room.upper())
        return None

    # -- messages up -----------------------------------------------------------

    def on_server_event(self, event: ServerEvent) -> None:
        message = event.message
        if isinstance(message, Welcome):
            self._on_welcome()
        if self.state.apply(message, self.clock()) and self.backend is not None:
            self.backend.resync()
        self._practice_best()
        for query in queries_after(self.state, message):
            self.fetch(query)
        if isinstance(message, Error):
            self._offer_unrated()
        if isinstance(message, LobbySnapshot) and self._start is not None:
            # After the snapshot, so that a resumed race (game_state comes first) wins.
            start, self._start = self._start, None
            race = self.state.race
            if race is not None and race.over is not None:
                # A race that ended while we were away: say how, then do as asked.
                clock = race.rules.time_limit_s
                headline, reason = outcome_words(
                    race.over,
                    race.seat,
                    player_names(race.players, race.bots),
                    idle_s=race.idle_s,
                    clock_s=clock,
                )
                self.state.leave_race()
                self.state.note(t("tui.app.last_race", headline=headline, reason=reason))
            if self.state.race is None:
                self.send(start)
        self.sync()

    def _offer_unrated(self) -> None:
        """A rated seek or room was refused (``not_allowed``): say why, offer it unrated."""
        offer = self.state.offer
        if offer is None or isinstance(self.screen, RatedRefusedScreen):
            return

        def answered(yes: bool | None) -> None:
            if yes and self.state.offer is offer:
                self.state.note("")
                self.send(offer)
            self.sync()

        self.push_screen(RatedRefusedScreen(self.state.notice, offer), answered)

    def _on_welcome(self) -> None:
        waiting = self.state.waiting
        if self._welcomed and waiting is not None:
            # The server forgot our seek or room with the old connection: ask again.
            self.state.waiting = None
            if waiting.kind == "seeking":
                self._start = Seek(rules=waiting.rules, bot=self._bot_left(waiting))
            else:
                self._start = CreateRoom(rules=waiting.rules, public=self.options.public)
                self.state.note(t("tui.app.room_new_code"))
        self._welcomed = True
        race = self.state.race
        if race is not None and race.seat is None and race.over is None:
            # The server forgets spectators with their connection: watch again.
            self.send(Watch(game_id=race.game_id))
        # Last: the answer to this lobby comes after any game_state that resumes a race
        # (ClientState.resuming), so it also says when no game_state is coming.
        self.send(LobbyRequest())

    def _bot_left(self, waiting: Waiting) -> BotRequest | None:
        """The bot a seek lost with the connection asked for, with the wait that was left."""
        if waiting.bot is None or waiting.bot_at is None:
            return None
        left = min(300, max(0, math.ceil(waiting.bot_at - self.clock())))
        return BotRequest(after_s=left, level=waiting.bot.level)

    def on_link_changed(self, event: LinkChanged) -> None:
        now = self.clock()
        retry_at = None if event.delay is None else now + event.delay
        self.state.set_link(event.link, now, event.attempt, retry_at, event.reason)
        self.sync()

    def on_name_refused(self, event: NameRefused) -> None:
        self.push_screen(NameScreen(event.reason, value=event.name), self._connect)

    def on_dealt(self, event: Dealt) -> None:
        target = self.bests.get(practice_key(event.rules))
        self.state.begin_practice(event.board, event.rules, self.clock(), target)
        self._practice_best()
        self.sync()

    def _practice_best(self) -> None:
        """A practice game just ended: keep its result if it beats the best for its rules."""
        race = self.state.race
        over = None if race is None else race.over
        if race is None or over is None or over.result != "solo" or race.best is not None:
            return
        t_ms = over.times_ms[0] if over.times_ms else None
        by_the_cards = over.reason in ("cleared", "stalled")  # a game given up does not count
        result = Best(over.counts[0], t_ms) if by_the_cards and t_ms is not None else None
        self.state.set_best(self.bests.record(practice_key(race.rules), result))

    def on_command(self, event: Command) -> None:
        self.send(event.message)
        self.sync()

    def on_card_key(self, event: CardKey) -> None:
        def resolve(board: Board) -> Card | Refusal | None:
            assert self.state.race is not None
            return resolve_key(event.key, board, self.state.race.labels, ascii=self.state.ascii)

        self._play(resolve)

    def on_card_typed(self, event: CardTyped) -> None:
        self._play(lambda board: resolve_prompt(event.text, board, ascii=self.state.ascii))

    def _play(self, resolve: Callable[[Board], Card | Refusal | None]) -> None:
        """Play what a key or the prompt names, or say at once why not (no round trip)."""
        race = self.state.race
        if race is None:
            return
        found = resolve(race.projected()) if race.can_play else Refusal(race.why_not_playing())
        if isinstance(found, Refusal):
            self.state.note(found.reason, error=True)
        elif found is not None:
            self.state.note("")
            self.send(Play(card=str(found)))
        self.sync()

    def on_notice(self, event: Notice) -> None:
        self.state.note(event.text, error=event.error)
        self.sync()

    def on_back_to_lobby(self, event: BackToLobby) -> None:
        race = self.state.race
        if race is not None and race.seat is None:
            self.send(Cancel())  # stop watching
        self.state.leave_race()
        self.send(LobbyRequest())
        self.sync()

    def on_fetch(self, event: Fetch) -> None:
        self.fetch(event.query)
        self.sync()

    def fetch(self, query: Query) -> None:
        """Ask the HTTP API in a worker, unless the same is asked already; the state keeps it."""
        if self.api is None:
            self.state.lookups.failed(query, t("tui.app.practice_no_server"))
        elif self.state.lookups.ask(query):
            self.run_worker(self._fetch(self.api, query), group="api", exit_on_error=False)

    async def _fetch(self, api: ApiClient, query: Query) -> None:
        try:
            self.state.answered(query, await answer(api, query), self.clock())
        except ApiError as exc:
            self.state.lookups.failed(query, exc.words)
        except Exception as exc:  # a bug here must cost the lookup, not the race
            self.state.lookups.failed(query, t("tui.app.unreadable", why=repr(exc)))
        self.sync()

    def on_replay_control(self, event: ReplayControl) -> None:
        replay = self.state.lookups.race(event.game_id).value
        if replay is None:
            return
        replay.control(event.action, self.clock())
        self.sync()

    def send(self, message: ClientMessage) -> bool:
        """Send through the backend; a line that is down is said so at once.

        A request of :data:`~client.words.ANSWERED_BY_ID` goes with its type as its ``id``,
        so that an error is read by what it answers.
        """
        if message.type in ANSWERED_BY_ID and message.id is None:
            message = message.model_copy(update={"id": message.type})
        if self.backend is None or not self.backend.send(message):
            self.state.note(t("tui.app.not_sent"), error=True)
            return False
        self.state.sending(message)
        return True

    # -- attributes down -------------------------------------------------------

    def sync(self) -> None:
        """Put the screen that fits the state on top, and have every screen draw it."""
        if not self.screen_stack:
            return  # the app is closing: a message that arrives now has nothing to show on
        if self.state.link == "banned":
            if not any(isinstance(screen, BannedScreen) for screen in self.screen_stack):
                where = address(self.options.server)
                self.push_screen(BannedScreen(self.state, self.clock, where))
            self._redraw()
            return
        racing = self.state.race is not None
        on_race = any(isinstance(screen, RaceScreen) for screen in self.screen_stack)
        if racing and not on_race:
            while not isinstance(self.screen, LobbyScreen) and len(self.screen_stack) > 1:
                self.pop_screen()  # forms over the lobby are moot once a race starts
            self.push_screen(RaceScreen(self.state, self.clock))
        elif not racing and on_race and not self.options.practice:
            while not isinstance(self.screen, LobbyScreen) and len(self.screen_stack) > 1:
                self.pop_screen()
        elif racing and self.state.race is not None and self.state.race.over is None:
            while isinstance(self.screen_stack[-1], BrowseScreen | ReplayScreen):
                self.pop_screen()  # a rematch began while looking at a profile
        self._redraw()

    def _redraw(self) -> None:
        now = self.clock()
        for screen in self.screen_stack:
            if isinstance(screen, StateScreen):
                screen.redraw(now)

    def _replay_tick(self) -> None:
        """Move the replay on screen on to the clock's ``now``, and draw it."""
        screen = self.screen_stack[-1] if self.screen_stack else None  # none while closing
        if not isinstance(screen, ReplayScreen):
            return
        replay = self.state.lookups.race(screen.game_id).value
        if replay is not None and not replay.ended:
            now = self.clock()
            replay.advance(now)
            screen.redraw(now)

    def _tick(self) -> None:
        if self._terminal.gone():
            self.exit(TERMINAL_GONE)  # nobody to show anything to (client/terminal.py)
            return
        now = self.clock()
        if (
            self.state.race is None
            and self.state.link == "online"
            and now - self._polled >= LOBBY_POLL
        ):
            self._polled = now
            self.send(LobbyRequest())
        self.sync()
