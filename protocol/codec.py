"""Frames to messages and back: :func:`decode`, :func:`decode_server`, :func:`encode`,
and :func:`played_frame`, which writes the one event a server sends per play
without building its model.

:func:`decode` is the server's hot path, so it does the least work that keeps
PROTOCOL.md's order of checks: ``json`` parses the frame (``bad_json``), a few
plain checks look at the object, its ``id`` and its ``type`` (``bad_message``),
one dict lookup finds the model (``unknown_type``), and only that model
validates the fields, in strict mode (``bad_message``). The whole
discriminated union is never tried.

The one exception, drawn as its hierarchy::

    ValueError
    └── DecodeError   code is bad_json, bad_message or unknown_type; id is the
                      request's id when the frame had a valid one
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Literal, NoReturn, TypeAlias, cast, get_args

from pydantic import ValidationError

from .client import ClientMessage, Play
from .common import CARD_PATTERN, REQUEST_ID_RULE, RequestId, is_request_id
from .server import Error, Played, ServerMessage

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

    from .common import BoardStatus, Message

__all__ = [
    "DecodeError",
    "DecodeErrorCode",
    "decode",
    "decode_server",
    "encode",
    "encode_bytes",
    "played_frame",
]

DecodeErrorCode: TypeAlias = Literal["bad_json", "bad_message", "unknown_type"]


class DecodeError(ValueError):
    """A frame that is not a valid message; ``to_error()`` is the reply to send."""

    def __init__(self, code: DecodeErrorCode, message: str, id: RequestId | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code: DecodeErrorCode = code
        self.message = message
        self.id = id

    def to_error(self) -> Error:
        return Error(code=self.code, message=self.message, id=self.id)


def _reject_constant(name: str) -> NoReturn:
    # Python's json reads NaN and Infinity, which are not JSON.
    raise ValueError(name)


_JSON = json.JSONDecoder(parse_constant=_reject_constant)


def _by_type(union: object) -> dict[str, type[Message]]:
    """The models of a discriminated union, keyed by their ``type``."""
    members: tuple[type[Message], ...] = get_args(get_args(union)[0])
    return {model.model_fields["type"].default: model for model in members}


_CLIENT_TYPES = _by_type(ClientMessage)
_CARD_CODES = frozenset(rank + suit for suit in "SHDC" for rank in "A23456789TJQK")
"""Every value of a valid ``card`` field (``CARD_PATTERN``)."""
_PLAYS = {code: Play(card=code) for code in _CARD_CODES}
_PLAY_FRAMES = {play.model_dump_json(): play for play in _PLAYS.values()}
"""The compact frame of each play without an id, exactly as :func:`encode` writes it."""
_SERVER_TYPES = _by_type(ServerMessage)


def decode(frame: str | bytes) -> ClientMessage:
    """The client message in ``frame``, or raise :class:`DecodeError`."""
    # A play as clients encode it, without an id: its frozen model, made once.
    play = _PLAY_FRAMES.get(frame) if type(frame) is str else None
    if play is not None:
        return play
    return cast("ClientMessage", _decode(frame, _CLIENT_TYPES))


def decode_server(frame: str | bytes) -> ServerMessage:
    """The server message in ``frame`` (for clients), or raise :class:`DecodeError`."""
    return cast("ServerMessage", _decode(frame, _SERVER_TYPES))


def encode(msg: ServerMessage | ClientMessage) -> str:
    """Compact JSON, with ``id`` (and a spectator's ``seat``) left out when None."""
    return msg.model_dump_json(by_alias=True)


def encode_bytes(msg: ServerMessage | ClientMessage) -> bytes:
    """:func:`encode` as UTF-8 bytes, straight from the serializer: what a server writes."""
    return msg.__pydantic_serializer__.to_json(msg, by_alias=True)


_PLAYED = (
    b'{"type":"played","game_id":"%s","seat":%d,"card":"%s","from":"%s","bed":%s,'
    b'"count":%d,"status":"%s","t_ms":%d,"seq":%d}'
)


def played_frame(
    *,
    game_id: str,
    seat: int,
    card: str,
    bed: int | None,
    count: int,
    status: BoardStatus,
    t_ms: int,
    seq: int,
) -> bytes:
    """``encode_bytes(Played(...))`` for these values, without the model.

    A server sends one ``played`` per play: validating a model only to
    serialize it took three times as long as this template. The values must
    be valid ones (the race core's own; nothing here checks them). A game id
    that JSON would escape (anything but ASCII letters and digits, which the
    server's ids are) takes the model's way, so the frame is always the
    model's: ``tests/protocol/test_codec.py`` holds the two equal.
    """
    if not (game_id.isascii() and game_id.isalnum()):
        played = Played(
            game_id=game_id,
            seat=seat,
            card=card,
            from_="bouquet" if bed is None else "bed",
            bed=bed,
            count=count,
            status=status,
            t_ms=t_ms,
            seq=seq,
        )
        return encode_bytes(played)
    where, bed_json = (b"bouquet", b"null") if bed is None else (b"bed", b"%d" % bed)
    return _PLAYED % (game_id.encode(), seat, card.encode(), where, bed_json, count,
                      status.encode(), t_ms, seq)  # fmt: skip


def _decode(frame: str | bytes, types: dict[str, type[Message]]) -> Message:
    obj = _load(frame)
    if type(obj) is not dict:
        raise DecodeError("bad_message", "a message must be a JSON object")
    request_id = obj.get("id")
    if request_id is not None and not is_request_id(request_id):
        raise DecodeError("bad_message", f"id: {REQUEST_ID_RULE}")
    kind = obj.get("type")
    if type(kind) is not str:
        problem = "required" if "type" not in obj else "must be a string"
        raise DecodeError("bad_message", f"type: {problem}", request_id)
    model = types.get(kind)
    if model is None:
        raise DecodeError("unknown_type", f"unknown message type {_show(kind)}", request_id)
    card = obj.get("card")
    if model is Play and type(card) is str and card in _CARD_CODES:
        # Most frames a server reads are plays: a valid card code is one of 52
        # strings, so a set lookup replaces validation (anything else takes the
        # validator, and its error message).
        return (
            _PLAYS[card] if request_id is None else Play.model_construct(card=card, id=request_id)
        )
    try:
        return model.model_validate(obj, strict=True)
    except ValidationError as exc:
        raise DecodeError("bad_message", _describe(exc.errors()[0]), request_id) from None


def _load(frame: str | bytes) -> object:
    """The JSON value in ``frame``, or raise ``bad_json``."""
    try:
        text = frame if isinstance(frame, str) else frame.decode()
        if _deeper_than(text, MAX_DEPTH):
            # The parser has a limit of its own, but it moves with the depth
            # of the stack it is called from: this one is the same everywhere.
            raise RecursionError
        obj = _JSON.decode(text)
        # An escaped lone surrogate ("\ud800") parses, but no UTF-8 encoder
        # takes it: refuse it here rather than fail when the server echoes it.
        # Only an escape or a non-ASCII frame can hold one, so this is rare.
        if "\\u" in text or not text.isascii():
            json.dumps(obj, ensure_ascii=False).encode()
    except json.JSONDecodeError as exc:
        raise DecodeError("bad_json", f"not JSON: {exc.msg} at character {exc.pos}") from None
    except UnicodeDecodeError:
        raise DecodeError("bad_json", "not UTF-8 text") from None
    except UnicodeEncodeError:
        raise DecodeError("bad_json", "not Unicode: a string holds a lone surrogate") from None
    except ValueError:  # raised by _reject_constant, or by int() for a huge number
        raise DecodeError("bad_json", "not JSON: NaN, Infinity or a number too long") from None
    except RecursionError:
        raise DecodeError("bad_json", "not JSON: nested too deeply") from None
    return obj


MAX_DEPTH = 512
"""Arrays and objects nested deeper than this are ``bad_json``. Python's parser
stops near 1,000 levels less the depth of the stack it is called from; this is
well under that from anywhere, and far over any message (which nests 2)."""
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def _deeper_than(text: str, limit: int) -> bool:
    """Whether the JSON in ``text`` nests arrays and objects more than ``limit`` deep."""
    if text.count("[") + text.count("{") <= limit:
        return False  # nearly every frame
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > limit:
            return True
    return False


# What a validation error means, in words that name no pydantic internals.
_PROBLEMS = {
    "missing": "required",
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "bool_type": "must be true or false",
    "list_type": "must be a list",
    "model_type": "must be an object",
    "literal_error": "must be {expected}",
    "greater_than_equal": "must be at least {ge}",
    "less_than_equal": "must be at most {le}",
    "too_short": "must have at least {min_length} items",
    "too_long": "must have at most {max_length} items",
    "string_too_long": "must be at most {max_length} characters",
}


def _describe(error: ErrorDetails) -> str:
    """``"rules.redeals: must be at most 1"``: where, then what is wrong."""
    where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in error["loc"])
    kind = error["type"]
    if kind == "string_pattern_mismatch":
        # The only pattern a request's decoder checks is a card code's; a
        # server's message has one more (a seed or commit, 64 hex digits).
        pattern = error.get("ctx", {}).get("pattern")
        what = "a card code" if pattern == CARD_PATTERN else f"matching {pattern}"
        problem = f"not {what} {_show(error['input'])}"
    elif kind in _PROBLEMS:
        problem = _PROBLEMS[kind].format(**error.get("ctx", {}))
    else:
        problem = error["msg"]
    return f"{where.lstrip('.')}: {problem}"


def _show(value: object) -> str:
    """A short repr of a client's value, for a message that quotes it."""
    text = repr(value)
    return text if len(text) <= 24 else text[:20] + "..."
