"""Keyboard-only play: the name, a quick match, the race by its keys (1-6 a bed's front
card, a-p a bouquet card, as in the terminal client), Tab and Enter on a card, the
rematch, resigning after the question, and back to the lobby. No mouse at all."""

from __future__ import annotations

from .helpers import OWN, PLAYABLE, RESULT, count_of, expect, fresh_name, play_cards


def keyboard_sign_in(page) -> None:
    expect(page.get_by_role("textbox", name="Name")).to_be_focused()
    page.keyboard.type(fresh_name())
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Quick match")).to_be_focused()


def press_playable_keys(page, count: int) -> None:
    """Press the key of a playable card ``count`` times, each once the page shows it."""
    for _ in range(count):
        before = count_of(page)
        key = page.locator(PLAYABLE).first.get_attribute("data-key")
        assert key, "a playable card without a key"
        page.keyboard.press(key)
        expect(page.locator(f"{OWN} .board-title")).to_contain_text(f"{before + 1}/52")


def test_keyboard_only(web, new_page) -> None:
    ann, bob = new_page(web.base), new_page(web.base)
    keyboard_sign_in(ann)
    keyboard_sign_in(bob)
    ann.keyboard.press("Enter")  # Quick match
    expect(ann.get_by_text("Looking for an opponent")).to_be_visible()
    bob.keyboard.press("Enter")
    for page in (ann, bob):
        expect(page.locator(OWN)).to_be_focused()

    # A bed's front card by its digit, a bouquet card by its letter.
    press_playable_keys(ann, 3)

    # Tab reaches the cards; Enter on a playable one plays it; the focus ring shows.
    for _ in range(40):
        ann.keyboard.press("Tab")
        if ann.evaluate("document.activeElement.dataset.playable === 'true'"):
            break
    else:
        raise AssertionError("Tab never reached a playable card")
    outline = ann.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("", "none"), outline
    before = count_of(ann)
    ann.keyboard.press("Enter")
    expect(ann.locator(f"{OWN} .board-title")).to_contain_text(f"{before + 1}/52")
    # The focus stays on the board, on a card that can be played next when there is one.
    assert ann.evaluate("document.activeElement.closest('[data-board=\"own\"]') !== null")

    play_cards(ann, keys=True)
    expect(ann.locator(RESULT)).to_have_attribute("data-outcome", "won")
    expect(ann.locator("#result-headline")).to_be_focused()
    ann.keyboard.press("Tab")
    expect(ann.get_by_role("button", name="Rematch")).to_be_focused()
    ann.keyboard.press("Enter")
    bob.keyboard.press("r")  # r: rematch, after the race
    for page in (ann, bob):
        expect(page.locator(RESULT)).to_have_count(0)
        expect(page.locator(OWN)).to_be_focused()

    ann.keyboard.press("x")  # resign: asked first, "Keep racing" is the default
    dialog = ann.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("button", name="Keep racing")).to_be_focused()
    ann.keyboard.press("Enter")
    expect(dialog).to_be_hidden()
    expect(ann.locator(RESULT)).to_have_count(0)
    ann.keyboard.press("x")
    ann.keyboard.press("Shift+Tab")
    expect(dialog.get_by_role("button", name="Yes, resign")).to_be_focused()
    ann.keyboard.press("Enter")
    expect(ann.locator(RESULT)).to_have_attribute("data-outcome", "lost")

    ann.keyboard.press("Escape")  # back to the lobby
    expect(ann.get_by_role("button", name="Quick match")).to_be_focused()


def test_a_key_that_plays_nothing_says_why(web, new_page) -> None:
    ann, bob = new_page(web.base), new_page(web.base)
    keyboard_sign_in(ann)
    keyboard_sign_in(bob)
    ann.keyboard.press("Enter")
    expect(ann.get_by_text("Looking for an opponent")).to_be_visible()
    bob.keyboard.press("Enter")
    expect(ann.locator(OWN)).to_be_focused()
    waiting = ann.locator(f'{OWN} .bouquet [data-card]:not([data-playable="true"])').first
    key = waiting.get_attribute("data-key")
    ann.keyboard.press(key)
    expect(ann.locator("#race-notice")).to_contain_text("must wait")
    ann.keyboard.press("/")
    expect(ann.get_by_role("textbox", name="Type a card")).to_be_focused()
    playable = ann.locator(PLAYABLE).first.get_attribute("data-card")
    ann.keyboard.type(playable.lower())
    ann.keyboard.press("Enter")
    expect(ann.locator(f"{OWN} .board-title")).to_contain_text("1/52")
    ann.keyboard.press("Escape")
    expect(ann.get_by_role("textbox", name="Type a card")).not_to_be_focused()
    # No redeal in these rules: the hints name none, and r says nothing of one.
    expect(ann.locator("#key-hints")).to_be_visible()
    expect(ann.locator("#key-hints")).not_to_contain_text("redeal", use_inner_text=True)
    ann.keyboard.press("r")
    assert "redeal" not in ann.locator("#race-notice").inner_text()
