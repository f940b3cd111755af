"""The race core's events: ``game_start`` to each seat, then every event in order, alike
to the players and to the spectators the core names among its receivers."""

from __future__ import annotations

import engine
from core.events import Send, SendPlayed
from protocol import GameStart, Played, Rules, board_to_wire

from .helpers import (
    ANN,
    BOB,
    BOTH,
    ONE,
    THREE,
    TWO,
    kinds,
    make_race,
    messages,
    play,
    play_out,
    sends,
    started,
)

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


# -- receivers, said by the core ------------------------------------------------


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
