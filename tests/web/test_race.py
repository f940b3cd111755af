"""Two browser pages race each other through the real server, as two people would."""

from __future__ import annotations

import re

from .helpers import (
    OPPONENT,
    OWN,
    PLAYABLE,
    RESULT,
    count_of,
    expect,
    game_id,
    play_cards,
    quick_match,
    sign_in,
)


def test_quick_match_to_game_over_and_a_rematch(web, new_page) -> None:
    ann, bob = new_page(web.base), new_page(web.base)
    ann_name, bob_name = sign_in(ann), sign_in(bob)
    quick_match(ann, bob)
    expect(ann.locator(".race-bar")).to_contain_text(f"{ann_name} vs {bob_name}")
    expect(ann.locator("#stopwatch")).to_have_text(re.compile(r"time \d+:\d\d"))
    first = game_id(ann)
    for page, plays in ((ann, 3), (bob, 2)):  # bob plays too: the margin is where he stopped
        for n in range(plays):
            page.locator(PLAYABLE).first.click()
            expect(page.locator(f"{OWN} .board-title")).to_contain_text(f"{n + 1}/52")

    play_cards(ann)

    for page, outcome, headline in ((ann, "won", "You won"), (bob, "lost", "You lost")):
        result = page.locator(RESULT)
        expect(result).to_have_attribute("data-result", "win")
        expect(result).to_have_attribute("data-outcome", outcome)
        expect(result.locator(".headline")).to_have_text(headline)
        expect(result).to_contain_text(f"{ann_name} cleared every card")
        expect(result).to_contain_text(
            re.compile(
                rf"{ann_name} cleared in \d+\.\d s, 50 cards ahead .* {bob_name} 2/52, last card at"
            )
        )
        expect(result.locator("[data-deal]")).to_have_attribute("data-deal", "verified")
        expect(result.locator("[data-deal]")).to_have_text("deal verified")
    assert count_of(bob, OPPONENT) == 52

    bob.get_by_role("button", name="Rematch").click()
    expect(ann.locator(RESULT)).to_contain_text(f"{bob_name} wants a rematch!")
    ann.get_by_role("button", name="Rematch").click()
    for page in (ann, bob):
        expect(page.locator(RESULT)).to_have_count(0)
        expect(page.locator(f"{OWN} .board-title")).to_contain_text("0/52")
    assert game_id(ann) != first


def test_a_card_that_cannot_go_up_is_refused_at_once(web, new_page) -> None:
    ann, bob = new_page(web.base), new_page(web.base)
    sign_in(ann)
    sign_in(bob)
    quick_match(ann, bob)
    covered = ann.locator(f"{OWN} .bed button.card:not(.front)").first
    code = covered.get_attribute("data-card")
    covered.click(position={"x": 8, "y": 6})  # its visible strip, where its corner is
    expect(ann.locator("#race-notice")).to_have_text(re.compile(r"is under \d cards? in bed \d"))
    expect(ann.locator(f'{OWN} [data-card="{code}"]')).to_have_count(1)
    assert count_of(ann) == 0


def test_resign_asks_first(web, new_page) -> None:
    ann, bob = new_page(web.base), new_page(web.base)
    ann_name = sign_in(ann)
    sign_in(bob)
    quick_match(ann, bob)
    ann.locator(PLAYABLE).first.click()
    expect(ann.locator(f"{OWN} .board-title")).to_contain_text("1/52")

    ann.get_by_role("button", name="Resign").click()
    dialog = ann.get_by_role("dialog", name="Resign this race?")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Keep racing").click()
    expect(dialog).to_be_hidden()
    expect(ann.locator(RESULT)).to_have_count(0)

    ann.get_by_role("button", name="Resign").click()
    ann.get_by_role("dialog").get_by_role("button", name="Yes, resign").click()
    expect(ann.locator(RESULT)).to_have_attribute("data-outcome", "lost")
    expect(bob.locator(RESULT)).to_have_attribute("data-outcome", "won")
    expect(bob.locator(RESULT)).to_contain_text(f"{ann_name} resigned")


def test_a_lapsed_rematch_offer_is_said_so(web, new_page) -> None:
    ann, bob = new_page(web.base), new_page(web.base)
    sign_in(ann)
    sign_in(bob)
    quick_match(ann, bob)
    ann.get_by_role("button", name="Resign").click()
    ann.get_by_role("dialog").get_by_role("button", name="Yes, resign").click()
    expect(bob.locator(RESULT)).to_have_attribute("data-outcome", "won")
    bob.get_by_role("button", name="Back to the lobby").click()
    bob.get_by_role("button", name="Quick match").click()  # anything else: the offer lapses
    expect(bob.get_by_text("Looking for an opponent")).to_be_visible()
    ann.get_by_role("button", name="Rematch").click()
    expect(ann.locator("#race-notice")).to_have_text("the rematch offer has lapsed")


def test_a_rated_race_shows_the_rating_change(web, new_page) -> None:
    ann, bob = new_page(web.base), new_page(web.base)
    sign_in(ann)
    sign_in(bob)
    expect(ann.locator("#me")).to_contain_text("rating 1500?")
    for page in (ann, bob):
        page.get_by_text("Rules:").click()
        page.get_by_label("Deal", exact=True).select_option("independent")
        page.get_by_role("checkbox", name="rated").check()
        expect(page.get_by_label("Deal", exact=True)).to_have_value("mirror")  # rated forces mirror
        expect(page.get_by_label("Deal", exact=True)).to_be_disabled()
    quick_match(ann, bob)
    expect(ann.locator(".race-bar .rules")).to_contain_text("rated")
    # A provisional rating is written one way everywhere: "1500?" (PROTOCOL.md, "Ratings").
    expect(ann.locator(".race-bar .vs")).to_have_text(re.compile(r"^\S+ 1500\? vs \S+ 1500\?$"))
    # Both race (a rated race rates only what both raced by hand: docs/fair-play.md),
    # then Bob resigns.
    play_cards(ann, keys=True, limit=3)
    play_cards(bob, keys=True, limit=1)
    expect(bob.locator(f"{OPPONENT} .board-title")).to_contain_text("3/52")  # Ann's plays in
    expect(ann.locator(f"{OPPONENT} .board-title")).to_contain_text("1/52")  # Bob's too
    bob.get_by_role("button", name="Resign").click()
    bob.get_by_role("dialog").get_by_role("button", name="Yes, resign").click()
    ratings = ann.locator(f"{RESULT} .ratings")
    expect(ratings).to_contain_text(re.compile(r"rating: \S+ 1500 → 1[5-9]\d\d \(\+\d+\)"))
    after = re.search(r"1500 → (\d+)", ratings.inner_text())
    assert after is not None
    expect(ann.locator("#me")).to_contain_text(f"rating {after.group(1)}?")  # no reload needed
    expect(bob.locator(f"{RESULT} .ratings")).to_contain_text(
        re.compile(r"1500 → 1[0-4]\d\d \(\u2212\d+\)")
    )


def test_a_redeal_when_stuck(web, new_page) -> None:
    ann, bob = new_page(web.base), new_page(web.base)
    sign_in(ann)
    sign_in(bob)
    for page in (ann, bob):  # the classic game, where most deals get stuck
        page.get_by_text("Rules:").click()
        page.get_by_label("Deal", exact=True).select_option("independent")
        page.get_by_role("checkbox", name="winnable only").uncheck()
        page.get_by_role("checkbox", name="one redeal when stuck").check()
    quick_match(ann, bob)
    redeal = ann.get_by_role("button", name="Redeal")
    expect(ann.locator(f"{OWN} .board-title")).to_contain_text("1 redeal left")
    for _ in range(52):  # play on until stuck: no card to play, and the redeal offered
        ann.locator(f"{PLAYABLE}, #redeal:enabled").first.wait_for()
        if redeal.is_enabled():
            break
        ann.keyboard.press(ann.locator(PLAYABLE).first.get_attribute("data-key"))
    expect(ann.locator(f"{OWN} .board-title")).to_contain_text("stuck: redeal")
    redeal.click()
    expect(ann.locator(f"{OWN} .board-title")).not_to_contain_text("1 redeal left")
    expect(redeal).to_be_disabled()
