"""The race screen: one's own board large with key labels, the opponent's small, live.

Keys are read here and checked against the state at once (an illegal key is
answered without a round trip); what is legal goes up to the app as a
:class:`~client.messages.Command`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.containers import Horizontal
from textual.widgets import Input

from lang import t
from protocol import Daily, LeaveArena, Redeal, Rematch, Report, Resign

from ..competition_words import race_kind_line
from ..keys import BED_KEYS, BOUQUET_KEYS
from ..messages import BackToLobby, CardKey, CardTyped, Command, Notice
from ..render import render_idle, render_link_reason, render_topbar
from ..result import render_result
from ..words import KEY_WORDS, REMATCH_ID, REPORT_ID, key_help, key_hints
from .base import StateScreen, TextView
from .boards import BoardView
from .browse import ProfileScreen
from .competition_screens import DailyBoardScreen
from .modals import ConfirmScreen, HelpScreen
from .standing import ReportScreen

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual import events
    from textual.app import ComposeResult

    from ..state import ClientState, RaceView

__all__ = ["BoardView", "RaceScreen", "race_keys"]


def race_keys(race: RaceView | None, *, arena: bool = False) -> tuple[str, list[str]]:
    """Where the player is (a title of :data:`~client.words.KEY_WORDS`' help) and the keys
    that work there, by name: the footer, the help and the keys themselves follow it.
    ``arena``: the player is still in the race's arena (the pause key works)."""
    if race is None or race.seat is None:
        return "watching", ["lobby", "quit", "help"]
    practice = race.other is None
    pause = ["pause"] if race.arena_id is not None and arena else []
    if race.over is not None:
        if practice:
            return "practice_over", ["new_deal", "quit", "help"]
        if race.daily is not None:
            return "daily_over", ["daily_again", "daily_board", "lobby", "quit", "help"]
        report = ["report"] if race.reportable else []
        if race.arena_id is not None:
            return "arena_over", [*pause, "profile", *report, "lobby", "quit", "help"]
        return "over", ["rematch", "profile", *report, "lobby", "quit", "help"]
    if not race.can_play:
        return "final", [*pause, "quit_race", "help"]
    keys = ["beds", "bouquet", "prompt"]
    if race.rules.redeals:
        keys.append("redeal")
    if practice:
        return "practice", [*keys, "give_up", "quit", "help"]
    return "racing", [*keys, "resign", *pause, "quit_race", "help"]


class RaceScreen(StateScreen):
    """See the module docstring; the keys are listed in :mod:`client.keys`."""

    DEFAULT_CSS = """
    RaceScreen { layout: vertical; }
    #topbar { height: 1; background: $panel; padding: 0 1; }
    #size { height: auto; padding: 0 1; }
    #kind { height: auto; max-height: 2; padding: 0 1; }
    #idle { height: 1; padding: 0 1; }
    #boards { height: auto; }
    #mine { width: 3fr; min-width: 46; }
    #theirs { width: 2fr; min-width: 30; }
    #result { height: auto; border: heavy $accent; padding: 0 1; display: none; }
    #link { height: auto; padding: 0 1; }
    #notice { height: 1; padding: 0 1; }
    #prompt { height: 1; border: none; padding: 0 1; display: none; }
    #keys { dock: bottom; height: 1; padding: 0 1; color: $text-muted; }
    """

    AUTO_FOCUS = ""  # keys go to the screen; only "/" focuses the card prompt

    def compose(self) -> ComposeResult:
        yield TextView(id="topbar")
        yield TextView(id="size")
        yield TextView(id="kind")
        with Horizontal(id="boards"):
            yield BoardView(main=True, id="mine")
            yield BoardView(main=False, id="theirs")
        yield TextView(id="idle")  # under the boards: showing it moves no card
        yield TextView(id="result")
        yield TextView(id="link")
        yield TextView(id="notice")
        yield Input(placeholder=t("tui.race.prompt"), id="prompt")
        yield TextView(id="keys")

    def show(self, state: ClientState, now: float) -> None:
        race = state.race
        bar = render_topbar(state, now, self.app.size.width)
        self.query_one("#topbar", TextView).set(bar)
        self.show_size()
        kind = self.query_one("#kind", TextView)
        kind.set(Text() if race is None else race_kind_line(race, now, state.arena, state.name))
        kind.display = bool(kind.shown.plain)
        idle = self.query_one("#idle", TextView)
        idle.set(render_idle(race, now))
        idle.display = bool(idle.shown.plain)
        self.query_one("#mine", BoardView).show(race, ascii=state.ascii, now=now)
        theirs = self.query_one("#theirs", BoardView)
        theirs.display = race is not None and race.other is not None
        theirs.show(race, ascii=state.ascii, now=now)
        result = self.query_one("#result", TextView)
        result.display = race is not None and race.over is not None
        if race is not None and race.over is not None:
            result.set(render_result(race, state.lookups.daily.value, state.arena))
        reason = render_link_reason(state)
        link = self.query_one("#link", TextView)
        link.set(reason)
        link.display = bool(reason.plain)
        style = "bold red" if state.notice_is_error else ""
        self.query_one("#notice", TextView).set(Text(state.notice, style=style))
        hints = key_hints(self.keys(race)[1], self.app.size.width - 2)
        self.query_one("#keys", TextView).set(Text(hints))

    def keys(self, race: RaceView | None) -> tuple[str, list[str]]:
        """:func:`race_keys` here: whether the player is still in the race's arena."""
        arena = self.state.arena
        if arena is None or race is None or not arena.joined:
            return race_keys(race)
        return race_keys(race, arena=arena.arena.arena_id == race.arena_id)

    # -- keys ------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        prompt = self.query_one("#prompt", Input)
        if prompt.has_focus:
            if event.key == "escape":
                event.stop()
                self._close_prompt()
            return
        race = self.state.race
        if race is not None and event.key == "escape":
            event.stop()
            self._leave(race)
            return
        if race is None or event.character is None:
            return
        handled = self._command_key(event.character, race) or self._card_key(event.character, race)
        if handled:
            event.stop()

    def _card_key(self, key: str, race: RaceView) -> bool:
        if key not in BED_KEYS and key not in BOUQUET_KEYS:
            return False
        # The app resolves the key, in the order keys came: a key pressed before
        # the previous one's play is on record must see that play.
        self.app.post_message(CardKey(key))
        return True

    def _command_key(self, key: str, race: RaceView) -> bool:
        where, keys = self.keys(race)
        actions: dict[str, Callable[[], object]] = {
            "prompt": self._open_prompt,
            "help": lambda: self.app.push_screen(HelpScreen(key_help(where, keys))),
            "redeal": lambda: self._redeal(race),
            "new_deal": lambda: self.post_message(Command(Rematch())),
            "rematch": lambda: self.post_message(Command(Rematch(id=REMATCH_ID))),
            "resign": lambda: self._resign(t("tui.question.resign")),
            "give_up": lambda: self._resign(t("tui.question.give_up")),
            "profile": lambda: self._opponent(race),
            "report": lambda: self._report(race),
            "daily_again": lambda: self.post_message(Command(Daily())),
            "daily_board": lambda: self.app.push_screen(DailyBoardScreen(self.state, self.clock)),
            "pause": lambda: self.post_message(Command(LeaveArena())),
            "quit": lambda: self.app.exit(0),
            "quit_race": self._quit,
        }
        # Esc has its own handling (on_key): it says what to do instead when it does nothing.
        named = [name for name in keys if KEY_WORDS[name] == key and name in actions]
        if not named:
            return False
        actions[named[0]]()
        return True

    def _opponent(self, race: RaceView) -> None:
        assert race.other is not None
        name = race.players[race.other]
        self.app.push_screen(ProfileScreen(self.state, self.clock, name))

    def _report(self, race: RaceView) -> None:
        """Ask why (optional), then report the race; the result says how it went."""
        game_id = race.game_id

        def reason(text: str | None) -> None:
            if text is not None:
                report = Report(game_id=game_id, reason=text or None, id=REPORT_ID)
                self.post_message(Command(report))

        self.app.push_screen(ReportScreen(), reason)

    def _redeal(self, race: RaceView) -> None:
        if race.board.redeals_left and not race.board.has_play():
            self.post_message(Command(Redeal()))
        elif race.board.redeals_left:
            self.post_message(Notice(t("tui.race.redeal_when_stuck"), error=True))
        else:
            self.post_message(Notice(t("tui.race.no_redeal"), error=True))

    def _resign(self, question: str) -> None:
        def confirmed(yes: bool | None) -> None:
            if yes:
                self.post_message(Command(Resign()))

        self.app.push_screen(ConfirmScreen(question), confirmed)

    def _leave(self, race: RaceView) -> None:
        if race.other is None:
            self.post_message(Notice(t("tui.race.practice_quits")))
        elif race.over is None and race.seat is not None:
            key = "tui.race.on_resign" if race.can_play else "tui.race.on"
            self.post_message(Notice(t(key)))
        else:
            self.post_message(BackToLobby())

    def _quit(self) -> None:
        def confirmed(yes: bool | None) -> None:
            if yes:
                self.app.exit(0)

        self.app.push_screen(ConfirmScreen(t("tui.question.quit_race")), confirmed)

    # -- the card prompt -------------------------------------------------------

    def _open_prompt(self) -> None:
        prompt = self.query_one("#prompt", Input)
        prompt.display = True
        prompt.value = ""
        prompt.focus()

    def _close_prompt(self) -> None:
        prompt = self.query_one("#prompt", Input)
        prompt.display = False
        self.set_focus(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value
        event.input.value = ""
        if not text.strip():
            self._close_prompt()
            return
        self.app.post_message(CardTyped(text))
