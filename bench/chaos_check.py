"""The fault harness's checker: what the racers were told, held against what the store kept.

:func:`check` reads PostgreSQL in one snapshot (``races`` with their moves;
``live_races`` and ``journal`` for races not finished) *after* copying what
every racer heard, so that everything heard was committed before the read
(a frame goes out only once its write is: server/delivery.py). It finds:

``unrecorded``
    A ``played``, ``redealt``, ``status`` or ``game_over`` (or ``game_start``)
    that a racer was told and the store does not hold: no move or journal
    entry with the same ``seq``, seat and card, or a ``game_over`` of a race
    still live.
``diverging``
    Two results for one race: two ``game_over`` (or a ``game_state``'s
    ``over``) that differ, a ``game_over`` that differs from the record, or
    two racers told different events under one ``seq``.
``gaps``
    A racer's ``seq`` for a race not following on: each event is the last
    one plus one, except after a ``game_state`` that opens a connection
    (a racer coming back), which says where the race stands; a ``game_state``
    behind what the racer was already told means frames were announced and lost.
``unfinished`` (``final`` only)
    A race still live, or known to a racer but not to the store.
``abandoned``
    A race that ended ``abandoned``: the racers never leave, so only a fault can.

Nothing here excuses a finding: :mod:`bench.chaos` and the fault tests
report each one as it is.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import psycopg

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .chaos_racers import Heard, Racer

__all__ = ["EVENTS", "Store", "Verdict", "check", "read_store"]

EVENTS = frozenset({"played", "redealt", "status", "game_over"})
"""The race events a racer is told that the store keeps (``game_start`` is the race's row)."""


@dataclass(frozen=True, slots=True)
class Finished:
    result: str
    winner: int | None
    reason: str
    counts: tuple[int, int]
    moves: dict[int, tuple[int, str]]
    """``seq`` -> (seat, card or ``redeal``)."""

    def result_of(self) -> tuple[object, ...]:
        """As :func:`_result` gives a ``game_over``'s."""
        return (self.result, self.winner, self.reason, self.counts)


@dataclass(slots=True)
class Store:
    """What PostgreSQL holds of the races, as of one snapshot."""

    finished: dict[str, Finished] = field(default_factory=dict)
    live: dict[str, dict[int, tuple[int, str]]] = field(default_factory=dict)
    """Each live race's journal: ``seq`` -> (seat, card or kind)."""


@dataclass(slots=True)
class Verdict:
    """The checker's findings (see the module docstring); empty lists are the service's promise."""

    races: int = 0
    frames: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    unrecorded: list[str] = field(default_factory=list)
    """One line for each event (race, ``seq``) told and not stored, whoever was told it."""
    diverging: list[str] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)
    abandoned: list[str] = field(default_factory=list)

    def problems(self) -> dict[str, list[str]]:
        """Every non-empty finding, by name."""
        found = {
            "unrecorded": self.unrecorded,
            "diverging": self.diverging,
            "gaps": self.gaps,
            "unfinished": self.unfinished,
            "abandoned": self.abandoned,
        }
        return {name: items for name, items in found.items() if items}


def read_store(db: str) -> Store:
    """Every race in the store, finished or live, in one REPEATABLE READ snapshot."""
    store = Store()
    with psycopg.connect(db, autocommit=True) as conn, conn.transaction():
        conn.execute(b"SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        rows = conn.execute(
            b"SELECT id, result, winner, reason, count0, count1, moves FROM races"
        ).fetchall()
        for game_id, result, winner, reason, count0, count1, moves in rows:
            listed = moves if isinstance(moves, list) else json.loads(moves)
            store.finished[game_id] = Finished(
                result, winner, reason, (count0, count1),
                {int(seq): (int(seat), str(card)) for seq, seat, card, *_ in listed},
            )  # fmt: skip
        for (game_id,) in conn.execute(b"SELECT id FROM live_races").fetchall():
            store.live[game_id] = {}
        for game_id, seq, seat, what in conn.execute(
            b"SELECT race_id, seq, seat, what FROM journal"
        ).fetchall():
            store.live.setdefault(game_id, {})[seq] = (seat, what)
    return store


def check(racers: Iterable[Racer], db: str, *, final: bool) -> Verdict:
    """Hold what ``racers`` heard against the store at ``db`` (see the module docstring).

    ``final``: the run is over, so every race must have ended too.
    """
    heard = {racer.name: list(racer.heard) for racer in racers}  # before the read: committed
    store = read_store(db)
    verdict = Verdict(frames=sum(map(len, heard.values())))
    told: dict[tuple[str, int], dict[str, Any]] = {}
    known: set[str] = set()
    seen: set[object] = set()
    for name, frames in heard.items():
        for frame in frames:
            message = frame.message
            if "game_id" not in message or message["type"] not in {*EVENTS, "game_start"}:
                continue
            known.add(message["game_id"])
            _recorded(message, store, verdict, name, seen)
            _same_for_all(message, told, verdict, name)
        for message in _results(frames):
            known.add(message["game_id"])
            _same_for_all(message, told, verdict, name)
        verdict.gaps.extend(_gaps(name, frames))
    everything = known | store.finished.keys() | store.live.keys()
    verdict.races = len(everything)
    for game_id in sorted(everything):
        finished = store.finished.get(game_id)
        if finished is not None:
            verdict.reasons[finished.reason] += 1
            if finished.reason == "abandoned":
                verdict.abandoned.append(f"{game_id}: ended abandoned, counts {finished.counts}")
        elif final:
            where = "live in the store" if game_id in store.live else "not in the store"
            verdict.unfinished.append(f"{game_id}: {where} at the end")
    return verdict


def _results(frames: list[Heard]) -> list[dict[str, Any]]:
    """The ``over`` of every ``game_state`` heard: a result, as a ``game_over`` is."""
    return [
        frame.message["over"]
        for frame in frames
        if frame.message["type"] == "game_state" and frame.message["over"] is not None
    ]


def _event(message: dict[str, Any]) -> tuple[object, ...]:
    """What must be the same for every receiver of one race's event under one ``seq``."""
    kind = message["type"]
    if kind == "played":
        return (kind, message["seat"], message["card"], message["count"])
    if kind == "redealt":
        return (kind, message["seat"])
    if kind == "status":
        return (kind, message["seat"], message["status"], message["count"])
    if kind == "game_over":
        return (kind, *_result(message))
    return (kind,)


def _result(over: dict[str, Any]) -> tuple[object, ...]:
    return (over["result"], over["winner"], over["reason"], tuple(over["counts"]))


def _same_for_all(
    message: dict[str, Any], told: dict[tuple[str, int], dict[str, Any]], verdict: Verdict, who: str
) -> None:
    key = (message["game_id"], message["seq"])
    first = told.setdefault(key, message)
    if _event(first) != _event(message):
        verdict.diverging.append(
            f"{key[0]} seq {key[1]}: {who} was told {_event(message)}, another {_event(first)}"
        )


def _recorded(
    message: dict[str, Any], store: Store, verdict: Verdict, who: str, seen: set[object]
) -> None:
    """Note ``message`` in ``verdict`` if the store does not hold what it announced
    (once for each event: ``seen`` holds those looked at, whoever was told them)."""
    game_id, kind, seq = message["game_id"], message["type"], message["seq"]
    if (game_id, seq, kind) in seen:
        return
    seen.add((game_id, seq, kind))
    finished, journal = store.finished.get(game_id), store.live.get(game_id)
    if kind == "game_start":
        if finished is None and journal is None:
            verdict.unrecorded.append(f"{game_id}: {who} was told game_start; no such race stored")
        return
    if kind == "game_over":
        if finished is None:
            verdict.unrecorded.append(f"{game_id}: {who} was told game_over; the race is not ended")
        elif (told := _result(message)) != (kept := finished.result_of()):
            verdict.diverging.append(f"{game_id}: {who} was told {told}, the record says {kept}")
        elif seq <= max(finished.moves, default=0):
            verdict.diverging.append(
                f"{game_id}: {who} was told game_over at seq {seq}, before a move"
            )
        return
    want = _entry(message)
    if finished is not None:
        have = finished.moves.get(seq)
        # A record keeps moves only: a status's seq is no move's.
        ok = have is None if kind == "status" else have == want
    else:
        have = None if journal is None else journal.get(seq)
        ok = have == want
    if not ok:
        verdict.unrecorded.append(f"{game_id} seq {seq}: {who} was told {want}, stored {have}")


def _entry(message: dict[str, Any]) -> tuple[int, str]:
    """The (seat, what) the store keeps for an event (server/store: journal, moves)."""
    kind = message["type"]
    if kind == "played":
        return (message["seat"], message["card"])
    if kind == "redealt":
        return (message["seat"], "redeal")
    return (message["seat"], message["status"])


def _gaps(who: str, frames: list[Heard]) -> list[str]:
    """Breaks in ``who``'s ``seq`` of each race (see the module docstring)."""
    found: list[str] = []
    last: dict[str, int] = {}
    opened: dict[str, int] = {}
    """The connection on which each race was last heard of."""
    for frame in frames:
        message = frame.message
        kind, game_id = message["type"], message.get("game_id")
        if game_id is None or kind not in {*EVENTS, "game_start", "game_state"}:
            continue
        seq = message["seq"]
        first_here = opened.get(game_id) != frame.session
        opened[game_id] = frame.session
        before = last.get(game_id)
        if kind == "game_state":
            if before is not None and seq < before:
                found.append(f"{who} {game_id}: game_state at seq {seq} after being told {before}")
            elif before is not None and seq > before and not first_here:
                found.append(f"{who} {game_id}: game_state skipped {before}->{seq} mid-connection")
            last[game_id] = max(seq, before or 0)
        elif kind == "game_start":
            last[game_id] = seq
        elif before is None:
            found.append(f"{who} {game_id}: first told {kind} seq {seq}, no game_start or state")
            last[game_id] = seq
        elif seq != before + 1:
            found.append(f"{who} {game_id}: {kind} seq {seq} after {before}")
            last[game_id] = max(seq, before)
        else:
            last[game_id] = seq
    return found
