"""Small screens over the others: help, a yes/no question, a name and a room code.

Each is a :class:`~textual.screen.ModalScreen` that answers its caller through
``dismiss`` and holds nothing once closed.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from lang import t
from protocol import NAME_PATTERN, is_name

from .howto_screen import HowToPlayScreen

if TYPE_CHECKING:
    from rich.text import Text
    from textual import events
    from textual.app import ComposeResult

__all__ = ["MODAL_CSS", "ConfirmScreen", "HelpScreen", "InputScreen", "JoinScreen", "NameScreen"]

NAME_MAX = int(re.findall(r"\{1,(\d+)\}", NAME_PATTERN)[-1])
"""The longest name, as the protocol's pattern has it (the catalogue's rule says it)."""

MODAL_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 74; height: auto; max-height: 22;
    border: thick $accent; background: $surface; padding: 0 1;
}}
{name} #error {{ width: 100%; color: $text-error; }}
"""


class HelpScreen(ModalScreen[None]):
    """The keys of the screen it covers, on one page (:mod:`client.words` has each)."""

    DEFAULT_CSS = MODAL_CSS.format(name="HelpScreen")

    def __init__(self, text: Text) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.text)

    def on_key(self, event: events.Key) -> None:
        event.stop()
        self.dismiss(None)
        if event.key == "i":  # the help's last line: i opens How to play
            self.app.push_screen(HowToPlayScreen())


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question: y or Enter says yes, n or Esc says no."""

    DEFAULT_CSS = MODAL_CSS.format(name="ConfirmScreen")

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.question)

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if event.key in ("y", "enter"):
            self.dismiss(True)
        elif event.key in ("n", "escape"):
            self.dismiss(False)


class InputScreen(ModalScreen[str | None]):
    """One line of input; Enter answers it, Esc answers None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel")]
    TITLE_KEY = ""
    """The catalogue's key of the question above the input."""
    PLACEHOLDER_KEY = ""
    PARAMS: ClassVar[dict[str, object]] = {}
    """What the question's text needs filled in."""

    def __init__(self, error: str = "", *, value: str = "") -> None:
        super().__init__()
        self.error = error
        self.value = value
        """What the input starts with (a name to send again as it is)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(t(self.TITLE_KEY, **self.PARAMS))  # wrapped: a Label keeps one line
            yield Input(self.value, placeholder=t(self.PLACEHOLDER_KEY))
            yield Label(self.error, id="error")

    def action_cancel(self) -> None:
        self.dismiss(None)

    def check(self, value: str) -> str | None:
        """An error message for ``value``, or None if it will do."""
        return None if value else t("tui.input.empty")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        problem = self.check(value)
        if problem is None:
            self.dismiss(value)
        else:
            self.query_one("#error", Label).update(problem)


class NameScreen(InputScreen):
    """The name to race under, when neither ``--name`` nor a stored token gives one."""

    DEFAULT_CSS = MODAL_CSS.format(name="NameScreen")
    TITLE_KEY = "tui.name.ask"
    PLACEHOLDER_KEY = "tui.name.placeholder"
    PARAMS: ClassVar[dict[str, object]] = {"max": NAME_MAX}

    def check(self, value: str) -> str | None:
        # The protocol's rule, which the server applies: a name passed here is not bad_name.
        return None if is_name(value) else t("name.rule", max=NAME_MAX)

    def action_cancel(self) -> None:
        self.app.exit(1)


class JoinScreen(InputScreen):
    """The code of the room to join."""

    DEFAULT_CSS = MODAL_CSS.format(name="JoinScreen")
    TITLE_KEY = "tui.join.ask"
    PLACEHOLDER_KEY = "tui.join.placeholder"
