"""The race core's deadlines: the idle limit, the clock, and the timers that apply them
(every input that moves one ends with the next)."""

from __future__ import annotations

import pytest

import engine
from core.events import Wake
from core.race import Race
from protocol import Rules, StatusChanged

from .helpers import (
    ANN,
    BOB,
    ENDING,
    GRACE,
    IDLE,
    NO_PLAY,
    THREE,
    TWO,
    game_over,
    kinds,
    make_race,
    messages,
    play,
    race_ended,
    refusal,
    sends,
    started,
)

# -- the idle limit -------------------------------------------------------------


def test_the_idle_limit_times_a_player_out_and_counts_decide() -> None:
    race = started(TWO, TWO)
    play(race, 0, 1, 10.0)
    out = race.tick(IDLE)  # Bob has not played since the deal
    assert kinds(out) == ENDING
    assert messages(out)[0] == StatusChanged(
        game_id=race.game_id, seat=1, status="timed_out", count=0, seq=2
    )
    over = game_over(out)
    assert (over.result, over.winner, over.reason, over.counts) == ("win", 0, "most_cards", [1, 0])


@pytest.mark.parametrize("tiebreak", ["draw", "first"])
def test_two_idle_players_time_out_and_no_card_at_all_is_a_draw(tiebreak: str) -> None:
    race = started(TWO, TWO, tiebreak=tiebreak)
    out = race.tick(IDLE)
    assert kinds(out) == ["status", "status", "RaceEnded", "game_over"]
    over = game_over(out)
    assert (over.result, over.winner, over.reason, over.counts) == (
        "draw",
        None,
        "equal_cards",
        [0, 0],
    )


def test_the_idle_limit_restarts_at_each_play() -> None:
    race = started(THREE, THREE)
    assert race.next_deadline() == IDLE
    play(race, 0, 1, 50.0)
    play(race, 1, 1, 55.0)
    assert race.next_deadline() == 50.0 + IDLE
    assert sends(race.tick(50.0 + IDLE - 0.001)) == []
    out = race.tick(50.0 + IDLE)
    assert kinds(out) == ["status"]  # Bob has as many cards: the race goes on
    assert race.status_of(0) == "timed_out"


def test_no_idle_limit_while_away_and_a_fresh_one_on_coming_back() -> None:
    race = started(TWO, NO_PLAY)  # Bob can never play: only Ann's timers run
    race.leave(0, 50.0)
    assert sends(race.tick(79.0)) == []  # past Ann's idle limit, within her grace
    race.come_back(0, 79.0)
    assert race.next_deadline() == 79.0 + IDLE
    assert sends(race.tick(79.0 + IDLE - 0.001)) == []
    out = race.tick(79.0 + IDLE)
    assert kinds(out) == ENDING
    assert messages(out)[0].status == "timed_out"  # type: ignore[union-attr]


def test_a_timed_out_player_cannot_play() -> None:
    race = started(THREE, THREE)
    play(race, 0, 1, 10.0)
    play(race, 1, 1, 20.0)
    race.tick(10.0 + IDLE)  # Ann times out on 1 card, Bob has 1: the race goes on
    assert (race.status_of(0), race.over) == ("timed_out", None)
    card = engine.greedy_plays(race.boards()[0])[0]
    assert refusal(lambda: race.play(0, card, 71.0)) == "illegal_move"


# -- the clock ------------------------------------------------------------------


def test_the_clock_times_out_every_racing_player_and_counts_decide() -> None:
    race = started(THREE, THREE, time_limit_s=30)
    play(race, 0, 2, 10.0)
    play(race, 1, 1, 20.0)
    assert race.next_deadline() == 30.0
    out = race.tick(30.0)
    assert kinds(out) == ["status", "status", "RaceEnded", "game_over"]
    assert [(m.seat, m.status) for m in messages(out)[:2]] == [(0, "timed_out"), (1, "timed_out")]  # type: ignore[union-attr]
    over = game_over(out)
    assert (over.result, over.winner, over.reason, over.counts) == ("win", 0, "time", [2, 1])


@pytest.mark.parametrize(
    ("tiebreak", "result", "winner"), [("draw", "draw", None), ("first", "win", 1)]
)
def test_when_the_clock_runs_out_on_equal_counts_the_tiebreak_decides(
    tiebreak: str, result: str, winner: int | None
) -> None:
    race = started(THREE, THREE, time_limit_s=30, tiebreak=tiebreak)
    play(race, 1, 1, 10.0)
    play(race, 0, 1, 20.0)
    over = game_over(race.tick(30.0))
    assert (over.result, over.winner, over.reason, over.counts) == (result, winner, "time", [1, 1])


def test_the_clock_leaves_a_final_count_alone() -> None:
    race = started(TWO, NO_PLAY, time_limit_s=30)
    out = race.tick(30.0)
    assert kinds(out) == ENDING
    assert (messages(out)[0].seat, race.status_of(1)) == (0, "stalled")  # type: ignore[union-attr]
    assert game_over(out).reason == "time"


# -- the timers -------------------------------------------------------------------


def test_a_tick_before_the_next_deadline_does_nothing() -> None:
    race = started(TWO, TWO)
    assert race.next_deadline() == IDLE
    assert sends(race.tick(IDLE - 0.001)) == []
    assert (race.seq, race.status_of(0), race.status_of(1)) == (0, "playing", "playing")


def test_a_late_tick_applies_the_deadlines_at_their_own_times_earliest_first() -> None:
    race = started(TWO, TWO)
    race.leave(0, 10.0)
    out = race.tick(1000.0)  # Ann's grace (40) falls before Bob's idle limit (60)
    assert game_over(out).reason == "abandoned"
    assert race_ended(out).record.ended == 10.0 + GRACE


def test_a_finished_race_has_no_deadline() -> None:
    race = started(TWO, TWO, time_limit_s=30)
    race.resign(0, 1.0)
    assert race.next_deadline() is None
    assert sends(race.tick(1000.0)) == []


# -- deadlines, said by the core ------------------------------------------------


def test_every_input_that_moves_a_deadline_ends_with_the_next_one() -> None:
    race = make_race(THREE, THREE, time_limit_s=100)
    assert race.start(0.0)[-1] == Wake(race.game_id, IDLE)
    assert play(race, 0, 1, 10.0)[-1] == Wake(race.game_id, IDLE)  # Bob's falls first
    assert race.leave(1, 20.0)[-1] == Wake(race.game_id, 20.0 + GRACE)
    assert race.come_back(1, 25.0)[-1] == Wake(race.game_id, 10.0 + IDLE)
    assert race.resign(0, 30.0)[-1] == Wake(race.game_id, None)


def test_without_an_idle_limit_only_the_clock_falls() -> None:
    dealers = (engine.LegacyDealer(TWO, 0), engine.LegacyDealer(TWO, 1))
    race = Race("race-2", (ANN, BOB), Rules(time_limit_s=90), dealers, idle_limit=None, grace=GRACE)
    assert race.start(0.0)[-1] == Wake(race.game_id, 90.0)
    assert sends(race.tick(89.0)) == []
    assert kinds(race.tick(90.0)) == ["status", "status", "RaceEnded", "game_over"]
