"""The race core: every rule of "Deciding the race", with time driven by hand."""

from __future__ import annotations

import json

import pytest

import engine
from core.events import Journaled, Refused, Send, SendPlayed, Wake
from core.race import Race
from core.race_log import Entry
from protocol import (
    GameStart,
    GameState,
    OpponentAway,
    OpponentBack,
    Played,
    Redealt,
    Rules,
    StatusChanged,
    board_to_wire,
)

from .helpers import (
    ANN,
    BOB,
    GRACE,
    IDLE,
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
    redeal_with_a_play,
    sends,
    started,
)

BOTH = (ANN.player_id, BOB.player_id)
ENDING = ["status", "RaceEnded", "game_over"]
"""What a status change that decides the race gives."""


def refusal(move: object) -> str:
    """The error code of a refused move (a callable taking no argument)."""
    assert callable(move)
    with pytest.raises(Refused) as refused:
        move()
    return refused.value.code


# -- the start and the events --------------------------------------------------


def test_game_start_goes_to_each_player_with_their_own_seat() -> None:
    race = make_race(ONE, TWO)
    out = race.start(0.0)
    assert [send.to for send in out if isinstance(send, Send)] == [
        (ANN.player_id,),
        (BOB.player_id,),
    ]
    boards = [board_to_wire(engine.Board(engine.deal(seed))) for seed in (ONE, TWO)]
    for seat, start in enumerate(messages(out)):
        assert isinstance(start, GameStart)
        assert (start.seat, start.seq, start.game_id) == (seat, 0, race.game_id)
        assert start.players == ["Ann", "Bob"]
        assert start.rules == Rules()
        assert start.boards == boards


def test_every_event_takes_the_next_seq_and_goes_alike_to_players_and_spectators() -> None:
    race = started(THREE, THREE)
    out = play(race, 0, 1, 1.0) + play(race, 1, 2, 2.0) + play(race, 0, 1, 3.0)
    assert [message.seq for message in messages(out)] == [1, 2, 3, 4]  # type: ignore[union-attr]
    for send in sends(out):
        assert isinstance(send, SendPlayed)
        assert (send.to, send.game_id) == (BOTH, race.game_id)
    assert race.seq == 4


def test_played_says_where_the_card_came_from_and_the_new_count() -> None:
    race = started(TWO, TWO)
    board = race.boards()[0]
    card = engine.greedy_plays(board)[0]
    bed = None if card in board.bouquet else next(i for i, b in enumerate(board.beds) if card in b)
    (played,) = messages(race.play(0, card, 1.0))
    assert played == Played.model_validate(
        {
            "game_id": race.game_id,
            "seat": 0,
            "card": str(card),
            "from": "bouquet" if bed is None else "bed",
            "bed": bed,
            "count": 1,
            "status": "playing",
            "t_ms": 1000,
            "seq": 1,
        }
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


# -- illegal plays and the redeal -------------------------------------------------


@pytest.mark.parametrize("which", ["buried", "already played"])
def test_an_illegal_play_is_refused_and_changes_nothing(which: str) -> None:
    race = started(TWO, TWO)
    first = engine.greedy_plays(race.boards()[0])[0]
    race.play(0, first, 1.0)
    card = race.boards()[0].beds[0][0] if which == "buried" else first
    before = race.state(0, 2.0)
    assert refusal(lambda: race.play(0, card, 2.0)) == "illegal_move"
    assert race.state(0, 2.0) == before
    assert race.seq == 1


def test_a_redeal_is_refused_while_a_play_is_left() -> None:
    race = started(TWO, TWO, redeals=1)
    assert refusal(lambda: race.redeal(0, 1.0)) == "illegal_move"
    assert race.seq == 0


def test_a_redeal_is_refused_without_one_left() -> None:
    race = started(ONE, THREE)
    play_out(race, 0, 1.0)
    assert race.status_of(0) == "stalled"
    assert refusal(lambda: race.redeal(0, 2.0)) == "illegal_move"


def test_a_stuck_player_redeals_the_cards_still_in_play() -> None:
    race = started(TWO, TWO, redeals=1)
    play_out(race, 0, 1.0)
    board = race.boards()[0]
    assert race.status_of(0) == "stuck"
    cards, foundations, beds = board.cards_in_play(), list(board.foundations), board.beds
    entry, send, wake = race.redeal(0, 2.0)
    assert entry == Journaled(race.game_id, Entry(race.seq, 0, "redeal", 2.0))
    assert wake == Wake(race.game_id, IDLE)  # Bob's idle limit, from the deal, falls first
    assert isinstance(send, Send) and send.to == BOTH
    assert send.message == Redealt(
        game_id=race.game_id,
        seat=0,
        board=board_to_wire(board, race.status_of(0)),
        t_ms=2000,
        seq=race.seq,
    )
    assert (board.cards_in_play(), board.foundations) == (cards, foundations)
    assert board.beds != beds
    assert board.redeals_left == 0
    assert refusal(lambda: race.redeal(0, 3.0)) == "illegal_move"


def test_a_redeal_restarts_the_idle_limit() -> None:
    race = started(TWO, THREE, redeals=1, redeal0=redeal_with_a_play(TWO))
    play(race, 1, 3, 1.0)
    play_out(race, 0, 40.0)
    assert race.next_deadline() == 1.0 + IDLE  # Bob's, stuck now
    race.redeal(0, 50.0)
    race.tick(1.0 + IDLE)  # Bob times out on 3 cards
    assert (race.status_of(0), race.over) == ("playing", None)
    assert race.next_deadline() == 50.0 + IDLE


def test_with_a_redeal_left_no_play_is_stuck_and_the_race_goes_on() -> None:
    race = make_race(NO_PLAY, NO_PLAY_TOO, redeals=1)
    assert kinds(race.start(0.0)) == ["game_start", "game_start"]
    assert (race.status_of(0), race.status_of(1)) == ("stuck", "stuck")
    assert race.next_deadline() == IDLE


# -- the record and the timers ----------------------------------------------------


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


# -- receivers and deadlines, said by the core ----------------------------------


def test_spectators_are_named_among_the_receivers_of_every_event_to_the_end() -> None:
    race = started(ONE, ONE)
    (state,) = race.watch("p-dan", 1.0)
    assert state == Send(("p-dan",), race.state(None, 1.0))
    race.watch("p-cat", 1.0)
    out = play_out(race, 0, 1.0) + play_out(race, 1, 2.0)
    assert kinds(out)[-2:] == ["RaceEnded", "game_over"]
    events = [o for o in sends(out) if isinstance(o, Send | SendPlayed)]
    assert events and all(o.to == (*BOTH, "p-cat", "p-dan") for o in events)
    assert race.watchers == {"p-cat", "p-dan"}


def test_a_spectator_who_stops_watching_is_named_no_more() -> None:
    race = started(THREE, THREE)
    race.watch("p-dan", 1.0)
    race.unwatch("p-dan")
    (played,) = sends(play(race, 0, 1, 1.0))
    assert isinstance(played, SendPlayed) and played.to == BOTH


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
