"""``make chaos``: several workers under every fault, while races run: ``python -m bench.chaos``.

It starts a PostgreSQL and a Redis of its own (the tests' modules:
tests/services.py, tests/redis_service.py), a fresh database, and three
workers (``python -m server``, as the supervisor starts them, each reaching
Redis through a proxy the run can cut: :mod:`bench.chaos_faults`). About
``--races`` races run at once for the whole run: twice as many racers
(:mod:`bench.chaos_racers`), each on quick match, playing at a human pace,
seeking again after each race, coming back after every drop.

Once the races are under way, ``--each`` faults of every kind, shuffled and
spread over the run, one at a time: a worker SIGSTOPped 6 to 8 s (past the
3 s lease) then SIGCONTed; a worker killed (``kill -9``) and started again
0.5 s later under its name; a worker cut off from Redis 4 to 8 s; Redis
restarted empty; PostgreSQL stopped 10 s (``pg_ctl stop -m fast``). The
victim of each worker fault is drawn at random. After each fault the checker
(:mod:`bench.chaos_check`) holds every frame told so far against the store;
at the end the racers finish their races, and it checks everything again,
every race included.

The report (a table, also written to ``bench/results/chaos.md`` by a full
run) gives the races, what the checker found, the recovery after each kill
(:func:`bench.chaos_faults.recovery`), and the faults done; the last line
is one JSON object. ``--quick``: 20 races, one fault of each kind, nothing
written. ``--kinds kill,stop`` does only those faults, to study them; such a
run writes no file either.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests import services
from tests.redis_service import RedisServer, redis_binary

from . import chaos_report
from .chaos_backing import PostgresControl
from .chaos_crowd import Crowd
from .chaos_faults import KINDS, Fault, Harness
from .chaos_racers import Pace, Racer
from .common import raise_open_files

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .chaos_workers import Worker

__all__ = ["Plan", "main"]

RESULTS = Path(__file__).parent / "results"
HUMAN = Pace(0.25, 0.6)
"""Seconds a racer thinks before each card: a person's pace, about 20 s a race."""


@dataclass(frozen=True, slots=True)
class Plan:
    races: int
    """Races at once: twice as many racers."""
    each: int
    """Faults of every kind."""
    seed: int
    stop_s: tuple[float, float] = (6.0, 8.0)
    cut_s: tuple[float, float] = (4.0, 8.0)
    postgres_s: float = 10.0
    kinds: tuple[str, ...] = KINDS
    """The kinds of fault to do (``--kinds``): every kind unless narrowed to study one."""
    gap_s: tuple[float, float] = (2.0, 5.0)
    """Seconds between the end of one fault and the start of the next."""
    pace: Pace = HUMAN
    wander: float = 0.3
    """The chance that a racer, its race over, leaves and comes back on any worker."""
    settle_s: float = 180.0
    """Seconds the racers have, once asked to stop, to see their races end."""


def schedule(plan: Plan, rng: random.Random) -> list[str]:
    """Every fault of the run, ``plan.each`` of each kind, in a random order."""
    kinds = [kind for kind in plan.kinds for _ in range(plan.each)]
    rng.shuffle(kinds)
    return kinds


async def one_fault(
    harness: Harness,
    kind: str,
    *,
    victim: Worker,
    racers: list[Racer],
    plan: Plan,
    rng: random.Random,
) -> Fault:
    """Do one fault of ``kind`` (to ``victim``, for a worker's)."""
    if kind == "stop":
        return await harness.stop_worker(victim, rng.uniform(*plan.stop_s), racers)
    if kind == "kill":
        return await harness.kill_worker(victim, racers)
    if kind == "cut":
        return await harness.cut_redis(victim, rng.uniform(*plan.cut_s), racers)
    if kind == "redis":
        return await harness.restart_redis(racers)
    return await harness.stop_postgres(plan.postgres_s, racers)


async def run(plan: Plan, harness: Harness) -> dict[str, Any]:
    """The races and every fault of ``plan`` on ``harness``'s workers; what the report needs."""
    rng = random.Random(plan.seed)
    crowd = Crowd()
    for index in range(2 * plan.races):
        racer = Racer(
            f"c{index}", harness.workers, pace=plan.pace, races=None,
            seed=plan.seed + index, news=crowd.news, wander=plan.wander,
        )  # fmt: skip
        crowd.add(racer)
    racers = crowd.racers

    def racing() -> int:
        return sum(racer.racing is not None for racer in racers)

    await crowd.until(lambda: racing() >= 1.6 * plan.races, 120, "the races under way")
    began = time.monotonic()
    for number, kind in enumerate(schedule(plan, rng), 1):
        victim = rng.choice(harness.workers)
        fault = await one_fault(harness, kind, victim=victim, racers=racers, plan=plan, rng=rng)
        fault.verdict = await harness.check(racers, final=False)
        print(chaos_report.progress(number, fault, racing()), file=sys.stderr)
        await asyncio.sleep(rng.uniform(*plan.gap_s))  # the schedule's spacing, not a wait
    faulted = time.monotonic() - began
    crowd.stop()
    cut = await crowd.finish(plan.settle_s)
    verdict = await harness.check(racers, final=True)
    return {
        "plan": plan,
        "faulted_s": faulted,
        "faults": harness.faults,
        "verdict": verdict,
        "racers": racers,
        "cut": [racer.name for racer in cut],
        "logs": [worker.log_path for worker in harness.workers],
    }


async def _with_workers(
    plan: Plan, db: str, redis: RedisServer, pg: PostgresControl, logs: Path | None
) -> Any:
    with tempfile.TemporaryDirectory(prefix="bench-chaos-") as scratch:
        folder = logs or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        harness = Harness(db=db, redis_server=redis, postgres=pg, logs=folder)
        try:
            await harness.start()
            found = await run(plan, harness)
        finally:
            await harness.close()
        found["complaints"] = chaos_report.complaints(found.pop("logs"))
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.chaos", description=__doc__)
    parser.add_argument("--races", type=int, default=50, help="races at once (default 50)")
    parser.add_argument("--each", type=int, default=10, help="faults of each kind (default 10)")
    parser.add_argument("--seed", type=int, default=None, help="the run's seed (default: drawn)")
    parser.add_argument("--quick", action="store_true", help="20 races, one fault each; no file")
    parser.add_argument("--logs", type=Path, default=None, help="keep the workers' logs here")
    parser.add_argument(
        "--dump", type=Path, default=None, help="write every racer's frames here (JSON lines)"
    )
    parser.add_argument(
        "--kinds",
        default=",".join(KINDS),
        help=f"the faults to do, by name, comma-separated (default: all, {','.join(KINDS)})",
    )
    args = parser.parse_args(argv)
    kinds = tuple(kind for kind in args.kinds.split(",") if kind)
    if not kinds or not set(kinds) <= set(KINDS):
        parser.error(f"--kinds: choose among {', '.join(KINDS)}")
    seed = secrets.randbelow(2**31) if args.seed is None else args.seed
    races, each = (20, 1) if args.quick else (args.races, args.each)
    plan = Plan(races=races, each=each, seed=seed, kinds=kinds)
    bindir, binary = services.postgres_bindir(), redis_binary()
    if bindir is None or binary is None:
        parser.error("PostgreSQL and Redis must be installed: make services")
    raise_open_files()
    print(f"chaos: {races} races at once, {each} faults of each kind, seed {seed}", file=sys.stderr)
    began = time.monotonic()
    with services.running_postgres(bindir) as admin:
        pg = PostgresControl(admin, bindir)  # the run stops it and starts it again
        redis = RedisServer(binary)
        redis.start()
        try:
            with services.fresh_database(admin) as db:
                found = asyncio.run(_with_workers(plan, db, redis, pg, args.logs))
        finally:
            redis.stop()
            pg.close()
    found["seconds"] = time.monotonic() - began
    if args.dump is not None:
        chaos_report.dump(found["racers"], found["faults"], args.dump)
    tables = chaos_report.tables(found)
    print(tables)
    if not args.quick and kinds == KINDS:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "chaos.md").write_text(chaos_report.markdown(tables))
        print(f"wrote {RESULTS / 'chaos.md'}", file=sys.stderr)
    print(json.dumps(chaos_report.summary(found)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
