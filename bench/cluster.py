"""The multi-worker benchmark: ``python -m bench.cluster [--quick]``.

It starts its own PostgreSQL (the server's default settings, in a temporary
folder: :mod:`bench.services`) and, for each measurement, a fresh database,
a fresh ``redis-server`` and fresh workers (``python -m server --redis ...
--db postgresql://...``), all on 127.0.0.1 and free ports, and stops them at
the end. Four measurements (bench/README.md, "Several workers"):

1. **Same worker or two.** Workers ``w1`` and ``w2`` on ports of their own.
   The generator (:mod:`bench.loadgen`, ``--pairing rooms``: each pair of
   players races each other for the whole run, :mod:`bench.room_pairs`)
   connects every player to ``w1`` ("same"), or the even players to ``w1``
   and the odd ones to ``w2`` ("cross": every race lives on ``w1``, and one
   of its players' socket is on ``w2``, proxied over Redis). Servers (both workers,
   Redis, PostgreSQL) on core 0, the generator on core 1, as bench/run.py.
   CPU per round trip of both workers together, of Redis and of PostgreSQL.
2. **``--workers 2`` against ``--workers 1``** on one port (the supervisor,
   ``SO_REUSEPORT``), both with Redis and PostgreSQL, players pairing by
   quick match. Nothing pinned: two workers can only use two cores if the
   generator shares them. The full run also pins every server to core 0.
3. **Memory per idle player** of one worker with ``--redis``
   (:mod:`bench.memory`'s method, 1,000 players that said hello); the full
   run also measures the same worker without ``--redis``, on PostgreSQL and
   on SQLite.
4. **Failover** (:mod:`bench.failover`): races owned by ``w2`` whose other
   player is on ``w1``; ``kill -9`` of ``w2``; for each race, the time until
   its player on ``w1``, back after the 1012 close, has its ``game_state``.

It prints the tables and, as its last line, one JSON object with every
figure; a full run also writes ``bench/results/cluster.md``. The servers are
started, stopped and read (``/metrics``, logs) by :mod:`bench.cluster_servers`,
the tables made by :mod:`bench.cluster_report`.
``--quick``: one short run of each at 400 players (memory too), 10 races
to fail over, under a minute; nothing is written.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import cluster_report, failover, services
from .cluster_servers import backing, complaints, scrape, server
from .common import raise_open_files
from .run import GENERATOR_CORE

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Effort", "main"]

RESULTS = Path(__file__).parent / "results"
CONNECTING = "20"
"""Handshakes (and so hellos) at once. A worker's Redis client (server/cluster/bus.py) has
redis-py's default pool, 100 connections that it does not wait for: a hundred
hellos at once (the generator's default) fail some with 1011."""


@dataclass(frozen=True, slots=True)
class Effort:
    connections: int
    warmup: float
    window: float
    repeat: int
    """Runs of each measurement, taking turns; the one with most round trips is kept."""
    repeat_pairs: int
    """The same, for measurement 1."""
    races: int
    """Races of the failover measurement."""
    extras: bool
    """Also: ``--workers`` with every server pinned, and memory without Redis; memory at
    1,000 idle players (else at ``connections``)."""


QUICK = Effort(400, warmup=1.0, window=2.0, repeat=1, repeat_pairs=1, races=10, extras=False)
FULL = Effort(1000, warmup=2.0, window=5.0, repeat=2, repeat_pairs=3, races=50, extras=True)


def generate(
    urls: Sequence[str],
    effort: Effort,
    servers: dict[str, int],
    others: dict[str, int],
    *,
    pairing: str,
    pinned: bool,
) -> dict[str, Any]:
    """One run of the load generator (on the generator core if ``pinned``); its result."""
    command = ["taskset", "-c", GENERATOR_CORE] if pinned else []
    command += [sys.executable, "-m", "bench.loadgen", "--mode", "race", "--pairing", pairing]
    for url in urls:
        command += ["--url", url]
    command += ["-n", str(effort.connections), "--warmup", str(effort.warmup)]
    command += ["--window", str(effort.window), "--connecting", CONNECTING]
    for name, pid in {**servers, **others}.items():
        command += ["--cpu-pid", f"{name}={pid}"]
        command += ["--server-pid", str(pid)] if name in servers else []
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"bench.loadgen failed:\n{done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def figures(
    result: dict[str, Any], metrics: dict[str, dict[str, float]], logs: Sequence[Path]
) -> dict[str, Any]:
    """A generator's result with the workers' counters and complaints: what the tables show."""
    rts = result["round_trips"]
    cpu = result["extra"]["cpu_s"]
    messages = sum(m["flowergarden_messages_received_total"] for m in metrics.values())
    plays = {name: m["flowergarden_plays_total"] for name, m in metrics.items()}
    sent = result["extra"]["frames_sent"]
    total = max(1.0, sum(plays.values()))
    per_rt = {name: round(seconds / rts * 1e6, 1) if rts else None for name, seconds in cpu.items()}
    errors: dict[str, int] = {}
    for m in metrics.values():
        for key, value in m.items():
            code = key.split('"')[1] if key.startswith("flowergarden_errors_sent_total{") else ""
            if value and code not in ("", "game_over"):  # game_over: a late play, no fault
                errors[code] = errors.get(code, 0) + int(value)
    return {
        "rt_per_s": result["rt_per_s"],
        "p50_ms": result["p50_ms"],
        "p99_ms": result["p99_ms"],
        "workers_cpu_us_per_rt": result["server_cpu_us_per_rt"],
        "cpu_us_per_rt": per_rt,
        "generator_cpu_pct": result["generator_cpu_pct"],
        "forwarded": round((messages - sent) / sent, 3) if sent else None,
        "plays_by_worker": {name: round(n / total, 3) for name, n in sorted(plays.items())},
        "races": result["races"],
        "errors": result["errors"],
        "errors_sent": errors,
        "complaints": complaints(logs, result["extra"]["window_ended_at"]),
        "unready": result["extra"]["unready_at_window"],
    }


def _best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    best = max(runs, key=lambda run: run["rt_per_s"])
    rounds = {"rounds_rt_per_s": [run["rt_per_s"] for run in runs]}
    rounds["rounds_cpu_us_per_rt"] = [run["workers_cpu_us_per_rt"] for run in runs]
    return best | rounds


def _log(what: str, run: dict[str, Any]) -> None:
    print(
        f"  {what:22} {run['rt_per_s']:8,.0f} rt/s  p50 {run['p50_ms']:7.2f} ms"
        f"  p99 {run['p99_ms']:7.2f} ms  workers {run['workers_cpu_us_per_rt']:6.1f} µs/rt"
        f"  {run['cpu_us_per_rt']}  forwarded {run['forwarded']}  errors {run['errors']}"
        f" {run['errors_sent']}  complaints {run['complaints']}",
        file=sys.stderr,
    )


def same_or_cross(effort: Effort, postgres: services.Service, scratch: Path) -> dict[str, Any]:
    """Measurement 1: every player on w1, or half on w1 and half on w2."""
    runs: dict[str, list[dict[str, Any]]] = {"same": [], "cross": []}
    for _ in range(effort.repeat_pairs):
        for kind, found in runs.items():
            with (
                backing(postgres, scratch, pinned=True) as back,
                server(back, "w1") as w1,
                server(back, "w2") as w2,
            ):
                urls = [w1.url] + ([w2.url] if kind == "cross" else [])
                others = {"redis": back.redis.pid, "postgres": back.postgres_pid}
                servers = {"w1": w1.pid, "w2": w2.pid}
                result = generate(urls, effort, servers, others, pairing="rooms", pinned=True)
                metrics = scrape(w1.port, {"w1"}) | scrape(w2.port, {"w2"})
            found.append(figures(result, metrics, [w1.log, w2.log]))
            _log(f"{kind} worker", found[-1])
    return {kind: _best(found) for kind, found in runs.items()}


def worker_counts(effort: Effort, postgres: services.Service, scratch: Path) -> dict[str, Any]:
    """Measurement 2: ``--workers 1`` and ``--workers 2`` on one port."""
    plans = [("1", 1, False, effort.repeat), ("2", 2, False, effort.repeat)]
    if effort.extras:
        plans += [("1 pinned", 1, True, 1), ("2 pinned", 2, True, 1)]
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label, *_ in plans}
    for round_ in range(max(repeat for *_, repeat in plans)):
        for label, workers, pinned, repeat in plans:
            if round_ >= repeat:
                continue
            with (
                backing(postgres, scratch, pinned=pinned) as back,
                server(back, "s", workers=workers) as running,
            ):
                others = {"redis": back.redis.pid, "postgres": back.postgres_pid}
                servers = {"workers": running.pid}
                result = generate(
                    [running.url], effort, servers, others, pairing="seek", pinned=pinned
                )
                names = {"s"} if workers == 1 else {"s-1", "s-2"}
                metrics = scrape(running.port, names)
            runs[label].append(figures(result, metrics, [running.log]))
            _log(f"--workers {label}", runs[label][-1])
    return {label: _best(found) for label, found in runs.items()}


def memory(effort: Effort, postgres: services.Service, scratch: Path) -> dict[str, Any]:
    """Measurement 3: RSS per idle player of one worker, with ``--redis`` (and without,
    on PostgreSQL and on SQLite, in a full run)."""
    found = {}
    plans = [("with --redis", True, False), ("without --redis", False, False)]
    plans += [("without --redis, on SQLite", False, True)]
    for label, redis, sqlite in plans[: 3 if effort.extras else 1]:
        with (
            backing(postgres, scratch, pinned=True) as back,
            server(back, "m1", redis=redis, sqlite=sqlite) as running,
        ):
            command = ["taskset", "-c", GENERATOR_CORE, sys.executable, "-m", "bench.memory"]
            idle = "1000" if effort.extras else str(effort.connections)
            command += ["--url", running.url, "--pid", str(running.pid), "--steps", idle]
            command += ["--hello"]
            command += ["--connecting", CONNECTING]
            done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=True)
        (step,) = json.loads(done.stdout.strip().splitlines()[-1])
        found[label] = step
        print(f"  memory {label}: {step}", file=sys.stderr)
    return found


def failing_over(effort: Effort, postgres: services.Service, scratch: Path) -> dict[str, Any]:
    """Measurement 4: kill -9 of the worker that owns the races (``repeat`` times)."""
    runs, taken = [], 0.0
    for _ in range(effort.repeat):
        with (
            backing(postgres, scratch, pinned=False) as back,
            server(back, "w1") as w1,
            server(back, "w2") as w2,
        ):
            kill = functools.partial(os.kill, w2.pid, signal.SIGKILL)
            runs.append(asyncio.run(failover.measure(w1.url, w2.url, effort.races, kill)))
            taken += scrape(w1.port, {"w1"})["w1"]["flowergarden_failovers_total"]
    found = failover.summary(runs) | {"failovers": taken}
    print(f"  failover: {found}", file=sys.stderr)
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cluster", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="one short run of each, < 60 s")
    args = parser.parse_args(argv)
    effort = QUICK if args.quick else FULL
    if (os.cpu_count() or 1) < 2:
        parser.error("the benchmark pins servers and generator to two cores")
    raise_open_files()  # the children inherit it
    began = time.monotonic()
    with (
        tempfile.TemporaryDirectory(prefix="bench-cluster-") as folder,
        services.postgres(services.postgres_bindir()) as postgres,
    ):
        scratch = Path(folder)
        report: dict[str, Any] = {"connections": effort.connections, "quick": args.quick}
        report["postgres"] = postgres.settings
        report["same_or_cross"] = same_or_cross(effort, postgres, scratch)
        report["workers"] = worker_counts(effort, postgres, scratch)
        report["memory"] = memory(effort, postgres, scratch)
        report["failover"] = failing_over(effort, postgres, scratch)
        report["redis"] = services.redis_version()
    report["seconds"] = round(time.monotonic() - began, 1)
    tables = cluster_report.tables(report, effort.window)
    print(tables)
    if not args.quick:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "cluster.md").write_text(cluster_report.markdown(tables))
        print(f"wrote {RESULTS / 'cluster.md'}", file=sys.stderr)
    print(json.dumps(cluster_report.summary(report)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
