"""The race's clocks as the page shows them: the idle warning in the last 15 s of the
server's idle limit (welcome.limits.idle_s), the game clock (clock_left_ms), and an
opponent's connection dropped, with the seconds of grace they have left."""

from __future__ import annotations

import re

from .helpers import OWN, PLAYABLE, RESULT, expect, quick_match, sign_in


def test_the_idle_warning_counts_down_to_a_time_out(start_web, new_page) -> None:
    web = start_web(idle_timeout=3)
    ann, bob = new_page(web.base), new_page(web.base)
    ann_name, bob_name = sign_in(ann), sign_in(bob)
    for page in (ann, bob):
        page.get_by_text("Rules:").click()
        page.get_by_role("spinbutton", name=re.compile("Time limit")).fill("30")
    quick_match(ann, bob)
    expect(ann.locator("#clock")).to_have_text(re.compile(r"0:[23]\d left"))
    warning = ann.locator("#idle")
    expect(warning).to_have_text(
        re.compile(r"No play for 3 s times you out: 0:0[0-3] left to play$")  # no redeal here
    )
    # Neither plays: both time out, at equal counts.
    result = ann.locator(RESULT)
    expect(result).to_have_attribute("data-result", "draw")
    expect(result).to_contain_text(f"{ann_name} and {bob_name} timed out: no play for 3 s")
    expect(warning).to_be_hidden()  # only while racing


def test_an_opponent_who_drops_is_given_the_grace(start_web, new_page) -> None:
    web = start_web(grace=2)
    ann, bob = new_page(web.base), new_page(web.base)
    sign_in(ann)
    bob_name = sign_in(bob)
    quick_match(ann, bob)
    ann.locator(PLAYABLE).first.click()
    expect(ann.locator(f"{OWN} .board-title")).to_contain_text("1/52")
    bob.context.close()  # the tab is gone
    away = ann.locator("#away")
    expect(away).to_have_text(
        re.compile(rf"{bob_name}'s connection dropped: 0:0[0-2] to come back")
    )
    expect(ann.locator(RESULT)).to_contain_text(f"{bob_name} left and did not come back in time")
    expect(ann.locator(RESULT)).to_have_attribute("data-outcome", "won")
    expect(away).to_be_hidden()
