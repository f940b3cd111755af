"""What every screen that draws the client state has in common."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from rich.text import Text
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import DataTable, Static

from ..render import render_size

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from textual import events

    from ..state import ClientState

__all__ = ["StateScreen", "TextView", "refill"]


class StateScreen(Screen[None]):
    """A screen the app redraws from the state after every change ("attributes down").

    It reads the app's one :class:`ClientState` and never changes it.
    """

    def __init__(self, state: ClientState, clock: Callable[[], float]) -> None:
        super().__init__()
        self.state = state
        self.clock = clock
        self.ready = False
        """Its widgets exist (set once mounted): only then may :meth:`show` run."""

    def on_mount(self) -> None:
        self.ready = True
        self.redraw(self.clock())

    def on_unmount(self) -> None:
        self.ready = False

    def on_resize(self, event: events.Resize) -> None:
        self.redraw(self.clock())

    def redraw(self, now: float) -> None:
        """Draw the state again, if this screen's widgets are there to draw on."""
        if not self.ready:
            return
        with contextlib.suppress(NoMatches):  # shutting down: widgets go before their screen
            self.show(self.state, now)

    def show(self, state: ClientState, now: float) -> None:
        """Push the state into this screen's widgets; the default shows nothing."""

    def show_size(self) -> None:
        """The small-terminal notice, in the screen's ``#size`` line (hidden when it fits)."""
        width, height = self.app.size
        notice = self.query_one("#size", TextView)
        notice.set(render_size(width, height))
        notice.display = bool(notice.shown.plain)


class TextView(Static):
    """A Static that is given new text only when it differs.

    The app redraws every screen on every event and every tick; handing a
    widget equal text would still repaint it, and idle racers would pay for it.
    """

    def __init__(self, text: Text | str = "", *, id: str | None = None) -> None:
        super().__init__(text, id=id)
        self._text = Text(text) if isinstance(text, str) else text

    @property
    def shown(self) -> Text:
        """What the view shows now."""
        return self._text

    def set(self, text: Text) -> None:
        if text != self._text:
            self._text = text
            self.update(text)


def refill(table: DataTable[str], rows: Sequence[tuple[str, Sequence[str]]]) -> None:
    """Put ``rows`` (key, cells) in ``table``; the cursor stays on its row if it is still there."""
    selected = None
    if table.row_count:
        selected = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
    table.clear()
    for key, cells in rows:
        # Measured rows (height None): Textual's DataTable measures every new row's
        # columns when it is next idle, but keeps the lines it drew before at the old
        # widths ("R000" for "R00042") unless a row is measured for its height too.
        table.add_row(*cells, key=key, height=None)
    keys = [key for key, _ in rows]
    if selected in keys:
        table.move_cursor(row=keys.index(selected), animate=False)
