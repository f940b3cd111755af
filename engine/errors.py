"""Errors raised by the engine.

The hierarchy separates "this is not a card at all" from "this card cannot be
played now", as the wire protocol does (``bad_message`` versus ``illegal_move``)::

    EngineError
    ├── MalformedCard      (also a ValueError) text that names no card
    └── IllegalMove        a well-formed request the rules refuse; nothing changed
        ├── IllegalPlay    the card is not playable on this board now
        └── IllegalRedeal  no redeal left, or the board is not stuck
"""

from __future__ import annotations

__all__ = ["EngineError", "IllegalMove", "IllegalPlay", "IllegalRedeal", "MalformedCard"]


class EngineError(Exception):
    """Base class of every error the engine raises."""


class MalformedCard(EngineError, ValueError):
    """The text does not name a card."""


class IllegalMove(EngineError):
    """The rules refuse the move; the board is unchanged."""


class IllegalPlay(IllegalMove):
    """The card is buried, already played, or its foundation is not ready."""


class IllegalRedeal(IllegalMove):
    """A redeal needs a stuck board with a redeal left."""
