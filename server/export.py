"""A finished race as the HTTP API gives it: enough to replay it and to verify it.

:func:`race_json` turns a stored :class:`~server.record.RaceRecord` into the
JSON object of ``GET /api/races/GAME_ID`` (PROTOCOL.md, "HTTP"): the summary,
the seeds and their commits, both boards as dealt, and every move with its
``t_ms``. ``python -m engine verify`` reads exactly this (:mod:`engine.verify`).
Races dealt before verifiable deals keep their integer seeds and say so
(``dealing: "mt19937"``, ``commits: null``).
"""

from __future__ import annotations

import datetime
import json
from typing import TYPE_CHECKING, Any

import engine
from protocol import Rules, board_to_wire

from .record import to_ms
from .seeding import dealers_from, wire

if TYPE_CHECKING:
    from .record import RaceRecord

__all__ = ["race_json", "summary_json"]


def summary_json(record: RaceRecord, names: tuple[str, str]) -> dict[str, Any]:
    """The race's summary, as a player's race history lists it."""
    return {
        "game_id": record.game_id,
        "ended": _iso(record.ended),
        "players": list(names),
        "bots": [False, False],
        "rules": json.loads(record.rules_json),
        "result": record.result,
        "winner": record.winner,
        "reason": record.reason,
        "counts": list(record.counts),
        "times_ms": [_last_card_ms(record, seat) for seat in (0, 1)],
        "ratings": None,
    }


def race_json(record: RaceRecord, names: tuple[str, str]) -> dict[str, Any]:
    """The whole finished race: its summary, seeds, commits, boards as dealt and moves.

    ``ValueError`` if the stored rules or seeds do not read.
    """
    rules = Rules.model_validate_json(record.rules_json)
    dealers = dealers_from(record.dealing, record.seeds)
    boards = [engine.Board(dealer.layout(rules.winnable_only), rules.redeals) for dealer in dealers]
    legacy = record.dealing == engine.LEGACY_ALGORITHM
    seeds, commits = wire(dealers)
    return {
        **summary_json(record, names),
        "dealing": record.dealing,
        "seeds": list(record.seeds) if legacy else seeds,
        "commits": None if legacy else commits,
        "boards": [board_to_wire(board).model_dump(mode="json") for board in boards],
        "moves": [
            {"seq": move.seq, "seat": move.seat, "card": move.card, "t_ms": to_ms(move.at)}
            for move in record.moves
        ],
    }


def _last_card_ms(record: RaceRecord, seat: int) -> int | None:
    cards = [move for move in record.moves if move.seat == seat and move.card != "redeal"]
    return to_ms(cards[-1].at) if cards else None


def _iso(wall: float) -> str:
    return datetime.datetime.fromtimestamp(wall, datetime.UTC).isoformat(timespec="seconds")
