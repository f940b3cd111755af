"""How to play in the terminal: every page fits 80x24 whole, in every language.

The screen is read back as text from the app's own screenshot: each paragraph of each
section must be there in full (nothing cut at the box's bottom or right edge), in each
language and in the pseudo-language, which runs a third longer than English.
"""

from __future__ import annotations

import re

import pytest
from textual.app import App
from textual.containers import Vertical

import lang
from client.screens.howto_screen import HowToPlayScreen
from lang import LANGUAGES, PSEUDO

from .conftest import screen_lines


class HowToApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(HowToPlayScreen())


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def shown(app: App[None]) -> str:
    """The words inside the box, its lines joined."""
    box = app.screen.query_one(Vertical).content_region
    lines = screen_lines(app)  # type: ignore[arg-type]
    return flat(" ".join(line[box.x : box.right] for line in lines[box.y : box.bottom]))


@pytest.mark.parametrize("language", [*LANGUAGES, PSEUDO])
async def test_every_page_fits_an_80x24_terminal_whole(language):
    with lang.using(language):
        sections = lang.howto()
        app = HowToApp()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            for number, (title, paragraphs) in enumerate(sections, 1):
                text = shown(app)
                assert f"{title} {number}/{len(sections)}" in text, (language, number)
                for paragraph in paragraphs:
                    assert flat(paragraph) in text, (language, number, paragraph[:30])
                assert text.endswith(flat(lang.t("howto.turn"))), (language, number)
                await pilot.press("right")
            assert isinstance(app.screen, HowToPlayScreen)
            assert app.screen.page == len(sections) - 1  # the last page stays
            await pilot.press("left")
            assert app.screen.page == len(sections) - 2
            await pilot.press("escape")
            assert not isinstance(app.screen, HowToPlayScreen)


async def test_the_screen_speaks_the_language_in_use():
    with lang.using("de"):
        app = HowToApp()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            text = shown(app)
    assert text.startswith("So wird gespielt: Die Auslage 1/5")
    assert "Vorderkarte" in text and "Strauß" in text
