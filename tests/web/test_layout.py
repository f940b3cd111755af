"""The page fits a 360 px wide phone (no horizontal scroll, cards big enough to tap) and
lays the boards side by side on a desktop."""

from __future__ import annotations

from .helpers import OPPONENT, OWN, RESULT, expect, quick_match, sign_in

PHONE = {"width": 360, "height": 740}
NO_SIDEWAYS = "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"


def fits(page) -> None:
    scroll, width = page.evaluate(NO_SIDEWAYS)
    assert scroll <= width, f"{scroll} px wide in a {width} px window"


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
