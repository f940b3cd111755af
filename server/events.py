"""What the sans-I/O cores hand to the glue, and how they refuse a command.

The cores (:mod:`server.race`, :mod:`server.lobby`) never touch a socket: every
input returns a list of outputs, which the glue carries out in order.

* :class:`Send` delivers one message to players (by id) and, when ``game_id``
  is set, to that race's spectators. The message is a model, or the frame
  itself for the one event made on every play (``played``).
* :class:`RaceEnded` asks the glue to persist a finished race. It comes right
  before the ``game_over`` it leads to, so the glue can hold that message back
  until the race is on disk.

A command the rules refuse raises :class:`Refused`, which carries the
protocol's error code; the core has changed nothing when it raises.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from protocol import ErrorCode, ServerMessage

    from .record import RaceRecord

__all__ = ["Output", "RaceEnded", "Refused", "Send"]


@dataclass(frozen=True, slots=True)
class Send:
    """Deliver ``message`` to the players ``to`` and to the spectators of ``game_id``.

    ``message`` is a model, or bytes: its frame, encoded by the core, with no ``id``.
    """

    to: tuple[str, ...]
    message: ServerMessage | bytes
    game_id: str | None = None


@dataclass(frozen=True, slots=True)
class RaceEnded:
    """A race is over: persist its record before announcing it."""

    record: RaceRecord


Output = Send | RaceEnded


class Refused(Exception):
    """A command that the rules or the lobby refuse; nothing changed."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
