"""Messages from the screens up to the app, which alone changes the state and sends."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from protocol import ClientMessage

    from .lookups import Query

__all__ = ["BackToLobby", "CardKey", "CardTyped", "Command", "Fetch", "Notice", "ReplayControl"]


class Command(Message):
    """Send this message to the server (or to practice)."""

    def __init__(self, message: ClientMessage) -> None:
        super().__init__()
        self.message = message


class Notice(Message):
    """Show this on the feedback line (a refused key, a hint)."""

    def __init__(self, text: str, *, error: bool = False) -> None:
        super().__init__()
        self.text = text
        self.error = error


class BackToLobby(Message):
    """Leave the race screen (after the end, or when done watching)."""


class CardKey(Message):
    """A card key was pressed (a bed digit or a bouquet letter): play that card if it may be."""

    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key


class CardTyped(Message):
    """A card was typed at the card prompt: play it if it may be."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class Fetch(Message):
    """Ask the server's HTTP API (:mod:`client.lookups`); the answer lands in the state."""

    def __init__(self, query: Query) -> None:
        super().__init__()
        self.query = query


class ReplayControl(Message):
    """A key of the replay screen: ``pause``, ``step``, ``back``, ``restart``, ``end``, or a
    speed (``1``, ``2``, ``4``, ``8``), for the replay of ``game_id``."""

    def __init__(self, game_id: str, action: str) -> None:
        super().__init__()
        self.game_id = game_id
        self.action = action
