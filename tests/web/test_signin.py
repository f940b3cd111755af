"""Signing in: the name rule and a taken name said in words, and the token this browser
keeps per server, which brings the same player back."""

from __future__ import annotations

import lang
from lang import BROWSER
from web.facts import facts

from .helpers import expect, fresh_name, sign_in


def test_a_bad_or_taken_name_is_said_so(web, new_page) -> None:
    ann = new_page(web.base)
    taken = sign_in(ann)
    bob = new_page(web.base)
    error = bob.get_by_role("alert")
    bob.get_by_role("textbox", name="Name").fill("no spaces allowed")
    bob.get_by_role("button", name="Play", exact=True).click()
    longest = dict((name, value) for name, _, value in facts())["NAME_MAX"]
    rule = lang.catalogue("en", BROWSER).text("name.rule", max=longest)
    expect(error).to_have_text(rule)  # the server's rule, in the page's language
    bob.get_by_role("textbox", name="Name").fill("bot-Hare")
    bob.get_by_role("button", name="Play", exact=True).click()
    expect(error).to_have_text("names starting with BOT- are the server's bots")
    expect(bob.locator("#link")).to_have_attribute("data-link", "offline")  # not even asked
    bob.get_by_role("textbox", name="Name").fill(taken.upper())
    bob.get_by_role("button", name="Play", exact=True).click()
    expect(error).to_have_text("someone has this name; names ignore case")
    expect(bob.get_by_role("textbox", name="Name")).to_be_focused()
    sign_in(bob)  # another name is welcomed


def test_the_browser_keeps_the_token(web, new_page) -> None:
    page = new_page(web.base)
    name = sign_in(page)
    page.reload()  # signed in again at once, as the same player
    expect(page.locator("#me")).to_contain_text(name)
    expect(page.get_by_role("button", name="Quick match")).to_be_visible()

    page.get_by_role("button", name="Change player").click()
    other = sign_in(page, fresh_name())
    expect(page.locator("#me")).to_contain_text(other)
    page.get_by_role("button", name="Change player").click()
    sign_in(page, name.upper())  # a name this browser knows: its token, not name_taken
    expect(page.locator("#me")).to_contain_text(name)
    stored = page.evaluate("Object.values(JSON.parse(localStorage['flowergarden.identities']))[0]")
    assert stored["last"] == name
    assert {entry["name"] for entry in stored["names"].values()} == {name, other}
