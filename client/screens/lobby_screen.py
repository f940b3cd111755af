"""The lobby: who is online, what they seek, public rooms, live races, and what to start.

Actions go up to the app as :class:`~client.messages.Command` messages; the
rules of a quick match or a room are asked in a :class:`RulesScreen` first,
except when seeking with the rules others seek with (Enter on a row of the
seeks table): then the rules are exactly that row's. ``b`` races a bot at once:
a :class:`BotScreen` asks the level, and the seek has the quick match's rules
(unrated: a race with a bot never is) and ``bot: {"after_s": 0, "level": L}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Label

from lang import t
from protocol import BotRequest, Cancel, CreateRoom, Daily, JoinRoom, LeaveArena, Rules, Seek, Watch

from ..apidata import rating_text
from ..competition_words import events_text
from ..levels import DEFAULT_LEVEL, bot_wait_words
from ..messages import Command, Notice
from ..render import (
    player_names,
    render_code,
    render_link_reason,
    render_topbar,
    rules_words,
    versus,
)
from ..words import lobby_help
from .base import StateScreen, TextView, refill
from .browse import HistoryScreen, LeaderboardScreen, ProfileScreen
from .competition_screens import ArenasScreen, DailyBoardScreen
from .forms import BotScreen, RulesChoice, RulesScreen
from .howto_screen import HowToPlayScreen
from .modals import HelpScreen, JoinScreen

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.app import ComposeResult

    from protocol import LobbySnapshot

    from ..state import ClientState

__all__ = ["LobbyScreen", "capped"]


def capped(title: str, short: str, shown: int, total: int) -> str:
    """``title``, or ``Rooms: 100 of 340`` when the server listed only part of the list."""
    return t("tui.lobby.capped", what=short, shown=shown, total=total) if total > shown else title


class LobbyScreen(StateScreen):
    """See the module docstring."""

    DEFAULT_CSS = """
    LobbyScreen { layout: vertical; }
    #topbar { height: 1; background: $panel; padding: 0 1; }
    #size { height: auto; padding: 0 1; }
    #counts { height: 1; padding: 0 1; }
    #events { height: auto; max-height: 3; padding: 0 1; }
    #seekbox { height: auto; max-height: 7; border: round $primary-darken-1; }
    #seeks { height: auto; max-height: 5; }
    #tables { height: 1fr; min-height: 6; }
    #tables > Vertical { width: 1fr; border: round $primary-darken-1; }
    #tables DataTable { height: 1fr; }
    #waiting { height: auto; padding: 0 1; }
    #link { height: auto; padding: 0 1; }
    #notice { height: 1; padding: 0 1; }
    #keys { dock: bottom; height: 1; padding: 0 1; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "seek", "quick match"),
        Binding("b", "bot", "race a bot"),
        Binding("c", "create", "create room"),
        Binding("j", "join", "join by code"),
        # The line under the tables lists these: the footer has no room left at 80 columns
        # (Enter on a race watches it, as the table's title says).
        Binding("w", "watch", "watch race", show=False),
        Binding("l", "leaderboard", "leaderboard", show=False),
        Binding("p", "profile", "your profile", show=False),
        Binding("o", "opponent", "last opponent", show=False),
        Binding("h", "history", "your races", show=False),
        Binding("u", "unrated", "the same, unrated", show=False),
        Binding("d", "daily", "daily deal", show=False),
        Binding("t", "daily_board", "the day's board", show=False),
        Binding("a", "arenas", "arenas", show=False),
        Binding("z", "pause", "pause the arena", show=False),
        Binding("i", "howto", "how to play", show=False),
        Binding("escape", "cancel", "cancel"),
        Binding("question_mark", "help", "help"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(
        self,
        state: ClientState,
        clock: Callable[[], float],
        rules: Rules,
        bot: BotRequest | None = None,
    ) -> None:
        super().__init__(state, clock)
        self.rules = rules
        """The rules offered first in the forms: the command line's, then the last used."""
        self.bot_after = bot.after_s if bot is not None and bot.after_s > 0 else None
        """The quick-match form's wait before a bot (None: off): the command line's, the last."""
        self.level = DEFAULT_LEVEL if bot is None else bot.level
        """The bot's level offered first, in the form and by ``b``."""
        self._shown: LobbySnapshot | None = None

    def compose(self) -> ComposeResult:
        yield TextView(id="topbar")
        yield TextView(id="size")
        yield TextView(id="counts")
        yield TextView(id="events")
        with Vertical(id="seekbox"):
            yield Label(" " + t("tui.lobby.seeks_title"), id="seeks-title")
            yield DataTable(id="seeks", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="tables"):
            with Vertical():
                yield Label(
                    f" {t('tui.lobby.rooms_title')} ({t('tui.lobby.rooms_enter')})",
                    id="rooms-title",
                )
                yield DataTable(id="rooms", cursor_type="row", zebra_stripes=True)
            with Vertical():
                games = f" {t('tui.lobby.games_title')} ({t('tui.lobby.games_enter')})"
                yield Label(games, id="games-title")
                yield DataTable(id="games", cursor_type="row", zebra_stripes=True)
        yield TextView(id="waiting")
        yield TextView(id="link")
        yield TextView(id="notice")
        yield TextView(t("tui.lobby.footer"), id="keys")

    def on_mount(self) -> None:
        self.query_one("#seeks", DataTable).add_columns(
            t("tui.column.rules"), t("tui.column.waiting")
        )
        rooms = (t("tui.column.code"), t("tui.column.host"), t("tui.column.rules"))
        self.query_one("#rooms", DataTable).add_columns(*rooms)
        games = (t("tui.column.players"), t("tui.column.counts"))
        self.query_one("#games", DataTable).add_columns(*games)
        super().on_mount()

    def show(self, state: ClientState, now: float) -> None:
        self.query_one("#topbar", TextView).set(render_topbar(state, now))
        self.show_size()
        lobby = state.lobby
        counts = Text(
            t("tui.lobby.you_are", name=player_names([state.name or "…"], [state.bot])[0])
        )
        if state.rating is not None:
            counts.append(f" ({rating_text(state.rating.rating, state.rating.provisional)})")
        if lobby is not None:
            online = t("tui.lobby.online", count=lobby.online)
            counts.append(f"  ·  {online}  ·  {t('tui.lobby.seeking', count=lobby.seeking)}")
        self.query_one("#counts", TextView).set(counts)
        events = self.query_one("#events", TextView)
        events.set(events_text(state, now))
        events.display = bool(events.shown.plain)
        if lobby is not None and lobby != self._shown:  # a poll that changed nothing keeps all
            self._shown = lobby
            self._fill(lobby)
        self.query_one("#waiting", TextView).set(self._waiting(state, now))
        reason = render_link_reason(state)
        link = self.query_one("#link", TextView)
        link.set(reason)
        link.display = bool(reason.plain)
        style = "bold red" if state.notice_is_error else ""
        self.query_one("#notice", TextView).set(Text(state.notice, style=style))

    def _fill(self, lobby: LobbySnapshot) -> None:
        seeks = [
            # The row's key is the rules themselves: Enter seeks with exactly them.
            (seek.rules.model_dump_json(), (rules_words(seek.rules), str(seek.count)))
            for seek in lobby.seeks
        ]
        refill(self.query_one("#seeks", DataTable), seeks)
        self.query_one("#seekbox").display = bool(lobby.seeks)
        rooms = [(r.code, (r.code, r.host, rules_words(r.rules))) for r in lobby.rooms]
        refill(self.query_one("#rooms", DataTable), rooms)
        games = []
        for game in lobby.games:
            counts = " - ".join(f"{count}/52" for count in game.counts)
            names = versus(player_names(game.players, game.bots))
            games.append((game.game_id, (names, counts)))
        refill(self.query_one("#games", DataTable), games)
        rooms_title = capped(
            t("tui.lobby.rooms_title"), t("tui.lobby.rooms"), len(lobby.rooms), lobby.rooms_total
        )
        self.query_one("#rooms-title", Label).update(
            f" {rooms_title} ({t('tui.lobby.rooms_enter')})"
        )
        games_title = capped(
            t("tui.lobby.games_title"), t("tui.lobby.games"), len(lobby.games), lobby.games_total
        )
        self.query_one("#games-title", Label).update(
            f" {games_title} ({t('tui.lobby.games_enter')})"
        )

    @staticmethod
    def _waiting(state: ClientState, now: float) -> Text:
        waiting = state.waiting
        if state.link in ("failed", "replaced", "banned"):
            return Text(t("tui.lobby.not_connected"), style="dim")
        if waiting is None:
            return Text(t("tui.lobby.hints"), style="dim")
        if waiting.kind == "seeking":
            text = Text(t("tui.lobby.seeking_rules", rules=rules_words(waiting.rules)))
            bot = bot_wait_words(waiting, now)
            if bot:  # "a bot (BOT-Hare) takes the seat in 23 s", counting down
                return text.append(f" {bot}").append("\n" + t("tui.lobby.esc_cancels"), style="dim")
            return text.append("  " + t("tui.lobby.esc_cancels"))
        text = Text(t("tui.lobby.your_room", rules=rules_words(waiting.rules)) + "\n")
        text.append_text(render_code(waiting.code))
        text.append("\n" + t("tui.lobby.room_waiting"), style="dim")
        return text

    # -- actions ---------------------------------------------------------------

    def _ask_rules(self, *, room: bool) -> None:
        def chosen(choice: RulesChoice | None) -> None:
            if choice is None:
                return
            self.rules = choice.rules
            if room:
                self.post_message(Command(CreateRoom(rules=choice.rules, public=choice.public)))
            else:
                self.level = choice.level
                self.bot_after = None if choice.bot is None else choice.bot.after_s
                self.post_message(Command(Seek(rules=choice.rules, bot=choice.bot)))

        form = RulesScreen(self.rules, room=room, after=self.bot_after, level=self.level)
        self.app.push_screen(form, chosen)

    def action_seek(self) -> None:
        self._ask_rules(room=False)

    def action_bot(self) -> None:
        """Race a bot now, at the level asked, with the quick match's rules (never rated)."""
        rules = self.rules.model_copy(update={"rated": False})

        def chosen(level: int | None) -> None:
            if level is None:
                return
            if self.state.waiting is not None:  # seeking or in a room: that stops first
                self.post_message(Command(Cancel()))
            self.level = level
            self.post_message(Command(Seek(rules=rules, bot=BotRequest(after_s=0, level=level))))

        self.app.push_screen(BotScreen(rules, self.level), chosen)

    def action_create(self) -> None:
        self._ask_rules(room=True)

    def action_join(self) -> None:
        def chosen(code: str | None) -> None:
            if code:
                self.post_message(Command(JoinRoom(code=code.upper())))

        self.app.push_screen(JoinScreen(), chosen)

    def action_watch(self) -> None:
        games = self.query_one("#games", DataTable)
        if not games.row_count:
            return
        key = games.coordinate_to_cell_key(games.cursor_coordinate).row_key
        if key.value is not None:
            self.post_message(Command(Watch(game_id=key.value)))

    def action_cancel(self) -> None:
        if self.state.waiting is not None:
            self.post_message(Command(Cancel()))
        else:
            self.action_pause()

    def action_pause(self) -> None:
        """Leave the arena one is in: no race is paired for this player any more."""
        if self.state.arena is not None and self.state.arena.joined:
            self.post_message(Command(LeaveArena()))

    def action_daily(self) -> None:
        """Race today's deal against the ghost of the day's best (a seek or room stops first)."""
        if self.state.lobby is not None and self.state.lobby.daily is None:
            self.post_message(Notice(t("tui.daily.none"), error=True))
            return
        if self.state.waiting is not None:
            self.post_message(Command(Cancel()))
        self.post_message(Command(Daily()))

    def action_daily_board(self) -> None:
        self.app.push_screen(DailyBoardScreen(self.state, self.clock))

    def action_arenas(self) -> None:
        self.app.push_screen(ArenasScreen(self.state, self.clock))

    def action_unrated(self) -> None:
        """The rated seek or room the server refused (``not_allowed``), unrated."""
        offer = self.state.offer
        if offer is None:
            self.post_message(Notice(t("tui.refused.nothing")))
        else:
            self.post_message(Command(offer))

    def action_leaderboard(self) -> None:
        self.app.push_screen(LeaderboardScreen(self.state, self.clock))

    def action_profile(self) -> None:
        if self._named():
            self.app.push_screen(ProfileScreen(self.state, self.clock, self.state.name))

    def action_opponent(self) -> None:
        opponent = self.state.opponent
        if opponent is None:
            self.post_message(Notice(t("tui.lobby.no_opponent"), error=True))
        else:
            self.app.push_screen(ProfileScreen(self.state, self.clock, opponent))

    def action_history(self) -> None:
        if self._named():
            self.app.push_screen(HistoryScreen(self.state, self.clock, self.state.name))

    def _named(self) -> bool:
        if not self.state.name:
            self.post_message(Notice(t("tui.lobby.not_signed_in"), error=True))
        return bool(self.state.name)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(lobby_help()))

    def action_howto(self) -> None:
        self.app.push_screen(HowToPlayScreen())

    def action_quit(self) -> None:
        self.app.exit(0)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = event.row_key.value
        if key is None:
            return
        if event.data_table.id == "seeks":
            self.post_message(Command(Seek(rules=Rules.model_validate_json(key))))
        elif event.data_table.id == "rooms":
            self.post_message(Command(JoinRoom(code=key)))
        else:
            self.post_message(Command(Watch(game_id=key)))
