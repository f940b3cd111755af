"""Spectating: /#watch=GAME_ID, from a link or from the lobby's live races."""

from __future__ import annotations

from .helpers import PLAYABLE, RESULT, expect, fresh_name, game_id, play_cards, quick_match, sign_in

WATCHED = '[data-board="watched"]'


def test_a_watch_link_shows_the_race_live(web, new_page) -> None:
    ann, bob = new_page(web.base), new_page(web.base)
    ann_name, bob_name = sign_in(ann), sign_in(bob)
    quick_match(ann, bob)
    race = game_id(ann)
    ann.locator(PLAYABLE).first.click()

    eve = new_page(f"{web.base}#watch={race}")
    expect(eve.locator("#signin-why")).to_have_text("Choose a name to watch the race.")
    eve.get_by_role("textbox", name="Name").fill(fresh_name())
    eve.get_by_role("button", name="Play", exact=True).click()

    boards = eve.locator(WATCHED)
    expect(boards).to_have_count(2)
    expect(eve.locator(".race-bar")).to_contain_text("(watching)")
    seat = ann.locator('[data-board="own"]').get_attribute("data-seat")
    ann_board = eve.locator(f'{WATCHED}[data-seat="{seat}"]')
    expect(ann_board.locator(".board-title")).to_contain_text(f"{ann_name} · 1/52")
    expect(eve.locator(f"{WATCHED} button")).to_have_count(0)  # a spectator plays nothing
    expect(eve.get_by_role("button", name="Resign")).to_be_hidden()

    ann.locator(PLAYABLE).first.click()
    expect(ann_board.locator(".board-title")).to_contain_text(f"{ann_name} · 2/52")
    play_cards(ann, keys=True)
    result = eve.locator(RESULT)
    expect(result).to_have_attribute("data-outcome", "watched")
    expect(result.locator(".headline")).to_have_text(f"{ann_name} won")
    expect(eve.get_by_role("button", name="Rematch")).to_be_hidden()
    # The spectator never saw game_start: the race's record has the boards as dealt.
    expect(result.locator("[data-deal]")).to_have_attribute("data-deal", "verified")
    assert bob_name

    eve.get_by_role("button", name="Back to the lobby").click()
    expect(eve.get_by_role("button", name="Quick match")).to_be_visible()
    assert "#watch=" not in eve.url


def test_the_lobby_lists_live_races_to_watch(web, new_page) -> None:
    ann, bob, eve = new_page(web.base), new_page(web.base), new_page(web.base)
    ann_name, bob_name = sign_in(ann), sign_in(bob)
    sign_in(eve)
    quick_match(ann, bob)
    # The lobby asks the server again every few seconds.
    watch = eve.get_by_role("link", name=f"Watch {ann_name} vs {bob_name}")
    expect(watch).to_be_visible()
    expect(eve.locator("#counts")).to_contain_text("3 online")
    watch.click()
    expect(eve.locator(WATCHED)).to_have_count(2)
    assert f"#watch={game_id(ann)}" in eve.url
