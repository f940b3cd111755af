"""What the lobby and race cores cost, without sockets: ``python -m bench.core [--quick]``.

The sans-I/O cores are driven by hand, as the glue drives them: ``N`` players
say hello, seek ``mirror`` + ``winnable_only`` races and play them out, each
playing the first legal card of its own board, one play of each player in
turn, seeking again once its race is over (what ``bench.loadgen`` does over
sockets). It times each call of ``Lobby.handle`` and reports, per kind of
call, its mean cost:

- a play that leaves the race going (nearly every play);
- the play that ends a race (the result, the ``game_over``, the record);
- a seek, half of which start a race (dealing, both ``game_start``);
- encoding what goes on the wire: a ``played`` frame, and the other messages
  (``game_start``, ``game_over``, ``seeking``), each once per output as the glue does.

A race is 104 plays here, so a race's start and end cost each play about a
hundredth of theirs. Nothing is written to a store: ``python -m bench.store``
measures that. The best of three runs is kept (the others measure the
machine's other work), with the garbage collector as the server sets it.
Prints a Markdown table, then, as its last line, one JSON object.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.events import Send, SendPlayed
from core.lobby import Lobby
from protocol import decode, encode_bytes

from .common import markdown_table, report_main

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.events import Output

__all__ = ["Results", "main", "measure"]

_SEEK = '{"type":"seek","rules":{"deal":"mirror","winnable_only":true}}'


@dataclass(frozen=True, slots=True)
class Results:
    """Mean microseconds per call of each kind."""

    play_us: float
    last_play_us: float
    seek_us: float
    played_frame_us: float
    message_us: float
    plays: int
    races: int


class _Clock:
    """Microseconds spent and calls made, by kind."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self.calls: dict[str, int] = {}

    def add(self, kind: str, seconds: float) -> None:
        self.spent[kind] = self.spent.get(kind, 0.0) + seconds
        self.calls[kind] = self.calls.get(kind, 0) + 1

    def mean_us(self, kind: str) -> float:
        return self.spent.get(kind, 0.0) / max(1, self.calls.get(kind, 0)) * 1e6


def _encode(out: list[Output], clock: _Clock) -> None:
    for output in out:
        if isinstance(output, SendPlayed):
            began = time.perf_counter()
            output.frame()
            clock.add("played_frame", time.perf_counter() - began)
        elif isinstance(output, Send):
            began = time.perf_counter()
            encode_bytes(output.message)
            clock.add("message", time.perf_counter() - began)


def _run(players: int, rounds: int) -> _Clock:
    """One run: ``players`` players, ``rounds`` turns of each."""
    lobby = Lobby(rng=random.Random(1), idle_limit=60.0, grace=30.0)
    ids = [f"p{index}" for index in range(players)]
    now = 1000.0
    for player_id in ids:
        lobby.connect(player_id, player_id, now)
    seek = decode(_SEEK)
    clock = _Clock()
    perf = time.perf_counter
    for _ in range(rounds):
        for player_id in ids:
            now += 1e-4
            race = lobby.race_of(player_id)
            if race is None:
                began = perf()
                out = lobby.handle(player_id, seek, now)
                clock.add("seek", perf() - began)
                _encode(out, clock)
                continue
            legal = race.boards()[race.seat_of(player_id)].legal_plays()
            if not legal:  # a winnable deal never gets stuck while played greedily
                continue
            play = decode(f'{{"type":"play","card":"{legal[0]}"}}')
            began = perf()
            out = lobby.handle(player_id, play, now)
            took = perf() - began
            clock.add("play" if race.over is None else "last_play", took)
            _encode(out, clock)
    return clock


def measure(quick: bool = False) -> Results:
    players, rounds, repeat = (200, 150, 3) if quick else (1000, 300, 3)
    _run(players, 20)  # warm up
    best: _Clock | None = None
    for _ in range(repeat):
        clock = _run(players, rounds)
        if best is None or clock.mean_us("play") < best.mean_us("play"):
            best = clock
    assert best is not None
    return Results(
        play_us=best.mean_us("play"),
        last_play_us=best.mean_us("last_play"),
        seek_us=best.mean_us("seek"),
        played_frame_us=best.mean_us("played_frame"),
        message_us=best.mean_us("message"),
        plays=best.calls.get("play", 0) + best.calls.get("last_play", 0),
        races=best.calls.get("last_play", 0),
    )


def table(results: Results) -> str:
    rows = [
        ("a play (`Lobby.handle`)", results.play_us),
        ("the play that ends a race", results.last_play_us),
        ("a seek (half of them start a race)", results.seek_us),
        ("a `played` frame", results.played_frame_us),
        ("another message (`game_start`, `game_over`, `seeking`)", results.message_us),
    ]
    return markdown_table(
        f"Core benchmark ({results.plays:,} plays, {results.races:,} races; no store)",
        ("call", "mean"),
        [(name, f"{value:,.1f} µs") for name, value in rows],
    )


def main(argv: Sequence[str] | None = None) -> int:
    return report_main(
        argv,
        prog="python -m bench.core",
        description="Time the lobby and race cores' calls by hand, without sockets or store.",
        quick="fewer players and plays",
        measure=measure,
        table=table,
    )


if __name__ == "__main__":
    raise SystemExit(main())
