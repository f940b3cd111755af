"""Verifiable dealing: every layout and redeal from a 32-byte seed (PROTOCOL.md).

Theory of operation. A seed and a label (``b"deal"`` or ``b"redeal"``) make a
stream of words: the SHA-256 blocks of ``seed ‖ label ‖ k`` for k = 0, 1, 2, …
(``k`` as 4 bytes big-endian), cut into 4-byte big-endian words. :func:`below`
turns words into an unbiased index by rejection, :func:`shuffle` is
Fisher-Yates from the end on those indices, and the dealing rule
(:func:`engine.deal.deal_cards`: card k onto bed k mod 6 while k < 36, the rest
to the bouquet) lays the cards out. A classic layout shuffles the deck; a
winnable one draws a play order that respects suit order, then puts each card
(last play first) into a random open place, so that the first plays end up in
front; a redeal shuffles the cards still in play with the ``redeal`` stream.

The server commits to :func:`commit` of each seat's seed at ``game_start`` and
reveals the seed at ``game_over``, so anyone can deal the race again and check
it (:mod:`engine.verify`). The known answers in ``tests/engine`` pin the
algorithm: change nothing here without them.

A race deals through a :class:`Dealer`, one per seat: :class:`SeedDealer` is
this algorithm; :class:`LegacyDealer` is the Mersenne Twister dealing of races
recorded before it, kept so that they replay the same.
"""

from __future__ import annotations

import hashlib
import random
import re
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol, TypeVar

from .cards import CARDS, Card
from .deal import BED_SIZE, BEDS, BOUQUET_SIZE, Layout, deal, deal_cards, winnable_deal
from .deal import shuffle as mt_shuffle

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

__all__ = [
    "ALGORITHM",
    "LEGACY_ALGORITHM",
    "SEED_SIZE",
    "Dealer",
    "LegacyDealer",
    "SeedDealer",
    "below",
    "classic",
    "commit",
    "redeal",
    "seed_from_hex",
    "shuffle",
    "winnable",
    "words",
]

T = TypeVar("T")

SEED_SIZE = 32
ALGORITHM = "sha256"
LEGACY_ALGORITHM = "mt19937"

_WORD = 2**32
_BLOCK = struct.Struct(">8I")  # a SHA-256 block as eight big-endian words
_HEX_SEED = re.compile(r"[0-9a-fA-F]{64}")


def commit(seed: bytes) -> str:
    """The commitment to ``seed``: the lowercase hex SHA-256 of its bytes."""
    return hashlib.sha256(seed).hexdigest()


def seed_from_hex(text: str) -> bytes:
    """The seed written as 64 hex digits; ValueError, saying what is wrong, otherwise."""
    if len(text) != 2 * SEED_SIZE:
        raise ValueError(f"a seed is {2 * SEED_SIZE} hex digits, not {len(text)}")
    if not _HEX_SEED.fullmatch(text):
        bad = next(ch for ch in text if ch not in "0123456789abcdefABCDEF")
        raise ValueError(f"a seed is hex digits only, not {bad!r}")
    return bytes.fromhex(text)


def words(seed: bytes, label: bytes) -> Iterator[int]:
    """The endless stream of 32-bit words for ``label`` (``b"deal"`` or ``b"redeal"``)."""
    k = 0
    while True:
        yield from _BLOCK.unpack(hashlib.sha256(seed + label + k.to_bytes(4, "big")).digest())
        k += 1


def below(stream: Iterator[int], n: int) -> int:
    """A uniform index under ``n`` (1 to 2**32): words under the largest multiple of n, mod n."""
    limit = _WORD - _WORD % n
    word = next(stream)
    while word >= limit:
        word = next(stream)
    return word % n


def shuffle(items: list[T], stream: Iterator[int]) -> None:
    """Shuffle ``items`` in place: Fisher-Yates from the end, swapping i and below(i + 1)."""
    for i in range(len(items) - 1, 0, -1):
        j = below(stream, i + 1)
        items[i], items[j] = items[j], items[i]


def classic(seed: bytes) -> Layout:
    """The uniformly random layout of ``seed``: the deck in order, shuffled, dealt."""
    deck = list(CARDS)  # AS..KS AH..KH AD..KD AC..KC: the cards' own order
    shuffle(deck, words(seed, b"deal"))
    return deal_cards(deck)


def winnable(seed: bytes) -> Layout:
    """The layout of ``seed`` that can always be cleared (PROTOCOL.md's three steps)."""
    stream = words(seed, b"deal")
    # (1) A play order: a random interleaving of the four suits, each Ace to King.
    next_rank = [0, 0, 0, 0]
    suits = [0, 1, 2, 3]  # those with cards left, in order S, H, D, C
    order: list[Card] = []
    for _ in range(52):
        suit = suits[below(stream, len(suits))]
        order.append(CARDS[suit * 13 + next_rank[suit]])
        next_rank[suit] += 1
        if next_rank[suit] == 13:
            suits.remove(suit)
    # (2) Each card, last play first, into an open place: the bouquet's share
    # of r first, then each bed's. A bed's later cards cover its earlier ones,
    # so the earliest play of each bed is its front card.
    places: list[list[Card]] = [[] for _ in range(1 + BEDS)]  # the bouquet, then the beds
    free = [BOUQUET_SIZE] + [BED_SIZE] * BEDS
    for open_places in range(52, 0, -1):
        r = below(stream, open_places)
        place = 0
        while r >= free[place]:
            r -= free[place]
            place += 1
        places[place].append(order[open_places - 1])
        free[place] -= 1
    bouquet, beds = places[0], places[1:]
    # (3) The bouquet's order is free: shuffle it.
    shuffle(bouquet, stream)
    return Layout(tuple(map(tuple, beds)), tuple(bouquet))


_winnable = winnable  # for SeedDealer.layout, whose argument is named winnable


def redeal(seed: bytes, cards: Sequence[Card]) -> Layout:
    """``cards`` (in play, in PROTOCOL.md's gathering order) shuffled and dealt again."""
    again = list(cards)
    shuffle(again, words(seed, b"redeal"))
    return deal_cards(again)


class Dealer(Protocol):
    """What a race deals one seat's layout and redeal with."""

    @property
    def algorithm(self) -> str:
        """The ``dealing`` a race record names: :data:`ALGORITHM` or :data:`LEGACY_ALGORITHM`."""
        ...

    def layout(self, winnable: bool) -> Layout:
        """The seat's layout as dealt: a winnable one, or a classic random one."""
        ...

    def redeal(self, cards: Sequence[Card]) -> Layout:
        """``cards``, gathered in PROTOCOL.md's redeal order, dealt again."""
        ...


@dataclass(frozen=True, slots=True)
class SeedDealer:
    """PROTOCOL.md's dealing from a 32-byte seed."""

    seed: bytes
    algorithm: ClassVar[str] = ALGORITHM

    def __post_init__(self) -> None:
        if len(self.seed) != SEED_SIZE:
            raise ValueError(f"a seed is {SEED_SIZE} bytes, not {len(self.seed)}")

    @property
    def commit(self) -> str:
        """What ``game_start`` announces for this seed."""
        return commit(self.seed)

    def layout(self, winnable: bool) -> Layout:
        return (_winnable if winnable else classic)(self.seed)

    def redeal(self, cards: Sequence[Card]) -> Layout:
        return redeal(self.seed, cards)


@dataclass(frozen=True, slots=True)
class LegacyDealer:
    """The dealing of races recorded before the seeds were committed: Mersenne Twister."""

    deal_seed: int
    redeal_seed: int
    algorithm: ClassVar[str] = LEGACY_ALGORITHM

    def layout(self, winnable: bool) -> Layout:
        return winnable_deal(self.deal_seed) if winnable else deal(self.deal_seed)

    def redeal(self, cards: Sequence[Card]) -> Layout:
        # Sorted first: these races shuffled the cards in play in card order.
        again = sorted(cards)
        mt_shuffle(again, random.Random(self.redeal_seed))
        return deal_cards(again)
