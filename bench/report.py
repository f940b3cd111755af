"""The load benchmark's report: the Markdown tables, the chart and the summary.

Everything is a ratio to the ``websockets`` echo measured in the same run at the
same load and on the same loop: absolute figures move with the machine and
with whatever else it runs, the ratio much less.
"""

from __future__ import annotations

import os
import platform
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .run import Sample

__all__ = ["lockstep_table", "machine", "summary", "throughput_table", "write"]


def _find(samples: Sequence[Sample], server: str, loop: str, n: int) -> dict[str, Any]:
    for sample in samples:
        if (sample.server, sample.loop, sample.result["connections"]) == (server, loop, n):
            return sample.result
    raise KeyError((server, loop, n))


def summary(samples: Sequence[Sample], n: int, loop: str = "asyncio") -> dict[str, Any]:
    """The last line of a run: the race server against the echo at ``n`` connections."""
    race, echo = _find(samples, "race", loop, n), _find(samples, "websockets", loop, n)
    picows = _find(samples, "picows", loop, n)
    return {
        "connections": n,
        "loop": loop,
        "race_rt_per_s": race["rt_per_s"],
        "echo_rt_per_s": echo["rt_per_s"],
        "picows_rt_per_s": picows["rt_per_s"],
        "ratio": round(race["rt_per_s"] / echo["rt_per_s"], 3),
        "round_ratios": _round_ratios(race, echo),
        "race_p50_ms": race["p50_ms"],
        "race_p99_ms": race["p99_ms"],
        "echo_p50_ms": echo["p50_ms"],
        "echo_p99_ms": echo["p99_ms"],
        "p99_ratio": round(race["p99_ms"] / echo["p99_ms"], 3),
        "race_cpu_us_per_rt": race["server_cpu_us_per_rt"],
        "echo_cpu_us_per_rt": echo["server_cpu_us_per_rt"],
        "race_errors": race["errors"],
    }


def _round_ratios(race: dict[str, Any], echo: dict[str, Any]) -> list[float]:
    """The race server over the echo in each round, the two runs taken side by side."""
    pairs = zip(race["rounds_rt_per_s"], echo["rounds_rt_per_s"], strict=True)
    return [round(mine / theirs, 3) for mine, theirs in pairs]


def _spread(ratios: Sequence[float]) -> str:
    return f" ({min(ratios):.2f}-{max(ratios):.2f})" if len(ratios) > 1 else ""


def throughput_table(samples: Sequence[Sample], loop: str, sizes: Sequence[int]) -> str:
    head = (
        "| connections | race rt/s | echo rt/s | picows rt/s | ratio (by round) "
        "| race p50 / p99 ms | echo p50 / p99 ms | p99 ratio | race CPU µs/rt | echo CPU µs/rt |\n"
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    rows = [head]
    for n in sizes:
        s = summary(samples, n, loop)
        rows.append(
            f"| {n:,} | {s['race_rt_per_s']:,.0f} | {s['echo_rt_per_s']:,.0f} "
            f"| {s['picows_rt_per_s']:,.0f} | **{s['ratio']:.2f}**{_spread(s['round_ratios'])} "
            f"| {s['race_p50_ms']:.1f} / {s['race_p99_ms']:.1f} "
            f"| {s['echo_p50_ms']:.1f} / {s['echo_p99_ms']:.1f} | {s['p99_ratio']:.2f} "
            f"| {s['race_cpu_us_per_rt']:.0f} | {s['echo_cpu_us_per_rt']:.0f} |"
        )
    return "\n".join(rows)


def generator_table(samples: Sequence[Sample]) -> str:
    rows = ["| server | loop | connections | rt/s | generator CPU |", "|---|---|---:|---:|---:|"]
    rows += [
        f"| {s.server} | {s.loop} | {s.result['connections']:,} | {s.result['rt_per_s']:,.0f} "
        f"| {s.result['generator_cpu_pct']:.0f}% |"
        for s in samples
    ]
    return "\n".join(rows)


def lockstep_table(staggered: Sequence[Sample], lockstep: Sequence[Sample], n: int) -> str:
    """The race server and the echo when every race starts (and so ends) at once."""
    rows = [
        "| races start | race rt/s | echo rt/s | ratio | race p99 ms | echo p99 ms | p99 ratio |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label, samples in (("over the warm-up", staggered), ("all at once", lockstep)):
        race, echo = (
            _find(samples, "race", "asyncio", n),
            _find(samples, "websockets", "asyncio", n),
        )
        rows.append(
            f"| {label} | {race['rt_per_s']:,.0f} | {echo['rt_per_s']:,.0f} "
            f"| **{race['rt_per_s'] / echo['rt_per_s']:.2f}** | {race['p99_ms']:.1f} "
            f"| {echo['p99_ms']:.1f} | {race['p99_ms'] / echo['p99_ms']:.2f} |"
        )
    return "\n".join(rows)


def memory_table(memory: dict[str, list[dict[str, Any]]]) -> str:
    rows = ["| server | connections | server RSS MiB | KiB per idle connection |"]
    rows.append("|---|---:|---:|---:|")
    for name, steps in memory.items():
        rows += [
            f"| {name} | {s['connections']:,} | {s['rss_mib']:.0f} "
            f"| **{s['per_connection_kib']:.1f}** |"
            for s in steps
        ]
    return "\n".join(rows)


def machine() -> str:
    """The CPU, the core count and the versions that the figures depend on."""
    cpu = "unknown CPU"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    return (
        f"{cpu}, {os.cpu_count()} cores; "
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"websockets {version('websockets')}, pydantic {version('pydantic')}, "
        f"picows {version('picows')}, uvloop {version('uvloop')}"
    )


def chart(samples: Sequence[Sample], sizes: Sequence[int], path: Path) -> None:
    """Round trips per second by connections: the three servers on each loop."""
    import matplotlib

    matplotlib.use("Agg")  # no display: write the file only
    import matplotlib.pyplot as plt

    loops = sorted({s.loop for s in samples}, key=["asyncio", "uvloop"].index)
    fig, axes = plt.subplots(1, len(loops), figsize=(5.5 * len(loops), 4), sharey=True)
    axes = [axes] if len(loops) == 1 else list(axes)
    width = 0.27
    for ax, loop in zip(axes, loops, strict=True):
        for offset, server in enumerate(("websockets", "race", "picows")):
            values = [_find(samples, server, loop, n)["rt_per_s"] for n in sizes]
            xs = [i + (offset - 1) * width for i in range(len(sizes))]
            ax.bar(xs, values, width, label=_LABELS[server])
        for i, n in enumerate(sizes):
            ratio = summary(samples, n, loop)["ratio"]
            race = _find(samples, "race", loop, n)["rt_per_s"]
            ax.annotate(f"{ratio:.2f}x", (i, race), ha="center", va="bottom", fontsize=8)
        ax.set_xticks(range(len(sizes)), [f"{n:,}" for n in sizes])
        ax.set_xlabel("connections")
        ax.set_title(f"{loop} loop")
    axes[0].set_ylabel("play round trips / s")
    axes[0].legend(fontsize=8)
    fig.suptitle("Race server vs raw websockets echo (ratio above the race bars)")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


_LABELS = {
    "websockets": "websockets echo",
    "race": "race server",
    "picows": "picows echo (generator check)",
}


def _head() -> list[str]:
    """The report's title, where it was measured, and how to read its figures."""
    return [
        "# Load benchmark",
        "",
        f"Measured by `make bench` on: {machine()}.",
        "Server pinned to core 0, generator to core 1; every figure of a table comes from",
        "the same run and the same generator. A round trip is one `play` and the",
        "mover's `played` (or one frame and its echo); each connection has one in flight.",
        "Each server's figure is its best of the runs taken in turns; the ratio is of",
        "those, and beside it in brackets the lowest and highest ratio of the two runs",
        "taken side by side in each round: how much the machine moved in between.",
        "",
        "![throughput](throughput.png)",
    ]


def write(
    samples: Sequence[Sample],
    lockstep: Sequence[Sample],
    memory: dict[str, list[dict[str, Any]]],
    sizes: Sequence[int],
    folder: Path,
) -> None:
    """``report.md`` and ``throughput.png`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    chart(samples, sizes, folder / "throughput.png")
    loops = sorted({s.loop for s in samples}, key=["asyncio", "uvloop"].index)
    parts = _head()
    for loop in loops:
        parts += ["", f"## Throughput and latency, {loop} loop", ""]
        parts.append(throughput_table(samples, loop, sizes))
    parts += ["", "## Every race at once, 1,000 connections, asyncio loop", ""]
    parts += [
        "The tables above start the races at staggered times over the warm-up, as",
        "players arrive at a real server. Here every race starts at the same moment, so",
        "all of them end, are written to the store and start again together, inside",
        "the window; the echo figures are its runs taken in turn with these.",
        "",
        lockstep_table(samples, lockstep, 1000),
    ]
    parts += ["", "## Memory per idle connection (asyncio loop)", "", memory_table(memory)]
    parts += ["", "## The generator is not the bottleneck", ""]
    parts.append("Its own CPU use over each window (100% is its whole core):")
    parts += ["", generator_table(samples), ""]
    (folder / "report.md").write_text("\n".join(parts))
