"""The screens of a player's standing on a server: banned, a rated race refused, a report.

The server decides each by code (``banned`` and close 4001, ``not_allowed``) and this
client never reads the server's English to tell them apart (:mod:`client.words` has the
words, :mod:`client.failures` the close codes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from lang import t
from protocol import REASON_LENGTH

from ..words import banned_words, offer_words
from .base import StateScreen, TextView
from .modals import MODAL_CSS, InputScreen

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual import events
    from textual.app import ComposeResult

    from protocol import CreateRoom, Seek

    from ..state import ClientState

__all__ = ["BannedScreen", "RatedRefusedScreen", "ReportScreen"]


class BannedScreen(StateScreen):
    """The whole screen once the server banned this player: why, and that nothing follows.

    The client has stopped connecting (:data:`protocol.close_codes.STAY_AWAY`), so this is
    the last screen; ``q`` quits.
    """

    DEFAULT_CSS = """
    BannedScreen { align: center middle; }
    BannedScreen > #banned {
        width: 72; height: auto; border: heavy $error; padding: 1 2; background: $surface;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit", "quit")]

    def __init__(self, state: ClientState, clock: Callable[[], float], where: str) -> None:
        super().__init__(state, clock)
        self.where = where
        """The server's ``HOST:PORT``: the ban is that server's."""

    def compose(self) -> ComposeResult:
        yield TextView(id="banned")

    def show(self, state: ClientState, now: float) -> None:
        text = Text(t("tui.banned.title"), style="bold")
        text.append("\n\n" + banned_words(state.name, self.where) + "\n\n")
        text.append(f"q  {t('tui.key.quit')}", style="dim")
        self.query_one("#banned", TextView).set(text)

    def action_quit(self) -> None:
        self.app.exit(0)


class RatedRefusedScreen(ModalScreen[bool]):
    """A rated seek or room the server refused (``not_allowed``): why, and the same request
    unrated on ``u`` or Enter (answers True); Esc answers False."""

    DEFAULT_CSS = MODAL_CSS.format(name="RatedRefusedScreen")

    def __init__(self, why: str, offer: Seek | CreateRoom) -> None:
        super().__init__()
        self.why = why
        self.offer = offer

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(t("tui.refused.title"), style="bold"))
            yield Static(self.why)  # wrapped: a Label keeps one line
            back = t("tui.keyhelp.lobby")
            yield Label(Text(f"u  {offer_words(self.offer.type)}    Esc  {back}"))

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if event.key in ("u", "enter"):
            self.dismiss(True)
        elif event.key in ("escape", "q", "n"):
            self.dismiss(False)


class ReportScreen(InputScreen):
    """Why this race is reported (optional): Enter answers the reason, "" for none; Esc None."""

    DEFAULT_CSS = MODAL_CSS.format(name="ReportScreen")
    TITLE_KEY = "tui.report.ask"
    PLACEHOLDER_KEY = "tui.report.placeholder"
    PARAMS: ClassVar[dict[str, object]] = {"length": REASON_LENGTH}

    def check(self, value: str) -> str | None:
        return (
            None if len(value) <= REASON_LENGTH else t("tui.report.too_long", length=REASON_LENGTH)
        )
