"""The pages from the HTTP API: a player's profile and race history (a page at a time,
by the API's cursor), the replay of a finished race (a redeal dealt again from its seed),
and the leaderboard."""

from __future__ import annotations

import re

from .helpers import expect
from .wire import play_greedily, start, wire_player

WINNABLE = {"deal": "mirror", "winnable_only": True}


def cards_of(page, board: str) -> tuple[list[list[str]], list[str]]:
    beds = page.locator(f"{board} .bed").evaluate_all(
        "(beds) => beds.map((bed) => [...bed.querySelectorAll('[data-card]')]"
        ".map((card) => card.dataset.card))"
    )
    bouquet = page.locator(f"{board} .bouquet [data-card]").evaluate_all(
        "(cards) => cards.map((c) => c.dataset.card)"
    )
    return beds, bouquet


def test_history_a_page_at_a_time_and_a_replay(web, new_page) -> None:
    with wire_player(web.url) as ann, wire_player(web.url) as bob:
        for _ in range(21):  # one more than a page of history
            start(ann, bob, WINNABLE)
            bob.send(type="resign")
            ann.recv("game_over")
        first, _ = start(ann, bob, WINNABLE)
        play_greedily(ann, first, redeal=False)  # a clear: the newest race
        ann.recv("game_over")

    page = new_page(f"{web.base}#player={ann.name}")
    expect(page.get_by_role("heading", name=ann.name)).to_be_focused()
    expect(page.locator(".facts")).to_contain_text("22")
    races = page.locator("#history li")
    expect(races).to_have_count(20)
    page.get_by_role("button", name="Older races").click()
    expect(races).to_have_count(22)
    expect(page.get_by_role("button", name="Older races")).to_be_hidden()
    expect(races.first).to_contain_text(re.compile(rf"vs {bob.name} · won \(cleared\) · 52\u20130"))

    races.first.get_by_role("link", name=re.compile("^Replay")).click()
    expect(page.get_by_role("heading", name=f"Replay: {ann.name} vs {bob.name}")).to_be_visible()
    expect(page.locator("#replay-deal")).to_have_text("deal verified")
    expect(page.locator("#replay-where")).to_have_text("move 0 of 52: as dealt")
    page.get_by_role("button", name="Step forward").click()
    expect(page.locator("#replay-where")).to_contain_text(f"move 1 of 52: {ann.name} played")
    page.get_by_role("button", name="To the end").click()
    expect(page.locator('[data-board="replay"][data-seat="0"] .board-title')).to_have_text(
        f"{ann.name} · 52/52"
    )

    page.get_by_role("link", name=bob.name).first.click()  # the opponent's profile
    expect(page.get_by_role("heading", name=bob.name)).to_be_visible()
    newest = page.locator("#history li").first  # from bob's side: his result, his count first
    dash = "\u2013"
    expect(newest).to_contain_text(f"vs {ann.name} · lost (cleared) · 0{dash}52 · {dash} / ")
    page.get_by_role("link", name="Leaderboard").click()
    expect(page.get_by_role("heading", name="Leaderboard")).to_be_visible()


def test_a_replay_deals_the_redeal_again(web, new_page) -> None:
    rules = {"deal": "independent", "winnable_only": False, "redeals": 1}
    with wire_player(web.url) as ann, wire_player(web.url) as bob:
        first, _ = start(ann, bob, rules)
        final = play_greedily(ann, first, redeal=True)
        assert final["redeals_left"] == 0, "the race had no redeal"
        bob.send(type="resign")
        over = ann.recv("game_over")

    page = new_page(f"{web.base}#race={over['game_id']}")
    expect(page.locator("#replay-deal")).to_have_text("deal verified")
    page.get_by_role("button", name="To the end").click()
    assert cards_of(page, '[data-board="replay"][data-seat="0"]') == (
        final["beds"],
        final["bouquet"],
    )


def test_an_unknown_player_is_said_so(web, new_page) -> None:
    page = new_page(f"{web.base}#player=nobody-at-all")
    expect(page.get_by_role("heading", name="Not found")).to_be_visible()
    expect(page.locator("#page-body")).to_contain_text("no player has that name")
