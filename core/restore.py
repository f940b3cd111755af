"""Rebuilding a live race from its journal, after the server process restarted.

A race is its start and the ordered events the server accepted
(:mod:`core.race_log`), and the engine is deterministic: replaying the events
through the race core's own inputs, at their own times, gives back every
board, status and ``seq`` as they were. What happened in between goes on from
where it stood: the race's time resumes at ``elapsed``, the last moment the
journal knows of, so the time the server was down does not count, and each
player is away with the full grace to come back.

A journal that does not replay (an entry the rules refuse, a ``seq`` out of
step, a start that does not parse) is not this race's any more: the race ends
as a draw, ``aborted``, and its players learn it when they come back.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

import engine
from protocol import Rules

from .bots import bot_of
from .events import Output, RaceEnded, Refused
from .ghost import GhostPolicy
from .race import Race, SeatInfo
from .seeding import dealers_from

if TYPE_CHECKING:
    import random
    from collections.abc import Iterable, Iterator, Sequence

    from .race_log import Entry, RaceStart

__all__ = ["replay", "restore", "restored"]

log = logging.getLogger("flowergarden.server")

_UNREPLAYABLE = (Refused, ValueError, IndexError, TypeError, engine.MalformedCard)


def restore(
    start: RaceStart,
    entries: Sequence[Entry],
    *,
    elapsed: float,
    now: float,
    idle_limit: float | None,
    grace: float,
    rng: random.Random | None = None,
) -> tuple[Race, list[Output]]:
    """The race of this journal at ``now``, and what is left to do for it.

    ``rng`` plays for a bot seat (``secrets.SystemRandom()`` outside tests).
    The outputs are a :class:`~core.events.RaceEnded` if the race is over:
    its journal ended it before its record was written, or it was aborted.
    """
    race, readable = _rebuilt(start, idle_limit=idle_limit, grace=grace, rng=rng)
    race.start(now - elapsed)
    if not readable:  # its start could not be read: nothing replays
        return race, _ended(race.abort(now))
    out: list[Output] = []
    for entry in entries:
        try:
            out += replay(race, entry)
        except _UNREPLAYABLE as exc:
            log.error("race %s cannot be restored at entry %s: %s", start.game_id, entry, exc)
            return race, _ended(out if race.over is not None else race.abort(now))
    if race.over is not None:  # the journal ended it; its record had not been written
        return race, _ended(out)
    for seat, bot in enumerate(race.bots):
        if not bot:  # a bot has no connection to come back on: it plays on
            race.leave(seat, now)
    return race, []


def _rebuilt(
    start: RaceStart, *, idle_limit: float | None, grace: float, rng: random.Random | None
) -> tuple[Race, bool]:
    """The race of ``start``, not started, and True; or, if ``start`` cannot be read, a
    race with default rules and blank deals, and False, for :func:`restore` to abort."""
    seats = (
        SeatInfo(start.player_ids[0], start.names[0], start.bots[0]),
        SeatInfo(start.player_ids[1], start.names[1], start.bots[1]),
    )
    ghost = start.kind.ghost
    try:
        rules = Rules.model_validate(json.loads(start.rules_json))
        return Race(
            start.game_id, seats, rules, dealers_from(start.dealing, start.seeds),
            idle_limit=idle_limit, grace=grace, ratings=start.ratings if rules.rated else None,
            bots=(bot_of(start.player_ids[0], rng),
                  bot_of(start.player_ids[1], rng) if ghost is None else GhostPolicy(ghost.line)),
            kind=start.kind,
        ), True  # fmt: skip
    except (ValueError, TypeError) as exc:
        log.error("race %s cannot be restored, its start is unreadable: %s", start.game_id, exc)
    blank = engine.SeedDealer(bytes(engine.SEED_SIZE))
    race = Race(
        start.game_id, seats, Rules(), (blank, blank),
        idle_limit=idle_limit, grace=grace, kind=start.kind,
    )  # fmt: skip
    return race, False


def restored(
    live: Iterable[tuple[RaceStart, Sequence[Entry], float]],
    now: float,
    idle_limit: float | None,
    grace: float,
    rng: random.Random | None = None,
) -> Iterator[tuple[Race, list[Output]]]:
    """Each live race as :func:`restore` rebuilds it at ``now``, with what is left to do."""
    for start, entries, elapsed in live:
        yield restore(
            start, entries, elapsed=elapsed, now=now, idle_limit=idle_limit, grace=grace, rng=rng
        )


def _ended(out: list[Output]) -> list[Output]:
    return [item for item in out if isinstance(item, RaceEnded)]


def replay(race: Race, entry: Entry) -> list[Output]:
    """Apply a journal entry again, as it was accepted ``entry.at`` seconds in.

    Raises :class:`~core.events.Refused` or ``ValueError``, having changed
    nothing, when the entry does not fit the race as replayed so far: then
    the journal is not this race's, and :func:`restore` aborts it.
    """
    now, what, seat = race.started + entry.at, entry.what, entry.seat
    if race.over is not None:
        raise ValueError(f"{entry} follows the end of the race")
    racing = sum(s.racing for s in race.seats)
    if seat not in (0, 1) or entry.seq != race.seq + (racing if what == "time" else 1):
        raise ValueError(f"{entry} does not follow seq {race.seq}")
    if what == "redeal":
        return race.redeal(seat, now)
    if what == "resigned":
        return race.resign(seat, now)
    if what == "time":
        return race.clock_ran_out(now)
    if what in ("abandoned", "timed_out"):
        return race.seat_ended(seat, "abandoned" if what == "abandoned" else "timed_out", now)
    return race.play(seat, engine.Card.parse(what), now)
