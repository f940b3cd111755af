"""The daily deal's board and the arenas list (:mod:`client.competition_words` has the words).

:class:`DailyBoardScreen` draws today's board as ``GET /api/daily`` gave it (the app
asks again on ``r``, and after each daily race); ``d`` races the deal from there.
:class:`ArenasScreen` lists the lobby's arenas (``lobby.arenas``, polled with the
lobby) with their countdowns; Enter joins the one under the cursor, and the app
puts the race on top as soon as the arena pairs one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from lang import t
from protocol import Daily, JoinArena, LobbyRequest

from ..competition_words import arena_line, arena_rows, ordinal
from ..lookups import DailyQuery
from ..messages import Command, Fetch
from ..timing import seconds_text
from .base import TextView, refill
from .browse import BROWSE_CSS, BrowseScreen

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from ..apidata import DailyBoard
    from ..state import ClientState

__all__ = ["ArenasScreen", "DailyBoardScreen", "daily_rows"]


def daily_rows(board: DailyBoard) -> list[tuple[str, list[str]]]:
    """The day's board as rows (key, cells): rank, name, time to clear, cards."""
    return [
        (
            line.game_id,
            [
                ordinal(line.rank),
                line.name,
                "" if line.time_ms is None else seconds_text(line.time_ms),
                f"{line.count}/52",  # a count, as the boards write it
            ],
        )
        for line in board.board
    ]


class DailyBoardScreen(BrowseScreen):
    """Today's deal: its ranked races, best first; ``d`` races it against the ghost."""

    DEFAULT_CSS = BROWSE_CSS.format(name="DailyBoardScreen")
    BINDINGS: ClassVar[list[BindingType]] = [Binding("d", "daily", "race the ghost")]
    KEYS = (("d", "tui.daily.race_ghost"),)

    def body(self) -> ComposeResult:
        yield DataTable(id="board", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        columns = ("tui.column.rank", "tui.column.name", "tui.column.time", "tui.column.cards")
        self.query_one("#board", DataTable).add_columns(*map(t, columns))

    def action_refresh(self) -> None:
        self.post_message(Fetch(DailyQuery()))

    def action_daily(self) -> None:
        self.post_message(Command(Daily()))

    def show(self, state: ClientState, now: float) -> None:
        self.show_size()
        lookup = state.lookups.daily
        board = lookup.value
        title = t("tui.daily.board_title")
        if board is not None:
            title = t("tui.daily.board_of", day=board.date, count=board.players)
        self.query_one("#title", TextView).set(Text(title))
        if self.fresh(board):
            refill(self.query_one("#board", DataTable), [] if board is None else daily_rows(board))
        if board is not None and not board.board and not lookup.error:
            self.query_one("#status", TextView).set(Text(t("tui.daily.board_empty")))
        else:
            self.status(lookup.pending, lookup.error, shown=board is not None)


class ArenasScreen(BrowseScreen):
    """The arenas the lobby lists; Enter joins one (``join_arena``)."""

    DEFAULT_CSS = BROWSE_CSS.format(name="ArenasScreen")

    def body(self) -> ComposeResult:
        yield TextView(id="body")
        yield DataTable(id="arenas", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        columns = ("tui.column.arena", "tui.column.status", "tui.column.when", "tui.column.players")
        self.query_one("#arenas", DataTable).add_columns(*map(t, columns))

    def action_refresh(self) -> None:
        self.post_message(Command(LobbyRequest()))  # the lobby lists the arenas

    def show(self, state: ClientState, now: float) -> None:
        self.show_size()
        arenas = [] if state.lobby is None else state.lobby.arenas
        title = t("tui.arena.list_title")
        self.query_one("#title", TextView).set(Text(title))
        joined = state.arena
        self.query_one("#body", TextView).set(
            arena_line(joined, now) if joined is not None else Text(t("tui.arena.enter_joins"))
        )
        # Every redraw: the countdowns move (refill keeps the cursor on its row).
        refill(self.query_one("#arenas", DataTable), arena_rows(arenas, now, state.wall()))
        empty = Text(t("tui.arena.none"))
        self.query_one("#status", TextView).set(Text() if arenas else empty)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(Command(JoinArena(arena_id=event.row_key.value)))
