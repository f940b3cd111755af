"""Cards as small immutable values.

A card is an ``int`` from 0 to 51, ``suit * 13 + rank - 1``, wrapped in the tiny
class :class:`Card` so that it prints as its two-character code (``"QH"``) and
its ``repr`` rebuilds it. Being an int keeps the engine's hot paths (legality,
the solver) to plain integer arithmetic and list indexing.

Two parsers: :meth:`Card.parse` accepts exactly the wire's code (rank from
``A23456789TJQK``, suit from ``SHDC``), and :func:`parse_lenient` accepts what a
person types at a prompt (``10h``, ``th``, ``q♥``).
"""

from __future__ import annotations

from .errors import MalformedCard

__all__ = ["CARDS", "RANKS", "SUITS", "Card", "parse_lenient"]

RANKS = "A23456789TJQK"
SUITS = "SHDC"


class Card(int):
    """One of the 52 cards. Instances are interned: use :data:`CARDS` or :meth:`parse`."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """1 (Ace) to 13 (King)."""
        return self % 13 + 1

    @property
    def suit(self) -> int:
        """Index into :data:`SUITS`: 0 spades, 1 hearts, 2 diamonds, 3 clubs."""
        return self // 13

    @property
    def suit_letter(self) -> str:
        return SUITS[self // 13]

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        """The card of that rank (1-13) and suit index (0-3)."""
        if not (1 <= rank <= 13 and 0 <= suit <= 3):
            raise MalformedCard(f"no card of rank {rank} and suit {suit}")
        return CARDS[suit * 13 + rank - 1]

    @classmethod
    def parse(cls, text: str) -> Card:
        """The card named by its exact two-character code, such as ``"TH"``."""
        card = _BY_CODE.get(text)
        if card is None:
            raise MalformedCard(f"not a card code: {text!r} (want rank {RANKS}, suit {SUITS})")
        return card

    def __str__(self) -> str:
        return _CODES[self]

    def __repr__(self) -> str:
        return f"Card.parse({_CODES[self]!r})"


_CODES = tuple(rank + suit for suit in SUITS for rank in RANKS)
CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(52))
"""Every card, indexed by its int value."""
_BY_CODE = {code: CARDS[i] for i, code in enumerate(_CODES)}

_GLYPHS = {"♠": "S", "♤": "S", "♥": "H", "♡": "H", "♦": "D", "♢": "D", "♣": "C", "♧": "C"}
_RANK_WORDS = {"10": "T", "1": "A"}


def parse_lenient(text: str) -> Card:
    """The card a person meant: ``"qh"``, ``"10h"``, ``"Th"``, ``"q♥"``, ``"♥Q"``.

    Case and surrounding space do not matter; ``10`` and ``1`` stand for ``T``
    and ``A``; suit glyphs stand for their letters; the suit may come first.
    """
    cleaned = "".join(_GLYPHS.get(ch, ch) for ch in text.strip().upper() if not ch.isspace())
    if cleaned and cleaned[0] in SUITS and len(cleaned) > 1 and cleaned[1:] not in SUITS:
        cleaned = cleaned[1:] + cleaned[0]
    rank, suit = cleaned[:-1], cleaned[-1:]
    rank = _RANK_WORDS.get(rank, rank)
    card = _BY_CODE.get(rank + suit)
    if card is None:
        raise MalformedCard(f"not a card: {text!r} (try qh, 10h or th)")
    return card
