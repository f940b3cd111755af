"""The lobby's forms: the rules of a quick match or a room, and the level of a bot to race.

Each is a :class:`~textual.screen.ModalScreen` that answers its caller through
``dismiss`` and holds nothing once closed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import (
    Button,
    Checkbox,
    Input,
    Label,
    OptionList,
    RadioButton,
    RadioSet,
    Static,
)
from textual.widgets.option_list import Option

from lang import t
from protocol import BotRequest, Rules

from ..levels import BOT_AFTER, DEFAULT_LEVEL, LEVELS
from ..render import rules_words
from .modals import MODAL_CSS

if TYPE_CHECKING:
    from textual.app import ComposeResult

__all__ = ["BotScreen", "Choice", "RulesChoice", "RulesScreen"]


@dataclass(frozen=True, slots=True)
class RulesChoice:
    rules: Rules
    public: bool
    bot: BotRequest | None = None
    """Quick match only: the bot to race if nobody comes in time (None: wait for a person)."""
    level: int = DEFAULT_LEVEL
    """The bot's level the form showed, asked for or not (offered first next time)."""


class Choice(RadioSet):
    """One of a few, side by side: the arrows pick at once (Enter is the form's: it starts)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,down", "pick(1)", "next", show=False),
        Binding("left,up", "pick(-1)", "previous", show=False),
    ]

    def on_mount(self) -> None:
        if self.pressed_index >= 0:
            self._selected = self.pressed_index  # the highlight starts on the one chosen

    def action_pick(self, step: int) -> None:
        buttons = list(self.query(RadioButton))
        if buttons:
            buttons[(self.pressed_index + step) % len(buttons)].value = True

    @property
    def picked(self) -> str:
        """The id of the button chosen ("" if none is)."""
        button = self.pressed_button
        return "" if button is None or button.id is None else button.id


class RulesScreen(ModalScreen[RulesChoice | None]):
    """The rules of a quick match or of a new room; a quick match may also ask for a bot.

    Enter starts from any field, as the hint says: a checkbox would take it as
    Space (and untick a rule the player meant to keep), so the screen claims
    Enter first (a priority binding); only on the Cancel button does it cancel.
    """

    DEFAULT_CSS = (
        MODAL_CSS.format(name="RulesScreen")
        + """
    RulesScreen Checkbox, RulesScreen Checkbox:focus {
        border: none; height: 1; padding: 0; background: $surface;
    }
    RulesScreen Checkbox:focus { background: $boost; text-style: bold; }
    RulesScreen Input, RulesScreen Input:focus {
        width: 10; height: 1; border: none; padding: 0 1; background: $boost;
    }
    RulesScreen Choice, RulesScreen Choice:focus {
        layout: horizontal; width: auto; height: 1; border: none; padding: 0;
        background: $surface;
    }
    RulesScreen Choice:focus { background: $boost; }
    RulesScreen Choice > RadioButton { width: auto; padding: 0; }
    RulesScreen #why { width: 100%; }
    RulesScreen Horizontal { height: auto; }
    RulesScreen Button { margin: 0 1 0 0; }
    RulesScreen .hint { color: $text-muted; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel"),
        Binding("enter", "go", "start", priority=True),
    ]

    def __init__(
        self, rules: Rules, *, room: bool, after: int | None = None, level: int = DEFAULT_LEVEL
    ) -> None:
        super().__init__()
        self.rules = rules
        self.room = room
        self.after = after
        """The wait before a bot offered first, in seconds (None: off)."""
        self.level = level

    def compose(self) -> ComposeResult:
        rules = self.rules
        with Vertical():
            title = t("tui.form.room" if self.room else "tui.form.quick_match")
            yield Label(Text(title, style="bold"))
            yield Checkbox(t("tui.form.rated"), rules.rated, id="rated")
            yield Checkbox(t("tui.form.mirror"), rules.deal == "mirror", id="mirror")
            yield Checkbox(t("tui.form.winnable"), rules.winnable_only, id="winnable")
            yield Checkbox(t("tui.form.redeal"), bool(rules.redeals), id="redeal")
            yield Checkbox(t("tui.form.tiebreak"), rules.tiebreak == "first", id="first")
            with Horizontal():
                yield Label(t("tui.form.limit") + " ")
                limit = "" if rules.time_limit_s is None else str(rules.time_limit_s)
                yield Input(limit, placeholder=t("tui.form.none"), id="limit", restrict=r"[0-9]*")
            if self.room:
                yield Checkbox(t("tui.form.public"), id="public")
            else:
                yield from self._bot_fields()
            yield Label("", id="why", classes="hint")
            yield Static(t("tui.form.hint"), classes="hint")  # wrapped: a Label keeps one line
            yield Label("", id="error")
            with Horizontal():
                yield Button(t("tui.form.go"), variant="primary", id="go")
                yield Button(t("tui.form.cancel"), id="cancel")

    def _bot_fields(self) -> ComposeResult:
        """A bot if nobody comes: off or after a wait, and which bot."""
        after = self.after
        waits = sorted({*BOT_AFTER, *([after] if after is not None else [])})
        with Horizontal():
            yield Label(t("tui.form.bot_after") + " ")
            with Choice(id="bot-after"):
                yield RadioButton(t("tui.form.off"), after is None, id="after-off")
                for wait in waits:
                    words = t("tui.time.seconds", seconds=wait)
                    yield RadioButton(words, wait == after, id=f"after-{wait}")
        with Horizontal():
            yield Label(t("tui.form.bot_level") + " ")
            with Choice(id="bot-level"):
                for level in LEVELS:
                    yield RadioButton(
                        str(level.level), level.level == self.level, id=f"level-{level.level}"
                    )
        yield Label("", id="bot-words")  # a line of its own: a longer language needs it

    def on_mount(self) -> None:
        self._speed_alone(rated=self.rules.rated)
        self._explain()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        if event.checkbox.id == "rated":
            self._speed_alone(rated=event.value)
            self._explain()

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        self._explain()

    def _speed_alone(self, *, rated: bool) -> None:
        """A rated race needs the mirror deal and winnable layouts: tick them (and say why)."""
        for box in (self.query_one("#mirror", Checkbox), self.query_one("#winnable", Checkbox)):
            if rated:
                box.value = True
            box.disabled = rated

    def _chosen_level(self) -> int:
        """The bot's level the form shows (the one offered first, in a room's)."""
        if self.room:
            return self.level
        picked = self.query_one("#bot-level", Choice).picked.removeprefix("level-")
        return int(picked) if picked.isdigit() else self.level

    def _chosen_bot(self) -> BotRequest | None:
        """The bot the form asks for as it stands (never in a room's)."""
        if self.room:
            return None
        after = self.query_one("#bot-after", Choice).picked.removeprefix("after-")
        return (
            BotRequest(after_s=int(after), level=self._chosen_level()) if after.isdigit() else None
        )

    def _explain(self) -> None:
        """The hints: why a rated race holds two rules, and which bot would come."""
        rated = self.query_one("#rated", Checkbox).value
        bot = self._chosen_bot()
        why = t("tui.form.rated_why") if rated else ""
        if not self.room:
            self.query_one("#bot-level", Choice).disabled = bot is None
            pace = next(each for each in LEVELS if each.level == self._chosen_level())
            self.query_one("#bot-words", Label).update(f" {pace.name}, {pace.pace}")
            if rated and bot is not None:
                why += "; " + t("tui.form.bot_unrated")
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
            self.query_one("#error", Label).update(t("tui.form.limit_range"))
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
        public = bool(checked.get("public"))
        self.dismiss(RulesChoice(rules, public, self._chosen_bot(), self._chosen_level()))


class BotScreen(ModalScreen[int | None]):
    """Race a bot now: which level (1-5 picks one; Enter the highlighted, level 3 at first)."""

    DEFAULT_CSS = (
        MODAL_CSS.format(name="BotScreen")
        + """
    BotScreen OptionList, BotScreen OptionList:focus {
        height: auto; border: none; padding: 0; background: $surface;
    }
    BotScreen .hint { width: 100%; color: $text-muted; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel"),
        *(Binding(str(level.level), f"pick({level.level})", show=False) for level in LEVELS),
    ]

    def __init__(self, rules: Rules, level: int = DEFAULT_LEVEL) -> None:
        super().__init__()
        self.rules = rules
        self.level = level

    def compose(self) -> ComposeResult:
        with Vertical():
            title = Text(t("tui.form.bot_now"), style="bold")
            yield Label(title.append(f" ({rules_words(self.rules)})", style=""))
            options = [Option(level.words, id=str(level.level)) for level in LEVELS]
            yield OptionList(*options, id="levels")
            yield Label(t("tui.form.bot_hint"), classes="hint")

    def on_mount(self) -> None:
        levels = self.query_one("#levels", OptionList)
        levels.highlighted = [each.level for each in LEVELS].index(self.level)
        levels.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.dismiss(int(event.option.id))

    def action_pick(self, level: int) -> None:
        self.dismiss(level)

    def action_cancel(self) -> None:
        self.dismiss(None)
