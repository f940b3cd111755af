"""How the race core ends a race: clearing, resigning, abandoning past the grace, and the
counts that decide it early or tie it; then the record it leaves."""

from __future__ import annotations

import json

import pytest

import engine
from core.events import Send, Wake
from protocol import GameState, OpponentAway, OpponentBack, Played, Rules, StatusChanged

from .helpers import (
    ANN,
    BOB,
    BOTH,
    ENDING,
    GRACE,
    NO_PLAY,
    NO_PLAY_TOO,
    ONE,
    THREE,
    TWO,
    game_over,
    kinds,
    make_race,
    messages,
    play,
    play_out,
    race_ended,
    refusal,
    sends,
    started,
)

# -- clear, resign, abandon ------------------------------------------------------


def test_clearing_wins_at_once() -> None:
    race = started(1, 2, winnable_only=True)
    play(race, 1, 5, 1.0)
    out = play_out(race, 0, 2.0)
    assert kinds(out)[-3:] == ["played", "RaceEnded", "game_over"]
    assert messages(out)[-2].status == "cleared"  # type: ignore[union-attr]
    over = game_over(out)
    assert (over.result, over.winner, over.reason, over.counts) == ("win", 0, "cleared", [52, 5])


def test_resigning_loses_at_once() -> None:
    race = started(ONE, ONE)
    out = race.resign(1, 5.0)
    assert kinds(out) == ENDING
    status = messages(out)[0]
    assert status == StatusChanged(game_id=race.game_id, seat=1, status="resigned", count=0, seq=1)
    over = game_over(out)
    assert (over.result, over.winner, over.reason, over.seq) == ("win", 0, "resigned", 2)


def test_a_final_count_does_not_stop_a_player_resigning() -> None:
    race = started(ONE, THREE)
    play_out(race, 0, 1.0)  # stalled at 1, Bob at 0: the race goes on
    over = game_over(race.resign(0, 2.0))
    assert (over.winner, over.reason) == (1, "resigned")


def test_nothing_is_accepted_after_game_over() -> None:
    race = started(TWO, TWO)
    race.resign(0, 1.0)
    card = engine.greedy_plays(race.boards()[1])[0]
    assert refusal(lambda: race.resign(0, 2.0)) == "game_over"
    assert refusal(lambda: race.resign(1, 2.0)) == "game_over"
    assert refusal(lambda: race.play(1, card, 2.0)) == "game_over"
    assert refusal(lambda: race.redeal(1, 2.0)) == "game_over"
    assert sends(race.leave(1, 2.0)) == []
    assert race.seq == 2


def test_leaving_tells_the_opponent_only() -> None:
    race = started(ONE, ONE)
    out = race.leave(0, 5.0)
    assert out == [
        Send((BOB.player_id,), OpponentAway(game_id=race.game_id, grace_s=30)),
        Wake(race.game_id, 5.0 + GRACE),
    ]
    assert race.seq == 0
    assert sends(race.leave(0, 6.0)) == []  # already away


def test_coming_back_within_the_grace_resumes_the_race() -> None:
    race = started(ONE, TWO)
    play(race, 1, 1, 1.0)
    race.leave(0, 5.0)
    state, back = sends(race.come_back(0, 20.0))
    assert isinstance(state, Send) and state.to == (ANN.player_id,)
    assert state.message == race.state(0, 20.0)
    assert isinstance(state.message, GameState)
    assert (state.message.seat, state.message.seq, state.message.over) == (0, 1, None)
    assert (state.message.elapsed_ms, state.message.clock_left_ms) == (20_000, None)
    assert back == Send((BOB.player_id,), OpponentBack(game_id=race.game_id))
    assert sends(race.tick(5.0 + GRACE)) == []  # the grace no longer runs
    assert race.status_of(0) == "playing"


def test_away_past_the_grace_while_racing_loses() -> None:
    race = started(ONE, ONE)
    race.leave(0, 5.0)
    assert sends(race.tick(5.0 + GRACE - 0.001)) == []
    out = race.tick(5.0 + GRACE)
    assert kinds(out) == ENDING
    assert messages(out)[0].status == "abandoned"  # type: ignore[union-attr]
    over = game_over(out)
    assert (over.result, over.winner, over.reason) == ("win", 1, "abandoned")


def test_away_past_the_grace_with_a_final_count_changes_nothing() -> None:
    race = started(ONE, THREE)
    play_out(race, 0, 1.0)  # stalled at 1, Bob at 0: the race goes on
    race.leave(0, 2.0)
    assert sends(race.tick(2.0 + GRACE + 1.0)) == []
    assert race.over is None
    assert race.status_of(0) == "stalled"


def test_coming_back_after_the_grace_on_a_final_count_tells_the_opponent() -> None:
    race = started(ONE, THREE)
    play_out(race, 0, 1.0)
    race.leave(0, 2.0)
    race.tick(2.0 + GRACE + 1.0)
    assert kinds(race.come_back(0, 40.0)) == ["game_state", "opponent_back"]


# -- counts: early decisions and ties --------------------------------------------


def test_a_final_count_below_the_other_players_count_ends_the_race_at_once() -> None:
    race = started(ONE, THREE)
    play(race, 1, 2, 1.0)
    out = play_out(race, 0, 2.0)  # Ann stalls on 1 card; Bob already has 2
    assert kinds(out) == ["played", "RaceEnded", "game_over"]
    over = game_over(out)
    assert (over.result, over.winner, over.reason, over.counts) == ("win", 1, "most_cards", [1, 2])


def test_the_other_player_passing_a_final_count_ends_the_race_at_once() -> None:
    race = started(ONE, THREE)
    play_out(race, 0, 1.0)  # Ann stalls on 1 card
    assert kinds(play(race, 1, 1, 2.0)) == ["played"]
    over = game_over(play(race, 1, 1, 3.0))
    assert (over.winner, over.reason, over.counts) == (1, "most_cards", [1, 2])


@pytest.mark.parametrize("others", [0, 1])
def test_a_final_count_not_below_the_other_players_count_lets_the_race_go_on(others: int) -> None:
    race = started(ONE, THREE)
    play(race, 1, others, 1.0)
    out = play_out(race, 0, 2.0)
    assert kinds(out) == ["played"]
    assert (race.status_of(0), race.over) == ("stalled", None)


def test_equal_final_counts_draw() -> None:
    race = started(TWO, TWO)
    play_out(race, 0, 1.0)
    over = game_over(play_out(race, 1, 2.0))
    assert (over.result, over.winner, over.reason, over.counts) == (
        "draw",
        None,
        "equal_cards",
        [2, 2],
    )


def test_with_tiebreak_first_equal_counts_go_to_the_earlier_last_card() -> None:
    race = started(TWO, TWO, tiebreak="first")
    play(race, 0, 1, 1.0)
    play_out(race, 1, 2.0)  # Bob's last card comes before Ann's
    over = game_over(play_out(race, 0, 3.0))
    assert (over.result, over.winner, over.reason, over.counts) == (
        "win",
        1,
        "first_to_count",
        [2, 2],
    )


@pytest.mark.parametrize("tiebreak", ["draw", "first"])
def test_a_race_nobody_can_play_ends_right_after_game_start_in_a_draw(tiebreak: str) -> None:
    race = make_race(NO_PLAY, NO_PLAY_TOO, tiebreak=tiebreak)
    out = race.start(0.0)
    assert kinds(out) == ["game_start", "game_start", "RaceEnded", "game_over"]
    over = game_over(out)
    assert (over.result, over.winner, over.reason, over.counts, over.seq) == (
        "draw",
        None,
        "equal_cards",
        [0, 0],
        1,
    )
    assert race.next_deadline() is None


def test_one_player_with_no_play_does_not_end_the_race() -> None:
    race = make_race(NO_PLAY, TWO)
    assert kinds(race.start(0.0)) == ["game_start", "game_start"]
    assert race.status_of(0) == "stalled"


# -- the record -------------------------------------------------------------------


def test_the_record_comes_before_game_over_and_holds_the_whole_race() -> None:
    race = make_race(TWO, THREE, redeal0=5, redeal1=6, redeals=1)
    race.start(100.0)
    out = play(race, 0, 1, 101.0) + play(race, 1, 2, 102.5) + play(race, 0, 1, 104.0)
    out += race.redeal(0, 105.0)
    out += race.resign(1, 110.0)
    assert kinds(out)[-3:] == ENDING
    record = race_ended(out).record
    assert record.game_id == race.game_id
    assert record.seeds == (TWO, THREE, 5, 6)
    assert record.player_ids == BOTH
    assert (record.started, record.ended) == (100.0, 110.0)
    played = [m for m in messages(out) if isinstance(m, Played)]
    assert [(m.seq, m.seat, m.card) for m in record.moves] == [
        *((p.seq, p.seat, p.card) for p in played),
        (5, 0, "redeal"),
    ]
    assert [m.at for m in record.moves] == [1.0, 2.5, 2.5, 4.0, 5.0]
    assert (record.result, record.winner, record.reason, record.counts) == (
        "win",
        0,
        "resigned",
        (2, 2),
    )
    assert json.loads(record.rules_json) == Rules(redeals=1).model_dump(mode="json")
