"""The board: plays, the redeal, status, and boards built from parts."""

from __future__ import annotations

import pytest

from engine import (
    Board,
    Card,
    IllegalMove,
    IllegalPlay,
    IllegalRedeal,
    LegacyDealer,
    Placement,
    Status,
    deal,
    final_count,
    greedy_plays,
    winnable_deal,
)

from .reference import legal_cards, snapshot


def cards(codes: str) -> list[Card]:
    return [Card.parse(code) for code in codes.split()]


def all_but_spades_played(
    beds: list[str], bouquet: str, spades: int = 0, redeals_left: int = 0
) -> Board:
    """A board where hearts, diamonds and clubs are complete and ``spades`` spades played."""
    return Board.from_parts(
        [cards(bed) for bed in beds], cards(bouquet), [spades, 13, 13, 13], redeals_left
    )


def test_a_fresh_board() -> None:
    board = Board(deal(1))
    assert board.foundations == [0, 0, 0, 0]
    assert board.count == 0
    assert board.redeals_left == 0
    assert [len(bed) for bed in board.beds] == [6] * 6
    assert len(board.bouquet) == 16
    assert board.status is Status.PLAYING
    assert board.legal_plays() == cards("AS AH")
    assert board.legal_plays() == legal_cards(board)


def test_a_play_moves_the_card_and_reports_where_from() -> None:
    board = Board(deal(1))
    assert board.play(Card.parse("AS")) == Placement(Card.parse("AS"), 4)
    assert board.play(Card.parse("2S")) == Placement(Card.parse("2S"), None)
    assert board.foundations == [2, 0, 0, 0]
    assert str(board.beds[4][-1]) == "8D"
    assert Card.parse("2S") not in board.bouquet
    assert board.count == 2


@pytest.mark.parametrize(
    ("code", "why"),
    [
        ("AS", "AS is already on its foundation"),
        ("3S", "3S is under 4 cards in bed 5"),
        ("4C", "4C must wait: AC goes up first"),
        ("6H", "6H must wait: AH goes up first"),
    ],
)
def test_an_illegal_play_raises_why_and_changes_nothing(code: str, why: str) -> None:
    board = Board(deal(1))
    board.play(Card.parse("AS"))
    before, twin = snapshot(board), board.copy()
    assert board.why_illegal(Card.parse(code)) == why
    assert snapshot(board) == before  # asking changes nothing either
    with pytest.raises(IllegalPlay, match=f"^{why}$"):
        board.play(Card.parse(code))
    assert snapshot(board) == before
    assert board == twin


def test_why_illegal_names_cards_as_it_is_told() -> None:
    board = Board(deal(1))
    board.play(Card.parse("AS"))

    def name(card: Card) -> str:
        return f"<{card}>"

    assert board.why_illegal(Card.parse("3S"), name) == "<3S> is under 4 cards in bed 5"
    assert board.why_illegal(Card.parse("7C"), name) == "<7C> must wait: <AC> goes up first"
    assert board.why_illegal(Card.parse("2S")) is None


def test_why_illegal_counts_one_card_above_in_the_singular() -> None:
    board = Board(deal(1))
    assert board.why_illegal(Card.parse("KH")) == "KH is under 1 card in bed 1"


@pytest.mark.parametrize("value", [-1, 52, 99])
def test_a_play_of_no_card_is_illegal(value: int) -> None:
    board = Board(deal(1))
    before = snapshot(board)
    assert not board.is_legal(value)
    assert board.why_illegal(value) == f"{value} is not a card"
    with pytest.raises(IllegalPlay, match="is not a card"):
        board.play(value)
    assert snapshot(board) == before


def test_illegal_play_is_an_illegal_move() -> None:
    assert issubclass(IllegalPlay, IllegalMove)
    assert issubclass(IllegalRedeal, IllegalMove)


def test_status_from_the_deal() -> None:
    buried = deal(4)  # all four Aces buried
    assert final_count(buried) == 0
    assert Board(buried).status is Status.STALLED
    assert Board(buried, redeals=1).status is Status.STUCK
    assert Board(deal(1), redeals=1).status is Status.PLAYING


def test_status_through_a_game_to_stalled() -> None:
    board = Board(deal(6))
    for card in greedy_plays(board):
        assert board.status is Status.PLAYING
        board.play(card)
    assert board.count == 4
    assert board.status is Status.STALLED


def test_a_cleared_board_is_cleared_even_with_a_redeal_left() -> None:
    board = Board(winnable_deal(3), redeals=1)
    for card in greedy_plays(board):
        board.play(card)
    assert board.status is Status.CLEARED
    before = snapshot(board)
    with pytest.raises(IllegalRedeal):
        board.redeal(LegacyDealer(0, 1).redeal)
    assert snapshot(board) == before


def test_the_last_card_clears() -> None:
    board = all_but_spades_played([], "KS", spades=12)
    statuses = [board.status]
    board.play(Card.parse("KS"))
    statuses.append(board.status)
    assert statuses == [Status.PLAYING, Status.CLEARED]
    assert board.count == 52
    assert board.beds == [] and board.bouquet == []


def test_redeal_of_a_stuck_board() -> None:
    # AS lies under 2S: no play. Thirteen spades are dealt again round-robin.
    spades = "3S 4S 5S 6S 7S 8S 9S TS JS QS KS"
    assert all_but_spades_played(["AS 2S"], spades).status is Status.STALLED
    board = all_but_spades_played(["AS 2S"], spades, redeals_left=1)
    assert board.status is Status.STUCK
    board.redeal(LegacyDealer(0, 5).redeal)
    assert board.redeals_left == 0
    assert [len(bed) for bed in board.beds] == [3, 2, 2, 2, 2, 2]
    assert board.bouquet == []
    assert sorted(card for bed in board.beds for card in bed) == cards(
        "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"
    )
    assert board.foundations == [0, 13, 13, 13]
    assert board.status in (Status.PLAYING, Status.STALLED)
    assert board.legal_plays() == legal_cards(board)


def test_redeal_with_a_play_left_is_refused() -> None:
    board = Board(deal(1), redeals=1)
    before = snapshot(board)
    with pytest.raises(IllegalRedeal):
        board.redeal(LegacyDealer(0, 0).redeal)
    assert snapshot(board) == before


def test_redeal_with_none_left_is_refused() -> None:
    board = Board(deal(4))
    assert board.status is Status.STALLED
    before = snapshot(board)
    with pytest.raises(IllegalRedeal):
        board.redeal(LegacyDealer(0, 0).redeal)
    assert snapshot(board) == before


def test_the_redeal_is_once_only() -> None:
    board = Board(deal(4), redeals=1)
    board.redeal(LegacyDealer(0, 0).redeal)
    for card in greedy_plays(board):
        board.play(card)
    assert board.status is Status.STALLED
    with pytest.raises(IllegalRedeal):
        board.redeal(LegacyDealer(0, 1).redeal)


def test_from_parts_rebuilds_a_board_in_the_middle_of_a_game() -> None:
    board = Board(deal(1), redeals=1)
    for card in cards("AS 2S AH 2H AD"):
        board.play(card)
    rebuilt = Board.from_parts(board.beds, board.bouquet, board.foundations, 1)
    assert rebuilt == board
    assert snapshot(rebuilt) == snapshot(board)
    assert final_count(rebuilt) == final_count(board) == 12


def test_copy_is_equal_and_independent() -> None:
    board = Board(deal(1))
    board.play(Card.parse("AS"))
    twin = board.copy()
    assert twin == board and twin is not board
    twin.play(Card.parse("2S"))
    assert twin != board
    assert board.foundations == [1, 0, 0, 0]
    assert Card.parse("2S") in board.bouquet


@pytest.mark.parametrize(
    ("beds", "bouquet", "spades"),
    [
        (["AS 2S"], "3S 4S 5S 6S 7S 8S 9S TS JS QS", 0),  # KS missing
        (["AS 2S"], "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS", 0),  # 2S twice
        (["2S"], "3S 4S 5S 6S 7S 8S 9S TS JS QS KS", 0),  # AS neither played nor in play
        (["AS 2S"], "3S 4S 5S 6S 7S 8S 9S TS JS QS KS", 1),  # AS played and in play
    ],
)
def test_from_parts_refuses_cards_that_do_not_add_up(
    beds: list[str], bouquet: str, spades: int
) -> None:
    with pytest.raises(ValueError, match="exactly once"):
        all_but_spades_played(beds, bouquet, spades)


def test_boards_compare_by_value_and_are_unhashable() -> None:
    assert Board(deal(2)) == Board(deal(2))
    assert Board(deal(2)) != Board(deal(3))
    assert Board(deal(2)) != Board(deal(2), redeals=1)
    with pytest.raises(TypeError):
        hash(Board(deal(2)))


def test_repr_names_the_cards() -> None:
    text = repr(Board(deal(1)))
    assert "'6H'" in text and "redeals_left=0" in text
