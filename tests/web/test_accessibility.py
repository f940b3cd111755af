"""The page's accessibility contract and its test contract (docs/web.md): controls with
names, cards as buttons named like "queen of hearts" with their code in data-card, the
playable ones marked, suits told apart without colour, and prefers-reduced-motion."""

from __future__ import annotations

import re

from .helpers import OPPONENT, OWN, PLAYABLE, RESULT, expect, quick_match, sign_in

RANK_WORDS = [
    "ace",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
]
RANKS = dict(zip("A23456789TJQK", RANK_WORDS, strict=True))
SUITS = {"S": ("spades", "♠"), "H": ("hearts", "♥"), "D": ("diamonds", "♦"), "C": ("clubs", "♣")}

UNNAMED = """() => {
  const named = (el) => {
    const by = el.getAttribute("aria-labelledby");
    const text = el.getAttribute("aria-label")
      || (by && by.split(" ").map((id) => document.getElementById(id)?.textContent ?? "").join(" "))
      || (el.labels && [...el.labels].map((label) => label.textContent).join(" "))
      || (el.tagName === "INPUT" ? "" : el.textContent)
      || el.getAttribute("title") || "";
    return text.trim() !== "";
  };
  return [...document.querySelectorAll("button, input, select, a[href], [role=img]")]
    .filter((el) => el.checkVisibility() && !named(el))
    .map((el) => el.outerHTML.slice(0, 120));
}"""


def spoken(code: str) -> str:
    return f"{RANKS[code[0]]} of {SUITS[code[1]][0]}"


def test_controls_have_names(web, new_page) -> None:
    page = new_page(web.base)
    expect(page.get_by_role("textbox", name="Name")).to_be_visible()
    assert page.evaluate(UNNAMED) == []
    sign_in(page)
    for role, name in (
        ("button", "Quick match"),
        ("button", "Create room"),
        ("textbox", "Room code"),
        ("button", "Join"),
        ("button", "Race a bot"),
        ("combobox", "Bot level"),
        ("combobox", "If nobody comes"),
    ):
        expect(page.get_by_role(role, name=name, exact=True)).to_be_visible()
    page.get_by_text("Rules:").click()
    for name in ("winnable only", "one redeal when stuck", "rated"):
        expect(page.get_by_role("checkbox", name=re.compile(f"^{name}"))).to_be_visible()
    expect(page.get_by_role("combobox", name="Tiebreak")).to_be_visible()
    expect(page.get_by_role("spinbutton", name=re.compile("Time limit"))).to_be_visible()
    page.get_by_role("button", name="Create room").click()
    expect(page.get_by_role("button", name="Copy link")).to_be_visible()
    assert page.evaluate(UNNAMED) == []


def test_the_race_screen_contract(web, new_page) -> None:
    ann, bob = new_page(web.base), new_page(web.base)
    sign_in(ann)
    sign_in(bob)
    quick_match(ann, bob)

    own = ann.locator(f"{OWN} [data-card]")
    expect(own).to_have_count(52)
    codes = own.evaluate_all("(cards) => cards.map((card) => card.dataset.card)")
    assert sorted(codes) == sorted(r + s for r in RANKS for s in SUITS)
    for code in codes[:52]:
        card = ann.locator(f'{OWN} [data-card="{code}"]')
        expect(card).to_have_role("button")
        expect(card).to_have_accessible_name(spoken(code))
        expect(card).to_contain_text(SUITS[code[1]][1])  # the suit's symbol, not its colour alone
    # At the deal, the playable cards are the uncovered Aces: bed fronts and the bouquet.
    uncovered = ann.locator(f"{OWN} .bed button.front, {OWN} .bouquet button").evaluate_all(
        "(cards) => cards.map((card) => card.dataset.card)"
    )
    playable = ann.locator(PLAYABLE).evaluate_all(
        "(cards) => cards.map((card) => card.dataset.card)"
    )
    assert sorted(playable) == sorted(code for code in uncovered if code[0] == "A")
    assert playable, "a winnable deal has an Ace to play"
    keys = ann.locator(PLAYABLE).evaluate_all("(cards) => cards.map((card) => card.dataset.key)")
    assert all(re.fullmatch(r"[1-6a-p]", key) for key in keys), keys
    expect(ann.get_by_role("button", name=spoken(playable[0]), exact=True)).to_be_visible()

    theirs = ann.locator(f"{OPPONENT} [data-card]")
    expect(theirs).to_have_count(52)
    expect(ann.locator(f"{OPPONENT} button")).to_have_count(0)
    first = theirs.first
    expect(first).to_have_role("img")
    expect(first).to_have_accessible_name(spoken(first.get_attribute("data-card")))
    assert ann.evaluate(UNNAMED) == []

    expect(ann.locator(RESULT)).to_have_count(0)
    ann.get_by_role("button", name="Resign", exact=True).click()
    ann.get_by_role("button", name="Yes, resign").click()
    expect(ann.locator(RESULT)).to_be_visible()
    expect(ann.get_by_role("button", name="Rematch")).to_be_visible()
    expect(ann.get_by_role("button", name="Back to the lobby")).to_be_visible()
    assert ann.evaluate(UNNAMED) == []


def test_reduced_motion_is_respected(web, new_page) -> None:
    still = new_page(web.base, reduced_motion="reduce")
    moving = new_page(web.base, reduced_motion="no-preference")
    sign_in(still)
    sign_in(moving)
    quick_match(still, moving)
    style = (
        "(card) => [getComputedStyle(card).transitionDuration, getComputedStyle(card).transform]"
    )
    assert still.locator(PLAYABLE).first.evaluate(style) == ["0s", "none"]
    duration, transform = moving.locator(PLAYABLE).first.evaluate(style)
    assert duration != "0s" and transform != "none"
