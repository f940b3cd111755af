"""A finished race as the HTTP API gives it: enough to replay it and to verify it.

:func:`race_json` turns a stored :class:`~core.race_log.RaceRecord` into the
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
from core.bots import is_bot
from core.race_log import to_ms
from core.seeding import dealers_from, wire
from protocol import Rules, board_to_wire
from server.store import Summary
from server.store.rows import last_cards

if TYPE_CHECKING:
    from core.race_log import RaceRecord

__all__ = ["iso_date", "iso_time", "race_json", "summary_json", "summary_of"]


def summary_json(summary: Summary) -> dict[str, Any]:
    """A finished race as a player's history lists it."""
    ratings = summary.ratings
    return {
        "game_id": summary.game_id,
        "ended": iso_time(summary.ended),
        "players": list(summary.names),
        "bots": [is_bot(player_id) for player_id in summary.player_ids],
        "rules": json.loads(summary.rules_json),
        "result": summary.result,
        "winner": summary.winner,
        "reason": summary.reason,
        "counts": list(summary.counts),
        "times_ms": list(summary.times_ms),
        "ratings": None if ratings is None else [{"before": b, "after": a} for b, a in ratings],
    }


def summary_of(record: RaceRecord, names: tuple[str, str]) -> Summary:
    """A race's summary from its record, as the store would list it."""
    ratings = None
    if record.ratings is not None and record.ratings_after is not None:
        (before0, before1), (after0, after1) = record.ratings, record.ratings_after
        ratings = ((before0.shown, after0.shown), (before1.shown, after1.shown))
    return Summary(
        record.game_id, record.ended, names, record.rules_json, record.result, record.winner,
        record.reason, record.counts, last_cards(record), ratings, record.player_ids,
    )  # fmt: skip


def race_json(record: RaceRecord, summary: Summary) -> dict[str, Any]:
    """The whole finished race: its summary, seeds, commits, boards as dealt and moves.

    ``ValueError`` if the stored rules or seeds do not read.
    """
    rules = Rules.model_validate_json(record.rules_json)
    dealers = dealers_from(record.dealing, record.seeds)
    boards = [engine.Board(dealer.layout(rules.winnable_only), rules.redeals) for dealer in dealers]
    legacy = record.dealing == engine.LEGACY_ALGORITHM
    seeds, commits = wire(dealers)
    return {
        **summary_json(summary),
        "dealing": record.dealing,
        "seeds": list(record.seeds) if legacy else seeds,
        "commits": None if legacy else commits,
        "boards": [board_to_wire(board).model_dump(mode="json") for board in boards],
        "moves": [
            {"seq": move.seq, "seat": move.seat, "card": move.card, "t_ms": to_ms(move.at)}
            for move in record.moves
        ],
    }


def iso_time(wall: float) -> str:
    """Wall-clock seconds as an ISO 8601 time in UTC, to the second."""
    return datetime.datetime.fromtimestamp(wall, datetime.UTC).isoformat(timespec="seconds")


def iso_date(wall: float) -> str:
    """Wall-clock seconds as an ISO 8601 date (UTC)."""
    return datetime.datetime.fromtimestamp(wall, datetime.UTC).date().isoformat()
