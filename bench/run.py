"""The load benchmark: ``python -m bench.run [--quick]``.

Starts each server as a subprocess pinned to core 0 (``taskset -c 0``) and the
generator (:mod:`bench.loadgen`) as another pinned to core 1, so that they never
share a core. In the same run and with the same generator it measures:

- the raw ``websockets`` echo (the stack's physical limit, the reference),
- the picows echo (proof that the generator outruns the ``websockets`` echo),
- the race server,

at 100, 1,000 and 2,000 connections on the default asyncio loop, then on
uvloop; at 1,000 with every race started at once (``--lockstep``), so that
they all end and restart together; and resident memory per idle connection
at 1,000, 5,000 and 10,000 (:mod:`bench.memory`). It writes
``bench/results/report.md`` and ``bench/results/throughput.png`` and prints,
as its last line, one JSON object (the figures at 1,000 connections).

``--quick``: 1,000 connections, asyncio only, one short window each, no
memory: under a minute, and the report is not rewritten.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import raise_open_files

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

__all__ = ["Effort", "Sample", "main"]

RESULTS = Path(__file__).parent / "results"
SERVER_CORE, GENERATOR_CORE = "0", "1"
SERVERS = {
    "websockets": ("bench.echo_websockets", "echo"),
    "picows": ("bench.echo_picows", "echo"),
    "race": ("bench.race_server", "race"),
}


@dataclass(frozen=True, slots=True)
class Effort:
    connections: tuple[int, ...]
    loops: tuple[str, ...]
    warmup: float
    window: float
    repeat: int
    """Runs of each measurement; the one with the most round trips is kept (noise only slows)."""
    extras: bool
    """Measure every race at once and memory too."""


QUICK = Effort((1000,), ("asyncio",), warmup=1.5, window=3.0, repeat=1, extras=False)
FULL = Effort(
    (100, 1000, 2000), ("asyncio", "uvloop"), warmup=2.0, window=5.0, repeat=3, extras=True
)


@dataclass(frozen=True, slots=True)
class Sample:
    """One server measured at one load."""

    server: str
    loop: str
    result: dict[str, Any]


@contextlib.contextmanager
def server(kind: str, loop: str, scratch: Path) -> Iterator[tuple[int, int]]:
    """Run one server pinned to the server core; yield its (port, pid); stop it with SIGTERM."""
    module, _mode = SERVERS[kind]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = ["taskset", "-c", SERVER_CORE, sys.executable, "-m", module, "--port", str(port)]
    command += ["--loop", loop]
    if kind == "race":
        command += ["--db", str(scratch / f"race-{port}.sqlite3")]
    with open(scratch / f"{kind}-{port}.log", "wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=log)
        try:
            _wait_listening(port, process)
            yield port, process.pid
        finally:
            _stop(process)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, and SIGKILL if the server has not exited 15 s later.

    Every benchmark server takes the signal through ``on_signals``, which does
    not lose it when a thousand hang-ups fill asyncio's wake-up socket; the
    SIGKILL only keeps a broken server from hanging the run.
    """
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _wait_listening(port: int, process: subprocess.Popen[bytes], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


def _pinned(module: str, *args: str) -> dict[str, Any] | list[Any]:
    """Run a bench module on the generator core; its last line of output, as JSON."""
    command = ["taskset", "-c", GENERATOR_CORE, sys.executable, "-m", module, *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{module} failed:\n{done.stderr[-2000:]}")
    loaded: dict[str, Any] | list[Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def load(
    kinds: Sequence[str],
    loop: str,
    n: int,
    effort: Effort,
    scratch: Path,
    *,
    lockstep: bool = False,
) -> list[Sample]:
    """Each of ``kinds`` at one load: the best of ``effort.repeat`` runs, each on a fresh server.

    The servers take turns (A B C, A B C, ...) rather than repeating back to
    back: a slow spell of this shared machine then falls on every server's
    runs, not on one server's.
    """
    best: dict[str, dict[str, Any]] = {}
    rounds: dict[str, list[float]] = {kind: [] for kind in kinds}
    for _ in range(effort.repeat):
        for kind in kinds:
            result = _run(kind, loop, n, effort, scratch, lockstep=lockstep)
            rounds[kind].append(result["rt_per_s"])
            if kind not in best or result["rt_per_s"] > best[kind]["rt_per_s"]:
                best[kind] = result
            how = "lockstep" if lockstep else "spread"
            print(f"  {kind:10} {loop:7} {how:8} n={n:5}: {_line(result)}", file=sys.stderr)
    # Every round's figure too: runs taken side by side give the spread of the ratio.
    return [Sample(kind, loop, {**best[kind], "rounds_rt_per_s": rounds[kind]}) for kind in kinds]


def _run(
    kind: str, loop: str, n: int, effort: Effort, scratch: Path, *, lockstep: bool
) -> dict[str, Any]:
    """One run of the generator against a fresh server."""
    with server(kind, loop, scratch) as (port, pid):
        args = ["--url", f"ws://127.0.0.1:{port}/ws", "--mode", SERVERS[kind][1]]
        args += ["-n", str(n), "--warmup", str(effort.warmup), "--window", str(effort.window)]
        args += ["--server-pid", str(pid)]
        args += ["--lockstep"] if lockstep else []
        result = _pinned("bench.loadgen", *args)
    assert isinstance(result, dict)
    return result


def _line(result: dict[str, Any]) -> str:
    return (
        f"{result['rt_per_s']:9,.0f} rt/s  p50 {result['p50_ms']:6.2f} ms  "
        f"p99 {result['p99_ms']:6.2f} ms  cpu {result['server_cpu_us_per_rt']:6.1f} µs/rt  "
        f"generator {result['generator_cpu_pct']:4.0f}%  errors {result['errors']}"
    )


def memory(kind: str, scratch: Path, steps: Sequence[int]) -> list[Any]:
    """Memory per idle connection of one server at each of ``steps`` connections."""
    with server(kind, "asyncio", scratch) as (port, pid):
        args = ["--url", f"ws://127.0.0.1:{port}/ws", "--pid", str(pid)]
        args += ["--steps", ",".join(map(str, steps))]
        args += ["--hello"] if kind == "race" else []
        result = _pinned("bench.memory", *args)
    assert isinstance(result, list)
    print(f"  memory {kind}: {result}", file=sys.stderr)
    return result


def throughput(effort: Effort, scratch: Path) -> list[Sample]:
    """Every server at every load on every loop, the servers taking turns at each load."""
    samples = []
    for loop in effort.loops:
        for n in effort.connections:
            samples += load(list(SERVERS), loop, n, effort, scratch)
    return samples


def extras(effort: Effort, scratch: Path) -> tuple[list[Sample], dict[str, list[Any]]]:
    """Every race at once, and memory per idle connection."""
    pair = ("websockets", "race")
    lockstep = load(pair, "asyncio", 1000, effort, scratch, lockstep=True)
    steps = (1000, 5000, 10000)
    memories = {
        "race server": memory("race", scratch, steps),
        "websockets echo": memory("websockets", scratch, steps),
    }
    return lockstep, memories


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="1,000 connections only, < 60 s")
    args = parser.parse_args(argv)
    effort = QUICK if args.quick else FULL
    raise_open_files()  # the children inherit it
    from . import report

    with tempfile.TemporaryDirectory(prefix="bench-") as folder:
        scratch = Path(folder)
        samples = throughput(effort, scratch)
        if effort.extras:
            lockstep, memories = extras(effort, scratch)
            report.write(samples, lockstep, memories, effort.connections, RESULTS)
            print(f"wrote {RESULTS / 'report.md'}", file=sys.stderr)
    print(json.dumps(report.summary(samples, 1000)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
