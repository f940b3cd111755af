"""The page fits a 360 px wide phone (no horizontal scroll, cards big enough to tap) and
lays the boards side by side on a desktop."""

from __future__ import annotations

import re

from .helpers import OPPONENT, OWN, RESULT, expect, quick_match, sign_in

PHONE = {"width": 360, "height": 740}
NO_SIDEWAYS = "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"


BROKEN_WORDS = """() => {
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!element?.checkVisibility() || element.closest("select, script, style")) continue;
    for (const word of node.data.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const rects = [...range.getClientRects()].filter((rect) => rect.width);
      const lines = new Set(rects.map((rect) => Math.round(rect.top)));
      if (lines.size > 1) broken.push(word[0]);
    }
  }
  return broken;
}"""
"""Every word on the page that is laid out over more than one line ("Mov / e")."""


def fits(page) -> None:
    """No sideways scroll, and no word broken over two lines."""
    scroll, width = page.evaluate(NO_SIDEWAYS)
    assert scroll <= width, f"{scroll} px wide in a {width} px window"
    assert page.evaluate(BROKEN_WORDS) == [], "words broken over two lines"


def test_every_screen_fits_360_px(web, new_page) -> None:
    ann = new_page(web.base, **PHONE)
    bob = new_page(web.base, **PHONE)
    fits(ann)  # the name
    sign_in(ann)
    sign_in(bob)
    ann.get_by_text("Rules:").click()
    fits(ann)  # the lobby, the rules open
    ann.get_by_role("button", name="Create room").click()
    expect(ann.get_by_role("textbox", name="Link to share")).to_be_visible()
    fits(ann)  # the room's code and its long link
    ann.get_by_role("button", name="Close room").click()
    quick_match(ann, bob)
    fits(ann)  # the race: both boards
    front = ann.locator(f"{OWN} .bed button.front").first.bounding_box()
    assert front["width"] >= 40 and front["height"] >= 56, front  # a finger can hit it
    box = ann.locator(OWN).bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360
    ann.get_by_role("button", name="Resign").click()
    ann.get_by_role("button", name="Yes, resign").click()
    expect(ann.locator(RESULT)).to_be_visible()
    fits(ann)  # the result
    ann.get_by_role("link", name="Leaderboard").click()
    expect(ann.get_by_role("heading", name="Leaderboard")).to_be_visible()
    fits(ann)
    ann.get_by_role("link", name="Your races").click()
    expect(ann.locator("#history li")).to_have_count(1)
    fits(ann)  # a profile and its history
    ann.get_by_role("link", name=re.compile("^Replay")).click()
    expect(ann.locator("#replay-where")).to_have_text("move 0 of 0: as dealt")
    fits(ann)  # a replay's controls: "Move" and "Speed" whole, beside what they label


def test_a_desktop_shows_the_boards_side_by_side(web, new_page) -> None:
    ann, bob = new_page(web.base, width=1280, height=800), new_page(web.base)
    sign_in(ann)
    sign_in(bob)
    quick_match(ann, bob)
    own, theirs = ann.locator(OWN).bounding_box(), ann.locator(OPPONENT).bounding_box()
    assert own["x"] + own["width"] <= theirs["x"]  # own on the left
    assert abs(own["y"] - theirs["y"]) < 5
    assert own["width"] > theirs["width"]  # and larger
    fits(ann)
