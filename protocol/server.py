"""The messages the server sends to clients: those of a race here, and the union of all.

The messages outside a race are in :mod:`protocol.lobby_messages`, the daily deal's and
arenas' in :mod:`protocol.competitions`; :data:`ServerMessage` is every one of them.

Fields that PROTOCOL.md shows as "seat or null" are always on the wire, with
``null`` when empty (``bed``, ``winner``, ``over``); the only fields left out
when empty are the request ``id`` of every message, the ``seat`` of a
spectator's ``game_state`` and the ``daily`` of a lobby without one. Fields
that revision 3 added have defaults (``game_start.daily``, ``game_over.unrated``
and the rest: null), so that code that builds a message as revision 2 did
still builds a valid one.

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
    Day,
    ErrorCode,
    GameId,
    Message,
    Millis,
    Model,
    PlayerName,
    Rules,
    Seat,
    Seconds,
    Seq,
    WireBoard,
)
from .competitions import Arena, ArenaResult, DailyResult
from .lobby_messages import (
    Bots,
    Cancelled,
    Counts,
    LobbySnapshot,
    Names,
    Room,
    Seeking,
    Welcome,
)

__all__ = [
    "SERVER_ADAPTER",
    "Error",
    "GameOver",
    "GameStart",
    "GameState",
    "OpponentAway",
    "OpponentBack",
    "Played",
    "RatingChange",
    "Redealt",
    "RematchOffered",
    "RematchWaiting",
    "Reported",
    "ServerMessage",
    "StatusChanged",
    "Unrated",
]

Boards: TypeAlias = Annotated[list[WireBoard], Field(min_length=2, max_length=2)]
Hex32: TypeAlias = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
"""32 bytes as 64 lowercase hex digits: a seed, or a seed's SHA-256 commit."""
Hexes: TypeAlias = Annotated[list[Hex32], Field(min_length=2, max_length=2)]
Ratings: TypeAlias = Annotated[list[int | None], Field(min_length=2, max_length=2)]
Times: TypeAlias = Annotated[list[Millis | None], Field(min_length=2, max_length=2)]
Unrated: TypeAlias = Literal["no_play", "fair_play"]
"""Why a race with ``rated`` rules changed no rating (PROTOCOL.md, "Fair play")."""


class GameStart(Message):
    """To both players when a race begins."""

    type: Literal["game_start"] = "game_start"
    game_id: GameId
    seat: Seat
    """The receiver's seat."""
    players: Names
    bots: Bots
    ratings: Ratings
    """The players' ratings before a rated race; null in an unrated one."""
    rules: Rules
    boards: Boards
    commits: Hexes
    """Each seat's seed commit: the SHA-256 of the seed ``game_over`` reveals."""
    seq: Seq
    daily: Day | None = None
    """The day of the daily deal this race is on; null for any other race."""
    ghost: PlayerName | None = None
    """In a daily race, whose clear seat 1 replays; null for any other seat 1."""
    arena_id: str | None = None
    """The arena that paired this race; null for any other race."""


class Played(Message):
    """To both players and spectators after every legal play, the mover's too."""

    # ``from`` is a Python keyword: code says ``from_``, the wire says ``from``.
    model_config = ConfigDict(validate_by_name=True)

    type: Literal["played"] = "played"
    game_id: GameId
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
    game_id: GameId
    seat: Seat
    board: WireBoard
    t_ms: Millis
    seq: Seq


class StatusChanged(Message):
    """A status change that no play, redeal or deal shows: timed_out, resigned, abandoned."""

    type: Literal["status"] = "status"
    game_id: GameId
    seat: Seat
    status: BoardStatus
    count: Count
    seq: Seq


class OpponentAway(Message):
    """The opponent's connection dropped; they have ``grace_s`` seconds to come back."""

    type: Literal["opponent_away"] = "opponent_away"
    game_id: GameId
    grace_s: Seconds


class OpponentBack(Message):
    """The opponent came back."""

    type: Literal["opponent_back"] = "opponent_back"
    game_id: GameId


class RematchOffered(Message):
    """The opponent asked for a rematch."""

    type: Literal["rematch_offered"] = "rematch_offered"
    game_id: GameId


class RematchWaiting(Message):
    """Reply to ``rematch`` while the opponent has not asked for one."""

    type: Literal["rematch_waiting"] = "rematch_waiting"
    game_id: GameId


class Reported(Message):
    """Reply to ``report``: the operator will look at the race."""

    type: Literal["reported"] = "reported"
    game_id: GameId


class RatingChange(Model):
    """One player's rating before and after a rated race."""

    before: int
    after: int


class GameOver(Message):
    """The result is decided."""

    type: Literal["game_over"] = "game_over"
    game_id: GameId
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
    unrated: Unrated | None = None
    """Why a race with ``rated`` rules changed no rating; null otherwise."""
    daily: DailyResult | None = None
    """What a daily race did on the day's board; null for any other race."""
    arena: ArenaResult | None = None
    """What an arena race scored; null for any other race."""
    seq: Seq


class GameState(Message):
    """The whole race, on resume or ``watch``; ``seq`` is the last event it includes."""

    type: Literal["game_state"] = "game_state"
    game_id: GameId
    seat: Seat | None = Field(default=None, exclude_if=lambda value: value is None)
    """The receiver's seat; left out for a spectator."""
    players: Names
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
    | RematchWaiting
    | Reported
    | Arena
    | GameOver
    | GameState
    | Error,
    Field(discriminator="type"),
]
SERVER_ADAPTER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)
