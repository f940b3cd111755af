"""The client-state model applying server messages, without a UI or a socket."""

from __future__ import annotations

from client.state import ClientState, Outcome, outcome_words
from client.words import REMATCH_ID
from engine import Board
from protocol import (
    Cancelled,
    Error,
    OpponentAway,
    OpponentBack,
    Play,
    Played,
    Redealt,
    Rematch,
    RematchOffered,
    Room,
    Seeking,
    StatusChanged,
    board_to_wire,
)

from .wire import DEALER, GAME, RULES, dealt, game_over, game_start, game_state, lobby, welcome
from .wire import play as played


def started(now: float = 100.0, seat: int = 0) -> tuple[ClientState, Board]:
    """A state that has just received ``game_start``, and the board dealt (both seats)."""
    board = dealt()
    state = ClientState("ws://x/ws", "ann")
    assert state.apply(game_start(board, seat=seat), now) is False
    return state, board


def test_game_start_sets_the_race_and_the_clock():
    state, board = started(now=100.0)
    race = state.race
    assert race is not None and race.seat == 0 and race.other == 1
    assert race.board == board and race.boards[1] == board
    assert race.clock_deadline == 400.0
    assert race.started_at == 100.0 and race.elapsed(141.5) == 41.5
    assert sorted(race.labels.values()) == sorted("abcdefghijklmnop"[: len(board.bouquet)])
    assert race.can_play


def test_played_updates_either_board():
    state, board = started()
    race = state.race
    assert race is not None
    mine, theirs = board.copy(), board.copy()
    assert state.apply(played(mine, 0, 1), 101) is False
    assert state.apply(played(theirs, 1, 2), 102) is False
    assert race.boards[0] == mine and race.boards[1] == theirs
    assert race.seq == 2


def test_a_played_bouquet_card_loses_its_label_and_the_others_keep_theirs():
    state, board = started()
    race = state.race
    assert race is not None
    before = dict(race.labels)
    card = next(c for c in board.legal_plays() if c in board.bouquet)
    board.play(card)
    message = Played(
        game_id=GAME,
        seat=0,
        card=str(card),
        from_="bouquet",
        bed=None,
        count=board.count,
        status="playing",
        t_ms=700,
        seq=1,
    )
    state.apply(message, 101)
    assert card not in race.labels
    assert all(race.labels[c] == before[c] for c in race.labels)


def test_a_seq_gap_asks_for_a_resync_and_events_wait_for_the_game_state():
    state, board = started()
    race = state.race
    assert race is not None
    copy = board.copy()
    first = played(copy, 1, 1)
    second = played(copy, 1, 2)
    third = played(copy, 1, 3)
    assert state.apply(first, 101) is False
    assert state.apply(third, 102) is True  # seq 2 went missing
    assert race.resyncing and not race.can_play
    assert state.apply(second, 103) is False  # ignored until the game_state
    assert race.boards[1].count == 1
    resumed = game_state([board, copy], seq=3, elapsed_ms=4000, clock_left_ms=296_000)
    state.apply(resumed, 104)
    race = state.race
    assert race is not None and not race.resyncing
    assert race.boards[1] == copy and race.seq == 3
    assert race.clock_deadline == 400.0  # the clock the server says is left
    assert race.started_at == 100.0


def test_an_event_already_in_the_game_state_is_skipped():
    state, board = started()
    copy = board.copy()
    message = played(copy, 1, 1)
    state.apply(message, 101)
    assert state.apply(message, 102) is False  # a duplicate is not a gap
    assert state.race is not None and state.race.boards[1].count == 1


def test_a_play_that_does_not_fit_the_board_asks_for_a_resync():
    state, board = started()
    copy = board.copy()
    message = played(copy, 1, 1)
    wrong = message.model_copy(update={"count": 5})
    assert state.apply(wrong, 101) is True


def test_unacknowledged_plays_are_projected():
    state, board = started()
    race = state.race
    assert race is not None
    card = board.legal_plays()[0]
    state.sending(Play(card=str(card)))
    assert race.sent == [card]
    assert not race.projected().is_legal(card) and race.board.is_legal(card)
    copy = board.copy()
    state.apply(played(copy, 0, 1), 101)
    assert race.sent == []
    state.sending(Play(card=str(copy.legal_plays()[0])))
    state.apply(Error(code="illegal_move", message="no"), 102)
    assert race.sent == [] and state.notice_is_error


def test_redealt_replaces_the_board_and_its_labels():
    state, _board = started()
    stuck = Board(DEALER.layout(False), redeals=1)
    message = Redealt(game_id=GAME, seat=0, board=board_to_wire(stuck), t_ms=900, seq=1)
    state.apply(message, 101)
    race = state.race
    assert race is not None and race.board == stuck
    assert set(race.labels) == set(stuck.bouquet)


def test_status_away_back_rematch_and_over():
    state, _ = started()
    race = state.race
    assert race is not None
    state.apply(OpponentAway(game_id=GAME, grace_s=30), 110)
    assert race.away_until == 140
    state.apply(OpponentBack(game_id=GAME), 111)
    assert race.away_until is None
    state.apply(StatusChanged(game_id=GAME, seat=1, status="resigned", count=0, seq=1), 112)
    assert race.statuses[1] == "resigned"
    state.apply(game_over(0, "resigned", [0, 0], seq=2), 113)
    over = race.over
    assert over is not None and (over.result, over.winner, over.reason) == ("win", 0, "resigned")
    assert over.timed_out == (False, False)
    assert not race.can_play
    state.apply(RematchOffered(game_id=GAME), 114)
    assert race.rematch_offered
    state.apply(RematchOffered(game_id="another"), 114)  # not this race: ignored


def test_a_lapsed_rematch_is_told_by_code_and_id_not_by_the_words():
    state, _ = started()
    state.apply(game_over(1, "resigned", [0, 0], seq=1), 110)
    state.sending(Rematch(id=REMATCH_ID))
    race = state.race
    assert race is not None and race.rematch_asked
    # A server speaking another language: the words are its own, the code and id are not.
    state.apply(Error(code="game_not_found", message="la oferta caducó", id=REMATCH_ID), 111)
    assert state.notice == "the rematch offer has lapsed" and not race.rematch_asked
    # The same code for another request (a watch, say) is not the rematch, even in English.
    state.apply(Error(code="game_not_found", message="no rematch race 'G'", id="w"), 112)
    assert state.notice == "that race is not there any more"  # by its code alone


def test_waiting_in_the_lobby():
    state = ClientState()
    state.apply(Seeking(rules=RULES), 1)
    assert state.waiting is not None and state.waiting.kind == "seeking"
    state.apply(Cancelled(), 2)
    assert state.waiting is None
    state.apply(Room(code="ABC234", rules=RULES), 3)
    assert state.waiting is not None and state.waiting.code == "ABC234"
    state.apply(Error(code="room_not_found", message="no open room has the code 'X'"), 4)
    assert "no open room has that code" in state.notice


def test_outcome_in_words():
    players = ["ann", "bob"]
    assert outcome_words(Outcome("win", 0, "cleared", (52, 40)), 0, players) == (
        "You won",
        "ann cleared every card",
    )
    assert outcome_words(Outcome("win", 0, "abandoned", (3, 2)), 1, players)[0] == "You lost"
    assert "bob left" in outcome_words(Outcome("win", 0, "abandoned", (3, 2)), 1, players)[1]
    assert outcome_words(Outcome("draw", None, "equal_cards", (4, 4)), 0, players)[0] == "Draw"
    assert outcome_words(Outcome("win", 1, "time", (4, 9)), None, players)[0] == "bob won"
    assert outcome_words(Outcome("solo", None, "cleared", (52,)), 0, ["you"])[0] == "Cleared!"


def test_a_lobby_before_the_game_state_means_the_race_is_gone():
    state, _ = started()
    state.apply(welcome(), 200)  # back after a drop: the race's game_state should come first
    assert state.resuming == GAME and state.race is not None
    state.apply(lobby(), 201)
    assert state.race is None and state.resuming is None
    assert state.notice == "the race is gone: the server no longer has it"
    assert state.notice_is_error


def test_a_game_state_before_the_lobby_resumes_the_race():
    state, board = started()
    state.apply(welcome(), 200)
    state.apply(game_state([board, board], seq=0), 201)
    state.apply(lobby(), 202)
    assert state.race is not None and state.race.game_id == GAME
    assert state.notice == ""


def test_a_finished_race_is_not_waited_for():
    state, _ = started()
    state.apply(game_over(None, "aborted", [0, 0], seq=1), 150)
    state.apply(welcome(), 200)  # the server owes no game_state for a race seen to its end
    assert state.resuming is None
    state.apply(lobby(), 201)
    assert state.race is not None and state.race.over is not None  # the result stays up
    headline, reason = outcome_words(state.race.over, 0, ["ann", "bob"])
    assert (headline, reason) == ("Draw", "the race was aborted: the server could not restore it")


def test_unavailable_is_said_as_try_again():
    state = ClientState()
    state.apply(Error(code="unavailable", message="the store is failing"), 1)
    assert state.notice.startswith("the server cannot do that right now (nothing changed)")


def test_the_link_reason_goes_when_the_line_is_back():
    state = ClientState()
    words = "cannot reach h:1: is the server running? (`make serve`)"
    state.set_link("connecting", 1.0, 1, 5.0, words)
    assert state.link_reason.startswith("cannot reach")
    state.set_link("online", 2.0)
    assert state.link_reason == ""
