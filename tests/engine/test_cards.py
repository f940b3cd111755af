"""Cards: the exact wire code, the lenient parser, and the two kinds of error."""

from __future__ import annotations

import pytest

from engine import CARDS, RANKS, SUITS, Card, IllegalPlay, MalformedCard, parse_lenient
from engine.errors import EngineError


def test_there_are_52_distinct_cards_in_suit_order() -> None:
    assert len(CARDS) == 52
    assert [int(card) for card in CARDS] == list(range(52))
    assert str(CARDS[0]) == "AS"
    assert str(CARDS[13]) == "AH"
    assert str(CARDS[51]) == "KC"


@pytest.mark.parametrize("card", CARDS, ids=str)
def test_parse_and_format_round_trip(card: Card) -> None:
    code = str(card)
    assert len(code) == 2
    assert code[0] in RANKS and code[1] in SUITS
    assert Card.parse(code) is card
    assert Card.of(card.rank, card.suit) is card
    assert SUITS[card.suit] == card.suit_letter == code[1]
    assert RANKS[card.rank - 1] == code[0]


@pytest.mark.parametrize("card", CARDS, ids=str)
def test_repr_rebuilds_the_card(card: Card) -> None:
    assert eval(repr(card), {"Card": Card}) == card


@pytest.mark.parametrize(
    "text", ["", "Q", "QHX", "qh", "10H", "1S", "ZZ", "QX", " QH", "QH ", "HQ", "♥Q", "Q♥"]
)
def test_parse_takes_only_the_exact_code(text: str) -> None:
    with pytest.raises(MalformedCard):
        Card.parse(text)


@pytest.mark.parametrize(
    ("rank", "suit"), [(0, 0), (14, 0), (1, -1), (1, 4)], ids=["r0", "r14", "s-1", "s4"]
)
def test_of_refuses_a_rank_or_suit_out_of_range(rank: int, suit: int) -> None:
    with pytest.raises(MalformedCard):
        Card.of(rank, suit)


def test_malformed_and_illegal_are_distinct_errors() -> None:
    assert issubclass(MalformedCard, EngineError)
    assert issubclass(MalformedCard, ValueError)
    assert not issubclass(MalformedCard, IllegalPlay)
    assert not issubclass(IllegalPlay, MalformedCard)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("qh", "QH"),
        ("10h", "TH"),
        ("th", "TH"),
        ("Th", "TH"),
        (" QH ", "QH"),
        ("q♥", "QH"),
        ("♥q", "QH"),
        ("1s", "AS"),
        ("as", "AS"),
        ("sa", "AS"),
        ("h10", "TH"),
        ("k♣", "KC"),
        ("♦2", "2D"),
        ("9 s", "9S"),
    ],
)
def test_parse_lenient_accepts_what_people_type(text: str, code: str) -> None:
    assert parse_lenient(text) is Card.parse(code)


@pytest.mark.parametrize("card", CARDS, ids=str)
def test_parse_lenient_accepts_every_exact_code(card: Card) -> None:
    assert parse_lenient(str(card)) is card
    assert parse_lenient(str(card).lower()) is card


@pytest.mark.parametrize("text", ["", "   ", "11h", "zz", "qx", "q", "h", "0h", "qhh", "♥", "hs"])
def test_parse_lenient_rejects_what_names_no_card(text: str) -> None:
    with pytest.raises(MalformedCard):
        parse_lenient(text)
