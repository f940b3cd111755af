"""The messages a server sends outside a race: ``welcome``, the lobby, seeks and rooms.

Revision 3 added fields to two of them, each with a default so that code that
builds them as revision 2 did still builds valid ones: ``welcome.revision``,
``welcome.bot`` and the rate limits in :class:`Limits`; ``lobby.arenas`` and
``lobby.daily``.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import Field

from .common import (
    REVISION,
    Count,
    GameId,
    Message,
    Model,
    NonNegative,
    PlayerName,
    RoomCode,
    Rules,
    Seconds,
    Token,
)

# At run time, not under TYPE_CHECKING: pydantic reads the annotations that name them.
from .competitions import ArenaInfo, DailyInfo  # noqa: TC001

__all__ = [
    "HELLO_TIMEOUT_S",
    "LIST_CAP",
    "RATE_BURST",
    "RATE_PER_S",
    "Cancelled",
    "GameInfo",
    "Limits",
    "LobbySnapshot",
    "Rating",
    "Room",
    "RoomInfo",
    "SeekInfo",
    "Seeking",
    "Welcome",
]

LIST_CAP = 100
"""The most public rooms, and the most live races, that a lobby reply lists."""
RATE_BURST = 200
RATE_PER_S = 50
"""PROTOCOL.md, "Limits": a burst of 200 messages and 50 a second sustained are never limited."""
HELLO_TIMEOUT_S = 10
"""How long a new connection has to say ``hello``, unless the server says otherwise."""

Names: TypeAlias = Annotated[list[PlayerName], Field(min_length=2, max_length=2)]
Counts: TypeAlias = Annotated[list[Count], Field(min_length=2, max_length=2)]
Bots: TypeAlias = Annotated[list[bool], Field(min_length=2, max_length=2)]


class Limits(Model):
    """The server's settings a client shows or keeps to; seconds are whole where they can be."""

    idle_s: Seconds
    """How long a racer may go without an accepted play or redeal before timing out."""
    grace_s: Seconds
    """How long a dropped player has to come back."""
    max_message: NonNegative
    """The largest frame the server takes, in bytes."""
    burst: NonNegative = RATE_BURST
    """Messages at once that are never limited."""
    per_s: Seconds = RATE_PER_S
    """Messages a second, sustained, that are never limited."""
    hello_timeout_s: Seconds = HELLO_TIMEOUT_S
    """How long a new connection has to say ``hello`` before it is closed."""


class Rating(Model):
    """A player's rating as clients show it: a whole number, ``?`` beside a provisional one."""

    rating: int
    provisional: bool
    """The deviation is still 110 or more: too few rated races to be sure."""


class Welcome(Message):
    """Reply to ``hello``. Keep ``token``: it is the only way back to this identity."""

    type: Literal["welcome"] = "welcome"
    player_id: str
    name: PlayerName
    token: Token
    protocol: int
    revision: int = REVISION
    """The highest revision of PROTOCOL.md the server implements."""
    bot: bool = False
    """Whether this player is a bot (said so in a ``hello``, ever)."""
    rating: Rating
    limits: Limits


class RoomInfo(Model):
    """A public open room, as the lobby lists it."""

    code: RoomCode
    host: PlayerName
    """The name of the player who opened it."""
    rules: Rules


class GameInfo(Model):
    """A live race, as the lobby lists it."""

    game_id: GameId
    players: Names
    counts: Counts
    bots: Bots


class SeekInfo(Model):
    """How many players wait in quick match for one set of rules."""

    rules: Rules
    count: Annotated[int, Field(ge=1)]


class LobbySnapshot(Message):
    """Reply to ``lobby``: ``rooms`` and ``games`` at most :data:`LIST_CAP` each, newest first."""

    type: Literal["lobby"] = "lobby"
    online: NonNegative
    seeking: NonNegative
    seeks: list[SeekInfo]
    rooms: Annotated[list[RoomInfo], Field(max_length=LIST_CAP)]
    rooms_total: NonNegative
    games: Annotated[list[GameInfo], Field(max_length=LIST_CAP)]
    games_total: NonNegative
    arenas: list[ArenaInfo] = Field(default_factory=list)
    """Upcoming and running arenas."""
    daily: DailyInfo | None = Field(default=None, exclude_if=lambda value: value is None)
    """Today's deal; left out by a server that offers none (as before revision 3)."""


class Seeking(Message):
    """Reply to ``seek``, with the rules' defaults filled in."""

    type: Literal["seeking"] = "seeking"
    rules: Rules


class Room(Message):
    """Reply to ``create_room``: the code to give the opponent."""

    type: Literal["room"] = "room"
    code: RoomCode
    rules: Rules


class Cancelled(Message):
    """Reply to ``cancel``."""

    type: Literal["cancelled"] = "cancelled"
