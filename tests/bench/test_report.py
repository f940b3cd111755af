"""The load benchmark's report: ratios and their spread over the rounds."""

from __future__ import annotations

from bench.report import summary, throughput_table
from bench.run import Sample


def result(n: int, rounds: list[float]) -> dict[str, object]:
    return {
        "connections": n,
        "rt_per_s": max(rounds),
        "rounds_rt_per_s": rounds,
        "p50_ms": 10.0,
        "p99_ms": 20.0,
        "server_cpu_us_per_rt": 50.0,
        "errors": 0,
    }


SAMPLES = [
    Sample("race", "asyncio", result(1000, [7_000.0, 9_000.0, 8_000.0])),
    Sample("websockets", "asyncio", result(1000, [10_000.0, 12_000.0, 16_000.0])),
    Sample("picows", "asyncio", result(1000, [40_000.0])),
]


def test_the_ratio_is_of_the_best_runs_and_each_round_is_paired() -> None:
    figures = summary(SAMPLES, 1000)
    assert figures["ratio"] == 0.562  # 9,000 / 16,000
    assert figures["round_ratios"] == [0.7, 0.75, 0.5]


def test_the_table_shows_the_spread_of_the_rounds() -> None:
    table = throughput_table(SAMPLES, "asyncio", [1000])
    assert "| **0.56** (0.50-0.75) |" in table
