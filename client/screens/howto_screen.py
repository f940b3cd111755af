"""How to play, a page per section, in the language the client speaks.

The texts and their order are lang's (:func:`lang.howto`, the ``common`` catalogue),
the same the page shows: this screen only pages them. It is the example of a screen
whose every word comes from a catalogue (docs/translating.md): its one line of its
own, the keys that turn the page, is ``howto.turn``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

import lang

if TYPE_CHECKING:
    from textual import events
    from textual.app import ComposeResult

__all__ = ["HowToPlayScreen"]

NEXT = ("right", "pagedown", "space", "n")
BACK = ("left", "pageup", "p")


class HowToPlayScreen(ModalScreen[None]):
    """How to play: ← and → turn the page, any other key closes it."""

    # 78 columns, less border and padding: 74 for the text, as tests/lang/test_howto.py
    # wraps it, and 24 rows at most: every section fits an 80x24 terminal.
    DEFAULT_CSS = """
    HowToPlayScreen { align: center middle; }
    HowToPlayScreen > Vertical {
        width: 78; height: auto; max-height: 24;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    HowToPlayScreen #howto-keys { color: $text-muted; margin-top: 1; }
    """

    def __init__(self, page: int = 0) -> None:
        super().__init__()
        self.page = page

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="howto-page")
            yield Static(lang.t("howto.turn"), id="howto-keys")

    def on_mount(self) -> None:
        self.show()

    def show(self) -> None:
        """Draw the current page: the title, its number, the section's paragraphs."""
        sections = lang.howto()
        title, paragraphs = sections[self.page]
        # Text, not markup: a text in brackets (the pseudo-language) is not a style.
        text = Text.assemble(
            (f"{lang.t('howto.title')}: {title}", "bold"),
            f"  {self.page + 1}/{len(sections)}",
        )
        for paragraph in paragraphs:
            text.append("\n\n" + paragraph)
        self.query_one("#howto-page", Static).update(text)

    def on_key(self, event: events.Key) -> None:
        event.stop()
        step = 1 if event.key in NEXT else -1 if event.key in BACK else 0
        if not step:
            self.dismiss(None)
            return
        self.page = max(0, min(len(lang.HOWTO) - 1, self.page + step))
        self.show()
