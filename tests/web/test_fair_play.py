"""Running a public lobby, from the page (issue 26): "Report this race" on the result,
the screen of a banned player (a refused hello, or close 4001, after which the page
stays away), a rated race refused (``not_allowed``) with the offer to race unrated,
why a rated race changed no rating (``unrated``), and a declared bot labelled.

The operator acts through the real admin API (``admin_token``); every other player is
a real client on the wire (wire.py)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from .helpers import OPPONENT, OWN, RESULT, expect, fresh_name, game_id, sign_in
from .wire import play_greedily, wire_player

TOKEN = "the-operator"
RATED = {
    "deal": "mirror",
    "winnable_only": True,
    "redeals": 0,
    "tiebreak": "draw",
    "time_limit_s": None,
    "rated": True,
}
"""The page's default rules with "rated" ticked, as its quick match sends them."""


def admin(web: Any, path: str, **body: Any) -> dict[str, Any]:
    """POST an operator's action under /api/admin/; its JSON answer."""
    request = urllib.request.Request(
        f"{web.base}api/admin/{path}",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        result: dict[str, Any] = json.loads(answer.read())
        return result


def rated_race(page: Any) -> None:
    """The page seeks a rated race (the box ticked once: the page keeps it)."""
    rated = page.get_by_role("checkbox", name="rated")
    if not rated.is_visible():
        page.get_by_text("Rules:").click()
    rated.check()
    page.get_by_role("button", name="Quick match").click()
    expect(page.get_by_text("Looking for an opponent")).to_be_visible()


def test_a_taken_name_says_why_and_the_header_says_not_connected(web, new_page) -> None:
    ann = new_page(web.base)
    taken = sign_in(ann)
    bob = new_page(web.base)
    bob.get_by_role("textbox", name="Name").fill(taken.upper())
    bob.get_by_role("button", name="Play", exact=True).click()
    expect(bob.get_by_role("alert")).to_have_text("someone has this name; names ignore case")
    # Refused, the page is not connected, nor connecting: the header says nothing of a link.
    expect(bob.locator("#link")).to_have_attribute("data-link", "offline")
    expect(bob.locator("#link-state")).to_have_text("")
    expect(bob.locator("#link")).not_to_contain_text("connecting")


def won_race(page: Any, url: str) -> None:
    """The page quick-matches a player on the wire, who resigns at once: the page won."""
    with wire_player(url) as rival:
        page.get_by_role("button", name="Quick match").click()
        expect(page.get_by_text("Looking for an opponent")).to_be_visible()
        rival.send(type="seek", rules={**RATED, "rated": False})
        rival.recv("game_start")
        rival.send(type="resign")
        rival.recv("game_over")
    expect(page.locator(RESULT)).to_have_attribute("data-outcome", "won")


def test_report_this_race(web, new_page) -> None:
    ann = new_page(web.base)
    sign_in(ann)
    won_race(ann, web.url)
    ann.get_by_role("button", name="Report this race").click()
    reason = ann.get_by_role("textbox", name="What was not fair? (optional)")
    expect(reason).to_be_focused()
    expect(reason).to_have_attribute("maxlength", "200")
    reason.fill("cards faster than I could see them")
    ann.get_by_role("button", name="Send the report").click()
    answer = ann.locator("#report-state")
    expect(answer).to_have_text("Reported: the server's operator will look at this race.")
    expect(answer).to_be_focused()
    expect(ann.get_by_role("button", name="Report this race")).to_be_hidden()
    expect(reason).to_be_hidden()


def test_a_refused_report_is_said_on_the_result(web, new_page) -> None:
    ann = new_page(web.base)
    name = sign_in(ann)
    won_race(ann, web.url)
    # The same player reports the race from elsewhere first (which takes the page's
    # place: 4000), and the page comes back.
    token = ann.evaluate(
        "(name) => Object.values(JSON.parse(localStorage['flowergarden.identities']))[0]"
        ".names[name.toLowerCase()].token",
        name,
    )
    with wire_player(web.url, name, token=token) as elsewhere:
        elsewhere.send(type="report", game_id=game_id(ann))
        elsewhere.recv("reported")
    expect(ann.locator("#link")).to_have_attribute("data-link", "replaced")
    ann.get_by_role("button", name="Reconnect now").click()
    expect(ann.locator("#link")).to_have_attribute("data-link", "online")
    ann.get_by_role("button", name="Report this race").click()
    ann.get_by_role("button", name="Send the report").click()
    answer = ann.locator("#report-state")
    expect(answer).to_have_class("report-state error")
    expect(answer).to_have_text("you have reported this race already")  # by code
    expect(ann.locator("#race-notice")).to_have_text("")  # said beside the report only


def test_a_ban_shows_its_screen_and_the_page_stays_away(start_web, new_page) -> None:
    web = start_web(admin_token=TOKEN)
    ann = new_page(web.base)
    name = sign_in(ann)
    admin(web, f"players/{name}/ban", reason="a test")
    banned = ann.get_by_role("heading", name="This player is banned from this server")
    expect(banned).to_be_visible()  # closed with 4001
    expect(banned).to_be_focused()
    words = ann.locator("#banned-words")
    expect(words).to_have_text(f"The operator of this server has banned {name}.")
    expect(ann.get_by_role("button", name="Quick match")).to_be_hidden()
    expect(ann.locator("#link")).to_have_attribute("data-link", "offline")
    expect(ann.locator("#link-retry")).to_have_text("")  # no reconnect is coming
    assert ann.evaluate("window.flowergarden.state.attempt") == 0

    ann.reload()  # the stored token's hello is answered `banned`: the same screen
    expect(banned).to_be_visible()
    expect(ann.locator("#link")).to_have_attribute("data-link", "offline")
    ann.get_by_role("button", name="Sign in as another player").click()
    sign_in(ann, fresh_name())


def test_a_refused_rated_race_says_why_and_offers_unrated(start_web, new_page) -> None:
    web = start_web(admin_token=TOKEN)
    ann = new_page(web.base)
    name = sign_in(ann)
    admin(web, f"players/{name}/bot", reason="plays by script")  # a bot never races rated
    ann.get_by_text("Rules:").click()
    ann.get_by_role("checkbox", name="rated").check()
    ann.get_by_role("button", name="Quick match").click()
    refused = ann.locator("#rated-refused")
    expect(refused).to_be_visible()
    expect(refused).to_contain_text("Rated races are closed to you:")
    expect(refused).to_contain_text("never rated")  # the server's why, as it gave it
    expect(ann.get_by_text("Looking for an opponent")).to_be_hidden()
    ann.get_by_role("button", name="Race unrated").click()
    expect(ann.get_by_text("Looking for an opponent (mirror · winnable)…")).to_be_visible()
    expect(ann.get_by_role("checkbox", name="rated")).not_to_be_checked()
    expect(refused).to_be_hidden()

    ann.reload()  # welcome says what the operator made of this player
    expect(ann.locator("#me")).to_contain_text(f"{name} · bot")


def test_why_a_rated_race_changed_no_rating(web, new_page) -> None:
    ann = new_page(web.base)
    sign_in(ann)
    # Nobody played: the race is unrated, no_play.
    with wire_player(web.url) as quitter:
        rated_race(ann)
        quitter.send(type="seek", rules=RATED)
        quitter.recv("game_start")
        quitter.send(type="resign")
        quitter.recv("game_over")
    result = ann.locator(RESULT)
    unrated = result.locator(".unrated")
    expect(unrated).to_have_attribute("data-unrated", "no_play")
    expect(unrated).to_have_text("not rated: a player made no play")
    expect(result.locator(".ratings")).to_have_count(0)
    ann.get_by_role("button", name="Back to the lobby").click()

    # A script plays every card the moment it can: flagged, and the race is unrated.
    with wire_player(web.url) as script:
        rated_race(ann)
        script.send(type="seek", rules=RATED)
        start = script.recv("game_start")
        board = play_greedily(script, start, redeal=False)
        if sum(board["foundations"].values()) < 52:  # stuck, not cleared: the race goes on
            ann.get_by_role("button", name="Resign").click()
            ann.get_by_role("button", name="Yes, resign").click()
        script.recv("game_over")
    expect(unrated).to_have_attribute("data-unrated", "fair_play")
    expect(unrated).to_contain_text("not rated: ")


def test_a_declared_bot_is_labelled_and_not_reported(web, new_page) -> None:
    ann = new_page(web.base)
    name = sign_in(ann)
    with wire_player(web.url, bot=True) as program:
        assert program.welcome["bot"] is True
        program.send(type="create_room", rules={**RATED, "rated": False})
        code = program.recv("room")["code"]
        ann.get_by_role("textbox", name="Room code").fill(code)
        ann.get_by_role("button", name="Join", exact=True).click()
        expect(ann.locator(".race-bar .vs")).to_have_text(f"{program.name} · bot vs {name}")
        expect(ann.locator(OPPONENT)).to_have_attribute("data-bot", "true")
        expect(ann.locator(OWN)).not_to_have_attribute("data-bot", "true")

        eve = new_page(web.base)
        sign_in(eve)
        watch = eve.get_by_role("link", name=f"Watch {program.name} · bot vs {name}")
        expect(watch).to_be_visible()

        program.send(type="resign")
        program.recv("game_over")
    expect(ann.locator(RESULT)).to_have_attribute("data-outcome", "won")
    expect(ann.locator(".bot-race")).to_contain_text(f"{program.name} · bot")
    expect(ann.get_by_role("button", name="Report this race")).to_be_hidden()

    ann.get_by_role("link", name="Your races").click()
    row = ann.locator("#history li").first
    expect(row).to_contain_text(f"vs {program.name} · bot · won")
    row.get_by_role("link", name=program.name, exact=True).click()
    expect(ann.get_by_role("heading", name=f"{program.name} · bot")).to_be_visible()
    expect(ann.locator(".bot-note")).to_have_text(
        f"{program.name} · bot: a program plays for this player; its races are never rated"
    )
