"""What a person does on the page, as the tests do it: sign in, start a race, play it out.

Cards are found by the page's test contract (docs/web.md, "Test contract"): ``data-card``
on every card, ``data-playable="true"`` on the playable ones, the boards in
``data-board="own"`` and ``data-board="opponent"``, the result in ``[data-result]``.
"""

from __future__ import annotations

import itertools
import os
import re
from typing import Any

try:
    from playwright.sync_api import expect
except ImportError:  # the browser fixture then skips every test (or fails it in CI)
    expect = None

OWN = '[data-board="own"]'
OPPONENT = '[data-board="opponent"]'
PLAYABLE = f'{OWN} [data-playable="true"]'
RESULT = "[data-result]"

_names = itertools.count()


def fresh_name(prefix: str = "w") -> str:
    """A name no other player of the test session has."""
    return f"{prefix}{os.getpid() % 10000}x{next(_names)}"


def sign_in(page: Any, name: str | None = None) -> str:
    """Type a name and press Play; back once the lobby shows and the page is online."""
    name = name or fresh_name()
    page.get_by_role("textbox", name="Name").fill(name)
    page.get_by_role("button", name="Play", exact=True).click()
    expect(page.get_by_role("button", name="Quick match")).to_be_visible()
    expect(page.locator("#link")).to_have_attribute("data-link", "online")
    return name


def quick_match(*pages: Any) -> None:
    """Each page asks for a quick match with the default rules, in turn; both race."""
    for page in pages:
        page.get_by_role("button", name="Quick match").click()
        if page is pages[0]:
            expect(page.get_by_text("Looking for an opponent")).to_be_visible()
    for page in pages:
        expect(page.locator(OWN)).to_be_visible()


def count_of(page: Any, board: str = OWN) -> int:
    """The count in a board's title: ``ann (you) · 12/52``."""
    title = page.locator(f"{board} .board-title").inner_text()
    found = re.search(r"(\d+)/52", title)
    assert found, title
    return int(found.group(1))


_NEXT_KEY = """([result, playable]) =>
  document.querySelector(result) ? null : document.querySelector(playable)?.dataset.key ?? null"""


def play_cards(page: Any, *, keys: bool = False, limit: int = 60) -> None:
    """Play one's own playable cards until the race is over (or ``limit`` plays): a click
    on each, or with ``keys`` the key it shows (twice as fast to drive)."""
    for _ in range(limit):
        # A play shows at once (the page draws it before the server's answer), so the
        # next key can be read straight away; only when none shows is there a wait.
        key = page.evaluate(_NEXT_KEY, [RESULT, PLAYABLE]) if keys else None
        if key is not None:
            page.keyboard.press(key)
            continue
        either = page.locator(f"{RESULT}, {PLAYABLE}").first
        either.wait_for()
        if page.locator(RESULT).count():
            return
        if not keys:
            either.click()


def game_id(page: Any) -> str:
    value = page.locator("#race").get_attribute("data-game-id")
    assert value, "no race on the page"
    return str(value)
