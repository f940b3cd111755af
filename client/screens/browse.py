"""Screens of what the server's HTTP API tells: the leaderboard, a profile, a race history.

Each asks the app for what it shows with a :class:`~client.messages.Fetch`
when it opens (and again on ``r``), and draws the state's lookups
(:mod:`client.lookups`) whenever the app redraws; none holds what it shows.
``Esc`` goes back to the screen below. A race starting (a quick match, a
rematch) closes them all: the app puts the race on top.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from lang import t

from ..api_drawings import (
    history_rows,
    history_title,
    leader_rows,
    lookup_status,
    render_profile,
)
from ..lookups import HistoryQuery, LeaderboardQuery, ProfileQuery
from ..messages import Fetch
from .base import StateScreen, TextView, refill
from .replay_screen import ReplayScreen

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.app import ComposeResult

    from ..state import ClientState

__all__ = ["BROWSE_CSS", "BrowseScreen", "HistoryScreen", "LeaderboardScreen", "ProfileScreen"]

BROWSE_CSS = """
{name} {{ layout: vertical; }}
{name} #title {{ height: 1; background: $panel; padding: 0 1; text-style: bold; }}
{name} #size {{ height: auto; padding: 0 1; }}
{name} #body {{ height: auto; padding: 1 1 0 1; }}
{name} DataTable {{ height: 1fr; }}
{name} #status {{ height: auto; padding: 0 1; }}
{name} #keys {{ dock: bottom; height: 1; padding: 0 1; color: $text-muted; }}
"""


class BrowseScreen(StateScreen):
    """What the three screens share: a title, the lookup's state, Esc back."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "back"),
        Binding("r", "refresh", "refresh"),
    ]
    KEYS: ClassVar[tuple[tuple[str, str], ...]] = ()
    """The screen's own keys for the keys line: (key, the catalogue's key of its words)."""

    def __init__(self, state: ClientState, clock: Callable[[], float]) -> None:
        super().__init__(state, clock)
        self._shown: object = None
        """What the table was last filled from: it is filled again only when that changes."""

    def fresh(self, shown: object) -> bool:
        """Whether ``shown`` differs from what the table shows (and remember it)."""
        if shown == self._shown:
            return False
        self._shown = shown
        return True

    def compose(self) -> ComposeResult:
        yield TextView(id="title")
        yield TextView(id="size")
        yield from self.body()
        yield TextView(id="status")
        yield TextView(self.hints(), id="keys")

    def hints(self) -> str:
        """The keys line at the bottom: ``Esc back  r refresh`` and the screen's own."""
        keys = [("Esc", "tui.browse.back"), ("r", "tui.browse.refresh"), *self.KEYS]
        return "  ".join(f"{key} {t(name)}" for key, name in keys)

    def body(self) -> ComposeResult:
        yield from ()

    def on_mount(self) -> None:
        # Textual calls every class's on_mount, most derived first; StateScreen's draws.
        self.action_refresh()

    def action_back(self) -> None:
        self.dismiss()

    def action_refresh(self) -> None:
        """Ask the API again (the answer replaces what is shown once it comes)."""

    def status(self, pending: bool, error: str, *, shown: bool) -> None:
        self.query_one("#status", TextView).set(lookup_status(pending, error, shown=shown))


class LeaderboardScreen(BrowseScreen):
    """The rated players, best first (``GET /api/leaderboard``); Enter shows a profile."""

    DEFAULT_CSS = BROWSE_CSS.format(name="LeaderboardScreen")

    def body(self) -> ComposeResult:
        yield DataTable(id="board", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        columns = ("tui.column.rank", "tui.column.name", "tui.column.rating", "tui.column.races")
        self.query_one("#board", DataTable).add_columns(*map(t, columns))

    def action_refresh(self) -> None:
        self.post_message(Fetch(LeaderboardQuery()))

    def show(self, state: ClientState, now: float) -> None:
        self.show_size()
        lookup = state.lookups.leaderboard
        title = t("tui.browse.leaderboard")
        self.query_one("#title", TextView).set(Text(title))
        board = lookup.value
        rows = [] if board is None else leader_rows(board)
        if self.fresh(board):
            refill(self.query_one("#board", DataTable), rows)
        empty = board is not None and not rows and not lookup.error
        if empty:
            self.query_one("#status", TextView).set(Text(t("tui.browse.leaderboard_empty")))
        else:
            self.status(lookup.pending, lookup.error, shown=board is not None)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.app.push_screen(ProfileScreen(self.state, self.clock, event.row_key.value))


class ProfileScreen(BrowseScreen):
    """One player's profile (``GET /api/players/NAME``); ``h`` lists their races."""

    DEFAULT_CSS = BROWSE_CSS.format(name="ProfileScreen")
    BINDINGS: ClassVar[list[BindingType]] = [Binding("h", "history", "their races")]
    KEYS = (("h", "tui.browse.their_races"),)

    def __init__(self, state: ClientState, clock: Callable[[], float], name: str) -> None:
        super().__init__(state, clock)
        self.player = name

    def body(self) -> ComposeResult:
        yield TextView(id="body")

    def action_refresh(self) -> None:
        self.post_message(Fetch(ProfileQuery(self.player)))

    def action_history(self) -> None:
        profile = self.state.lookups.profile(self.player).value
        name = self.player if profile is None else profile.name
        self.app.push_screen(HistoryScreen(self.state, self.clock, name))

    def show(self, state: ClientState, now: float) -> None:
        self.show_size()
        you = self.player.casefold() == state.name.casefold()
        title = t("tui.browse.your_profile") if you else t("tui.browse.profile", name=self.player)
        self.query_one("#title", TextView).set(Text(title))
        lookup = state.lookups.profile(self.player)
        self.query_one("#body", TextView).set(render_profile(lookup, self.player))
        self.status(lookup.pending, lookup.error, shown=lookup.value is not None)


class HistoryScreen(BrowseScreen):
    """A player's finished races, newest first, a page at a time; Enter replays one."""

    DEFAULT_CSS = BROWSE_CSS.format(name="HistoryScreen")
    BINDINGS: ClassVar[list[BindingType]] = [Binding("n", "older", "older races")]
    KEYS = (("n", "tui.browse.older"),)

    def __init__(self, state: ClientState, clock: Callable[[], float], name: str) -> None:
        super().__init__(state, clock)
        self.player = name

    def body(self) -> ComposeResult:
        yield DataTable(id="races", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        columns = ("ended", "against", "result", "cards", "time", "rating")
        self.query_one("#races", DataTable).add_columns(*(t(f"tui.column.{c}") for c in columns))

    def action_refresh(self) -> None:
        self.post_message(Fetch(HistoryQuery(self.player)))

    def action_older(self) -> None:
        history = self.state.lookups.history(self.player)
        if history.more:
            self.post_message(Fetch(HistoryQuery(self.player, before=history.next)))

    def show(self, state: ClientState, now: float) -> None:
        self.show_size()
        history = state.lookups.history(self.player)
        self.query_one("#title", TextView).set(Text(history_title(history)))
        if self.fresh(tuple(race.game_id for race in history.races)):
            refill(self.query_one("#races", DataTable), history_rows(history))
        self.status(history.pending, history.error, shown=history.loaded)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.app.push_screen(ReplayScreen(self.state, self.clock, event.row_key.value))
