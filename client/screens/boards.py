"""One board as a widget, drawn from a race view: the race screen's and the replay's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widget import Widget

from ..render import render_board

if TYPE_CHECKING:
    from ..race_view import RaceView

__all__ = ["BoardView"]


class BoardView(Widget):
    """One board, drawn from the race view at the widget's current width."""

    DEFAULT_CSS = """
    BoardView { height: auto; border: round $primary-darken-1; padding: 0 1; }
    """

    def __init__(self, *, main: bool, id: str) -> None:
        super().__init__(id=id)
        self.main = main
        self.race: RaceView | None = None
        self.ascii = False
        self.now = 0.0
        self._drawn = Text()

    def show(self, race: RaceView | None, *, ascii: bool, now: float) -> None:
        self.race, self.ascii, self.now = race, ascii, now
        drawing = self._draw(self.content_size.width)
        if drawing != self._drawn:  # redraw (and lay out again) only when something changed
            self._drawn = drawing
            self.refresh(layout=True)

    def render(self) -> Text:
        self._drawn = self._draw(self.content_size.width)
        return self._drawn

    def _draw(self, width: int) -> Text:
        race = self.race
        seat = None if race is None else (race.main if self.main else race.other)
        if race is None or seat is None:
            return Text()
        return render_board(race, seat, width or 40, ascii=self.ascii, now=self.now)
