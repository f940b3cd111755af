"""How the server ends a websocket, by close code: the one place each code is written.

The codes are part of the contract (PROTOCOL.md, "Errors"; docs/protocol-notes.md):
a client reads them to decide whether to come back. Most say "come back":
the server shut down (:attr:`CloseCode.GOING_AWAY`), the worker that held the
race is gone (:attr:`CloseCode.SERVICE_RESTART`), a flood was cut off. Two say
"do not" (:data:`STAY_AWAY`): coming back after :attr:`CloseCode.REPLACED`
would take the player from the newer connection, which would do the same,
forever; after :attr:`CloseCode.BANNED` the answer would be ``banned`` again.

The RFC 6455 codes keep the RFC's names; each docstring says what the server
means by it. The browser's copy is generated from this enum (``web/facts.py``).
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["STAY_AWAY", "CloseCode"]


class CloseCode(IntEnum):
    """A close code of the contract: the server sends each; a client sends NORMAL_CLOSURE too."""

    NORMAL_CLOSURE = 1000
    """Done: a client leaving, or closing on purpose to catch up (it comes back at once)."""
    GOING_AWAY = 1001
    """The server is shutting down; it may be restarting."""
    UNSUPPORTED_DATA = 1003
    """A binary frame: the protocol is text frames only."""
    POLICY_VIOLATION = 1008
    """Too many messages after ``rate_limited``, or no ``hello`` in time."""
    MESSAGE_TOO_BIG = 1009
    """A frame over ``--max-message`` (websockets closes with it on its own)."""
    INTERNAL_ERROR = 1011
    """Handling a message failed: the server's bug, not the client's."""
    SERVICE_RESTART = 1012
    """The worker that held this connection's race is gone: connect again, to one that is not."""
    REPLACED = 4000
    """A newer connection with the same token took the player."""
    BANNED = 4001
    """The player was banned while connected."""


STAY_AWAY = frozenset({CloseCode.REPLACED, CloseCode.BANNED})
"""The codes after which a client must not reconnect by itself."""
