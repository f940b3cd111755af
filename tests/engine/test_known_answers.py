"""Known answers, like perft in chess: fixed seeds, their full layouts and counts.

Written out literally so that any change to the shuffle, the dealing rule or the
solver shows up here first. Seeds 0, 1, 4, 6 and 10 were chosen to cover a count
of 0 (all Aces buried), small counts and one long greedy run (seed 1).

Seed 1 walked by hand (front card of each bed last; bouquet cards all playable):

    bed 0  JC 7H 5C 2C KH 6H      bouquet: 4C 2S 7C 7S AH QH 3C 5D
    bed 1  TS QS 3H AC AD 2H               3D 6D 8S 4H 5S TC JD 9S
    bed 2  QD TD JH KS 9D 5H
    bed 3  TH 6S 8C QC JS 6C
    bed 4  3S 4D 9C 7D 8D AS
    bed 5  KD KC 9H 8H 4S 2D

    spades:   AS (front of bed 4, now 8D), 2S (bouquet); 3S is the bottom of
              bed 4 under 4D 9C 7D 8D: spades stop at 2.
    hearts:   AH (bouquet), 2H (front of bed 1, now AD); 3H is under AC AD.
    diamonds: AD (bed 1, now AC), 2D (bed 5, now 4S), 3D (bouquet); 4D is
              buried in bed 4: diamonds stop at 3.
    clubs:    AC (bed 1, now 3H); 2C is under KH 6H in bed 0.
    hearts again (3H was uncovered): 3H (bed 1, now QS), 4H (bouquet), 5H
              (bed 2, now 9D), 6H (bed 0, now KH); 7H is under 5C 2C KH.
    Fronts now KH QS 9D 6C 8D 4S, none of them 3S, 7H, 4D or 2C: stalled at
    2 + 6 + 3 + 1 = 12.
"""

from __future__ import annotations

import pytest

from engine import Board, Card, Layout, Status, deal, final_count, greedy_plays, winnable_deal


def layout(beds: tuple[str, ...], bouquet: str) -> Layout:
    """A layout from card codes: one string per bed (bottom to front), then the bouquet."""
    return Layout(
        tuple(tuple(map(Card.parse, bed.split())) for bed in beds),
        tuple(map(Card.parse, bouquet.split())),
    )


DEALS = {
    0: (
        layout(
            (
                "3D 6S 5S 9D 3H 4S",
                "KS JD TD 6C JS 5C",
                "7C 2S 8H AC 9H TS",
                "3C JC 2H QS 2D 9C",
                "KD 8D KC 4C QC 7S",
                "8S AS 4D 5H JH 2C",
            ),
            "6H 9S 8C AH QD TH 5D 7H KH 6D 7D 4H 3S AD TC QH",
        ),
        "AH AD",
    ),
    1: (
        layout(
            (
                "JC 7H 5C 2C KH 6H",
                "TS QS 3H AC AD 2H",
                "QD TD JH KS 9D 5H",
                "TH 6S 8C QC JS 6C",
                "3S 4D 9C 7D 8D AS",
                "KD KC 9H 8H 4S 2D",
            ),
            "4C 2S 7C 7S AH QH 3C 5D 3D 6D 8S 4H 5S TC JD 9S",
        ),
        "AS 2S AH 2H AD 2D 3D AC 3H 4H 5H 6H",
    ),
    4: (
        layout(
            (
                "QD 3D JD 7D TC 9S",
                "TH QC KD 2D 3C JC",
                "AC 4C 2C 7C 8H QS",
                "9H 5C KS 6C AD 5H",
                "4H 8S JS 4D AS JH",
                "KC AH 3S QH 6D 9D",
            ),
            "8D 2H 4S 6H TD 9C 2S 5S 6S TS 5D KH 8C 7S 7H 3H",
        ),
        "",
    ),
    6: (
        layout(
            (
                "2D TH 3H 4S JS 9H",
                "5C 3D KC 2H AH 9C",
                "5S 7D 7C 9S 8C TD",
                "AC 8S 6H 4D 3C 7S",
                "KD JC 6C QS 7H AD",
                "2C QH 8D 9D KH KS",
            ),
            "TC 5H 2S 8H JH 5D QD 4C TS AS 3S 4H 6D 6S JD QC",
        ),
        "AS 2S 3S AD",
    ),
    10: (
        layout(
            (
                "TH 2S 7S TC TS JC",
                "QD 7D 3D QH 7C AD",
                "2C 4S 9D 6S KS AC",
                "9C 6H 8S 2H QS JH",
                "4C KH KD 9S 7H 3H",
                "4H 8C 6C 9H TD 5S",
            ),
            "8H 5C 8D QC JS 3C 5H 6D 4D AH AS KC 5D 2D 3S JD",
        ),
        "AS AH AD 2D AC",
    ),
}

WINNABLE = {
    0: layout(
        (
            "KS 9D 6C 5D 5S 3D",
            "TH JC TS 6D 3S 2D",
            "QH JD JH 8C 4S AD",
            "KC JS TC 9C 2H AS",
            "9H 9S 6H 5H 2C AC",
            "TD QS 7H 8D 3H 5C",
        ),
        "2S 3C 4C 7S 8S 4D KD 7D 4H 6S KH AH 7C QC QD 8H",
    ),
    7: layout(
        (
            "QH QS 8D 6C 4S 3C",
            "9H 7D 6S 4C 2D 3H",
            "KD JC 8H 7C 2H 2C",
            "JD TD 9D 7S 4H 3S",
            "QC TH 5S 5H 3D AC",
            "KH TS QD 9C 2S AH",
        ),
        "8C TC 5D KS 4D 9S 7H JH AD KC 8S 6D 6H AS JS 5C",
    ),
}


@pytest.mark.parametrize("seed", sorted(DEALS))
def test_deal_gives_the_known_layout_and_count(seed: int) -> None:
    expected, plays = DEALS[seed]
    dealt = deal(seed)
    assert dealt == expected
    assert final_count(dealt) == len(plays.split())
    assert [str(card) for card in greedy_plays(dealt)] == plays.split()


def test_the_hand_walked_deal_stalls_at_12() -> None:
    board = Board(DEALS[1][0])
    for code in ["AS", "2S", "AH", "2H", "AD", "2D", "3D", "AC", "3H", "4H", "5H", "6H"]:
        board.play(Card.parse(code))
    assert board.foundations == [2, 6, 3, 1]
    assert board.count == 12
    assert board.status is Status.STALLED
    assert [str(bed[-1]) for bed in board.beds] == ["KH", "QS", "9D", "6C", "8D", "4S"]


@pytest.mark.parametrize("seed", sorted(WINNABLE))
def test_winnable_deal_gives_the_known_layout_and_clears(seed: int) -> None:
    dealt = winnable_deal(seed)
    assert dealt == WINNABLE[seed]
    assert final_count(dealt) == 52
    board = Board(dealt)
    for card in greedy_plays(dealt):
        board.play(card)
    assert board.status is Status.CLEARED
