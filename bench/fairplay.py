"""Fair play, measured: ``python -m bench.fairplay [--races N] [--trials N] [--quick] [--jobs N]``.

Two bars (PROTOCOL.md, "Fair play"; docs/fair-play.md), held against the
rules of :mod:`core.fair_play` exactly as the race core applies them:

* **The server's bots are never flagged.** ``--races`` races (10,000 unless
  ``--quick``) at each level 1 to 5, both seats played by the server's bot
  policy through the race core on a hand-moved clock (no sockets), on
  winnable mirror deals. The race never judges a bot's seat, so each seat's
  timing is judged here by the same function. Reported: seats flagged (must be
  0), and how close the bots came to each threshold.
* **Programs are.** Scripted clients race the level-3 bot through the race
  core, ``--trials`` times three races each, over a simulated network (one-way
  latency 40 ms, plus a jitter per message drawn from an exponential of mean
  5 ms, in order as TCP delivers): their plays reach the race when they would
  reach a server. A client at the rate limit must be flagged in its first race,
  one that waits a fixed 250 ms after each card becomes playable within three;
  the others show what each rule catches, and what timing cannot.

The last line is the result as JSON, and the exit status says whether both
bars held; ``make bench`` runs it (about five minutes of one core at 10,000
races a level, split over ``--jobs`` processes; ``--quick``, under a minute).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import engine
from core.bot_policy import LEVELS, BotPolicy
from core.bots import BOT_NAMES, bot_id
from core.fair_play import judge
from core.race import Race, SeatInfo
from core.seeding import fresh_dealers
from protocol import RATE_PER_S, Rules

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.fair_play import Evidence

__all__ = ["CLIENTS", "BotRow", "ClientRow", "bot_races", "client_races", "main"]

RULES = Rules(deal="mirror", winnable_only=True)
IDLE, GRACE = 60.0, 30.0
OPPONENT = 3
"""The level of the bot the scripted clients race: a person's pace, 0.8 s a card."""
LATENCY = 0.040
"""One-way network latency, seconds."""
JITTER = 0.005
"""Mean of each message's extra delay (exponential), seconds."""

Schedule = list[tuple[float, engine.Card]]
"""A client's plays: each card and when it is sent, seconds after the client saw the deal."""


# -- the server's bots ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BotRow:
    """Bot races at one level: seats judged, flagged, and the bots' closest approach."""

    level: int
    races: int
    seats: int
    flagged: int
    most_fast: int
    fastest_ms: float
    least_reaction_spread: float
    least_gap_spread: float
    seconds: float


def bot_races(level: int, races: int, seed: int = 1) -> BotRow:
    """``races`` races of two bots at ``level``, driven by the race core's own deadlines."""
    began = time.perf_counter()
    rng = random.Random(seed * 100 + level)
    judged: list[Evidence] = []
    for _ in range(races):
        policies = (BotPolicy(level, _fork(rng)), BotPolicy(level, _fork(rng)))
        seats = (SeatInfo(bot_id(level), BOT_NAMES[level]), SeatInfo("twin", "Twin"))
        race = Race("g", seats, RULES, fresh_dealers(RULES, rng), idle_limit=IDLE, grace=GRACE,
                    bots=policies)  # fmt: skip
        race.start(0.0)
        while (due := race.next_deadline()) is not None:
            race.tick(due)
        judged += [judge(seat.timing) for seat in race.seats]
    reactions = [e.reaction_spread for e in judged if e.reaction_spread is not None]
    gaps = [e.gap_spread for e in judged if e.gap_spread is not None]
    return BotRow(
        level=level,
        races=races,
        seats=len(judged),
        flagged=sum(e.flagged for e in judged),
        most_fast=max(e.fast for e in judged),
        fastest_ms=round(1000 * min(e.fastest for e in judged if e.fastest is not None), 1),
        least_reaction_spread=round(min(reactions), 3),
        least_gap_spread=round(min(gaps), 3),
        seconds=round(time.perf_counter() - began, 1),
    )


def _fork(rng: random.Random) -> random.Random:
    return random.Random(rng.getrandbits(64))


# -- scripted clients -----------------------------------------------------------


def at_rate(board: engine.Board, rng: random.Random) -> Schedule:
    """Every card as fast as the rate limit allows: one each 1/``RATE_PER_S`` s, greedy order."""
    return [(k / RATE_PER_S, card) for k, card in enumerate(engine.greedy_plays(board))]


def after_playable(
    delay: Callable[[random.Random], float],
) -> Callable[[engine.Board, random.Random], Schedule]:
    """Each card ``delay`` after it became playable, the earliest due first."""

    def schedule(board: engine.Board, rng: random.Random) -> Schedule:
        due = {card: delay(rng) for card in board.legal_plays()}
        sent, out = 0.0, []
        while due:
            card = min(due, key=due.__getitem__)
            sent = max(sent, due.pop(card))
            board.play(card)
            for new in board.legal_plays():
                due.setdefault(new, sent + delay(rng))
            out.append((sent, card))
        return out

    return schedule


def every_gap(gap: float) -> Callable[[engine.Board, random.Random], Schedule]:
    """One card every ``gap`` seconds, whichever has waited longest."""

    def schedule(board: engine.Board, rng: random.Random) -> Schedule:
        since = dict.fromkeys(board.legal_plays(), 0.0)
        out: Schedule = []
        while since:
            card = min(since, key=since.__getitem__)
            del since[card]
            board.play(card)
            sent = gap * (len(out) + 1)
            for new in board.legal_plays():
                since.setdefault(new, sent)
            out.append((sent, card))
        return out

    return schedule


def bot_paced(level: int) -> Callable[[engine.Board, random.Random], Schedule]:
    """The server's bot policy at ``level``, run by a client of its own."""

    def schedule(board: engine.Board, rng: random.Random) -> Schedule:
        policy, sent, out = BotPolicy(level, rng), 0.0, []
        while (move := policy.next_move(board, idle_left=None, clock_left=None)) is not None:
            assert move.card is not None, "winnable mirror deals have no redeal"
            sent += move.delay
            board.play(move.card)
            out.append((sent, move.card))
        return out

    return schedule


CLIENTS: dict[str, Callable[[engine.Board, random.Random], Schedule]] = {
    "rate limit (50/s)": at_rate,
    "250 ms after playable": after_playable(lambda rng: 0.25),
    "250 ms, one card in 8 3.25 s": after_playable(
        lambda rng: 3.25 if rng.random() < 1 / 8 else 0.25
    ),
    "a card every 250 ms": every_gap(0.25),
    "100-400 ms after playable": after_playable(lambda rng: rng.uniform(0.1, 0.4)),
    "bot-paced, level 5": bot_paced(5),
}
"""The scripted clients, by the name the table gives them."""


def client_race(
    client: Callable[[engine.Board, random.Random], Schedule], rng: random.Random
) -> tuple[Evidence, float]:
    """One race of ``client`` (seat 0) against the level-3 bot: its evidence, and its CV."""
    opponent = SeatInfo(bot_id(OPPONENT), BOT_NAMES[OPPONENT])
    seats = (SeatInfo("p-client", "Client"), opponent)
    race = Race("g", seats, RULES, fresh_dealers(RULES, rng), idle_limit=IDLE, grace=GRACE,
                bots=(None, BotPolicy(OPPONENT, _fork(rng))))  # fmt: skip
    race.start(0.0)
    plays = client(race.boards()[0].copy(), rng)
    arrivals, last = [], 0.0
    for sent, card in plays:  # it saw the deal one latency in; TCP keeps the order
        last = max(last, LATENCY + sent + LATENCY + rng.expovariate(1 / JITTER))
        arrivals.append((last, card))
    for at, card in arrivals:
        while race.over is None and (due := race.next_deadline()) is not None and due < at:
            race.tick(due)
        if race.over is not None:
            break
        race.play(0, card, at)
    while race.over is None and (due := race.next_deadline()) is not None:
        race.tick(due)
    evidence = race.fair_play[0]
    assert evidence is not None, "a client's seat is always judged"
    reactions = race.seats[0].timing.reactions
    cv = (
        statistics.pstdev(reactions) / statistics.fmean(reactions)
        if len(reactions) > 1
        else math.nan
    )
    return evidence, cv


@dataclass(frozen=True, slots=True)
class ClientRow:
    """One scripted client over ``trials`` runs of three races each."""

    client: str
    trials: int
    first: float
    """Share of trials flagged in their first race."""
    within_three: float
    reasons: dict[str, int]
    """How many races each rule flagged."""
    median_fast: float
    least_fast: int
    median_reaction_spread: float | None
    median_gap_spread: float | None
    median_cv: float


def client_races(name: str, trials: int, seed: int = 1) -> ClientRow:
    """``trials`` runs of three races of the client ``name``."""
    rng = random.Random(seed * 1000 + sorted(CLIENTS).index(name))
    first = within = 0
    reasons: dict[str, int] = {}
    spreads: list[float] = []
    gaps: list[float] = []
    cvs: list[float] = []
    fast: list[int] = []
    for _ in range(trials):
        runs = [client_race(CLIENTS[name], rng) for _ in range(3)]
        first += runs[0][0].flagged
        within += any(evidence.flagged for evidence, _ in runs)
        for evidence, cv in runs:
            for reason in evidence.reasons:
                reasons[reason] = reasons.get(reason, 0) + 1
            spreads += [] if evidence.reaction_spread is None else [evidence.reaction_spread]
            gaps += [] if evidence.gap_spread is None else [evidence.gap_spread]
            cvs.append(cv)
            fast.append(evidence.fast)
    return ClientRow(
        client=name,
        trials=trials,
        first=first / trials,
        within_three=within / trials,
        reasons=reasons,
        median_fast=statistics.median(fast),
        least_fast=min(fast),
        median_reaction_spread=round(statistics.median(spreads), 3) if spreads else None,
        median_gap_spread=round(statistics.median(gaps), 3) if gaps else None,
        median_cv=round(statistics.median(cvs), 3),
    )


# -- the report -----------------------------------------------------------------


def bot_table(rows: list[BotRow]) -> str:
    head = "level   races   seats flagged most fast fastest  least spread: reactions  gaps  seconds"
    return "\n".join(
        [head]
        + [
            f"{r.level:>5} {r.races:>7} {r.seats:>7} {r.flagged:>7} {r.most_fast:>9}"
            f" {r.fastest_ms:>5.0f}ms {r.least_reaction_spread:>25.3f} {r.least_gap_spread:>5.3f}"
            f" {r.seconds:>8.0f}"
            for r in rows
        ]
    )


def client_table(rows: list[ClientRow]) -> str:
    head = (
        f"{'client':<30} trials race 1 within 3  fast (least)  spread: reactions  gaps"
        "    CV  reasons"
    )
    lines = [head]
    for r in rows:
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(r.reasons.items())) or "-"
        lines.append(
            f"{r.client:<30} {r.trials:>6} {r.first:>6.0%} {r.within_three:>8.0%}"
            f" {r.median_fast:>5.0f} {r.least_fast:>7} {_num(r.median_reaction_spread):>18}"
            f" {_num(r.median_gap_spread):>5} {r.median_cv:>5.2f}  {reasons}"
        )
    return "\n".join(lines)


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fairplay", description=__doc__)
    parser.add_argument("--races", type=int, default=10_000, help="bot races a level")
    parser.add_argument("--trials", type=int, default=200, help="three-race runs a client")
    parser.add_argument("--quick", action="store_true", help="1,000 races a level, 50 trials")
    parser.add_argument("--jobs", type=int, default=min(5, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    races, trials = (1_000, 50) if args.quick else (args.races, args.trials)
    began = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        bots = list(pool.map(bot_races, LEVELS, [races] * len(LEVELS), [args.seed] * len(LEVELS)))
        names = list(CLIENTS)
        clients = list(
            pool.map(client_races, names, [trials] * len(names), [args.seed] * len(names))
        )
    print(f"The server's bots, {races} races a level, both seats judged:")
    print(bot_table(bots))
    print(f"\nScripted clients against the level-{OPPONENT} bot, {trials} runs of three races:")
    print(client_table(clients))
    result: dict[str, Any] = {
        "bots": [asdict(row) for row in bots],
        "clients": [asdict(row) for row in clients],
        "bots_flagged": sum(row.flagged for row in bots),
        "seconds": round(time.perf_counter() - began, 1),
    }
    print(json.dumps(result))
    rate, fixed = clients[0], clients[1]
    ok = result["bots_flagged"] == 0 and rate.first == 1.0 and fixed.within_three == 1.0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
