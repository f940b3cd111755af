"""The tables, report and JSON summary of the multi-worker benchmark (:mod:`bench.cluster`)."""

from __future__ import annotations

from typing import Any

__all__ = ["markdown", "summary", "tables"]

COMMAND = "python -m bench.cluster"
_MMM = ("min", "median", "max")
LOAD_HEAD = [
    "",
    "round trips/s (each run)",
    "p50 ms",
    "p99 ms",
    "workers µs/rt (each run)",
    "Redis µs/rt",
    "PostgreSQL µs/rt",
    "generator CPU",
    "messages forwarded",
    "plays decided by",
    "errors",
    "refused",
    "warnings",
]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(head: list[str], rows: list[list[str]]) -> str:
    lines = [_row(head), _row(["---"] * len(head))]
    return "\n".join(lines + [_row(row) for row in rows])


def _us(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def _load_row(label: str, run: dict[str, Any]) -> list[str]:
    cpu = run["cpu_us_per_rt"]
    rounds = ", ".join(f"{value:,.0f}" for value in run["rounds_rt_per_s"])
    cpus = ", ".join(f"{value:.0f}" for value in run["rounds_cpu_us_per_rt"])
    plays = ", ".join(f"{name} {_pct(share)}" for name, share in run["plays_by_worker"].items())
    return [
        label,
        f"{run['rt_per_s']:,.0f} ({rounds})",
        f"{run['p50_ms']:.1f}",
        f"{run['p99_ms']:.1f}",
        f"{_us(run['workers_cpu_us_per_rt'])} ({cpus})",
        _us(cpu.get("redis")),
        _us(cpu.get("postgres")),
        f"{run['generator_cpu_pct']:.0f}%",
        _pct(run["forwarded"]),
        plays,
        str(run["errors"]),
        ", ".join(f"{code} {count}" for code, count in run["errors_sent"].items()) or "-",
        str(sum(run["complaints"].values())),
    ]


def _notes(runs: list[dict[str, Any]]) -> str:
    """What the workers logged (WARNING, ERROR) up to the end of the kept windows."""
    seen: dict[str, int] = {}
    for run in runs:
        for what, count in run["complaints"].items():
            seen[what] = seen.get(what, 0) + count
    lines = [
        f"- {count} times: `{what}`" for what, count in sorted(seen.items(), key=lambda i: -i[1])
    ]
    if unready := sum(run["unready"] for run in runs):
        lines.append(f"- {unready} players were not yet in a race when a window began")
    if not lines:
        return "The workers logged nothing at WARNING or above up to the end of these windows."
    return "Logged by the workers up to the end of these windows:\n\n" + "\n".join(lines)


def tables(report: dict[str, Any], window: float) -> str:
    """Every table, in Markdown (which reads as plain text too)."""
    pairs, counts = report["same_or_cross"], report["workers"]
    return "\n\n".join(
        [
            f"## Several workers (`{COMMAND}{' --quick' if report['quick'] else ''}`)",
            _setup(report, window),
            *_same_or_cross(pairs),
            *_worker_counts(counts, pairs["cross"]["forwarded"]),
            "### 3. Memory per idle player",
            _memory(report["memory"]),
            *_failover(report["failover"]),
        ]
    )


def _setup(report: dict[str, Any], window: float) -> str:
    pg = report["postgres"]
    return (
        f"{report['connections']:,} players; windows of {window:g} s after a warm-up. "
        f"PostgreSQL {pg['server_version']} with its default settings (fsync={pg['fsync']}, "
        f"synchronous_commit={pg['synchronous_commit']}, full_page_writes="
        f"{pg['full_page_writes']}, shared_buffers={pg['shared_buffers']}), its data in a "
        f"temporary folder on this machine's disk; Redis {report['redis']}, nothing saved. "
        "Every measurement has a fresh database, Redis and workers."
    )


def _same_or_cross(pairs: dict[str, Any]) -> list[str]:
    """Measurement 1: its heading, what it shows, its table and what to read in it."""
    same = _table(
        LOAD_HEAD,
        [
            _load_row("same worker: every player on w1", pairs["same"]),
            _load_row("cross: one player of each race on w1, one on w2", pairs["cross"]),
        ],
    )
    ratio = pairs["cross"]["workers_cpu_us_per_rt"] / pairs["same"]["workers_cpu_us_per_rt"]
    rounds = (pairs["cross"]["rounds_cpu_us_per_rt"], pairs["same"]["rounds_cpu_us_per_rt"])
    ratios = ", ".join(f"{cross / same:.2f}" for cross, same in zip(*rounds, strict=True))
    return [
        "### 1. A race's players on one worker or on two",
        "Workers w1 and w2 on ports of their own; each pair of players races each other "
        "for the whole run (a room, then rematches). Servers (both workers, Redis, "
        "PostgreSQL) pinned to core 0, the generator to core 1. Workers µs/rt: both "
        "workers' CPU time over the window's round trips; Redis and PostgreSQL apart. "
        "Messages forwarded: of those the generator sent, the share that a worker "
        "passed on to another (the proxied player's). Refused: errors the workers sent "
        "(a join that reached w2 before the room was listed in Redis, tried again). "
        "Warnings: lines the workers logged at WARNING or above up to the window's end.",
        same,
        f"Cross-worker races cost the workers {ratio:.2f} times the CPU per round trip "
        f"of same-worker races (the runs of each round side by side: {ratios}). Every "
        "race of the cross rows had one player on each worker: all plays were decided "
        "on w1, and w2's players' messages were forwarded.",
        _notes([pairs["same"], pairs["cross"]]),
    ]


def _worker_counts(counts: dict[str, Any], share: float | None) -> list[str]:
    """Measurement 2; ``share``: the messages forwarded in measurement 1's cross races."""
    crossing = ", ".join(
        f"--workers {label} {run['forwarded'] / share * 100 if share else 0:.1f}%"
        for label, run in counts.items()
        if " " not in label
    )
    return [
        "### 2. `--workers 2` against `--workers 1`, one port",
        "Supervisor, SO_REUSEPORT, Redis and PostgreSQL in both; quick match. Unpinned "
        "rows: nothing pinned, the generator shares both cores with the servers. "
        "Pinned rows: every server on core 0, the generator on core 1.",
        _table(LOAD_HEAD, [_load_row(f"--workers {k}", run) for k, run in counts.items()]),
        "Races that crossed workers, estimated as the share of messages forwarded over "
        f"the share of a cross race's (measurement 1, {_pct(share)}): {crossing}.",
        _notes(list(counts.values())),
    ]


def _memory(memory: dict[str, Any]) -> str:
    return _table(
        ["one worker", "idle players", "RSS MiB", "KiB per idle player"],
        [
            [
                label,
                f"{step['connections']:,}",
                f"{step['rss_mib']:.1f}",
                f"{step['per_connection_kib']:.2f}",
            ]
            for label, step in memory.items()
        ],
    )


def _failover(fail: dict[str, Any]) -> list[str]:
    table = _table(
        ["from the kill -9 to", "min s", "median s", "max s"],
        [
            ["the socket on w1 closed", *(f"{fail[f'closed_{k}_s']:.2f}" for k in _MMM)],
            ["game_state on the new socket", *(f"{fail[f'state_{k}_s']:.2f}" for k in _MMM)],
        ],
    )
    codes = ", ".join(f"{code}: {count}" for code, count in fail["close_codes"].items())
    medians = ", ".join(f"{median:.2f}" for median in fail["run_medians_s"])
    return [
        f"### 4. Failover: races owned by w2, the other player on w1 ({fail['races']} in all)",
        f"{fail['runs']} run(s) of {fail['races'] // fail['runs']} races; kill -9 of w2 "
        f"after {fail['plays_each']} acknowledged plays in each race. Close codes on w1: "
        f"{codes}; races whose game_state held every acknowledged play: {fail['whole']} "
        f"of {fail['races']}; races w1 took over: {fail['failovers']:.0f}. Each run's "
        f"median: {medians} s.",
        table,
    ]


def markdown(tables: str) -> str:
    return (
        "# The multi-worker benchmark\n\n"
        f"Written by `{COMMAND}` (`make bench-cluster`); bench/README.md, "
        '"Several workers", says how to read it.\n\n' + tables + "\n"
    )


def summary(report: dict[str, Any]) -> dict[str, Any]:
    """The figures, flat, for the last line of output."""
    pairs, counts, fail = report["same_or_cross"], report["workers"], report["failover"]
    out: dict[str, Any] = {"connections": report["connections"]}
    for kind in ("same", "cross"):
        run = pairs[kind]
        out |= {
            f"{kind}_rt_per_s": run["rt_per_s"],
            f"{kind}_p50_ms": run["p50_ms"],
            f"{kind}_p99_ms": run["p99_ms"],
            f"{kind}_workers_cpu_us_per_rt": run["workers_cpu_us_per_rt"],
            f"{kind}_redis_cpu_us_per_rt": run["cpu_us_per_rt"].get("redis"),
            f"{kind}_postgres_cpu_us_per_rt": run["cpu_us_per_rt"].get("postgres"),
            f"{kind}_forwarded": run["forwarded"],
        }
    for label, run in counts.items():
        key = "workers" + label.replace(" ", "_")
        out |= {
            f"{key}_rt_per_s": run["rt_per_s"],
            f"{key}_p50_ms": run["p50_ms"],
            f"{key}_p99_ms": run["p99_ms"],
            f"{key}_cpu_us_per_rt": run["workers_cpu_us_per_rt"],
            f"{key}_generator_cpu_pct": run["generator_cpu_pct"],
            f"{key}_forwarded": run["forwarded"],
        }
    for label, step in report["memory"].items():
        names = {"with --redis": "redis", "without --redis": "no_redis"}
        out["memory_kib_" + names.get(label, "no_redis_sqlite")] = step["per_connection_kib"]
    out |= {f"failover_{k}_s": fail[f"state_{k}_s"] for k in _MMM}
    out |= {"failover_races": fail["races"], "failover_whole": fail["whole"]}
    runs = [*pairs.values(), *counts.values()]
    out["warnings"] = sum(sum(run["complaints"].values()) for run in runs)
    out["postgres"] = report["postgres"]
    out["seconds"] = report["seconds"]
    return out
