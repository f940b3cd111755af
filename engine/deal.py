"""Dealing layouts: random deals from a seed, and winnable deals built backwards.

The dealing rule, used at the start and by the redeal house rule: cards go one
to each bed in turn from bed 0, up to six per bed, and the rest to the bouquet.
A full deck therefore makes six beds of six and a bouquet of sixteen.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from .cards import CARDS, Card

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "BEDS",
    "BED_SIZE",
    "BOUQUET_SIZE",
    "Layout",
    "deal",
    "deal_cards",
    "shuffle",
    "winnable_deal",
]

T = TypeVar("T")

BEDS = 6
BED_SIZE = 6
BOUQUET_SIZE = 52 - BEDS * BED_SIZE


@dataclass(frozen=True, slots=True)
class Layout:
    """Cards as dealt: each bed from its bottom card to its front card, then the bouquet."""

    beds: tuple[tuple[Card, ...], ...]
    bouquet: tuple[Card, ...]
    where: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """For each card: its bed (0-5), or -1 for the bouquet; -2 if absent."""
    level: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """For each bed card: its index in its bed, 0 for the bottom card."""
    below: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """For each bed card: the card under it; -1 for a bottom card and for the other cards."""
    fronts: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """For each bed: its front card, or -1 if the bed is empty."""

    def __post_init__(self) -> None:
        # Precomputed once per deal so that solving a fresh layout is a few
        # dozen integer operations (the server deals winnable layouts on demand).
        where, level, below, fronts = [-2] * 52, [0] * 52, [-1] * 52, []
        for card in self.bouquet:
            where[card] = -1
        for bed, cards in enumerate(self.beds):
            under = -1
            # Plain ints, not Cards: CPython's fast paths for int arithmetic
            # and indexing skip subclasses, and the solver does little else.
            for index, number in enumerate(map(int, cards)):
                where[number], level[number], below[number] = bed, index, under
                under = number
            fronts.append(under)
        object.__setattr__(self, "where", tuple(where))
        object.__setattr__(self, "level", tuple(level))
        object.__setattr__(self, "below", tuple(below))
        object.__setattr__(self, "fronts", tuple(fronts))

    def __str__(self) -> str:
        beds = " | ".join(" ".join(map(str, bed)) for bed in self.beds)
        return f"{beds} || {' '.join(map(str, self.bouquet))}"


def shuffle(items: list[T], rng: random.Random) -> None:
    """Shuffle ``items`` in place: the same order as ``rng.shuffle(items)``, in half the time.

    CPython's :meth:`random.Random.shuffle` (3.11 to 3.13): Fisher-Yates from the
    end, each index drawn by rejection from ``getrandbits``. Written out here
    without its two method calls per card: the server deals every race on
    demand, and races that end together start together. A test holds it to
    the standard library's order, so a seed deals what it always dealt.
    """
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        bits = n.bit_length()
        j = getrandbits(bits)
        while j >= n:
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]


def deal_cards(cards: Sequence[Card]) -> Layout:
    """Deal ``cards`` in order by the dealing rule."""
    in_beds = min(len(cards), BEDS * BED_SIZE)
    beds = tuple(tuple(cards[bed:in_beds:BEDS]) for bed in range(BEDS))
    return Layout(beds, tuple(cards[in_beds:]))


def deal(seed: int) -> Layout:
    """A uniformly random layout, fully determined by ``seed``."""
    deck = list(CARDS)
    shuffle(deck, random.Random(seed))
    return deal_cards(deck)


def winnable_deal(seed: int) -> Layout:
    """A random layout that can always be cleared, fully determined by ``seed``.

    A random deal clears about twice in a billion, so searching is hopeless.
    Instead: draw a random order of the 52 plays that respects suit order (a
    random interleaving of the four runs Ace to King), then give each play a
    random place among the 36 bed slots and 16 bouquet slots, and stack each
    bed so that its earliest play is its front card. Playing that order then
    always finds the next card exposed and its foundation ready.
    """
    rng = random.Random(seed)
    suits = [suit for suit in range(4) for _ in range(13)]
    shuffle(suits, rng)
    next_rank = [0, 0, 0, 0]
    order: list[Card] = []
    for suit in suits:
        order.append(CARDS[suit * 13 + next_rank[suit]])
        next_rank[suit] += 1
    slots = [bed for bed in range(BEDS) for _ in range(BED_SIZE)] + [-1] * BOUQUET_SIZE
    shuffle(slots, rng)
    beds: list[list[Card]] = [[] for _ in range(BEDS)]
    bouquet: list[Card] = []
    for card, slot in zip(order, slots, strict=True):
        if slot < 0:
            bouquet.append(card)
        else:
            beds[slot].insert(0, card)  # played earlier = nearer the front
    shuffle(bouquet, rng)
    return Layout(tuple(map(tuple, beds)), tuple(bouquet))
