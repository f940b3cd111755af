"""The vocabulary both directions share: cards, names, rules, boards, statuses, ids, errors.

Every wire model derives from :class:`Model` (frozen, unknown fields ignored),
and every message from :class:`Message`, which adds the ``type`` and the
optional request ``id``. The decoders validate JSON-loaded data in strict mode,
so a wrong-typed field is an error rather than a coercion (``"1"`` is not 1,
``true`` is not an integer). Integer ranges are ``int`` with bounds, never
``Literal[0, 1]``: a Literal compares by equality, and ``True == 1``.
"""

from __future__ import annotations

import datetime
import re
from typing import Annotated, Any, Literal, TypeAlias, TypeGuard, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    StringConstraints,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import PydanticCustomError

__all__ = [
    "CARD_PATTERN",
    "ERROR_CODES",
    "FINAL",
    "GAME_ID_PATTERN",
    "MAX_ID_LENGTH",
    "NAME_PATTERN",
    "NAME_RULE",
    "PROTOCOL_VERSION",
    "RACING",
    "RATED_RULE",
    "REQUEST_ID_RULE",
    "REVISION",
    "ROOM_CODE_PATTERN",
    "TOKEN_PATTERN",
    "BedIndex",
    "BoardStatus",
    "CardCode",
    "Count",
    "Day",
    "ErrorCode",
    "Foundations",
    "GameId",
    "Message",
    "Millis",
    "Model",
    "NonNegative",
    "PlayerName",
    "Rank",
    "Redeals",
    "RequestId",
    "RoomCode",
    "Rules",
    "Seat",
    "Seconds",
    "Seq",
    "Timestamp",
    "Token",
    "WireBoard",
    "is_name",
    "is_request_id",
]

PROTOCOL_VERSION = 1
REVISION = 3
"""The highest revision of PROTOCOL.md these models implement (``welcome.revision``)."""
MAX_ID_LENGTH = 64
CARD_PATTERN = r"^[A23456789TJQK][SHDC]$"
REQUEST_ID_RULE = f"must be a string of at most {MAX_ID_LENGTH} characters or an integer"
NAME_PATTERN = r"^[A-Za-z0-9_-]{1,20}$"
"""A player's name (``hello``): 1 to 20 ASCII letters, digits, ``_`` or ``-``."""
GAME_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
"""A race's id: 1 to 64 ASCII letters, digits, ``_`` or ``-`` (the server's are 16
hex digits), so that it needs no escaping in JSON, a URL path or a log line."""
ROOM_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
"""Digits and capitals without 0, O, 1 and I, which people mix up when reading out."""
ROOM_CODE_LENGTH = 6
"""32**6: about a billion codes, far too many to guess one friend's room."""
ROOM_CODE_PATTERN = f"^[{ROOM_ALPHABET}]{{{ROOM_CODE_LENGTH}}}$"
"""A room's code: six of the digits and capitals that cannot be misread (no 0, 1, I, O)."""
TOKEN_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
"""A player's token: URL-safe base64 (the server's are 43 characters)."""
RATED_RULE = "a rated race needs deal 'mirror' and winnable_only true"
NAME_RULE = "a name is 1 to 20 ASCII letters, digits, '_' or '-'"
_NAME = re.compile(NAME_PATTERN)

CardCode: TypeAlias = Annotated[str, StringConstraints(pattern=CARD_PATTERN)]
"""A card on the wire: rank ``A23456789TJQK`` then suit ``SHDC``, such as ``"TH"``."""


def _shaped(pattern: str) -> WithJsonSchema:
    """A string the models take as it is, and the JSON Schema by ``pattern``."""
    return WithJsonSchema({"type": "string", "pattern": pattern})


# The identifiers: the schema gives their shape, so that a client can check one
# (and a validator what a server sends), but the models take any string. A
# request's is the server's to refuse with its own code (``bad_name``,
# ``bad_token``, ``room_not_found``, ``game_not_found``), not ``bad_message``,
# and a client has no use for refusing a server's.
PlayerName: TypeAlias = Annotated[str, _shaped(NAME_PATTERN)]
"""A player's name: see :func:`is_name`, the one test of it."""
GameId: TypeAlias = Annotated[str, _shaped(GAME_ID_PATTERN)]
RoomCode: TypeAlias = Annotated[str, _shaped(ROOM_CODE_PATTERN)]
Token: TypeAlias = Annotated[str, _shaped(TOKEN_PATTERN)]
Seat: TypeAlias = Annotated[int, Field(ge=0, le=1)]
BedIndex: TypeAlias = Annotated[int, Field(ge=0, le=5)]
Count: TypeAlias = Annotated[int, Field(ge=0, le=52)]
Rank: TypeAlias = Annotated[int, Field(ge=0, le=13)]
Seq: TypeAlias = Annotated[int, Field(ge=0)]
NonNegative: TypeAlias = Annotated[int, Field(ge=0)]
Millis: TypeAlias = Annotated[int, Field(ge=0)]
"""Milliseconds from a race's start (``t_ms``, ``times_ms``, ``elapsed_ms``)."""
Seconds: TypeAlias = Annotated[
    int | float,
    Field(ge=0),
    # One number type, not an anyOf of two (which would carry ``ge`` over as is).
    WithJsonSchema({"type": "number", "minimum": 0}),
]
"""Seconds, whole (``60``) where they can be, else not rounded (``0.3``)."""
Redeals: TypeAlias = Annotated[int, Field(ge=0, le=1)]

BoardStatus: TypeAlias = Literal[
    "playing", "stuck", "cleared", "stalled", "timed_out", "resigned", "abandoned"
]
RACING: frozenset[BoardStatus] = frozenset({"playing", "stuck"})
"""Statuses of a player still racing: they may move, and the idle limit and grace apply."""
FINAL: frozenset[BoardStatus] = frozenset({"stalled", "timed_out"})
"""Statuses whose count is final ("Deciding the race"); the rest (cleared, resigned,
abandoned) end the race at once."""

ErrorCode: TypeAlias = Literal[
    "bad_json",
    "bad_message",
    "unknown_type",
    "hello_first",
    "bad_name",
    "name_taken",
    "bad_token",
    "unsupported_protocol",
    "not_in_game",
    "illegal_move",
    "game_over",
    "busy",
    "room_not_found",
    "room_full",
    "game_not_found",
    "rate_limited",
    "unavailable",
    "not_allowed",
    "banned",
]
ERROR_CODES: tuple[ErrorCode, ...] = get_args(ErrorCode)


def is_request_id(value: object) -> TypeGuard[str | int]:
    """Whether ``value`` may be a request id: a str of at most 64 characters, or an int.

    Exact types on purpose: JSON ``true`` loads as a bool, which is an int subclass.
    """
    return type(value) is int or (type(value) is str and len(value) <= MAX_ID_LENGTH)


def is_name(value: str) -> bool:
    """Whether ``value`` may be a player's name (:data:`NAME_PATTERN`); else say :data:`NAME_RULE`.

    The one test of the name rule: the server refuses others (``bad_name``)
    and a client checks before it asks. ``hello`` itself takes any string,
    because refusing a name is the server's answer, not the decoder's.
    """
    # fullmatch, not the pattern's own anchors alone: ``$`` matches before a final newline.
    return _NAME.fullmatch(value) is not None


def _validate_request_id(value: object) -> str | int:
    if is_request_id(value):
        return value
    raise PydanticCustomError("request_id", REQUEST_ID_RULE)


# One plain validator instead of a str | int union: one error with a plain
# location, and the same exact-type rule as the codec's own id check.
RequestId: TypeAlias = Annotated[
    str | int,
    PlainValidator(_validate_request_id),
    WithJsonSchema(
        {"anyOf": [{"type": "string", "maxLength": MAX_ID_LENGTH}, {"type": "integer"}]}
    ),
]


def _require_type(schema: dict[str, Any], cls: type[Any]) -> None:
    # ``type`` has a default so that code can build messages without repeating
    # it, but it is required on the wire: say so in the JSON Schema (the
    # serialization schema, where every default is written, says so already).
    required = schema.get("required", [])
    schema["required"] = required if "type" in required else ["type", *required]


_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?(Z|[+-]\d\d:\d\d)")
_DAY = re.compile(r"\d{4}-\d\d-\d\d")


def _timestamp(value: str) -> str:
    # RFC 3339, which JSON Schema's "date-time" is: a date, a time to the
    # second or finer, and an offset. fromisoformat alone takes more than that.
    if _TIMESTAMP.fullmatch(value) is None:
        raise PydanticCustomError("timestamp", "must be a time such as 2025-06-01T18:00:00Z")
    datetime.datetime.fromisoformat(value)  # a real day and time: ValueError otherwise
    return value


def _day(value: str) -> str:
    if _DAY.fullmatch(value) is None:
        raise PydanticCustomError("day", "must be a date such as 2025-06-01")
    datetime.date.fromisoformat(value)
    return value


Timestamp: TypeAlias = Annotated[
    str, AfterValidator(_timestamp), WithJsonSchema({"type": "string", "format": "date-time"})
]
"""A moment, RFC 3339 (ISO 8601 with its offset): ``"2025-06-01T18:00:00Z"``."""
Day: TypeAlias = Annotated[
    str, AfterValidator(_day), WithJsonSchema({"type": "string", "format": "date"})
]
"""A UTC day, ``YYYY-MM-DD``: a daily deal's."""


class Model(BaseModel):
    """Base of every wire value: immutable, unknown fields ignored."""

    model_config = ConfigDict(
        frozen=True,
        extra="ignore",
        serialize_by_alias=True,
        use_attribute_docstrings=True,
        # The server's schema is of what it writes, and it writes every field
        # but those it leaves out when empty (``exclude_if``): those are required.
        json_schema_serialization_defaults_required=True,
    )


class Message(Model):
    """Base of every message: a ``type`` and an optional request ``id``."""

    model_config = ConfigDict(json_schema_extra=_require_type)

    type: str
    id: RequestId | None = Field(default=None, exclude_if=lambda value: value is None)
    """Set by a client on a request; the server copies it into the first message it causes."""


def _rated_needs_speed(schema: dict[str, Any], cls: type[Any]) -> None:
    # RATED_RULE in JSON Schema, for validators that never see the model's check.
    schema["if"] = {"properties": {"rated": {"const": True}}, "required": ["rated"]}
    schema["then"] = {
        "properties": {"deal": {"const": "mirror"}, "winnable_only": {"const": True}},
        "required": ["deal", "winnable_only"],
    }


class Rules(Model):
    """The options of a race; every field may be left out."""

    model_config = ConfigDict(json_schema_extra=_rated_needs_speed)

    deal: Literal["independent", "mirror"] = "independent"
    winnable_only: bool = False
    redeals: Redeals = 0
    tiebreak: Literal["draw", "first"] = "draw"
    time_limit_s: Annotated[int, Field(ge=30, le=3600)] | None = None
    rated: bool = False
    """The race changes both players' ratings: only where speed alone decides."""

    @model_validator(mode="after")
    def _rated_only_where_speed_decides(self) -> Rules:
        if self.rated and not (self.deal == "mirror" and self.winnable_only):
            raise ValueError(RATED_RULE)
        return self


class Foundations(Model):
    """The top rank on each suit's foundation: 0 for empty, 13 for complete."""

    S: Rank
    H: Rank
    D: Rank
    C: Rank


class WireBoard(Model):
    """One player's layout. The decoder checks its shape; ``board_from_wire`` its cards."""

    beds: Annotated[list[list[CardCode]], Field(min_length=6, max_length=6)]
    """Six beds, each from its bottom card to its front card (the playable one)."""
    bouquet: list[CardCode]
    foundations: Foundations
    count: Count
    status: BoardStatus
    redeals_left: Redeals
