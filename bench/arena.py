"""What an arena costs the lobby core, without sockets: ``python -m bench.arena [--quick]``.

One lobby core holds an arena of ``N`` players (1,000; declared bots, each with
its own rating), all joined before it starts. The clock is moved by hand, as
the glue's timers would move it: the arena starts (every player free at once:
``N / 2`` races paired in one call), then each race ends when one of its
players resigns, 20 to 60 seconds (uniformly) after it started, and its players
are paired again, for the arena's whole length. The arena's timer (its
standings, at most once a second) falls when its ``Wake`` says. It reports:

- **pairing**, the rule alone (:func:`core.arena_rules.pairings`, timed where
  the desk calls it): microseconds per pair made, at the start and once the
  arena runs (a race's end frees two players among the few waiting);
- **the start**: the one call that pairs everyone and starts every race
  (dealing, ``game_start``), per race;
- **a race's end**: the ``resign`` that ends a race, with what follows in the
  same call (its score, the ``ArenaChanged``, pairing its players again and
  starting their next race);
- **the standings push**: the timer's call that sends every joined player an
  ``arena`` message (the first 50 places and their own), then encoding those
  messages as the glue does, per push and per second of the arena.

No store and no sockets: what the glue does with the outputs is measured by
``bench.run`` and ``bench.store``. The best of three runs is kept, with the
garbage collector as the server sets it. Prints a Markdown table, then, as its
last line, one JSON object.
"""

from __future__ import annotations

import heapq
import random
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import core.arenas
from core.arena_rules import pairings
from core.arena_state import ScheduledArena
from core.arenas import ARENA_TIMER
from core.events import Send, Wake
from core.glicko2 import Glicko
from core.lobby import Lobby
from protocol import Arena, GameStart, JoinArena, Resign, Rules, encode_bytes

from .common import markdown_table, report_main

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.arena_rules import Candidate
    from core.events import Output

__all__ = ["Results", "main", "measure"]

ARENA = "bench"
KEY = ARENA_TIMER + ARENA
START = 10.0
RACE_SECONDS = (20.0, 60.0)


@dataclass(frozen=True, slots=True)
class Results:
    """What one arena cost (times in microseconds unless named otherwise)."""

    players: int
    arena_s: float
    races: int
    start_pairs: int
    start_pairing_us_per_pair: float
    pairing_us_per_pair: float
    start_us_per_race: float
    race_end_us: float
    pushes: int
    push_build_ms: float
    push_encode_ms: float
    push_ms_per_arena_s: float


@dataclass(slots=True)
class _Meter:
    """Seconds spent and things counted, by kind."""

    spent: dict[str, float] = field(default_factory=dict)
    count: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, seconds: float, things: int = 1) -> None:
        self.spent[kind] = self.spent.get(kind, 0.0) + seconds
        self.count[kind] = self.count.get(kind, 0) + things

    def per(self, kind: str, scale: float = 1e6) -> float:
        return self.spent.get(kind, 0.0) / max(1, self.count.get(kind, 0)) * scale


class _Run:
    """One arena, driven by hand (see the module docstring)."""

    def __init__(self, players: int, seconds: float, seed: int) -> None:
        self.rng = random.Random(seed)
        self.lobby = Lobby(rng=random.Random(seed), idle_limit=None, grace=30.0)
        self.meter = _Meter()
        self.events: list[tuple[float, int, str]] = []
        """(when, kind, key): 0 a race ends (key: its id), 1 the arena's timer."""
        self.timer: float | None = None
        self.seconds = seconds
        self.phase = "start"
        rules = Rules(deal="mirror", winnable_only=True)
        when = ("2025-06-01T18:00:00Z", "2025-06-01T18:10:00Z")
        spec = ScheduledArena(ARENA, "Bench", rules, START, START + seconds, *when)
        self._take(self.lobby.schedule_arena(spec, 0.0), 0.0)
        for index in range(players):
            rating = Glicko(self.rng.gauss(1500.0, 250.0), 60.0, 0.06)
            self.lobby.connect(f"b{index}", f"Bot{index}", 0.0, rating=rating, bot=True)
            self._take(self.lobby.handle(f"b{index}", JoinArena(arena_id=ARENA), 1.0), 1.0)

    def pairing(self, free: Sequence[Candidate]) -> list[tuple[str, str]]:
        """:func:`pairings`, timed: the desk calls it through here."""
        began = time.perf_counter()
        pairs = pairings(free)
        self.meter.add(f"pairing_{self.phase}", time.perf_counter() - began, len(pairs))
        return pairs

    def go(self) -> None:
        while self.events:
            now, kind, key = heapq.heappop(self.events)
            if kind == 1:
                if self.timer == now:
                    self._tick(now)
            elif (race := self.lobby.race(key)) is not None:
                loser = race.player_ids[self.rng.randrange(2)]
                began = time.perf_counter()
                out = self.lobby.handle(loser, Resign(), now)
                self.meter.add("race_end", time.perf_counter() - began)
                self._take(out, now)

    def _tick(self, now: float) -> None:
        began = time.perf_counter()
        out = self.lobby.tick(KEY, now)
        took = time.perf_counter() - began
        if self.phase == "start":
            self.meter.add("start", took, sum(isinstance(o, Send) and _first(o) for o in out))
            self.phase = "running"
        else:
            arenas = [o for o in out if isinstance(o, Send) and isinstance(o.message, Arena)]
            if arenas:
                self.meter.add("push_build", took)
                began = time.perf_counter()
                for send in arenas:
                    encode_bytes(send.message)
                self.meter.add("push_encode", time.perf_counter() - began)
        self._take(out, now)

    def _take(self, out: list[Output], now: float) -> None:
        """Follow the outputs: the arena's timer, and when each new race will end."""
        for item in out:
            if isinstance(item, Wake) and item.game_id == KEY:
                self.timer = item.at
                if item.at is not None:
                    heapq.heappush(self.events, (item.at, 1, KEY))
            elif isinstance(item, Send) and _first(item):
                assert isinstance(item.message, GameStart)
                ends = now + self.rng.uniform(*RACE_SECONDS)
                heapq.heappush(self.events, (ends, 0, item.message.game_id))


def _first(send: Send) -> bool:
    """Whether ``send`` is a race's ``game_start`` to its seat 0 (one a race)."""
    return isinstance(send.message, GameStart) and send.message.seat == 0


def _once(players: int, seconds: float, seed: int) -> _Meter:
    run = _Run(players, seconds, seed)
    # The rule timed where the desk calls it: the name the desk's module looks up.
    setattr(core.arenas, "pairings", run.pairing)  # noqa: B010
    try:
        run.go()
    finally:
        setattr(core.arenas, "pairings", pairings)  # noqa: B010
    return run.meter


def measure(quick: bool = False) -> Results:
    players, seconds, repeat = (1000, 120.0, 3) if quick else (1000, 600.0, 3)
    _once(200, 60.0, 0)  # warm up
    best: _Meter | None = None
    for seed in range(1, repeat + 1):
        meter = _once(players, seconds, seed)
        if best is None or meter.per("race_end") < best.per("race_end"):
            best = meter
    assert best is not None
    pushes = best.count.get("push_build", 0)
    push_ms = best.per("push_build", 1e3) + best.per("push_encode", 1e3)
    return Results(
        players=players,
        arena_s=seconds,
        races=best.count.get("start", 0) + best.count.get("race_end", 0),
        start_pairs=best.count.get("pairing_start", 0),
        start_pairing_us_per_pair=best.per("pairing_start"),
        pairing_us_per_pair=best.per("pairing_running"),
        start_us_per_race=best.per("start"),
        race_end_us=best.per("race_end"),
        pushes=pushes,
        push_build_ms=best.per("push_build", 1e3),
        push_encode_ms=best.per("push_encode", 1e3),
        push_ms_per_arena_s=push_ms * pushes / seconds,
    )


def table(results: Results) -> str:
    r = results
    players = f"{r.players:,}"
    rows = [
        (f"pairing {players} free at the start (the rule alone), per pair",
         f"{r.start_pairing_us_per_pair:,.1f} µs"),
        ("pairing as races end (the rule alone), per pair", f"{r.pairing_us_per_pair:,.1f} µs"),
        ("the start: pairing and starting every race, per race",
         f"{r.start_us_per_race:,.1f} µs"),
        ("a race's end: score, pair again, start the next race", f"{r.race_end_us:,.1f} µs"),
        (f"a standings push to {players} players: build", f"{r.push_build_ms:,.2f} ms"),
        (f"a standings push to {players} players: encode", f"{r.push_encode_ms:,.2f} ms"),
        ("standings pushes, per second of the arena", f"{r.push_ms_per_arena_s:,.2f} ms"),
    ]  # fmt: skip
    return markdown_table(
        f"Arena benchmark ({r.players:,} players, {r.arena_s:,.0f} s of arena, {r.races:,} races,"
        f" {r.pushes:,} pushes; one lobby core, no sockets, no store)",
        ("what", "cost"),
        rows,
    )


def main(argv: Sequence[str] | None = None) -> int:
    return report_main(
        argv,
        prog="python -m bench.arena",
        description="Time an arena of 1,000 players on one lobby core, by hand.",
        quick="two minutes of arena, not ten",
        measure=measure,
        table=table,
    )


if __name__ == "__main__":
    raise SystemExit(main())
