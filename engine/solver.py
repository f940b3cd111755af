"""The solver: the final count of a board, and whether it can be cleared.

Flower Garden is confluent. A card, once playable, stays playable until it is
played: nothing can cover it (cards only leave the beds) and nothing else can
take its place on its foundation (only that card advances it). So playing any
legal card never removes a play that another order would have had, and every
maximal sequence of plays reaches the same final board. Greedy play is
therefore optimal. ``tests/engine/test_properties.py`` checks the claim.

Theory of operation: play one suit as far as it goes (a *run*: its next card,
the one after, ... until a card is still covered). Each play from a bed
uncovers exactly one card, the one below it; if that card is the next of its
own suit, that suit can move again, so it goes back on a to-do list (which
starts with all four suits). Nothing else can let a stopped suit move, so when
the list is empty the count is final. There are no rescans: a fresh deal (final
count about 3) takes a couple of dozen steps.

The redeal is left out: its shuffle is random, so no count after it is final
before it happens.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import CARDS, Card
from .deal import Layout

if TYPE_CHECKING:
    from .board import Board

__all__ = ["can_clear", "final_count", "greedy_plays"]

_ENDS = (13, 26, 39, 52)  # one past each suit's last card


def final_count(board: Board | Layout) -> int:
    """The count that greedy (hence any maximal) play reaches, without a redeal."""
    return _play_out(board, None)


def can_clear(board: Board | Layout) -> bool:
    """Whether the board can be cleared without a redeal."""
    return _play_out(board, None) == 52


def greedy_plays(board: Board | Layout) -> list[Card]:
    """One order of plays that reaches the final count."""
    plays: list[Card] = []
    _play_out(board, plays)
    return plays


def _play_out(board: Board | Layout, plays: list[Card] | None) -> int:
    """Play greedily on scratch copies of the board's state; return the final count.

    ``nxt[suit]`` is the card that suit needs next (its end once complete),
    ``fronts[bed]`` the card now at the front of each bed, and ``todo`` the
    suits that may be able to move. A suit listed twice costs one extra look.
    """
    where, below = board.where, board.below
    if isinstance(board, Layout):
        nxt = [0, 13, 26, 39]
        fronts = list(board.fronts)
    else:
        f = board.foundations
        nxt = [f[0], 13 + f[1], 26 + f[2], 39 + f[3]]
        fronts = [bed[-1] if bed else -1 for bed in board.beds]
    todo = [3, 2, 1, 0]
    while todo:
        suit = todo.pop()
        card = start = nxt[suit]
        end = _ENDS[suit]
        while card < end:
            bed = where[card]
            if bed >= 0:  # in a bed; else in the bouquet, hence playable
                if fronts[bed] != card:
                    break  # still covered
                uncovered = fronts[bed] = below[card]
                # nxt[suit] is stale until the run ends: harmless, since a card
                # of this suit uncovered now is one this run will reach anyway.
                if uncovered >= 0 and nxt[uncovered // 13] == uncovered:
                    todo.append(uncovered // 13)
            card += 1
        nxt[suit] = card
        if plays is not None:
            plays.extend(CARDS[start:card])
    return nxt[0] + nxt[1] + nxt[2] + nxt[3] - 78  # 78: the four aces' numbers
