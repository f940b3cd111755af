"""A finished race as the HTTP API gives it: enough to replay it and to verify it.

:func:`race_record` turns a stored :class:`~core.race_log.FinishedRace` into the
answer of ``GET /api/races/GAME_ID`` (PROTOCOL.md, "HTTP";
:class:`~server.http.models.RaceReplay`): the summary, the seeds and their
commits, both boards as dealt, and every move with its ``t_ms``.
``python -m engine verify`` reads exactly its JSON (:mod:`engine.verify`).
Races dealt before verifiable deals keep their integer seeds and say so
(``dealing: "mt19937"``, ``commits: null``).
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

import engine
from core.bots import is_bot
from core.race_log import to_ms
from core.seeding import dealers_from, wire
from protocol import RatingChange, Rules, board_to_wire
from server.store import Summary
from server.store.rows import last_cards

from .models import Move, PastRace, RaceReplay

if TYPE_CHECKING:
    from core.race_log import FinishedRace as StoredRace

__all__ = ["iso_date", "iso_time", "race_record", "summary", "summary_of"]


def summary(row: Summary) -> PastRace:
    """A finished race as a player's history lists it."""
    return PastRace(**_summary_fields(row))


def _summary_fields(row: Summary) -> dict[str, Any]:
    ratings = row.ratings
    return {
        "game_id": row.game_id,
        "ended": iso_time(row.ended),
        "players": list(row.names),
        "bots": [is_bot(pid) or bot for pid, bot in zip(row.player_ids, row.bots, strict=True)],
        "rules": Rules.model_validate_json(row.rules_json),
        "result": row.result,
        "winner": row.winner,
        "reason": row.reason,
        "counts": list(row.counts),
        "times_ms": list(row.times_ms),
        "ratings": None if ratings is None else _changes(ratings),
    }


def _changes(ratings: tuple[tuple[int, int], tuple[int, int]]) -> list[RatingChange]:
    return [RatingChange(before=before, after=after) for before, after in ratings]


def summary_of(record: StoredRace, names: tuple[str, str]) -> Summary:
    """A race's summary from its record, as the store would list it."""
    ratings = None
    if record.ratings is not None and record.ratings_after is not None:
        (before0, before1), (after0, after1) = record.ratings, record.ratings_after
        ratings = ((before0.shown, after0.shown), (before1.shown, after1.shown))
    return Summary(
        record.game_id, record.ended, names, record.rules_json, record.result, record.winner,
        record.reason, record.counts, last_cards(record), ratings, record.player_ids,
    )  # fmt: skip


def race_record(record: StoredRace, row: Summary) -> RaceReplay:
    """The whole finished race: its summary, seeds, commits, boards as dealt and moves.

    ``ValueError`` if the stored rules or seeds do not read.
    """
    rules = Rules.model_validate_json(record.rules_json)
    dealers = dealers_from(record.dealing, record.seeds)
    boards = [engine.Board(dealer.layout(rules.winnable_only), rules.redeals) for dealer in dealers]
    legacy = record.dealing == engine.LEGACY_ALGORITHM
    seeds, commits = wire(dealers)
    return RaceReplay(
        **_summary_fields(row),
        dealing=record.dealing,
        seeds=[int(seed) for seed in record.seeds] if legacy else seeds,
        commits=None if legacy else commits,
        boards=[board_to_wire(board) for board in boards],
        moves=[
            Move(seq=move.seq, seat=move.seat, card=move.card, t_ms=to_ms(move.at))
            for move in record.moves
        ],
    )


def iso_time(wall: float) -> str:
    """Wall-clock seconds as an ISO 8601 time in UTC, to the second."""
    return datetime.datetime.fromtimestamp(wall, datetime.UTC).isoformat(timespec="seconds")


def iso_date(wall: float) -> str:
    """Wall-clock seconds as an ISO 8601 date (UTC)."""
    return datetime.datetime.fromtimestamp(wall, datetime.UTC).date().isoformat()
