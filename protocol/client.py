"""The messages a client sends to the server, one model per ``type``.

A message's validity here is its shape only: ``hello`` takes any string as a
name and any integer as a protocol version, because refusing those is the
server's job (``bad_name``, ``unsupported_protocol``), not the decoder's. The
same goes for a token, a room code and a game id (``bad_token``,
``room_not_found``, ``game_not_found``). The published JSON Schema is stricter
there: it gives their patterns (:data:`~protocol.common.PlayerName` and the
rest), so that a request valid under it is one that can succeed.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import Field, TypeAdapter

from .common import CardCode, GameId, Message, Model, PlayerName, RoomCode, Rules, Token

__all__ = [
    "CLIENT_ADAPTER",
    "REASON_LENGTH",
    "BotRequest",
    "Cancel",
    "ClientMessage",
    "CreateRoom",
    "Daily",
    "Hello",
    "JoinArena",
    "JoinRoom",
    "LeaveArena",
    "LobbyRequest",
    "Play",
    "Redeal",
    "Rematch",
    "Report",
    "Resign",
    "Seek",
    "Watch",
]


REASON_LENGTH = 200
"""The most characters of a ``report``'s reason."""


class Hello(Message):
    """Must come first, once: makes a new player, or brings back the one ``token`` names."""

    type: Literal["hello"] = "hello"
    name: PlayerName
    token: Token | None = None
    protocol: int | None = None
    bot: bool = False
    """A program plays for this player: it races unrated, and is a bot for ever."""


class LobbyRequest(Message):
    """Asks for a lobby snapshot."""

    type: Literal["lobby"] = "lobby"


class BotRequest(Model):
    """A bot takes the other seat if no player is paired within ``after_s`` seconds."""

    after_s: Annotated[int, Field(ge=0, le=300)]
    """0: at once."""
    level: Annotated[int, Field(ge=1, le=5)]
    """1 (about 2 s a card) to 5 (about 0.3 s)."""


class Seek(Message):
    """Joins the quick-match queue."""

    type: Literal["seek"] = "seek"
    rules: Rules = Rules()
    bot: BotRequest | None = None


class CreateRoom(Message):
    """Opens a room that one other player joins by its code."""

    type: Literal["create_room"] = "create_room"
    rules: Rules = Rules()
    public: bool = False
    """Whether the lobby lists the room."""


class JoinRoom(Message):
    """Joins the room with that code; the race starts."""

    type: Literal["join_room"] = "join_room"
    code: RoomCode


class Cancel(Message):
    """Leaves the queue, or closes one's open room."""

    type: Literal["cancel"] = "cancel"


class Play(Message):
    """Plays that card from one's own board to its foundation."""

    type: Literal["play"] = "play"
    card: CardCode


class Redeal(Message):
    """Uses the redeal, when stuck with one left."""

    type: Literal["redeal"] = "redeal"


class Resign(Message):
    """Gives up the race."""

    type: Literal["resign"] = "resign"


class Rematch(Message):
    """After ``game_over``: asks for a new race with the same rules and seats."""

    type: Literal["rematch"] = "rematch"


class Watch(Message):
    """Spectates a live race."""

    type: Literal["watch"] = "watch"
    game_id: GameId


class Report(Message):
    """Tells the operator that the opponent in that finished race did not play fairly."""

    type: Literal["report"] = "report"
    game_id: GameId
    reason: Annotated[str, Field(max_length=REASON_LENGTH)] | None = None


class Daily(Message):
    """Races today's daily deal; ``ghost: false`` races the level-3 bot instead."""

    type: Literal["daily"] = "daily"
    ghost: bool = True


class JoinArena(Message):
    """Enters a running or upcoming arena."""

    type: Literal["join_arena"] = "join_arena"
    arena_id: str


class LeaveArena(Message):
    """Leaves one's arena: no more races are paired there (one being raced goes on)."""

    type: Literal["leave_arena"] = "leave_arena"


ClientMessage: TypeAlias = Annotated[
    Hello
    | LobbyRequest
    | Seek
    | CreateRoom
    | JoinRoom
    | Cancel
    | Play
    | Redeal
    | Resign
    | Rematch
    | Watch
    | Report
    | Daily
    | JoinArena
    | LeaveArena,
    Field(discriminator="type"),
]
CLIENT_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
