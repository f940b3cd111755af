"""Reading a race record: the JSON of ``GET /api/races/GAME_ID`` into typed values.

A record is untrusted input, so every field is checked for its type and range
as it is read, and a record that does not read raises :class:`MalformedRecord`
saying where (``moves[3].card: not a card code: 'ZZ' ...``). Fields the checks
do not need (``players``, ``rated``, a board's ``count``) are not read. The
seeds become each seat's :class:`~engine.dealing.Dealer`, by ``dealing``:
``sha256`` (the default) or, for races recorded before it, ``mt19937``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from .cards import Card
from .deal import BEDS, Layout
from .dealing import ALGORITHM, LEGACY_ALGORITHM, LegacyDealer, SeedDealer, seed_from_hex
from .errors import MalformedCard

if TYPE_CHECKING:
    from collections.abc import Callable

    from .dealing import Dealer

__all__ = [
    "REASONS",
    "MalformedRecord",
    "RaceRecord",
    "RecordRules",
    "RecordedMove",
    "read_board",
    "read_pair",
    "read_record",
    "read_seed",
    "read_str",
]

REASONS = (
    "cleared",
    "resigned",
    "abandoned",
    "most_cards",
    "equal_cards",
    "first_to_count",
    "time",
    "aborted",
)
"""``game_over``'s reasons."""
T = TypeVar("T")


class MalformedRecord(ValueError):
    """The record does not read; the message says where and why."""


class RecordedMove(NamedTuple):
    """One entry of ``moves``."""

    seq: int
    seat: int
    card: Card | None  # None: the redeal
    t_ms: int


class RecordRules(NamedTuple):
    """What the checks need of ``rules``."""

    mirror: bool
    winnable: bool
    redeals: int
    tiebreak: str
    time_limit: int | None


@dataclass(frozen=True, slots=True)
class RaceRecord:
    """A race record, read: each seat's dealer in place of its seeds."""

    rules: RecordRules
    result: str
    winner: int | None
    reason: str
    counts: tuple[int, ...]
    times: tuple[int | None, ...]
    dealers: tuple[Dealer, ...]
    commits: tuple[str, ...] | None
    boards: tuple[Layout, ...]
    moves: tuple[RecordedMove, ...]


def read_record(record: object) -> RaceRecord:
    """Read ``GET /api/races/GAME_ID``'s JSON, or raise :class:`MalformedRecord`."""
    data = _read_mapping(record, "the record")
    dealers, commits = _read_dealing(data)
    winner = _get(data, "winner")
    moves = _read_list(_get(data, "moves"), "moves")
    return RaceRecord(
        rules=_read_rules(_read_mapping(_get(data, "rules"), "rules")),
        result=_read_choice(_get(data, "result"), "result", ("win", "draw")),
        winner=None if winner is None else _read_seat(winner, "winner"),
        reason=_read_choice(_get(data, "reason"), "reason", REASONS),
        counts=read_pair(_get(data, "counts"), "counts", _read_int),
        times=read_pair(_get(data, "times_ms"), "times_ms", _read_optional_int),
        dealers=dealers,
        commits=commits,
        boards=read_pair(_get(data, "boards"), "boards", read_board),
        moves=tuple(_read_move(move, f"moves[{i}]") for i, move in enumerate(moves)),
    )


def _read_rules(rules: Mapping[str, object]) -> RecordRules:
    def get(key: str) -> object:
        return _get(rules, key, "rules.")

    return RecordRules(
        mirror=_read_choice(get("deal"), "rules.deal", ("independent", "mirror")) == "mirror",
        winnable=_read_bool(get("winnable_only"), "rules.winnable_only"),
        redeals=_read_choice(_read_int(get("redeals"), "rules.redeals"), "rules.redeals", (0, 1)),
        tiebreak=_read_choice(get("tiebreak"), "rules.tiebreak", ("draw", "first")),
        time_limit=_read_optional_int(get("time_limit_s"), "rules.time_limit_s"),
    )


def _read_dealing(data: Mapping[str, object]) -> tuple[tuple[Dealer, ...], tuple[str, ...] | None]:
    """Each seat's dealer and the commits (None: not recorded), by the record's ``dealing``."""
    dealing = data.get("dealing", ALGORITHM)
    seeds = _get(data, "seeds")
    if dealing == LEGACY_ALGORITHM:
        deal0, deal1, redeal0, redeal1 = _read_sequence(seeds, "seeds", 4, _read_int)
        return (LegacyDealer(deal0, redeal0), LegacyDealer(deal1, redeal1)), None
    if dealing != ALGORITHM:
        raise MalformedRecord(
            f"dealing: {_short(dealing)} is neither {ALGORITHM!r} nor {LEGACY_ALGORITHM!r}"
        )
    commits = _get(data, "commits")
    return (
        read_pair(seeds, "seeds", read_seed),
        None if commits is None else read_pair(commits, "commits", read_str),
    )


def _read_move(value: object, where: str) -> RecordedMove:
    move = _read_mapping(value, where)
    card = _get(move, "card", f"{where}.")
    return RecordedMove(
        seq=_read_int(_get(move, "seq", f"{where}."), f"{where}.seq"),
        seat=_read_seat(_get(move, "seat", f"{where}."), f"{where}.seat"),
        card=None if card == "redeal" else _read_card(card, f"{where}.card"),
        t_ms=_read_int(_get(move, "t_ms", f"{where}."), f"{where}.t_ms"),
    )


def read_board(value: object, where: str) -> Layout:
    """A board's beds and bouquet (its other fields do not matter), from a dict or an object."""
    if isinstance(value, Mapping):
        beds, bouquet = _get(value, "beds", f"{where}."), _get(value, "bouquet", f"{where}.")
    elif hasattr(value, "beds") and hasattr(value, "bouquet"):
        beds, bouquet = value.beds, value.bouquet
    else:
        raise MalformedRecord(f"{where}: not a board")
    return Layout(
        _read_sequence(beds, f"{where}.beds", BEDS, _read_cards),
        _read_cards(bouquet, f"{where}.bouquet"),
    )


def _read_cards(value: object, where: str) -> tuple[Card, ...]:
    return tuple(
        _read_card(card, f"{where}[{i}]") for i, card in enumerate(_read_list(value, where))
    )


def _read_card(value: object, where: str) -> Card:
    if isinstance(value, Card):
        return value
    try:
        return Card.parse(read_str(value, where))
    except MalformedCard as exc:
        raise MalformedRecord(f"{where}: {exc}") from None


def read_seed(value: object, where: str) -> SeedDealer:
    try:
        return SeedDealer(seed_from_hex(read_str(value, where)))
    except ValueError as exc:
        raise MalformedRecord(f"{where}: {exc}") from None


def read_pair(value: object, where: str, read: Callable[[object, str], T]) -> tuple[T, ...]:
    return _read_sequence(value, where, 2, read)


def _read_sequence(
    value: object, where: str, length: int, read: Callable[[object, str], T]
) -> tuple[T, ...]:
    items = _read_list(value, where)
    if len(items) != length:
        raise MalformedRecord(f"{where}: {length} items wanted, not {len(items)}")
    return tuple(read(item, f"{where}[{i}]") for i, item in enumerate(items))


def _get(data: Mapping[str, object], key: str, prefix: str = "") -> object:
    if key not in data:
        raise MalformedRecord(f"{prefix}{key}: missing")
    return data[key]


def _read_mapping(value: object, where: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise MalformedRecord(f"{where}: an object wanted, not {_kind(value)}")
    return value


def _read_list(value: object, where: str) -> Sequence[object]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise MalformedRecord(f"{where}: a list wanted, not {_kind(value)}")
    return value


def read_str(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise MalformedRecord(f"{where}: a string wanted, not {_kind(value)}")
    return value


def _read_int(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MalformedRecord(f"{where}: a whole number wanted, not {_kind(value)}")
    return value


def _read_optional_int(value: object, where: str) -> int | None:
    return None if value is None else _read_int(value, where)


def _read_bool(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise MalformedRecord(f"{where}: true or false wanted, not {_kind(value)}")
    return value


def _read_seat(value: object, where: str) -> int:
    return _read_choice(_read_int(value, where), where, (0, 1))


def _read_choice(value: object, where: str, options: tuple[T, ...]) -> T:
    for option in options:
        if value == option and type(value) is type(option):
            return option
    wanted = ", ".join(map(repr, options))
    raise MalformedRecord(f"{where}: {_short(value)} is not one of {wanted}")


def _kind(value: object) -> str:
    return "null" if value is None else f"{type(value).__name__} {_short(value)}"


def _short(value: object) -> str:
    """``repr(value)``, cut short: a record is untrusted and may hold anything."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
