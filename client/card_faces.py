"""How a card looks: rank and suit glyph (or letter), red or black, on a light face.

Cards are drawn three cells wide (``10♥`` is the widest) so that columns of
cards line up whatever the ranks.
"""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING

from rich.text import Text

if TYPE_CHECKING:
    from engine import Card

__all__ = [
    "CARD_WIDTH",
    "card_name",
    "card_text",
    "glyphs_supported",
    "suit_mark",
]

CARD_WIDTH = 3
_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_GLYPHS = "♠♥♦♣"
_LETTERS = "SHDC"
# A light face with real card colours reads the same on dark and light terminals;
# plain "black" text would vanish on a dark background.
_RED = "bold #c41e1e on #f2f2ea"
_BLACK = "bold #101010 on #f2f2ea"


def suit_mark(suit: int, *, ascii: bool = False) -> str:
    """The suit's glyph, or its letter when the terminal cannot show glyphs."""
    return (_LETTERS if ascii else _GLYPHS)[suit]


def card_name(card: Card, *, ascii: bool = False) -> str:
    """``"10♥"``, ``"Q♠"``; ``"10H"``, ``"QS"`` in ASCII. ``10`` not ``T``: people read it."""
    return _RANKS[card.rank - 1] + suit_mark(card.suit, ascii=ascii)


def card_text(card: Card, *, ascii: bool = False, extra: str = "") -> Text:
    """The card's face, right-aligned in :data:`CARD_WIDTH` cells, with ``extra`` style."""
    style = _RED if card.suit in (1, 2) else _BLACK
    if extra:
        style = f"{style} {extra}"
    return Text(card_name(card, ascii=ascii).rjust(CARD_WIDTH), style=style)


def glyphs_supported(encoding: str | None) -> bool:
    """Whether text in ``encoding`` can carry the four suit glyphs (not so for ASCII or Latin-1)."""
    if not encoding:
        return False
    try:
        codecs.encode(_GLYPHS, encoding)
    except (LookupError, UnicodeError):
        return False
    return True
