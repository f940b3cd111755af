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

from pydantic import ConfigDict, Field, StringConstraints, TypeAdapter

from .common import (
    BedIndex,
    BoardStatus,
    CardCode,
    Count,
    ErrorCode,
    Message,
    Model,
    Rules,
    Seat,
    Seq,
    WireBoard,
)

__all__ = [
    "SERVER_ADAPTER",
    "Cancelled",
    "Error",
    "GameInfo",
    "GameOver",
    "GameStart",
    "GameState",
    "Limits",
    "LobbySnapshot",
    "OpponentAway",
    "OpponentBack",
    "Played",
    "Rating",
    "RatingChange",
    "Redealt",
    "RematchOffered",
    "Room",
    "RoomInfo",
    "SeekInfo",
    "Seeking",
    "ServerMessage",
    "StatusChanged",
    "Welcome",
]

LIST_CAP = 100
"""The most public rooms, and the most live races, that a lobby reply lists."""

Pair: TypeAlias = Annotated[list[str], Field(min_length=2, max_length=2)]
Counts: TypeAlias = Annotated[list[Count], Field(min_length=2, max_length=2)]
Boards: TypeAlias = Annotated[list[WireBoard], Field(min_length=2, max_length=2)]
NonNegative: TypeAlias = Annotated[int, Field(ge=0)]
Seconds: TypeAlias = Annotated[int | float, Field(ge=0)]
Millis: TypeAlias = Annotated[int, Field(ge=0)]
"""Milliseconds from a race's start (``t_ms``, ``times_ms``, ``elapsed_ms``)."""
Hex32: TypeAlias = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
"""32 bytes as 64 lowercase hex digits: a seed, or a seed's SHA-256 commit."""
Hexes: TypeAlias = Annotated[list[Hex32], Field(min_length=2, max_length=2)]
Bots: TypeAlias = Annotated[list[bool], Field(min_length=2, max_length=2)]
Ratings: TypeAlias = Annotated[list[int | None], Field(min_length=2, max_length=2)]
Times: TypeAlias = Annotated[list[Millis | None], Field(min_length=2, max_length=2)]


class Limits(Model):
    """The server's settings a client shows or keeps to; seconds are whole where they can be."""

    idle_s: Seconds
    """How long a racer may go without an accepted play or redeal before timing out."""
    grace_s: Seconds
    """How long a dropped player has to come back."""
    max_message: NonNegative
    """The largest frame the server takes, in bytes."""


class Rating(Model):
    """A player's rating as clients show it: a whole number, ``?`` beside a provisional one."""

    rating: int
    provisional: bool
    """The deviation is still 110 or more: too few rated races to be sure."""


class Welcome(Message):
    """Reply to ``hello``. Keep ``token``: it is the only way back to this identity."""

    type: Literal["welcome"] = "welcome"
    player_id: str
    name: str
    token: str
    protocol: int
    rating: Rating
    limits: Limits


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
    bots: Bots
    ratings: Ratings
    """The players' ratings before a rated race; null in an unrated one."""
    rules: Rules
    boards: Boards
    commits: Hexes
    """Each seat's seed commit: the SHA-256 of the seed ``game_over`` reveals."""
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
    t_ms: Millis
    """Milliseconds from the race's start to the server's accepting the play."""
    seq: Seq


class Redealt(Message):
    """After a redeal: the mover's new board."""

    type: Literal["redealt"] = "redealt"
    game_id: str
    seat: Seat
    board: WireBoard
    t_ms: Millis
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


class RatingChange(Model):
    """One player's rating before and after a rated race."""

    before: int
    after: int


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
    times_ms: Times
    """Each seat's ``t_ms`` of its last play; null if it played none."""
    seeds: Hexes
    """Each seat's seed, revealed: its SHA-256 is the ``commits`` of ``game_start``."""
    ratings: Annotated[list[RatingChange], Field(min_length=2, max_length=2)] | None
    """Both players' ratings before and after a rated race; null in an unrated one."""
    seq: Seq


class GameState(Message):
    """The whole race, on resume or ``watch``; ``seq`` is the last event it includes."""

    type: Literal["game_state"] = "game_state"
    game_id: str
    seat: Seat | None = Field(default=None, exclude_if=lambda value: value is None)
    """The receiver's seat; left out for a spectator."""
    players: Pair
    bots: Bots
    ratings: Ratings
    rules: Rules
    boards: Boards
    commits: Hexes
    elapsed_ms: Millis
    """Milliseconds of racing so far (time the server was down does not count)."""
    clock_left_ms: Millis | None
    """Milliseconds left on the race's clock; null without a time limit."""
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
