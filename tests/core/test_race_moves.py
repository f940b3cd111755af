"""The moves the race core refuses (an illegal play, a redeal with a play or none left)
and the redeal it takes from a stuck player."""

from __future__ import annotations

import pytest

import engine
from core.events import Journaled, Send, Wake
from core.race_log import Entry
from protocol import Redealt, board_to_wire

from .helpers import (
    BOTH,
    IDLE,
    NO_PLAY,
    NO_PLAY_TOO,
    ONE,
    THREE,
    TWO,
    kinds,
    make_race,
    play,
    play_out,
    redeal_with_a_play,
    refusal,
    started,
)

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
