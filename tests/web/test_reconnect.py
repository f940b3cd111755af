"""Coming back: a page reloaded in the middle of a race, and pages whose connection
dropped (the server restarted), resume the race from the server's game_state."""

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


def play_some(page, count: int) -> None:
    for n in range(count):
        page.locator(PLAYABLE).first.click()
        expect(page.locator(f"{OWN} .board-title")).to_contain_text(f"{n + 1}/52")


def test_a_reload_resumes_the_race(web, new_page) -> None:
    ann, bob = new_page(web.base), new_page(web.base)
    ann_name = sign_in(ann)
    sign_in(bob)
    quick_match(ann, bob)
    race = game_id(ann)
    play_some(ann, 3)
    expect(bob.locator(f"{OPPONENT} .board-title")).to_contain_text("3/52")

    ann.reload()

    expect(ann.locator(OWN)).to_be_visible()
    assert game_id(ann) == race
    assert count_of(ann) == 3
    expect(ann.locator("#me")).to_contain_text(ann_name)  # the token brought the same player back
    expect(ann.locator("#stopwatch")).to_have_text(re.compile(r"time \d+:\d\d"))
    play_cards(ann, keys=True)
    expect(ann.locator(RESULT)).to_have_attribute("data-outcome", "won")
    expect(bob.locator(RESULT)).to_have_attribute("data-outcome", "lost")
    # The boards as dealt were kept across the reload: the whole deal is checked.
    expect(ann.locator("[data-deal]")).to_have_attribute("data-deal", "verified")


def test_a_dropped_connection_comes_back_to_the_race(start_web, new_page, tmp_path) -> None:
    db = str(tmp_path / "restart.sqlite3")
    first = start_web(db=db)
    ann, bob = new_page(first.base), new_page(first.base)
    sign_in(ann)
    sign_in(bob)
    quick_match(ann, bob)
    race = game_id(ann)
    play_some(ann, 2)
    expect(bob.locator(f"{OPPONENT} .board-title")).to_contain_text("2/52")

    first.stop()  # every connection drops; the race is kept in the store's journal
    for page in (ann, bob):
        expect(page.locator("#link")).to_have_attribute(
            "data-link", re.compile("reconnecting|connecting")
        )
    start_web(db=db, port=first.port)  # the same address: the pages come back by themselves

    for page in (ann, bob):
        expect(page.locator("#link")).to_have_attribute("data-link", "online", timeout=20_000)
        expect(page.locator(OWN)).to_be_visible()
        assert game_id(page) == race
    expect(ann.locator(f"{OWN} .board-title")).to_contain_text("2/52")
    play_cards(ann, keys=True)
    expect(ann.locator(RESULT)).to_have_attribute("data-outcome", "won")
    expect(bob.locator(RESULT)).to_have_attribute("data-outcome", "lost")
