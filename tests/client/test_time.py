"""Race time in the client state: the stopwatch, the clock, the idle limit, times and margins.

Pure: messages in with a ``now`` the test chooses, the state and its drawings out.
"""

from __future__ import annotations

import pytest

from client import words
from client.render import render_idle, render_topbar
from client.result import render_result, times_words
from client.state import ClientState
from client.timing import clock_text, seconds_text, stopwatch_text
from protocol import Redealt, Rules, StatusChanged, board_to_wire

from .result_cases import TIMES_CASES
from .wire import dealt, game_over, game_start, game_state, play, welcome

PLAIN = Rules(deal="mirror", winnable_only=True)


def racing(now: float = 100.0, *, idle_s: float = 60, rules: Rules = PLAIN) -> ClientState:
    state = ClientState("ws://x/ws", "ann")
    state.apply(welcome(idle_s=idle_s), now - 1)
    state.apply(game_start(rules=rules), now)
    return state


def test_the_stopwatch_and_the_clock_stand_still_while_the_line_is_down():
    """No jump back: held from the drop, then the server's elapsed_ms from game_state."""
    clocked = PLAIN.model_copy(update={"time_limit_s": 300})
    state = racing(100.0, rules=clocked)
    state.set_link("reconnecting", 130.0, 1, 131.0, "the connection to x:80 dropped")
    race = state.race
    assert race is not None
    for now in (130.0, 160.0, 190.0):
        assert race.elapsed(now) == 30.0 and race.clock_left(now) == 270.0
        assert "time 0:30 · 4:30 left" in render_topbar(state, now).plain
    assert race.idle_left(150.0) is None  # nothing can be played: no countdown either
    state.set_link("online", 190.0)
    assert race.elapsed(195.0) == 30.0  # until the server says where the race is
    board = dealt(0)
    resumed_at = game_state(
        [board, board], seq=0, elapsed_ms=32_000, clock_left_ms=268_000, rules=clocked
    )
    state.apply(resumed_at, 200.0)
    resumed = state.race
    assert resumed is not None and resumed.elapsed(201.0) == 33.0
    assert resumed.clock_left(201.0) == 267.0


def test_time_words():
    assert seconds_text(41_249) == "41.2 s"
    assert seconds_text(3_100) == "3.1 s"
    assert seconds_text(125_300) == "2:05.3"
    assert stopwatch_text(41.9) == "0:41" and stopwatch_text(725) == "12:05"
    assert clock_text(0.2) == "0:01" and clock_text(-3) == "0:00"


def test_the_stopwatch_runs_from_game_start_and_stops_at_game_over():
    state = racing(100.0)
    race = state.race
    assert race is not None
    assert "time 0:41" in render_topbar(state, 141.5).plain
    state.apply(game_over(1, "resigned", [0, 0], seq=1), 150.0)
    assert race.elapsed(500.0) == 50.0  # stands still once the race is over
    assert "time 0:50" in render_topbar(state, 500.0).plain


def test_a_watcher_or_a_returning_player_takes_the_time_and_the_clock_from_game_state():
    state = ClientState("ws://x/ws", "eve")
    board = dealt()
    state.apply(game_state([board, board], seq=0, seat=None, elapsed_ms=12_000), 50.0)
    race = state.race
    assert race is not None and race.elapsed(50.0) == 12.0
    assert race.clock_deadline is None
    clocked = game_state([board, board], seq=0, elapsed_ms=20_000, clock_left_ms=100_000)
    state.apply(clocked, 60.0)
    assert state.race is not None and state.race.clock_deadline == 160.0
    assert "1:40 left" in render_topbar(state, 60.0).plain


def test_the_idle_limit_restarts_at_the_deal_each_own_move_and_coming_back():
    state = racing(100.0, idle_s=60)
    race = state.race
    assert race is not None
    assert race.idle_left(150.0) == 10.0  # from the deal
    board = dealt()
    mine, theirs = board.copy(), board.copy()
    state.apply(play(theirs, 1, 1, t_ms=30_000), 130.0)
    assert race.idle_left(150.0) == 10.0  # the opponent's play is not ours
    state.apply(play(mine, 0, 2, t_ms=35_000), 135.0)
    assert race.idle_left(150.0) == 45.0
    redealt = Redealt(game_id="g1", seat=0, board=board_to_wire(mine), t_ms=40_000, seq=3)
    state.apply(redealt, 140.0)
    assert race.idle_left(150.0) == 50.0
    state.apply(welcome(idle_s=60), 170.0)  # back after a drop: the limit starts again
    state.apply(game_state([mine, theirs], seq=3, elapsed_ms=70_000), 171.0)
    assert state.race is not None and state.race.idle_left(171.0) == 60.0


def test_the_idle_countdown_shows_in_the_last_15_seconds_while_racing_only():
    state = racing(100.0, idle_s=60)
    race = state.race
    assert race is not None
    assert render_idle(race, 144.0).plain == ""
    warning = render_idle(race, 146.0).plain
    assert warning == "No play for 60 s times you out: 0:14 left to play"  # redeals: 0
    with_redeal = racing(100.0, idle_s=60, rules=PLAIN.model_copy(update={"redeals": 1})).race
    assert with_redeal is not None
    assert render_idle(with_redeal, 146.0).plain.endswith("0:14 left to play or redeal")
    final = StatusChanged(game_id="g1", seat=0, status="stalled", count=0, seq=1)
    state.apply(final, 147.0)
    assert race.idle_left(150.0) is None and render_idle(race, 150.0).plain == ""


def test_no_idle_countdown_for_a_spectator_or_in_practice():
    state = ClientState("ws://x/ws", "eve")
    state.apply(welcome(idle_s=60), 1.0)
    board = dealt()
    state.apply(game_state([board, board], seq=0, seat=None), 2.0)
    assert state.race is not None and state.race.idle_left(61.0) is None
    practice = ClientState()
    practice.begin_practice(dealt(), PLAIN, 0.0)
    assert practice.race is not None and practice.race.idle_left(1000.0) is None


def finish(state: ClientState, *moves: tuple[int, int], **over) -> None:
    """Apply plays (seat, t_ms) in turn, then ``game_over`` with ``over``'s fields."""
    race = state.race
    assert race is not None
    boards = [race.boards[0].copy(), race.boards[1].copy()]
    for seat, t_ms in moves:
        state.apply(play(boards[seat], seat, race.seq + 1, t_ms=t_ms), 100.0 + t_ms / 1000)
    state.apply(game_over(seq=race.seq + 1, **over), 200.0)


def test_the_result_shows_both_times_and_the_margin():
    state = racing()
    moves = [(0, 1_000), (1, 1_500), (0, 2_000), (1, 5_100), (0, 6_000)]
    finish(state, *moves, winner=0, reason="most_cards", counts=[3, 2], times_ms=[6_000, 5_100])
    race = state.race
    assert race is not None and race.over is not None
    expected = "ann 3/52, last card at 6.0 s, 1 card ahead   ·   bob 2/52, last card at 5.1 s"
    assert times_words(race.over, race) == expected


def test_a_spectator_who_saw_no_play_has_the_margin_too():
    """The margin needs only game_over: a client that joined late says it as well."""
    state = ClientState("ws://x/ws", "eve")
    board = dealt()
    state.apply(game_state([board, board], seq=5, seat=None, elapsed_ms=20_000), 50.0)
    state.apply(game_over(1, "cleared", [30, 52], seq=6, times_ms=[13_300, 16_800]), 60.0)
    race = state.race
    assert race is not None and race.over is not None
    assert times_words(race.over, race) == (
        "ann 30/52, last card at 13.3 s   ·   bob cleared in 16.8 s, 22 cards ahead"
    )


@pytest.mark.parametrize("case", TIMES_CASES, ids=lambda case: case[-1][:40])
def test_times_and_margins_read_as_in_the_browser(case):
    players, result, winner, counts, times_ms, expected = case
    assert words.times_words(players, counts, times_ms, winner if result == "win" else None) == (
        expected
    )


def timed_out(state: ClientState, seat: int, seq: int) -> None:
    state.apply(StatusChanged(game_id="g1", seat=seat, status="timed_out", count=0, seq=seq), 160)


def result_text(state: ClientState) -> str:
    assert state.race is not None
    return render_result(state.race).plain


def test_an_idle_time_out_is_named_instead_of_more_cards():
    state = racing(idle_s=60)
    board = dealt()
    state.apply(play(board.copy(), 1, 1, t_ms=2_000), 102.0)
    timed_out(state, 0, 2)
    state.apply(game_over(1, "most_cards", [0, 1], seq=3, times_ms=[None, 2_000]), 161.0)
    text = result_text(state)
    assert "You lost  ann timed out: no play for 60 s" in text
    assert "has more cards" not in text


def test_both_timed_out_at_equal_counts():
    state = racing(idle_s=45)
    timed_out(state, 0, 1)
    timed_out(state, 1, 2)
    state.apply(game_over(None, "equal_cards", [0, 0], seq=3), 161.0)
    assert "ann and bob timed out: no play for 45 s; equal counts" in result_text(state)


@pytest.mark.parametrize(
    ("winner", "counts", "words"),
    [
        (1, [3, 9], "the clock ran out: bob has more cards"),
        (None, [4, 4], "the clock ran out at equal counts"),
    ],
)
def test_a_clock_time_out_says_the_clock_ran_out(winner, counts, words):
    state = racing(rules=Rules(deal="mirror", winnable_only=True, time_limit_s=300))
    timed_out(state, 0, 1)
    timed_out(state, 1, 2)
    state.apply(game_over(winner, "time", counts, seq=3), 400.0)
    text = result_text(state)
    assert words in text and "no play for" not in text
