"""Bots from the page: "Race a bot" races the chosen level at once, a quick match may
let a bot take the seat after N seconds (counted down), and a bot is labelled
"BOT-Swift · bot" on the race and result screens, in the lobby and on the HTTP pages."""

from __future__ import annotations

import re

from .helpers import OPPONENT, OWN, RESULT, expect, sign_in

STARTED = re.compile(r"· [1-9]\d*/52")
"""A board's title once its player has played a card."""


def test_race_a_bot_at_once(web, new_page) -> None:
    ann = new_page(web.base)
    name = sign_in(ann)  # alone on a fresh server: nobody else to race
    level = ann.get_by_role("combobox", name="Bot level")
    expect(level).to_have_value("3")
    expect(level.locator("option:checked")).to_have_text("3 · BOT-Hare · about 0.8 s a card")
    level.select_option("5")
    ann.get_by_role("button", name="Race a bot").click()

    expect(ann.locator(OWN)).to_be_visible()
    expect(ann.locator(".race-bar .vs")).to_have_text(f"{name} vs BOT-Swift · bot")
    expect(ann.locator(".race-bar .rules")).to_have_text("mirror · winnable")
    bot = ann.locator(OPPONENT)
    expect(bot).to_have_attribute("data-bot", "true")
    expect(ann.locator(OWN)).not_to_have_attribute("data-bot", "true")
    expect(bot.locator(".board-title")).to_contain_text("BOT-Swift · bot · ")
    expect(bot.locator(".board-title")).to_contain_text(STARTED)  # the bot plays

    eve = new_page(web.base)
    sign_in(eve)
    expect(eve.get_by_role("link", name=f"Watch {name} vs BOT-Swift · bot")).to_be_visible()

    ann.get_by_role("button", name="Resign").click()
    ann.get_by_role("button", name="Yes, resign").click()
    result = ann.locator(RESULT)
    expect(result).to_have_attribute("data-outcome", "lost")
    expect(result.locator(".bot-race")).to_have_text(
        f"{name} vs BOT-Swift · bot, level 5, about 0.3 s a card (a race with a bot is never rated)"
    )

    ann.get_by_role("link", name="Your races").click()
    row = ann.locator("#history li").first
    expect(row).to_contain_text("vs BOT-Swift · bot · lost (resigned)")
    row.get_by_role("link", name="BOT-Swift", exact=True).click()
    expect(ann.get_by_role("heading", name="BOT-Swift · bot")).to_be_visible()


def test_a_bot_after_some_seconds_counts_down(web, new_page) -> None:
    ann = new_page(web.base)
    sign_in(ann)
    ann.get_by_role("combobox", name="Bot level").select_option("2")
    after = ann.get_by_role("combobox", name="If nobody comes")
    expect(after).to_have_value("")  # off unless asked
    after.select_option(label="BOT-Tortoise takes the seat after 10 s")
    ann.get_by_role("button", name="Quick match").click()

    expect(ann.get_by_text("Looking for an opponent (mirror · winnable)")).to_be_visible()
    wait = ann.locator("#bot-wait")
    expect(wait).to_have_text(
        re.compile(r"^a bot takes the seat in (10|9) s \(BOT-Tortoise, about 1\.2 s a card\)$")
    )
    first = int(re.search(r"in (\d+) s", wait.inner_text()).group(1))
    expect(wait).to_contain_text(f"a bot takes the seat in {first - 1} s")  # it counts down

    # Tired of waiting: "Race a bot" gives the seek up for a bot at once (a quick one, so
    # that its first card comes well within the wait).
    ann.get_by_role("combobox", name="Bot level").select_option("5")
    expect(wait).to_contain_text("BOT-Tortoise")  # the seek's bot, as asked
    ann.get_by_role("button", name="Race a bot").click()
    expect(ann.locator(OWN)).to_be_visible()
    expect(ann.locator(".race-bar .vs")).to_contain_text("vs BOT-Swift · bot")
    expect(ann.locator(f"{OPPONENT} .board-title")).to_contain_text(STARTED)
