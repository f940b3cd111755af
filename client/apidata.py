"""What the server's HTTP API answers, read into typed values (PROTOCOL.md, "HTTP").

Pure: JSON in, models out; :mod:`client.api_client` does the fetching. The models
ignore fields they do not know (the protocol grows by additions) and check the
ones the screens show, so that an answer of the wrong shape is one clear error
(:class:`pydantic.ValidationError`, which :mod:`client.api_client` puts in words)
rather than a crash in a screen. A race's whole record is kept as the JSON it
came as, too: :func:`engine.verify_record` and :mod:`client.replay` read it with
the engine's own reading, and nothing here restates it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from protocol import RatingChange, Rules

__all__ = [
    "DailyBoard",
    "DailyBoardLine",
    "LeaderRow",
    "Leaderboard",
    "Profile",
    "RacePage",
    "RaceRecordData",
    "RaceSummary",
    "rating_text",
    "whole",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


def whole(rating: float) -> int:
    """A rating as clients show it: a whole number (PROTOCOL.md, "Ratings")."""
    return round(rating)


def rating_text(rating: float | None, provisional: bool | None = False) -> str:
    """``1523``, ``1500?`` for a provisional one, ``""`` for none (an unrated race)."""
    if rating is None:
        return ""
    return f"{whole(rating)}{'?' if provisional else ''}"


class LeaderRow(_Model):
    rank: int
    name: str
    rating: float
    races: int


class Leaderboard(_Model):
    """``GET /api/leaderboard``: rated, settled players, best first."""

    players: list[LeaderRow]


class Profile(_Model):
    """``GET /api/players/NAME``."""

    name: str
    rating: float
    provisional: bool
    bot: bool = False
    races: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    best_clear_ms: int | None = None
    joined: str | None = None
    daily_streak: int = 0
    """UTC days in a row with a ranked daily race, up to today or yesterday (revision 3)."""
    daily_best_streak: int = 0


class DailyBoardLine(_Model):
    """One ranked race on a day's board."""

    rank: int
    name: str
    time_ms: int | None
    """The time to clear; None if the player did not clear."""
    count: int
    game_id: str


class DailyBoard(_Model):
    """``GET /api/daily``: today's deal, its commit and its board, best first."""

    date: str
    commit: str
    seed: str | None = None
    """Revealed once the day is over (``GET /api/daily/DATE``)."""
    players: int
    """How many raced it ranked."""
    board: list[DailyBoardLine]

    def place(self, name: str) -> DailyBoardLine | None:
        """``name``'s line on the board (names are unique ignoring case), or None."""
        wanted = name.casefold()
        return next((line for line in self.board if line.name.casefold() == wanted), None)


class RaceSummary(_Model):
    """One finished race, as a player's history lists it."""

    game_id: str
    ended: str
    players: list[str] = Field(min_length=2, max_length=2)
    bots: list[bool] = Field(default_factory=lambda: [False, False])
    rules: Rules = Field(default_factory=Rules)
    result: str
    winner: int | None = None
    reason: str
    counts: list[int] = Field(min_length=2, max_length=2)
    times_ms: list[int | None] = Field(default_factory=lambda: list[int | None]([None, None]))
    ratings: list[RatingChange | int | None] | None = None
    """``game_over``'s shape (before and after), or the ratings before alone; None: unrated."""

    def seat_of(self, name: str) -> int | None:
        """``name``'s seat in this race (names are unique ignoring case), or None."""
        wanted = name.casefold()
        seats = [seat for seat, player in enumerate(self.players) if player.casefold() == wanted]
        return seats[0] if seats else None

    def change(self, seat: int) -> RatingChange | None:
        """The seat's rating before and after, when the server gave both."""
        if self.ratings is None or seat >= len(self.ratings):
            return None
        change = self.ratings[seat]
        return change if isinstance(change, RatingChange) else None

    def rating_before(self, seat: int) -> int | None:
        if self.ratings is None or seat >= len(self.ratings):
            return None
        before = self.ratings[seat]
        return before.before if isinstance(before, RatingChange) else before


class RacePage(_Model):
    """``GET /api/players/NAME/races``: newest first; ``next`` is the cursor to the older ones."""

    races: list[RaceSummary]
    next: str | None = None


class RaceRecordData:
    """``GET /api/races/GAME_ID``: the summary read, and the record as the JSON it came as."""

    def __init__(self, summary: RaceSummary, record: dict[str, Any]) -> None:
        self.summary = summary
        self.record = record

    @classmethod
    def of(cls, data: dict[str, Any]) -> RaceRecordData:
        """Read a record; :class:`pydantic.ValidationError` if it is no race summary at all."""
        return cls(RaceSummary.model_validate(data), data)
