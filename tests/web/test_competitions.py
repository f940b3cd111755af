"""Reasons to come back, from the page (issue 27): the daily deal's entry in the lobby,
a race against the ghost of the day's best clear, the daily result with one's rank
and the day's board; an arena joined from the lobby, its standings and countdown
beside the race, paired again at once after each race, and "Pause".

The day's first clear is made on the wire at a person's pace: the fair-play rules
would flag a clear at socket speed, and a flagged clear is nobody's ghost (as
tests/integration/test_daily.py does it).
"""

from __future__ import annotations

import random
import re
import time
from typing import Any

from .helpers import OPPONENT, OWN, RESULT, expect, game_id, sign_in
from .test_fair_play import RATED, TOKEN, admin
from .wire import legal, played, wire_player

UNRATED = {**RATED, "rated": False}
STARTED = re.compile(r"· [1-9]\d*/52")
"""A board's title once its player has played a card."""


def clear_at_a_persons_pace(player: Any, start: dict[str, Any]) -> dict[str, Any]:
    """Play seat 0's board out, never under 60 ms after the card before and never
    evenly; the race's game_over."""
    rng, board = random.Random(7), start["boards"][0]
    while cards := legal(board):
        time.sleep(rng.uniform(0.06, 0.16))  # a hand's pace, not a wait for an event
        player.send(type="play", card=cards[0])
        while (ack := player.recv("played"))["seat"] != 0:
            pass
        assert ack["card"] == cards[0]
        board = played(board, cards[0])
    return player.recv("game_over")


def test_the_daily_deal_against_the_ghost(web, new_page) -> None:
    with wire_player(web.url) as first:
        first.send(type="daily")
        start = first.recv("game_start")
        assert start["daily"] and start["bots"] == [False, True]
        over = clear_at_a_persons_pace(first, start)
    assert over["daily"]["ranked"] and over["daily"]["rank"] == 1, over
    best = over["daily"]["time_ms"]

    ann = new_page(web.base)
    name = sign_in(ann)
    daily = ann.locator("#daily")
    expect(daily.locator("#daily-facts")).to_have_text(
        f"1 player raced it · best time {best // 1000}.{best % 1000 // 100} s"
    )
    expect(daily.locator("#daily-you")).to_contain_text("you have not raced it today")
    ann.get_by_role("button", name="Race the ghost").click()

    expect(ann.locator(".race-bar .vs")).to_have_text(f"{name} vs BOT-Ghost · bot")
    expect(ann.locator("#ghost-words")).to_contain_text(
        f"BOT-Ghost replays {first.name}'s clear, card by card at {first.name}'s times"
    )
    ghost = ann.locator(OPPONENT)
    expect(ghost).to_have_attribute("data-bot", "true")
    expect(ghost.locator(".board-title")).to_contain_text(STARTED)  # at the leader's pace
    ann.get_by_role("button", name="Resign").click()
    ann.get_by_role("button", name="Yes, resign").click()

    result = ann.locator(RESULT)
    expect(result.locator(".daily-rank")).to_have_attribute("data-daily-rank", "2")
    expect(result.locator(".daily-times")).to_contain_text("you did not clear it · the leader's")
    expect(result.locator(".daily-times")).to_contain_text(f"({first.name})")
    board = result.locator(".daily-board tbody tr")
    expect(board).to_have_count(2)
    expect(board.nth(0)).to_contain_text(first.name)
    expect(board.nth(1)).to_have_attribute("aria-current", "true")
    ann.get_by_role("button", name="Back to the lobby").click()
    expect(daily.locator("#daily-you")).to_have_text("you: rank 2, 0/52 · streak: 1 day")


def test_an_arena_beside_the_race_paired_again_and_paused(start_web, new_page) -> None:
    web = start_web(admin_token=TOKEN)
    made = admin(web, "arenas", name="Evening", minutes=30, rules=UNRATED)
    ann = new_page(web.base)
    name = sign_in(ann)
    ann.get_by_role("button", name="Join Evening").click()
    panel = ann.locator("#arena")
    expect(panel.get_by_role("heading", name="Arena: Evening")).to_be_visible()
    expect(panel.locator("#arena-countdown")).to_have_text(re.compile(r"^ends in (29|30):\d\d$"))
    expect(panel.locator("#arena-waiting")).to_be_visible()

    with wire_player(web.url) as rival:
        rival.send(type="join_arena", arena_id=made["arena_id"])
        first = rival.recv("game_start")
        assert first["arena_id"] == made["arena_id"]
        expect(ann.locator(OWN)).to_be_visible()
        expect(panel).to_be_visible()  # beside the race
        own, side = ann.locator(OWN).bounding_box(), panel.bounding_box()
        assert side["x"] >= own["x"] + own["width"], (own, side)
        expect(panel.locator("#arena-waiting")).to_be_hidden()
        rival.send(type="resign")
        rival.recv("game_over")
        # The arena pairs them again at once, and the page goes straight to the new
        # race: this result may be on screen for no time at all. The points of a
        # race's result are checked below, on the race after the pause.
        again = rival.recv("game_start")  # paired again at once: nobody else is free
        assert again["game_id"] != first["game_id"]
        expect(ann.locator("#race")).to_have_attribute("data-game-id", again["game_id"])
        expect(panel.locator("#arena-you")).to_have_text("you: rank 1 · 2 points · 1 race")
        standings = panel.locator(".standings li")
        expect(standings.first).to_contain_text(name)

        ann.get_by_role("button", name="Pause").click()  # no more races; this one goes on
        expect(panel).to_be_hidden()
        assert game_id(ann) == again["game_id"]
        rival.send(type="resign")
        rival.recv("game_over")
        # Paused, nobody pairs them again: the result stays, with the arena's points.
        expect(ann.locator(RESULT).locator(".arena-points")).to_have_text(
            f"arena: {name} +2 · {rival.name} +0"
            if again["seat"] == 1
            else f"arena: {rival.name} +0 · {name} +2"
        )
    ann.get_by_role("button", name="Back to the lobby").click()
    expect(ann.get_by_role("button", name="Join Evening")).to_be_visible()
