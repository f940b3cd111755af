"""The replay of a finished race: both boards as they were, move by move, at a chosen speed.

The replay itself is :class:`~client.replay.Replay`, in the state; this
screen asks for the race's record when it opens (a record already fetched
plays again from the deal), draws the replay with the race screen's boards,
and sends its keys up as :class:`~client.messages.ReplayControl`. The app
moves the replay on with its clock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import Horizontal

from lang import t

from ..api_drawings import lookup_status, replay_bar, replay_end
from ..lookups import RaceQuery
from ..messages import Fetch, ReplayControl
from ..replay import SPEEDS
from .base import StateScreen, TextView
from .boards import BoardView

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.app import ComposeResult

    from ..state import ClientState

__all__ = ["ReplayScreen"]


class ReplayScreen(StateScreen):
    """See the module docstring."""

    DEFAULT_CSS = """
    ReplayScreen { layout: vertical; }
    #topbar { height: 1; background: $panel; padding: 0 1; }
    #size { height: auto; padding: 0 1; }
    #boards { height: auto; }
    #mine { width: 1fr; min-width: 38; }
    #theirs { width: 1fr; min-width: 38; }
    #move { height: 1; padding: 0 1; }
    #end { height: auto; padding: 0 1; }
    #status { height: auto; padding: 0 1; }
    #keys { dock: bottom; height: 1; padding: 0 1; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "back"),
        Binding("space", "control('pause')", "pause", show=False),
        Binding("right,full_stop", "control('step')", "step", show=False),
        Binding("left,comma", "control('back')", "back one", show=False),
        Binding("home", "control('restart')", "start", show=False),
        Binding("end", "control('end')", "end", show=False),
        *(Binding(str(x), f"control('{x}')", f"{x}x", show=False) for x in SPEEDS),
    ]

    def __init__(self, state: ClientState, clock: Callable[[], float], game_id: str) -> None:
        super().__init__(state, clock)
        self.game_id = game_id

    def compose(self) -> ComposeResult:
        yield TextView(id="topbar")
        yield TextView(id="size")
        with Horizontal(id="boards"):
            yield BoardView(main=True, id="mine")
            yield BoardView(main=False, id="theirs")
        yield TextView(id="move")
        yield TextView(id="end")
        yield TextView(id="status")
        yield TextView(t("tui.replay.keys"), id="keys")

    def on_mount(self) -> None:
        if self.state.lookups.race(self.game_id).value is None:
            self.post_message(Fetch(RaceQuery(self.game_id)))
        else:  # fetched before: a finished race's record does not change
            self.post_message(ReplayControl(self.game_id, "restart"))

    def show(self, state: ClientState, now: float) -> None:
        self.show_size()
        lookup = state.lookups.race(self.game_id)
        replay = lookup.value
        status = self.query_one("#status", TextView)
        status.set(lookup_status(lookup.pending, lookup.error, shown=replay is not None))
        view = None if replay is None else replay.view
        for board in self.query(BoardView):
            board.show(view, ascii=state.ascii, now=now)
        if replay is None:
            self.query_one("#topbar", TextView).set(
                Text(t("tui.replay.of", id=self.game_id), "bold")
            )
            return
        self.query_one("#topbar", TextView).set(replay_bar(replay, now))
        self.query_one("#move", TextView).set(Text(replay.last_move_words(ascii=state.ascii)))
        self.query_one("#end", TextView).set(replay_end(replay))

    def action_back(self) -> None:
        self.dismiss()

    def action_control(self, action: str) -> None:
        self.post_message(ReplayControl(self.game_id, action))
