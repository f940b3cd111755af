"""Key labels and the card prompt, without a UI."""

from __future__ import annotations

import pytest

import lang
from client.keys import (
    BED_KEYS,
    BOUQUET_KEYS,
    COMMAND_KEYS,
    Refusal,
    assign_labels,
    resolve_key,
    resolve_prompt,
)
from engine import CARDS, Board, Card, IllegalPlay, deal, winnable_deal


def board_with_legal_bed_and_bouquet() -> Board:
    """A deal with a playable card in the bouquet and another at a bed's front."""
    for seed in range(1000):
        board = Board(winnable_deal(seed))
        legal = board.legal_plays()
        fronts = {bed[-1] for bed in board.beds}
        if any(c in board.bouquet for c in legal) and any(c in fronts for c in legal):
            return board
    raise AssertionError("no such deal")


def test_sixteen_bouquet_letters_apart_from_the_commands():
    assert len(set(BOUQUET_KEYS)) == 16
    assert not set(BOUQUET_KEYS) & set(COMMAND_KEYS)
    assert not set(BED_KEYS) & set(COMMAND_KEYS)


def test_labels_are_stable_as_cards_leave():
    bouquet = list(Board(deal(7)).bouquet)
    labels = assign_labels({}, bouquet)
    assert [labels[c] for c in bouquet] == list(BOUQUET_KEYS)
    rest = bouquet[:3] + bouquet[4:]  # the fourth card was played
    again = assign_labels(labels, rest)
    assert all(again[c] == labels[c] for c in rest)
    assert "d" not in again.values()


def test_new_cards_take_the_free_letters():
    bouquet = list(Board(deal(7)).bouquet)
    labels = assign_labels({}, bouquet[:4])
    labels = assign_labels(labels, [bouquet[0], bouquet[2], bouquet[5]])
    assert labels == {bouquet[0]: "a", bouquet[2]: "c", bouquet[5]: "b"}


def test_a_key_plays_a_legal_card():
    board = board_with_legal_bed_and_bouquet()
    labels = assign_labels({}, board.bouquet)
    for card in board.legal_plays():
        if card in board.bouquet:
            assert resolve_key(labels[card], board, labels) == card
        else:
            bed = next(i for i, bed in enumerate(board.beds) if bed and bed[-1] == card)
            assert resolve_key(BED_KEYS[bed], board, labels) == card


def test_keys_that_play_nothing():
    board = Board(deal(7))
    labels = assign_labels({}, board.bouquet)
    assert resolve_key("z", board, labels) is None  # not a card key at all
    assert resolve_key("?", board, labels) is None
    blocked = next(bed[-1] for bed in board.beds if not board.is_legal(bed[-1]))
    bed = next(i for i, bed in enumerate(board.beds) if bed[-1] == blocked)
    refusal = resolve_key(BED_KEYS[bed], board, labels)
    assert isinstance(refusal, Refusal) and "must wait" in refusal.reason
    small = assign_labels({}, board.bouquet[:2])
    refusal = resolve_key("p", board, small)
    assert isinstance(refusal, Refusal) and "labelled p" in refusal.reason


def test_empty_bed():
    board = Board.from_parts([[], [], [], [], [], []], list(range(52)), [0, 0, 0, 0])
    refusal = resolve_key("3", board, {})
    assert refusal == Refusal("bed 3 is empty")


def cards(*codes: str) -> list[Card]:
    return [Card.parse(code) for code in codes]


def hearts_from(rank: str) -> Board:
    """Every suit complete but hearts, whose cards from ``rank`` up are in the bouquet."""
    start = "A23456789TJQK".index(rank)
    left = cards(*(r + "H" for r in "A23456789TJQK"[start:]))
    return Board.from_parts([[], [], [], [], [], []], left, [13, start, 13, 13])


@pytest.mark.parametrize("text", ["qh", "QH", " q h ", "q♥", "♥q", "Qh"])
def test_prompt_spellings(text):
    assert resolve_prompt(text, hearts_from("Q")) == Card.parse("QH")


@pytest.mark.parametrize("text", ["10h", "th", "TH", "10♥"])
def test_prompt_tens(text):
    assert resolve_prompt(text, hearts_from("T")) == Card.parse("TH")


def test_prompt_refusals():
    board = Board(deal(7))
    assert "not a card" in resolve_prompt("zz", board).reason  # type: ignore[union-attr]
    assert "not a card" in resolve_prompt("", board).reason  # type: ignore[union-attr]
    buried = next(bed[0] for bed in board.beds if len(bed) > 1)
    refusal = resolve_prompt(str(buried), board)
    assert isinstance(refusal, Refusal) and "under" in refusal.reason


def test_a_refusal_in_words():
    spades = cards(*(r + "S" for r in "3456789TJQK"))
    board = Board.from_parts([cards("2S", "KH"), [], [], [], [], []], spades, [1, 12, 13, 13])
    assert refused("as", board, ascii=True) == "AS is already on its foundation"
    assert refused("2s", board) == "2♠ is under 1 card in bed 1"
    assert refused("3s", board) == "3♠ must wait: 2♠ goes up first"
    assert refused("10s", board) == "10♠ must wait: 2♠ goes up first"
    assert resolve_prompt("kh", board) == Card.parse("KH")


@pytest.mark.parametrize("seed", [1, 7, 40])
def test_the_client_refuses_in_the_engines_words(seed):
    """A key refused locally is refused as the server's engine would, word for word."""
    board = Board(deal(seed))
    for card in board.legal_plays()[:1]:
        board.play(card)
    for card in CARDS:
        answer = resolve_prompt(str(card), board, ascii=True)
        if board.is_legal(card):
            assert answer == card
            continue
        with pytest.raises(IllegalPlay) as raised:
            board.copy().play(card)
        assert isinstance(answer, Refusal)
        # ASCII names differ from the wire's codes only for tens (10H, not TH).
        assert answer.reason.replace("10", "T") == str(raised.value)


def refused(text: str, board: Board, *, ascii: bool = False) -> str:
    answer = resolve_prompt(text, board, ascii=ascii)
    assert isinstance(answer, Refusal)
    return answer.reason


def test_a_refusal_speaks_the_language_in_use():
    board = Board(deal(7))
    refused_cards = [card for card in CARDS if not board.is_legal(card)]
    with lang.using("de"):
        reasons = {refused(str(card), board) for card in refused_cards}
    english = {refused(str(card), board) for card in refused_cards}
    assert reasons.isdisjoint(english)  # every one of them in German
    assert any("liegt unter" in reason for reason in reasons)
    assert any("muss warten" in reason for reason in reasons)
