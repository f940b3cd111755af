"""A room's shareable link (/#room=CODE) opens straight into joining it, once the page
has said hello: with a name typed first by a new player, at once for one this browser
knows; and a code typed into the lobby joins too."""

from __future__ import annotations

import re

from .helpers import OWN, expect, fresh_name, sign_in


def open_room(page) -> tuple[str, str]:
    page.get_by_role("button", name="Create room").click()
    link = page.get_by_role("textbox", name="Link to share")
    expect(link).to_have_value(re.compile(r"#room=[2-9A-Z]{6}$"))
    code = page.locator("[data-room-code]").inner_text()
    return code, link.input_value()


def test_a_room_link_opens_straight_into_joining(web, new_page) -> None:
    ann = new_page(web.base)
    ann_name = sign_in(ann)
    code, link = open_room(ann)
    assert link == f"{web.base}#room={code}"

    bob = new_page(link)  # a new player: the page asks for a name first
    expect(bob.locator("#signin-why")).to_have_text(f"Choose a name to join room {code}.")
    bob.get_by_role("textbox", name="Name").fill(fresh_name())
    bob.get_by_role("button", name="Play", exact=True).click()
    for page in (ann, bob):
        expect(page.locator(OWN)).to_be_visible()
    expect(bob.locator(".race-bar .vs")).to_contain_text(ann_name)
    assert "#room=" not in bob.url  # used once: a reload later does not join again


def test_a_known_player_joins_from_the_link_at_once(web, new_page) -> None:
    ann, bob = new_page(web.base), new_page(web.base)
    sign_in(ann)
    sign_in(bob)
    code, link = open_room(ann)
    tab = bob.context.new_page()  # the same browser: the token is in localStorage
    tab.goto(link)
    expect(tab.locator(OWN)).to_be_visible()
    expect(ann.locator(OWN)).to_be_visible()
    expect(tab.get_by_role("textbox", name="Name")).to_be_hidden()
    # The first tab gave way to the new one (the server closed it with 4000).
    expect(bob.locator("#link")).to_have_attribute("data-link", "replaced")
    assert code


def test_a_typed_code_joins(web, new_page) -> None:
    ann, bob = new_page(web.base), new_page(web.base)
    sign_in(ann)
    sign_in(bob)
    code, _ = open_room(ann)
    bob.get_by_role("textbox", name="Room code").fill(f" {code.lower()} ")
    bob.get_by_role("button", name="Join").click()
    for page in (ann, bob):
        expect(page.locator(OWN)).to_be_visible()


def test_a_wrong_code_is_said_in_words(web, new_page) -> None:
    ann = new_page(web.base)
    sign_in(ann)
    ann.get_by_role("textbox", name="Room code").fill("ZZZZZZ")
    ann.get_by_role("button", name="Join").click()
    expect(ann.locator("#lobby-notice")).to_contain_text("no open room has that code")
