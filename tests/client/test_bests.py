"""Practice personal bests: one per rule set, kept in the config directory, never fatal."""

from __future__ import annotations

import json
import stat

import pytest

from client.bests import Best, BestStore, PracticeBest, practice_key
from client.options import Options
from client.result import practice_best_words
from client.textual_app import FlowerGardenApp
from protocol import Rules

from .conftest import driving, key_for, legal_card

WINNABLE = Rules(winnable_only=True)


def test_a_clear_beats_any_count_and_the_faster_clear_wins():
    assert Best(52, 90_000).beats(Best(51, 10_000))
    assert Best(52, 40_000).beats(Best(52, 41_000))
    assert not Best(52, 41_000).beats(Best(52, 41_000))
    assert Best(30, 5_000).beats(None)


def test_one_best_per_rule_set(config_home):
    store = BestStore()
    assert store.path == config_home / "flowergarden" / "bests.json"
    winnable, classic = practice_key(WINNABLE), practice_key(Rules(redeals=1))
    assert (winnable, classic) == ("winnable", "any layout, 1 redeal")
    assert store.record(winnable, Best(52, 50_000)) == PracticeBest(winnable, None, new=True)
    assert store.record(winnable, Best(52, 60_000)).new is False
    beaten = store.record(winnable, Best(52, 40_000))
    assert beaten == PracticeBest(winnable, Best(52, 50_000), new=True)
    assert store.record(classic, Best(20, 9_000)).new  # another rule set: its own best
    again = BestStore()
    assert again.get(winnable) == Best(52, 40_000) and again.get(classic) == Best(20, 9_000)
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert store.record(winnable, None) == PracticeBest(winnable, Best(52, 40_000), new=False)


@pytest.mark.parametrize(
    "content",
    ["{not json", "[1, 2]", json.dumps({"winnable": {"count": "52", "ms": -1}}), "\x00\xff"],
)
def test_a_damaged_file_starts_afresh(config_home, content):
    store = BestStore()
    store.path.parent.mkdir(parents=True)
    store.path.write_text(content, encoding="latin-1")
    assert store.get("winnable") is None
    assert store.record("winnable", Best(52, 1_000)).new
    assert store.get("winnable") == Best(52, 1_000)


def test_a_file_that_cannot_be_written_costs_the_best_not_the_game(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    store = BestStore(blocker / "bests.json")  # its directory cannot be made
    assert store.record("winnable", Best(52, 1_000)) == PracticeBest("winnable", None, False)


def test_best_words():
    assert practice_best_words(PracticeBest("winnable", None, True)) == (
        "first personal best (winnable)"
    )
    was = PracticeBest("winnable", Best(52, 45_000), True)
    assert practice_best_words(was) == "new personal best (winnable; was cleared in 45.0 s)"
    kept = PracticeBest("any layout", Best(40, 38_000), False)
    assert practice_best_words(kept) == "personal best (any layout): 40/52, last card at 38.0 s"
    assert practice_best_words(PracticeBest("winnable", None, False)) == ""


class Clock:
    """A clock the test moves: each call is 0.25 s after the last."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        self.now += 0.25
        return self.now


async def clear(app: FlowerGardenApp) -> str:
    async with driving(app) as player:
        await player.until(lambda: player.state.race is not None, "the deal")
        race = player.race
        while race.over is None:
            await player.press(key_for(race, legal_card(race)))
        await player.until_shown("personal best")
        return await player.text()


async def test_practice_keeps_the_best_and_says_so(config_home):
    def practice() -> FlowerGardenApp:
        return FlowerGardenApp(Options(practice=True, seed=11, rules=WINNABLE), clock=Clock())

    text = await clear(practice())
    assert "first personal best (winnable)" in text
    best = BestStore().get("winnable")
    assert best is not None and best.count == 52
    store = BestStore()
    store.path.write_text(json.dumps({"winnable": {"count": 52, "ms": 1}}))  # unbeatable
    text = await clear(practice())
    assert "personal best (winnable): cleared in 0.0 s" in text
    store.path.write_text("{garbage")
    text = await clear(practice())
    assert "first personal best (winnable)" in text
