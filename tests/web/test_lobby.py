"""The lobby: what others seek (a click seeks the same), public rooms (a click joins),
the counts, and lists the server capped ("Public rooms: 100 of 340")."""

from __future__ import annotations

import re

from .helpers import OWN, expect, sign_in


def test_seek_the_same_and_join_a_public_room(web, new_page) -> None:
    ann, bob, cat = new_page(web.base), new_page(web.base), new_page(web.base)
    sign_in(ann)
    sign_in(bob)
    sign_in(cat)
    ann.get_by_text("Rules:").click()
    ann.get_by_role("checkbox", name="one redeal when stuck").check()
    ann.get_by_role("button", name="Quick match").click()
    expect(
        ann.get_by_text("Looking for an opponent (mirror · winnable · 1 redeal)")
    ).to_be_visible()

    same = bob.get_by_role("button", name="Seek the same: mirror · winnable · 1 redeal")
    expect(same).to_be_visible()  # the lobby is asked again every few seconds
    expect(bob.locator("#counts")).to_contain_text("1 seeking a match")
    same.click()
    for page in (ann, bob):
        expect(page.locator(OWN)).to_be_visible()
    expect(bob.locator(".race-bar .rules")).to_have_text("mirror · winnable · 1 redeal")

    cat.get_by_role("checkbox", name="list my room in the lobby").check()
    cat.get_by_role("button", name="Create room").click()
    code = cat.locator("[data-room-code]").inner_text()
    dan = new_page(web.base)
    sign_in(dan)
    join = dan.get_by_role("button", name=f"Join {code}")
    expect(join).to_be_visible()
    join.click()
    for page in (cat, dan):
        expect(page.locator(OWN)).to_be_visible()


def test_capped_lists_say_how_many_there_are(web, new_page) -> None:
    page = new_page(web.base)
    titles = page.evaluate("""async () => {
      const { capped } = await import("/js/view_lobby.js");
      return [capped("Public rooms", 100, 340), capped("Live races", 3, 3)];
    }""")
    assert titles == ["Public rooms: 100 of 340", "Live races"]
    sign_in(page)
    expect(page.get_by_role("heading", name=re.compile("^Public rooms"))).to_have_text(
        "Public rooms"
    )
