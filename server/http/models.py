"""The HTTP API's answers as pydantic models: what the server dumps, and what its schema says.

Each answer of PROTOCOL.md's "HTTP" table is one model here. The API builds
it and answers with its JSON (:mod:`server.http.api`), and the OpenAPI
document at ``GET /api/openapi.json`` is generated from the same models
(:mod:`server.http.openapi`), so the two cannot drift apart. A client author
may import them too (``pip install flowergarden-race``), or generate a
client of their own from the document.

The models are frozen and ignore fields they do not know, as the protocol's
are (PROTOCOL.md: the API grows by additions); each field's docstring is its
description in the schema. Values shared with the websocket protocol (rules,
boards, rating changes, a race's result and reason) are the protocol's own.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias, get_args

from pydantic import BaseModel, ConfigDict, Field

from protocol import CardCode, GameOver, RatingChange, Rules, WireBoard
from protocol.common import Count, Seat, Seq  # noqa: TC001  (pydantic reads them at run time)

__all__ = [
    "ERROR_CODES",
    "AdminOrder",
    "AnnulAnswer",
    "ApiAnswer",
    "DailyAnswer",
    "DailyLine",
    "ErrorAnswer",
    "ErrorCode",
    "Health",
    "LeaderLine",
    "LeaderboardAnswer",
    "LogAnswer",
    "LogEntry",
    "Mark",
    "Move",
    "PastRace",
    "PlayerProfile",
    "PlayerReview",
    "PlayerStanding",
    "RaceHistory",
    "RaceReplay",
    "RaceReport",
    "RaceReview",
    "RatingPutBack",
    "RenameOrder",
    "ReviewAnswer",
    "ReviewLine",
    "TimingEvidence",
]

ErrorCode: TypeAlias = Literal[
    "bad_request",
    "not_found",
    "player_not_found",
    "race_not_found",
    "rate_limited",
    "unavailable",
    "internal_error",
    "unauthorized",
    "refused",
    "method_not_allowed",
]
"""The API's error codes: ``400``, ``404`` (three), ``429``, ``503`` and ``500``; and the
operator's: ``401`` (no or a wrong admin token), ``409`` (an action that cannot be done:
a name taken, a race not rated) and ``405`` (a path's other method)."""
ERROR_CODES: tuple[ErrorCode, ...] = get_args(ErrorCode)


def _as_in_game_over(name: str) -> dict[str, Any]:
    """The JSON Schema of ``game_over``'s field ``name``: a summary says it the same way."""
    schema: dict[str, Any] = GameOver.model_json_schema()["properties"][name]
    return {key: value for key, value in schema.items() if key in ("enum", "type")}


_DATE_TIME = {"format": "date-time"}
_DATE = {"format": "date"}
_PAIR = Field(min_length=2, max_length=2)
NonNegative: TypeAlias = Annotated[int, Field(ge=0)]
Millis: TypeAlias = Annotated[int, Field(ge=0)]


class ApiAnswer(BaseModel):
    """Base of every answer: immutable, unknown fields ignored, docstrings described."""

    model_config = ConfigDict(frozen=True, extra="ignore", use_attribute_docstrings=True)


class ErrorAnswer(ApiAnswer):
    """Every error answer of the API, whatever its status."""

    error: ErrorCode
    """What went wrong, as a code (PROTOCOL.md, "HTTP")."""
    message: str
    """The same in words, for a person."""


class Health(ApiAnswer):
    """``GET /healthz``: whether the server takes players (``200``) or not (``503``)."""

    status: Literal["ok", "degraded", "closing", "full"]
    """``degraded``: the store's writes fail; ``closing``, ``full``: answered ``503``."""
    online: NonNegative
    """Players online across the lobby (every worker's)."""
    players: NonNegative
    """Players connected to this process that said hello."""
    connections: NonNegative
    """TCP connections open to this process, handshakes included."""


class LeaderLine(ApiAnswer):
    rank: Annotated[int, Field(ge=1)]
    name: str
    rating: int
    races: NonNegative
    """Rated races played."""


class LeaderboardAnswer(ApiAnswer):
    """``GET /api/leaderboard``: rated, settled players (10 rated races or more), best first."""

    players: list[LeaderLine]


class PlayerProfile(ApiAnswer):
    """``GET /api/players/NAME``: a player's profile."""

    name: str
    rating: int
    provisional: bool
    """The rating is still uncertain: clients show it with a ``?``."""
    bot: bool
    races: NonNegative
    wins: NonNegative
    draws: NonNegative
    losses: NonNegative
    best_clear_ms: Millis | None
    """The fastest clear, from the race's start; null if none."""
    joined: Annotated[str, Field(json_schema_extra=_DATE)]
    """The day the player first said hello (ISO 8601, UTC)."""
    daily_streak: NonNegative = 0
    """UTC days in a row with a ranked daily race, up to today or yesterday; else 0."""
    daily_best_streak: NonNegative = 0
    """The most days in a row the player ever raced the daily deal ranked."""


class DailyLine(ApiAnswer):
    """One ranked race on a day's board."""

    rank: Annotated[int, Field(ge=1)]
    """Equal races share a rank."""
    name: str
    time_ms: Millis | None
    """The time to clear, from the race's start; null if the player did not clear."""
    count: Count
    """Cards on the player's foundations at the end."""
    game_id: str
    """The race (``GET /api/races/GAME_ID`` replays it)."""


class DailyAnswer(ApiAnswer):
    """``GET /api/daily`` and ``GET /api/daily/DATE``: a day's deal and its board."""

    date: Annotated[str, Field(json_schema_extra=_DATE)]
    """The UTC day (``YYYY-MM-DD``)."""
    commit: Annotated[str, Field(pattern="^[0-9a-f]{64}$")]
    """The SHA-256 of the day's seed, shown before anyone races it: ``game_start.commits``."""
    seed: Annotated[str, Field(pattern="^[0-9a-f]{64}$")] | None = None
    """The day's seed (64 hex digits), revealed once the day is over; null until then."""
    rules: Rules
    """The rules of every daily race: winnable, mirror, ``tiebreak: first``, unrated."""
    players: NonNegative
    """How many players raced it ranked."""
    board: list[DailyLine]
    """The ranked races, best first (by time to clear, then by count): the first 100."""


class PastRace(ApiAnswer):
    """A finished race, as a player's history lists it."""

    game_id: str
    ended: Annotated[str, Field(json_schema_extra=_DATE_TIME)]
    """When the race ended (ISO 8601, UTC, to the second)."""
    players: Annotated[list[str], _PAIR]
    bots: Annotated[list[bool], _PAIR]
    rules: Rules
    result: Annotated[str, Field(json_schema_extra=_as_in_game_over("result"))]
    winner: Seat | None
    reason: Annotated[str, Field(json_schema_extra=_as_in_game_over("reason"))]
    counts: Annotated[list[Count], _PAIR]
    times_ms: Annotated[list[Millis | None], _PAIR]
    """Each seat's ``t_ms`` of its last play; null if it played none."""
    ratings: Annotated[list[RatingChange], _PAIR] | None
    """Both players' ratings before and after a rated race; null in an unrated one."""


class RaceHistory(ApiAnswer):
    """``GET /api/players/NAME/races``: a page of races, newest first."""

    races: list[PastRace]
    next: str | None
    """The ``before`` of the next (older) page; null on the last."""


class Move(ApiAnswer):
    """One accepted move of a race, in order."""

    seq: Seq
    seat: Seat
    card: CardCode | Literal["redeal"]
    t_ms: Millis
    """When it was accepted, from the race's start."""


class RaceReplay(PastRace):
    """``GET /api/races/GAME_ID``: a finished race, enough to replay and verify it."""

    dealing: str
    """The dealing algorithm (PROTOCOL.md); ``mt19937`` for races dealt before seeds were."""
    seeds: Annotated[list[str], _PAIR] | list[int]
    """Each seat's seed, revealed (64 hex digits); integers for ``mt19937``."""
    commits: Annotated[list[str], _PAIR] | None
    """Each seed's SHA-256, as ``game_start`` gave it; null for ``mt19937``."""
    boards: Annotated[list[WireBoard], _PAIR]
    """Both boards as dealt."""
    moves: list[Move]


# -- the operator's (PROTOCOL.md: /api/admin/..., only with the admin token) ----------------


class AdminOrder(ApiAnswer):
    """The body of every operator action: why, and who asks."""

    reason: Annotated[str, Field(min_length=1, max_length=500)]
    """Why: kept in the audit log."""
    by: Annotated[str, Field(min_length=1, max_length=64)] = "api"
    """Who asks, for the audit log."""


class RenameOrder(AdminOrder):
    """The body of a rename."""

    name: str
    """The new name: the rule of every name (PROTOCOL.md, ``hello``), and free."""


class PlayerStanding(ApiAnswer):
    """A player as an action left them."""

    name: str
    banned: bool
    bot: bool
    flags: NonNegative
    """Races in which their play was flagged, not cleared."""
    forgotten: bool
    """Forgotten: their name is free and their token names nobody."""


class RatingPutBack(ApiAnswer):
    """One player's rating, shown, before and after an annul."""

    name: str
    before: int
    after: int


class AnnulAnswer(ApiAnswer):
    """A race's rating change reversed (docs/operating.md, "Annulling")."""

    game_id: str
    ratings: Annotated[list[RatingPutBack], _PAIR]


class ReviewLine(ApiAnswer):
    """A player flagged or reported, not cleared."""

    name: str
    flags: NonNegative
    reports: NonNegative
    banned: bool
    races: list[str]
    """Their flagged or reported races, newest first (at most 20)."""


class ReviewAnswer(ApiAnswer):
    """``GET /api/admin/review``: players flagged or reported, most recent first."""

    players: list[ReviewLine]


class TimingEvidence(ApiAnswer):
    """One seat's timing in one race, as the fair-play rules judged it (docs/fair-play.md)."""

    plays: NonNegative
    fast: NonNegative
    """Plays under the floor (50 ms after their card became playable)."""
    fastest_ms: Millis | None
    median_ms: Millis | None
    """The fastest and the median reaction, from playable to played."""
    reaction_spread: float | None
    gap_spread: float | None
    """Quartile spreads of the reactions and of the gaps between plays; null under 20 plays."""
    reasons: list[str]
    """The rules broken: ``fast``, ``regular_reactions``, ``regular_gaps``; empty if none."""


class Mark(ApiAnswer):
    """A race that points at a player: their play flagged, or a report of it."""

    game_id: str
    kind: Literal["flag", "report"]
    at: Annotated[str, Field(json_schema_extra=_DATE_TIME)]
    cleared: bool
    by: str | None
    """Who reported it; null for a flag."""
    reason: str | None
    timing: TimingEvidence | None
    """The player's timing in that race; null for a bot's seat or a race recorded without it."""


class PlayerReview(ApiAnswer):
    """``GET /api/admin/review/players/NAME``: one player, and every race that points at them."""

    name: str
    banned: bool
    bot: bool
    flags: NonNegative
    reports: NonNegative
    """Reports of them not cleared."""
    marks: list[Mark]
    """Newest first, cleared ones too (at most 100)."""


class RaceReport(ApiAnswer):
    """A report of a race."""

    by: str
    about: str
    reason: str | None
    at: Annotated[str, Field(json_schema_extra=_DATE_TIME)]


class RaceReview(ApiAnswer):
    """``GET /api/admin/review/races/GAME_ID``: one finished race with its timing evidence."""

    race: PastRace
    unrated: Literal["no_play", "fair_play"] | None
    annulled: bool
    timing: Annotated[list[TimingEvidence | None], _PAIR]
    """Each seat's timing; null for a bot's seat, or a race recorded before it was kept."""
    reports: list[RaceReport]


class LogEntry(ApiAnswer):
    """One operator action."""

    at: Annotated[str, Field(json_schema_extra=_DATE_TIME)]
    action: str
    """``ban``, ``unban``, ``rename``, ``forget``, ``bot``, ``clear`` or ``annul``."""
    target: str
    """The player's name when it was done, or the race's id."""
    reason: str
    by: str
    """Who did it: the ``by`` of the request or the command line; ``server`` for the
    forgetting of unused names."""
    detail: str | None
    """A rename's new name; an annul's ratings put back."""


class LogAnswer(ApiAnswer):
    """``GET /api/admin/log``: every operator action, newest first."""

    actions: list[LogEntry]
