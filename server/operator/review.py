"""What the operator reads: the review of flagged and reported players, one player's or one
race's evidence, and the audit log, as the admin API answers them (server/http/models.py).

Each is a query of the store (``?`` placeholders, both stores) and the answer made of its
rows; the command line prints the same answers. :func:`since` is what every worker reads of
the log to apply what other processes did (server/operator/watch.py).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from core.fair_play import Evidence
from core.race_log import to_ms
from server.http.export import iso_time, summary
from server.http.models import (
    AnnulAnswer,
    LogEntry,
    Mark,
    PlayerReview,
    PlayerStanding,
    RaceReport,
    RaceReview,
    RatingPutBack,
    ReviewAnswer,
    ReviewLine,
    TimingEvidence,
)
from server.http.openapi import LOG_LIMIT
from server.store.marks import FLAGS_OF

from .actions import Logged, UnknownPlayer, UnknownRace, number, real

if TYPE_CHECKING:
    from server.store import Store
    from server.store.reads import Row

    from .actions import Annulled, PlayerNow

__all__ = [
    "LOG_LIMIT",
    "REVIEW_LIMIT",
    "annulled",
    "entry",
    "last_line",
    "log",
    "player_review",
    "race_review",
    "review",
    "since",
    "standing",
    "timing",
]

REVIEW_LIMIT = 100
"""Players a review lists, and marks a player's review lists."""
RACES_EACH = 20
"""Races a review line lists for one player."""

_LINE = "SELECT id, at, action, target, reason, done_by, player_id, detail FROM actions"
_SINCE = f"{_LINE} WHERE id > ? ORDER BY id LIMIT 100"
_LOG = f"{_LINE} ORDER BY id DESC LIMIT ?"
_LAST = "SELECT coalesce(max(id), 0) FROM actions"
_REVIEW = (
    "SELECT m.player_id, p.name, p.banned,"
    " sum(CASE WHEN m.kind = 'flag' THEN 1 ELSE 0 END),"
    " sum(CASE WHEN m.kind = 'report' THEN 1 ELSE 0 END), max(m.at) AS latest"
    " FROM marks AS m JOIN players AS p ON p.id = m.player_id WHERE m.cleared IS NULL"
    " GROUP BY m.player_id, p.name, p.banned ORDER BY latest DESC, m.player_id LIMIT ?"
)
_OPEN_RACES = (
    "SELECT player_id, race_id FROM marks WHERE cleared IS NULL AND player_id IN ({})"
    " ORDER BY at DESC, race_id"
)
_PLAYER = (
    f"SELECT id, name, banned, bot, {FLAGS_OF},"
    " (SELECT count(*) FROM marks WHERE marks.player_id = players.id AND kind = 'report'"
    " AND cleared IS NULL) FROM players WHERE name_key = ? AND forgotten IS NULL"
)
_MARKS = (
    "SELECT m.race_id, m.kind, m.at, m.cleared, r.name, m.reason, races.player0,"
    " races.fair_play FROM marks AS m JOIN races ON races.id = m.race_id"
    " LEFT JOIN players AS r ON r.id = m.reporter WHERE m.player_id = ?"
    " ORDER BY m.at DESC, m.race_id LIMIT ?"
)
_REPORTS = (
    "SELECT r.name, a.name, m.reason, m.at FROM marks AS m"
    " JOIN players AS r ON r.id = m.reporter JOIN players AS a ON a.id = m.player_id"
    " WHERE m.race_id = ? AND m.kind = 'report' ORDER BY m.at"
)


def _line(row: Row) -> Logged:
    line_id, at, action, target, reason, by, player_id, detail = row
    return Logged(
        number(line_id), real(at), str(action), str(target), str(reason), str(by),
        None if player_id is None else str(player_id), None if detail is None else str(detail),
    )  # fmt: skip


async def since(store: Store, last: int) -> list[Logged]:
    """The log's lines after line ``last``, oldest first (a hundred at most)."""
    return await store.read(_SINCE, (last,), lambda rows: [_line(row) for row in rows])


async def last_line(store: Store) -> int:
    """The id of the log's last line (0 for an empty log)."""
    return await store.read(_LAST, (), lambda rows: number(rows[0][0]))


async def log(store: Store, limit: int) -> list[LogEntry]:
    """The log's last ``limit`` lines, newest first."""
    lines = await store.read(_LOG, (limit,), lambda rows: [_line(row) for row in rows])
    return [entry(line) for line in lines]


def entry(line: Logged) -> LogEntry:
    """A line of the log as the API and the command line show it."""
    detail = None
    if line.detail is not None:
        kept = json.loads(line.detail)
        detail = kept.get("name") or kept.get("words")
    return LogEntry(
        at=iso_time(line.at), action=line.action, target=line.target, reason=line.reason,
        by=line.by, detail=detail,
    )  # fmt: skip


def standing(player: PlayerNow) -> PlayerStanding:
    """A player as an action left them, as the API and the command line show it."""
    return PlayerStanding(
        name=player.name, banned=player.banned, bot=player.bot, flags=player.flags,
        forgotten=player.forgotten,
    )  # fmt: skip


def annulled(game_id: str, done: Annulled) -> AnnulAnswer:
    ratings = [RatingPutBack(name=r.name, before=r.before, after=r.after) for r in done.ratings]
    return AnnulAnswer(game_id=game_id, ratings=ratings)


async def review(store: Store, limit: int = REVIEW_LIMIT) -> ReviewAnswer:
    """Players with marks not cleared, most recently marked first."""
    rows = await store.read(_REVIEW, (limit,), list)
    ids = [str(row[0]) for row in rows]
    races: dict[str, list[str]] = {player_id: [] for player_id in ids}
    if ids:
        sql = _OPEN_RACES.format(", ".join("?" * len(ids)))
        for player_id, race_id in await store.read(sql, ids, list):
            listed = races[str(player_id)]
            if str(race_id) not in listed and len(listed) < RACES_EACH:
                listed.append(str(race_id))
    return ReviewAnswer(
        players=[
            ReviewLine(
                name=str(name),
                flags=number(flags),
                reports=number(reports),
                banned=bool(banned),
                races=races[str(player_id)],
            )
            for player_id, name, banned, flags, reports, _ in rows
        ]
    )


async def player_review(store: Store, name: str) -> PlayerReview:
    """One player, and every race that points at them, with their timing in each."""
    found = await store.read(_PLAYER, (name.lower(),), list)
    if not found:
        raise UnknownPlayer(f"no player is named {name}")
    ((player_id, stored, banned, bot, flags, reports),) = found
    rows = await store.read(_MARKS, (player_id, REVIEW_LIMIT), list)
    marks = [
        Mark(
            game_id=str(race_id),
            kind="flag" if kind == "flag" else "report",
            at=iso_time(real(at)),
            cleared=cleared is not None,
            by=None if reporter is None else str(reporter),
            reason=None if reason is None else str(reason),
            timing=_seat_timing(fair_play, 0 if player0 == player_id else 1),
        )
        for race_id, kind, at, cleared, reporter, reason, player0, fair_play in rows
    ]
    return PlayerReview(
        name=str(stored), banned=bool(banned), bot=bool(bot), flags=number(flags),
        reports=number(reports), marks=marks,
    )  # fmt: skip


async def race_review(store: Store, game_id: str) -> RaceReview:
    """One finished race: its summary, each seat's timing, and its reports."""
    record, row = await store.race(game_id), await store.summary(game_id)
    if record is None or row is None:
        raise UnknownRace(f"no finished race has the id {game_id}")
    reports = await store.read(_REPORTS, (game_id,), list)
    annulled_at = await store.read(
        "SELECT annulled FROM races WHERE id = ?", (game_id,), lambda rows: rows[0][0]
    )
    return RaceReview(
        race=summary(row),
        unrated=record.unrated,
        annulled=annulled_at is not None,
        timing=[None if seat is None else timing(seat) for seat in record.fair_play],
        reports=[
            RaceReport(
                by=str(by),
                about=str(about),
                reason=None if why is None else str(why),
                at=iso_time(real(at)),
            )
            for by, about, why, at in reports
        ],
    )


def timing(evidence: Evidence) -> TimingEvidence:
    """A seat's evidence (core/fair_play.py) as the API shows it."""
    return TimingEvidence(
        plays=evidence.plays,
        fast=evidence.fast,
        fastest_ms=None if evidence.fastest is None else to_ms(evidence.fastest),
        median_ms=None if evidence.median is None else to_ms(evidence.median),
        reaction_spread=evidence.reaction_spread,
        gap_spread=evidence.gap_spread,
        reasons=list(evidence.reasons),
    )


def _seat_timing(fair_play: object, seat: int) -> TimingEvidence | None:
    """One seat's evidence from ``races.fair_play`` (server/store/rows.py), if it was kept."""
    if not isinstance(fair_play, str):
        return None
    kept = json.loads(fair_play)[seat]
    return None if kept is None else timing(Evidence.from_json(json.dumps(kept)))
