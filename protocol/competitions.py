"""The daily deal and arenas on the wire (PROTOCOL.md, revision 3).

Both are built from races, so their messages are small: what the lobby lists
(:class:`DailyInfo`, :class:`ArenaInfo`), what a race says of its kind
(``game_start.daily`` and ``arena_id``, and :class:`DailyResult` and
:class:`ArenaResult` in ``game_over``), and the one message of their own,
:class:`Arena`, the reply to ``join_arena`` and ``leave_arena`` and the
standings as they change.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import Field

from .common import Day, Message, Millis, Model, NonNegative, PlayerName, Rules, Timestamp

__all__ = [
    "STANDINGS_CAP",
    "Arena",
    "ArenaInfo",
    "ArenaPlace",
    "ArenaResult",
    "ArenaStatus",
    "DailyInfo",
    "DailyResult",
    "Standing",
]

STANDINGS_CAP = 50
"""The most places an ``arena`` message lists; ``players`` says how many joined."""

Rank: TypeAlias = Annotated[int, Field(ge=1)]
ArenaStatus: TypeAlias = Literal["upcoming", "running", "finished"]


class DailyInfo(Model):
    """Today's deal, as the lobby shows it."""

    date: Day
    players: NonNegative
    """How many raced it today."""
    best_ms: Millis | None
    """The best time to clear it; null before anyone has."""


class DailyResult(Model):
    """What a daily race did on the day's board (``game_over.daily``)."""

    date: Day
    ranked: bool
    """The player's first daily race of the day: the one that counts."""
    rank: Rank | None
    """The player's place on the day's board; null for a race that is not ranked."""
    time_ms: Millis | None
    """The time to clear; null if the player did not clear."""


class ArenaInfo(Model):
    """An upcoming or running arena, as the lobby lists it."""

    arena_id: str
    name: str
    status: ArenaStatus
    starts_at: Timestamp
    ends_at: Timestamp
    players: NonNegative
    """How many joined."""


class ArenaResult(Model):
    """What an arena race scored (``game_over.arena``)."""

    arena_id: str
    points: Annotated[list[NonNegative], Field(min_length=2, max_length=2)]
    """Each seat's points from this race: 2 a win, 1 a draw, doubled on a streak."""


class Standing(Model):
    """One place in an arena's standings."""

    rank: Rank
    name: PlayerName
    score: NonNegative
    streak: NonNegative
    """Wins in a row: from two on, wins score double."""
    races: NonNegative
    bot: bool


class ArenaPlace(Model):
    """The receiver's own place in an arena (``arena.you``)."""

    rank: Rank
    score: NonNegative
    streak: NonNegative
    races: NonNegative


class Arena(Message):
    """Reply to ``join_arena`` and ``leave_arena``; again to the joined players when
    the standings change (at most once a second), when it starts and when it finishes."""

    type: Literal["arena"] = "arena"
    arena_id: str
    name: str
    rules: Rules
    status: ArenaStatus
    starts_at: Timestamp
    ends_at: Timestamp
    joined: bool
    """Whether the receiver is in it."""
    standings: Annotated[list[Standing], Field(max_length=STANDINGS_CAP)]
    """The first :data:`STANDINGS_CAP` places."""
    players: NonNegative
    you: ArenaPlace | None
    """The receiver's place; null if they have none (not joined, or no race yet)."""
