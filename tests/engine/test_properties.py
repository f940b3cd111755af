"""Properties of the rules, checked on random deals and random orders of play.

The central one is confluence (see ``engine/solver.py``): any order of legal
plays reaches the same final board as greedy play, so the solver's count is
the count every player reaches.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    BED_SIZE,
    BEDS,
    BOUQUET_SIZE,
    CARDS,
    Board,
    IllegalPlay,
    IllegalRedeal,
    LegacyDealer,
    Status,
    can_clear,
    deal,
    deal_cards,
    final_count,
    greedy_plays,
    winnable_deal,
)
from engine.deal import shuffle

from .reference import legal_by_the_rules, legal_cards, snapshot, status_by_the_rules

if TYPE_CHECKING:
    from collections.abc import Callable

    from engine import Layout

SEEDS = st.integers(min_value=0, max_value=2**64)
DEALERS = st.sampled_from([deal, winnable_deal])
examples = settings(max_examples=200, deadline=None)


def check_layout(layout: Layout) -> None:
    """Dealt by the rule from a permutation of the deck, with consistent lookup tables."""
    dealt = [card for bed in layout.beds for card in bed] + list(layout.bouquet)
    assert sorted(dealt) == list(CARDS)
    assert [len(bed) for bed in layout.beds] == [BED_SIZE] * BEDS
    assert len(layout.bouquet) == BOUQUET_SIZE
    for index, bed in enumerate(layout.beds):
        assert layout.fronts[index] == bed[-1]
        for level, card in enumerate(bed):
            assert (layout.where[card], layout.level[card]) == (index, level)
            assert layout.below[card] == (bed[level - 1] if level else -1)
    assert all(layout.where[card] == -1 for card in layout.bouquet)


def check_board(board: Board) -> None:
    """The board's fast answers agree with the rules restated plainly."""
    assert board.legal_plays() == legal_cards(board)
    assert board.has_play() == bool(board.legal_plays())
    assert board.status is status_by_the_rules(board)


def play_out(layout: Layout) -> Board:
    board = Board(layout)
    for card in greedy_plays(layout):
        board.play(card)
    return board


@examples
@given(SEEDS)
def test_a_deal_is_a_permutation_dealt_by_the_rule(seed: int) -> None:
    check_layout(deal(seed))


@examples
@given(SEEDS, st.integers(min_value=0, max_value=60))
def test_shuffle_is_the_standard_librarys_shuffle(seed: int, length: int) -> None:
    # A seed must deal what it dealt before shuffle was written out by hand.
    ours, theirs = list(range(length)), list(range(length))
    shuffle(ours, random.Random(seed))
    random.Random(seed).shuffle(theirs)
    assert ours == theirs


@examples
@given(SEEDS)
def test_a_winnable_deal_is_a_layout_that_clears(seed: int) -> None:
    layout = winnable_deal(seed)
    check_layout(layout)
    assert can_clear(layout)
    board = play_out(layout)
    assert board.status is Status.CLEARED
    assert board.count == 52


@examples
@given(st.data(), DEALERS, SEEDS)
def test_any_order_of_plays_reaches_the_greedy_board(
    data: st.DataObject, dealer: Callable[[int], Layout], seed: int
) -> None:
    layout = dealer(seed)
    expected = final_count(layout)
    board = Board(layout)
    while board.has_play():
        check_board(board)
        assert final_count(board) == expected  # the solver agrees from any point
        board.play(data.draw(st.sampled_from(board.legal_plays())))
    check_board(board)
    assert board == play_out(layout)
    assert board.count == expected


@examples
@given(st.data(), DEALERS, SEEDS)
def test_an_illegal_play_raises_and_changes_nothing(
    data: st.DataObject, dealer: Callable[[int], Layout], seed: int
) -> None:
    board = Board(dealer(seed))
    for _ in range(20):
        card = data.draw(st.sampled_from(CARDS))
        if legal_by_the_rules(board, card):
            assert board.is_legal(card)
            assert board.why_illegal(card) is None
            board.play(card)
        else:
            assert not board.is_legal(card)
            before, twin = snapshot(board), board.copy()
            reason = board.why_illegal(card)
            assert reason is not None
            assert snapshot(board) == before
            try:
                board.play(card)
            except IllegalPlay as exc:
                assert str(exc) == reason  # one explanation, asked or raised
            else:
                raise AssertionError(f"{card} was played illegally")
            assert snapshot(board) == before
            assert board == twin
        check_board(board)


@examples
@given(SEEDS, SEEDS)
def test_a_redeal_deals_the_cards_in_play_again(seed: int, redeal_seed: int) -> None:
    board = Board(deal(seed), redeals=1)
    for card in greedy_plays(board):
        board.play(card)
    assert board.status is Status.STUCK  # a random deal never clears (p ~ 2e-9)
    check_redeal(board, redeal_seed)


@examples
@given(st.data(), st.lists(st.integers(0, 13), min_size=4, max_size=4), SEEDS)
def test_a_redeal_from_any_board(data: st.DataObject, foundations: list[int], seed: int) -> None:
    in_play = [
        CARDS[suit * 13 + rank] for suit in range(4) for rank in range(foundations[suit], 13)
    ]
    layout = deal_cards(data.draw(st.permutations(in_play)))
    board = Board.from_parts(layout.beds, layout.bouquet, foundations, redeals_left=1)
    check_board(board)
    if board.status is Status.STUCK:
        check_redeal(board, seed)
    else:
        before = snapshot(board)
        try:
            board.redeal(LegacyDealer(0, seed).redeal)
        except IllegalRedeal:
            pass
        else:
            raise AssertionError("redeal allowed on a board that is not stuck")
        assert snapshot(board) == before


@examples
@given(SEEDS, SEEDS)
def test_no_redeal_without_one_left(seed: int, redeal_seed: int) -> None:
    board = play_out(deal(seed))
    assert board.status is Status.STALLED
    before = snapshot(board)
    try:
        board.redeal(LegacyDealer(0, redeal_seed).redeal)
    except IllegalRedeal:
        pass
    else:
        raise AssertionError("redeal allowed with none left")
    assert snapshot(board) == before


def check_redeal(board: Board, seed: int) -> None:
    """Same cards and foundations, one redeal fewer, dealt round-robin from bed 0."""
    cards, foundations, left = board.cards_in_play(), list(board.foundations), board.redeals_left
    board.redeal(LegacyDealer(0, seed).redeal)
    assert board.cards_in_play() == cards
    assert board.foundations == foundations
    assert board.redeals_left == left - 1
    in_beds = min(len(cards), BEDS * BED_SIZE)
    assert [len(bed) for bed in board.beds] == [len(range(i, in_beds, BEDS)) for i in range(BEDS)]
    assert len(board.bouquet) == len(cards) - in_beds
    # Undo the dealing rule: the i-th card dealt went to bed i % BEDS, at height i // BEDS.
    order = [board.beds[i % BEDS][i // BEDS] for i in range(in_beds)] + board.bouquet
    dealt = deal_cards(order)
    assert [list(bed) for bed in dealt.beds] == board.beds
    assert list(dealt.bouquet) == board.bouquet
    check_board(board)
    assert board.status in (Status.PLAYING, Status.STALLED, Status.CLEARED)
    rebuilt = Board.from_parts(board.beds, board.bouquet, board.foundations, board.redeals_left)
    assert final_count(board) == final_count(rebuilt) == board.count + len(greedy_plays(board))
