"""The messages the server sends to clients, one model per ``type``.

Fields that PROTOCOL.md shows as "seat or null" are always on the wire, with
``null`` when empty (``bed``, ``winner``, ``over``); the only fields left out
when empty are the request ``id`` of every message and the ``seat`` of a
spectator's ``game_state``.

Every message may carry the ``id`` of the request that caused it (see
:class:`~protocol.common.Message`); which message gets it is the server's call.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import ConfigDict, Field, TypeAdapter

from .common import (
    BedIndex,
    Board,
    BoardStatus,
    CardCode,
    Count,
    ErrorCode,
    Message,
    Model,
    Rules,
    Seat,
    Seq,
)

__all__ = [
    "SERVER_ADAPTER",
    "Cancelled",
    "Error",
    "GameInfo",
    "GameOver",
    "GameStart",
    "GameState",
    "LobbySnapshot",
    "OpponentAway",
    "OpponentBack",
    "Played",
    "Redealt",
    "RematchOffered",
    "Room",
    "RoomInfo",
    "Seeking",
    "ServerMessage",
    "StatusChanged",
    "Welcome",
]

Pair: TypeAlias = Annotated[list[str], Field(min_length=2, max_length=2)]
Counts: TypeAlias = Annotated[list[Count], Field(min_length=2, max_length=2)]
Boards: TypeAlias = Annotated[list[Board], Field(min_length=2, max_length=2)]
NonNegative: TypeAlias = Annotated[int, Field(ge=0)]


class Welcome(Message):
    """Reply to ``hello``. Keep ``token``: it is the only way back to this identity."""

    type: Literal["welcome"] = "welcome"
    player_id: str
    name: str
    token: str
    protocol: int


class RoomInfo(Model):
    """A public open room, as the lobby lists it."""

    code: str
    host: str
    """The name of the player who opened it."""
    rules: Rules


class GameInfo(Model):
    """A live race, as the lobby lists it."""

    game_id: str
    players: Pair
    counts: Counts


class LobbySnapshot(Message):
    """Reply to ``lobby``."""

    type: Literal["lobby"] = "lobby"
    online: NonNegative
    seeking: NonNegative
    rooms: list[RoomInfo]
    games: list[GameInfo]


class Seeking(Message):
    """Reply to ``seek``, with the rules' defaults filled in."""

    type: Literal["seeking"] = "seeking"
    rules: Rules


class Room(Message):
    """Reply to ``create_room``: the code to give the opponent."""

    type: Literal["room"] = "room"
    code: str
    rules: Rules


class Cancelled(Message):
    """Reply to ``cancel``."""

    type: Literal["cancelled"] = "cancelled"


class GameStart(Message):
    """To both players when a race begins."""

    type: Literal["game_start"] = "game_start"
    game_id: str
    seat: Seat
    """The receiver's seat."""
    players: Pair
    rules: Rules
    boards: Boards
    seq: Seq


class Played(Message):
    """To both players and spectators after every legal play, the mover's too."""

    # ``from`` is a Python keyword: code says ``from_``, the wire says ``from``.
    model_config = ConfigDict(validate_by_name=True)

    type: Literal["played"] = "played"
    game_id: str
    seat: Seat
    card: CardCode
    from_: Literal["bouquet", "bed"] = Field(alias="from")
    bed: BedIndex | None
    """The bed the card left, or null for the bouquet."""
    count: Count
    status: BoardStatus
    seq: Seq


class Redealt(Message):
    """After a redeal: the mover's new board."""

    type: Literal["redealt"] = "redealt"
    game_id: str
    seat: Seat
    board: Board
    seq: Seq


class StatusChanged(Message):
    """A status change that no play, redeal or deal shows: timed_out, resigned, abandoned."""

    type: Literal["status"] = "status"
    game_id: str
    seat: Seat
    status: BoardStatus
    count: Count
    seq: Seq


class OpponentAway(Message):
    """The opponent's connection dropped; they have ``grace_s`` seconds to come back."""

    type: Literal["opponent_away"] = "opponent_away"
    game_id: str
    grace_s: NonNegative


class OpponentBack(Message):
    """The opponent came back."""

    type: Literal["opponent_back"] = "opponent_back"
    game_id: str


class RematchOffered(Message):
    """The opponent asked for a rematch."""

    type: Literal["rematch_offered"] = "rematch_offered"
    game_id: str


class GameOver(Message):
    """The result is decided."""

    type: Literal["game_over"] = "game_over"
    game_id: str
    result: Literal["win", "draw"]
    winner: Seat | None
    reason: Literal[
        "cleared",
        "resigned",
        "abandoned",
        "most_cards",
        "equal_cards",
        "first_to_count",
        "time",
        "aborted",
    ]
    counts: Counts
    seq: Seq


class GameState(Message):
    """The whole race, on resume or ``watch``; ``seq`` is the last event it includes."""

    type: Literal["game_state"] = "game_state"
    game_id: str
    seat: Seat | None = Field(default=None, exclude_if=lambda value: value is None)
    """The receiver's seat; left out for a spectator."""
    players: Pair
    rules: Rules
    boards: Boards
    seq: Seq
    over: GameOver | None
    """The ``game_over`` message if the race has ended, else null."""


class Error(Message):
    """A request that changed nothing."""

    type: Literal["error"] = "error"
    code: ErrorCode
    message: str


ServerMessage: TypeAlias = Annotated[
    Welcome
    | LobbySnapshot
    | Seeking
    | Room
    | Cancelled
    | GameStart
    | Played
    | Redealt
    | StatusChanged
    | OpponentAway
    | OpponentBack
    | RematchOffered
    | GameOver
    | GameState
    | Error,
    Field(discriminator="type"),
]
SERVER_ADAPTER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)
