"""Rows as both stores write them, and a live race as it is read back.

SQLite (:mod:`server.store.sqlite`) and PostgreSQL (:mod:`server.store.postgres`) keep
the same columns, so what turns a value into a row's arguments, and a live
race's row back into a value, is written once here (what the API reads is
:mod:`server.store.reads`); so is each statement both dialects agree on, with
``?`` placeholders (:func:`server.store.postgres.for_postgres`). What differs
stays in the backends: SQLite keeps a batch's journal entries as lines of one
row (:mod:`server.store.journal_lines`), PostgreSQL a row per entry.

Reading never raises on what a row holds: what cannot be read comes back in a
form that :func:`core.restore.restore` refuses (rules ``""``, seeds ``()``),
so that race ends ``aborted`` instead of stopping the server from starting.
"""

from __future__ import annotations

import json
import logging
import math
from typing import TYPE_CHECKING, Any, TypeAlias

from core.glicko2 import Glicko
from core.race_kind import PLAIN, RaceKind
from core.race_log import Entry, FinishedRace, MoveRecord, RaceStart, to_ms

from .daily_rows import results
from .end_rows import OwedEnds, kept
from .faults import StoreRefused
from .marks import FLAG

if TYPE_CHECKING:
    from collections.abc import Iterable

    from core.identity import Identity

    from .scripts import Script

__all__ = [
    "ABORTED",
    "END_LIVE_RACE",
    "EPOCHS",
    "INSERT_PLAYER",
    "INSERT_RACE",
    "LIVE_RACES",
    "SUSPEND",
    "TAKE",
    "TAKE_ALL",
    "TOUCH",
    "LiveRace",
    "Statement",
    "counted",
    "declare_bot",
    "in_list",
    "last_cards",
    "live_race",
    "player_row",
    "race_ids",
    "race_row",
    "start_row",
]

ABORTED = "aborted"
"""The reason of a race that could not be restored: it counts for nobody."""

INSERT_PLAYER = (
    "INSERT INTO players (id, name, name_key, token_hash, created, last_seen, bot)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)
TOUCH = "UPDATE players SET last_seen = ? WHERE id = ?"

SUSPEND = "UPDATE live_races SET elapsed = ? WHERE id = ?"
END_LIVE_RACE = "DELETE FROM live_races WHERE id = ?"
PEOPLE_RACING = (
    "SELECT id, player0 FROM live_races WHERE bot0 = 0 AND player0 IN ({0})"
    " UNION ALL SELECT id, player1 FROM live_races WHERE bot1 = 0 AND player1 IN ({0})"
)
"""``(race, person)`` for each person named (``{0}``, twice: :func:`in_list`, the
people's ids twice over) who sits in a live race (:meth:`Writes.double_starts`)."""
EPOCHS = "SELECT id, epoch FROM live_races WHERE id IN ({})"
"""The current epoch of each live race named (``{}``: a ``?`` each): :func:`in_list`."""
TAKE_ALL = "UPDATE live_races SET epoch = epoch + 1 RETURNING id, epoch"
TAKE = "UPDATE live_races SET epoch = epoch + 1 WHERE id IN ({}) RETURNING id, epoch"
"""Taking races (all, or those named): each one's next epoch, drawn atomically."""
"""A finished race is its record: its live row, and so its journal, is done with."""

LIVE_RACES_WHERE = (
    "SELECT l.id, l.rules, l.dealing, l.seeds, l.ratings, l.player0, l.player1,"
    " p0.name, p1.name, l.elapsed, l.bot0, l.bot1, l.kind FROM live_races AS l"
    " LEFT JOIN players AS p0 ON p0.id = l.player0"
    " LEFT JOIN players AS p1 ON p1.id = l.player1{} ORDER BY l.started, l.id"
)
"""The live races (those the ``WHERE`` clause put in the braces keeps), oldest first,
as :func:`live_race` reads them."""
LIVE_RACES = LIVE_RACES_WHERE.format("")
"""Every live race, oldest first, as :func:`live_race` reads it."""

INSERT_RACE = (
    "INSERT INTO races (id, rules, dealing, seeds, player0, player1, started, ended,"
    " result, winner, reason, count0, count1, moves, time0, time1, rating0_before,"
    " rating0_after, rating1_before, rating1_after, unrated, fair_play, glicko, kind)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (id) DO NOTHING RETURNING id"
)
"""A finished race (:func:`race_row`): a known one is skipped atomically, even against
another server, and returns no row, so that nobody's stats count it twice."""

_COUNT_RACE = (
    "UPDATE players SET games = games + 1, wins = wins + ?, losses = losses + ?,"
    " draws = draws + ?, last_seen = ? WHERE id = ?"
)
_UPDATE_RATING = (
    "UPDATE players SET rating = ?, deviation = ?, volatility = ?,"
    " rated_races = rated_races + 1 WHERE id = ?"
)
_UPDATE_BEST_CLEAR = (
    "UPDATE players SET best_clear_ms = ? WHERE id = ?"
    " AND (best_clear_ms IS NULL OR best_clear_ms > ?)"
)

Statement: TypeAlias = tuple[str, tuple[object, ...]]
"""A statement and its arguments."""

log = logging.getLogger("flowergarden.server")

LiveRace: TypeAlias = tuple[RaceStart, list[Entry], float]
"""A live race as kept: its start, its journal in ``seq`` order, and its elapsed seconds."""

_compact_json = json.JSONEncoder(separators=(",", ":")).encode


# Over 40 lines because it checks each column in turn, saying which it could not
# read; split, the list of what was unreadable would travel between the parts.
def live_race(row: tuple[object, ...], entries: list[Entry]) -> LiveRace:
    """A live race's row (id, rules, dealing, seeds, ratings, player ids, names, elapsed,
    declared bots, kind) and its journal.

    Each race with something unreadable is logged by its id; its entries are
    given as they are, for restoring to judge.
    """
    game_id, rules, dealing, seeds, ratings, player0, player1, name0, name1, elapsed = row[:10]
    bot0, bot1, kind_json = row[10:]
    unread = []
    if not isinstance(rules, str):
        unread.append("rules")
        rules = ""
    if not isinstance(dealing, str):
        unread.append("dealing")
        dealing = ""
    seed_list = _json_list(seeds)
    if seed_list is None:
        unread.append("seeds")
        seed_list = []
    before = _ratings(ratings)
    if ratings is not None and before is None:
        unread.append("ratings")
    if not isinstance(name0, str) or not isinstance(name1, str):
        unread.append("player names")
    seconds = _elapsed(elapsed, entries, unread)
    kind = _kind(kind_json)
    if kind is None:  # a daily race without its ghost is not the race it was
        unread.append("kind")
        rules, kind = "", PLAIN
    if unread:
        log.error("live race %s: cannot read its %s", game_id, ", ".join(unread))
    start = RaceStart(
        game_id=str(game_id),
        rules_json=rules,
        dealing=dealing,
        seeds=tuple(seed_list),
        player_ids=(str(player0), str(player1)),
        names=(str(name0), str(name1)),
        ratings=before,
        bots=(bool(bot0), bool(bot1)),
        kind=kind,
    )
    return start, entries, seconds


def _kind(text: object) -> RaceKind | None:
    """A live race's kind (null: a plain race), or None if it cannot be read."""
    if text is not None and not isinstance(text, str):
        return None
    try:
        return RaceKind.from_json(text)
    except (ValueError, KeyError, TypeError):
        return None


def _elapsed(elapsed: object, entries: list[Entry], unread: list[str]) -> float:
    """A live race's seconds run: those kept, or its last entry's time if later; what
    cannot be read is named in ``unread`` and counts as 0."""
    kept = _seconds(elapsed)
    if kept is None:
        unread.append("elapsed")
    last = _seconds(entries[-1].at) if entries else None
    if entries and last is None:
        unread.append("last entry's time")
    return max(kept or 0.0, last or 0.0, 0.0)


def player_row(identity: Identity) -> tuple[object, ...]:
    """The arguments of :data:`INSERT_PLAYER`: a new player, last seen when made."""
    return (
        identity.player_id,
        identity.name,
        identity.name.lower(),
        identity.token_hash,
        identity.created,
        identity.created,
        int(identity.bot),
    )


def start_row(start: RaceStart, wall: float) -> tuple[object, ...]:
    """A live race's start: id, rules, dealing, seeds, ratings, player ids, started,
    which seats a declared bot sits in, and its kind (null for a plain race)."""
    seeds, ratings = json.dumps(list(start.seeds)), _ratings_json(start.ratings)
    bots = (int(start.bots[0]), int(start.bots[1]))
    return (
        start.game_id, start.rules_json, start.dealing, seeds, ratings, *start.player_ids,
        wall, *bots, _kind_json(start.kind),
    )  # fmt: skip


def race_row(record: FinishedRace, started_wall: float, ended_wall: float) -> tuple[object, ...]:
    """The arguments of :data:`INSERT_RACE`; moves with a seq twice or no such seat are refused."""
    return (
        record.game_id,
        record.rules_json,
        record.dealing,
        json.dumps(list(record.seeds)),  # a seed is wider than either store's integers
        *record.player_ids,
        started_wall,
        ended_wall,
        record.result,
        record.winner,
        record.reason,
        *record.counts,
        _moves_json(record.moves),
        *last_cards(record),
        *_shown_ratings(record),
        record.unrated,
        _fair_play_json(record),
        _glicko_json(record),
        _kind_json(record.kind),
    )


def counted(
    record: FinishedRace, ended_wall: float, ends: OwedEnds | None = None
) -> list[Statement]:
    """What a newly kept finished race changes in its players' rows, in the same transaction:
    games, wins, losses, draws and last seen; ratings if it was rated; a best clear; a
    ranked daily race's place on its day's board and its player's streak; the ends its
    players are owed (:mod:`server.store.end_rows`)."""
    owed = [] if ends is None else kept(record.game_id, ends, ended_wall)
    if record.reason == ABORTED:  # not a race anyone won, lost or drew
        return owed
    statements: list[Statement] = [
        (_COUNT_RACE, (*_outcome(record.winner, seat), ended_wall, player_id))
        for seat, player_id in enumerate(record.player_ids)
    ]
    statements += [
        (FLAG, (player_id, record.game_id, ended_wall))
        for player_id, flagged in zip(record.player_ids, record.flagged, strict=True)
        if flagged
    ]
    if record.ratings_after is not None:
        for player_id, g in zip(record.player_ids, record.ratings_after, strict=True):
            statements.append((_UPDATE_RATING, (g.rating, g.deviation, g.volatility, player_id)))
    clear = _best_clear(record)
    if clear is not None:
        statements.append((_UPDATE_BEST_CLEAR, clear))
    return statements + results(record, ended_wall) + owed


def declare_bot(player_id: str) -> Script[None]:
    """A player said ``hello.bot``: a bot for ever (run by :meth:`Store.run`)."""
    yield ("UPDATE players SET bot = 1 WHERE id = ?", (player_id,))


def in_list(sql: str, count: int) -> str:
    """``sql`` with its ``{}`` made a list of ``count`` placeholders."""
    return sql.format(", ".join("?" * count))


def race_ids(game_ids: Iterable[object]) -> str:
    """``race g1`` or ``races g1, g2``: each id once, in order of appearance."""
    ids = [str(game_id) for game_id in dict.fromkeys(game_ids)]
    return f"race{'s' if len(ids) != 1 else ''} {', '.join(ids)}"


def last_cards(record: FinishedRace) -> tuple[int | None, int | None]:
    """Each seat's time of its last card, in ms (``times_ms``); None if it played none."""
    times: list[int | None] = [None, None]
    for move in reversed(record.moves):  # in seq order: the first found from the end
        if move.card != "redeal" and times[move.seat] is None:
            times[move.seat] = to_ms(move.at)
            if None not in times:
                break
    return times[0], times[1]


def _moves_json(moves: Iterable[MoveRecord]) -> str:
    """The ``races.moves`` column: ``[seq, seat, card, milliseconds]`` each."""
    rows = [(seq, seat, card, to_ms(at)) for seq, seat, card, at in moves]
    if len({row[0] for row in rows}) != len(rows):
        raise StoreRefused("a race's moves repeat a seq")
    if not {row[1] for row in rows} <= {0, 1}:
        raise StoreRefused("a move's seat is not 0 or 1")
    return _compact_json(rows)


def _outcome(winner: int | None, seat: int) -> tuple[int, int, int]:
    """What a race adds to a seat's (wins, losses, draws)."""
    if winner is None:
        return (0, 0, 1)
    return (1, 0, 0) if winner == seat else (0, 1, 0)


def _shown_ratings(record: FinishedRace) -> tuple[int | None, ...]:
    """``rating0_before, rating0_after, rating1_before, rating1_after``: whole numbers, or None."""
    if record.ratings is None or record.ratings_after is None:
        return (None,) * 4
    (before0, before1), (after0, after1) = record.ratings, record.ratings_after
    return before0.shown, after0.shown, before1.shown, after1.shown


def _best_clear(record: FinishedRace) -> tuple[int, str, int] | None:
    """The arguments of the best clear's update, for a race won by clearing, else None."""
    if record.reason != "cleared" or record.winner is None:
        return None
    time = last_cards(record)[record.winner]
    if time is None:
        return None
    return time, record.player_ids[record.winner], time


def _fair_play_json(record: FinishedRace) -> str | None:
    """``races.fair_play``: each seat's evidence as :meth:`Evidence.to_json` writes it, or
    null (a bot's seat); null for a race judged for no seat."""
    if record.fair_play == (None, None):
        return None
    seats = [None if seat is None else seat.to_json() for seat in record.fair_play]
    return "[" + ",".join("null" if seat is None else seat for seat in seats) + "]"


def _glicko_json(record: FinishedRace) -> str | None:
    """``races.glicko``: both players' ratings before and after a rated race, in full, so
    that an annul can put them back (server/operator/actions.py); null if it rated none."""
    if record.ratings is None or record.ratings_after is None:
        return None
    return _compact_json(
        {"before": _glickos(record.ratings), "after": _glickos(record.ratings_after)}
    )


def _glickos(ratings: tuple[Glicko, Glicko]) -> list[list[float]]:
    return [[g.rating, g.deviation, g.volatility] for g in ratings]


def _ratings_json(ratings: tuple[Glicko, Glicko] | None) -> str | None:
    """A live race's players' ratings before it, as ``live_races.ratings`` keeps them."""
    return None if ratings is None else _compact_json(_glickos(ratings))


def _kind_json(kind: RaceKind) -> str | None:
    """``kind`` column: the race's kind as JSON, null for a plain race."""
    return None if kind.plain else kind.to_json()


def _json_list(text: object) -> list[Any] | None:
    """The JSON array in ``text``, or None if it holds anything else."""
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, list) else None


def _seconds(value: object) -> float | None:
    """``value`` as a finite number of seconds, or None."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _ratings(text: object) -> tuple[Glicko, Glicko] | None:
    values = _json_list(text)
    if values is None or len(values) != 2:
        return None
    try:
        first, second = (Glicko(*(float(x) for x in value)) for value in values)
    except (TypeError, ValueError):
        return None
    return first, second
