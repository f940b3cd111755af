"""Small screens over the others: help, a yes/no question, and the three forms.

Each is a :class:`~textual.screen.ModalScreen` that answers its caller through
``dismiss`` and holds nothing once closed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Static

from protocol import NAME_RULE, Rules, is_name

if TYPE_CHECKING:
    from textual import events
    from textual.app import ComposeResult

__all__ = ["ConfirmScreen", "HelpScreen", "JoinScreen", "NameScreen", "RulesChoice", "RulesScreen"]

HELP = """\
[b]Racing[/b]
  1-6   play the front card of that bed
  a-p   play the bouquet card with that letter
  /     type a card (qh, 10h, th) then Enter; Esc closes
  r     redeal, when stuck with a redeal left   x  resign (asks)
  q     quit
After the race: r rematch (a new deal in practice), o your opponent's
profile, Esc back to the lobby.
Highlighted labels can be played now; grey ones must wait.

[b]Lobby[/b]
  s  quick match     c  create a room     j  join a room by code
  Enter  on a seek: seek with the same rules; on a room: join it
  w / Enter  watch the selected race    Esc  stop seeking or the room
  l  leaderboard  p  your profile  o  last opponent's  h  your races
[b]Replay[/b] (Enter on a race in a history)
  Space pause  1 2 4 8 speed  ←/→ step  Home/End start/end  Esc back

Press any key to close this help."""

_MODAL_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 74; height: auto; max-height: 22;
    border: thick $accent; background: $surface; padding: 0 1;
}}
{name} #error {{ width: 100%; color: $text-error; }}
"""


class HelpScreen(ModalScreen[None]):
    """Every key, on one page."""

    DEFAULT_CSS = _MODAL_CSS.format(name="HelpScreen")

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(HELP)

    def on_key(self, event: events.Key) -> None:
        event.stop()
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question: y or Enter says yes, n or Esc says no."""

    DEFAULT_CSS = _MODAL_CSS.format(name="ConfirmScreen")

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


class _InputScreen(ModalScreen[str | None]):
    """One line of input; Enter answers it, Esc answers None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel")]
    TITLE_TEXT = ""
    PLACEHOLDER = ""

    def __init__(self, error: str = "", *, value: str = "") -> None:
        super().__init__()
        self.error = error
        self.value = value
        """What the input starts with (a name to send again as it is)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.TITLE_TEXT)
            yield Input(self.value, placeholder=self.PLACEHOLDER)
            yield Label(self.error, id="error")

    def action_cancel(self) -> None:
        self.dismiss(None)

    def check(self, value: str) -> str | None:
        """An error message for ``value``, or None if it will do."""
        return None if value else "type something, or Esc"

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        problem = self.check(value)
        if problem is None:
            self.dismiss(value)
        else:
            self.query_one("#error", Label).update(problem)


class NameScreen(_InputScreen):
    """The name to race under, when neither ``--name`` nor a stored token gives one."""

    DEFAULT_CSS = _MODAL_CSS.format(name="NameScreen")
    TITLE_TEXT = "Your name on this server (letters, digits, _ and -; up to 20):"
    PLACEHOLDER = "name"

    def check(self, value: str) -> str | None:
        # The protocol's rule, which the server applies: a name passed here is not bad_name.
        return None if is_name(value) else NAME_RULE

    def action_cancel(self) -> None:
        self.app.exit(1)


class JoinScreen(_InputScreen):
    """The code of the room to join."""

    DEFAULT_CSS = _MODAL_CSS.format(name="JoinScreen")
    TITLE_TEXT = "Room code (the six characters your friend reads out):"
    PLACEHOLDER = "code"


@dataclass(frozen=True, slots=True)
class RulesChoice:
    rules: Rules
    public: bool


class RulesScreen(ModalScreen[RulesChoice | None]):
    """The rules of a quick match or of a new room.

    Enter starts from any field, as the hint says: a checkbox would take it as
    Space (and untick a rule the player meant to keep), so the screen claims
    Enter first (a priority binding); only on the Cancel button does it cancel.
    """

    DEFAULT_CSS = (
        _MODAL_CSS.format(name="RulesScreen")
        + """
    RulesScreen Checkbox, RulesScreen Checkbox:focus {
        border: none; height: 1; padding: 0; background: $surface;
    }
    RulesScreen Checkbox:focus { background: $boost; text-style: bold; }
    RulesScreen Input, RulesScreen Input:focus {
        width: 10; height: 1; border: none; padding: 0 1; background: $boost;
    }
    RulesScreen Horizontal { height: auto; }
    RulesScreen Button { margin: 0 1 0 0; }
    RulesScreen .hint { color: $text-muted; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel"),
        Binding("enter", "go", "start", priority=True),
    ]

    def __init__(self, rules: Rules, *, room: bool) -> None:
        super().__init__()
        self.rules = rules
        self.room = room

    def compose(self) -> ComposeResult:
        rules = self.rules
        with Vertical():
            yield Label("[b]Create a room[/b]" if self.room else "[b]Quick match[/b]")
            yield Checkbox("Rated: the race changes both ratings", rules.rated, id="rated")
            yield Checkbox(
                "Mirror deal: both get the same layout", rules.deal == "mirror", id="mirror"
            )
            yield Checkbox("Winnable layouts only", rules.winnable_only, id="winnable")
            yield Checkbox("One redeal when stuck", bool(rules.redeals), id="redeal")
            yield Checkbox(
                "Tiebreak: equal counts go to the first", rules.tiebreak == "first", id="first"
            )
            with Horizontal():
                yield Label("Time limit, seconds (30-3600, empty: none): ")
                limit = "" if rules.time_limit_s is None else str(rules.time_limit_s)
                yield Input(limit, placeholder="none", id="limit", restrict=r"[0-9]*")
            if self.room:
                yield Checkbox("Public: list the room in the lobby", id="public")
            yield Label("", id="why", classes="hint")
            yield Label("Tab moves · Space ticks · Enter starts · Esc cancels", classes="hint")
            yield Label("", id="error")
            with Horizontal():
                yield Button("Go", variant="primary", id="go")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self._speed_alone(rated=self.rules.rated)

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        if event.checkbox.id == "rated":
            self._speed_alone(rated=event.value)

    def _speed_alone(self, *, rated: bool) -> None:
        """A rated race needs the mirror deal and winnable layouts: tick them, and say why."""
        for box in (self.query_one("#mirror", Checkbox), self.query_one("#winnable", Checkbox)):
            if rated:
                box.value = True
            box.disabled = rated
        why = "Rated: mirror deal and winnable layouts, so that speed alone decides"
        why = why if rated else ""
        self.query_one("#why", Label).update(why)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "go":
            self._submit()
        else:
            self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._submit()

    def action_go(self) -> None:
        focused = self.focused
        if isinstance(focused, Button) and focused.id == "cancel":
            self.dismiss(None)
        else:
            self._submit()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def _submit(self) -> None:
        limit = self.query_one("#limit", Input).value.strip()
        seconds = int(limit) if limit else None
        if seconds is not None and not 30 <= seconds <= 3600:
            self.query_one("#error", Label).update("the time limit is 30 to 3600 seconds")
            return
        checked = {box.id: box.value for box in self.query(Checkbox)}
        rules = Rules(
            deal="mirror" if checked["mirror"] else "independent",
            winnable_only=checked["winnable"],
            redeals=1 if checked["redeal"] else 0,
            tiebreak="first" if checked["first"] else "draw",
            time_limit_s=seconds,
            rated=checked["rated"],
        )
        self.dismiss(RulesChoice(rules, bool(checked.get("public"))))
