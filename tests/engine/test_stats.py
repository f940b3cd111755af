"""engine.stats and ``python -m engine``: the measured figures and their intervals."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from engine import final_count
from engine.__main__ import main
from engine.deal import deal
from engine.stats import ACES_BURIED, DealStats, Estimate, measure, report, summarise, wilson


def test_wilson_matches_a_textbook_value() -> None:
    # 10 successes in 100 trials: 95% Wilson interval 0.0552 to 0.1744.
    estimate = wilson(10, 100)
    assert estimate.value == 0.1
    assert round(estimate.low, 4) == 0.0552
    assert round(estimate.high, 4) == 0.1744


def test_wilson_at_the_edges() -> None:
    none = wilson(0, 200_000)
    assert none.value == none.low == 0
    assert math.isclose(none.high, 1.959963984540054**2 / (200_000 + 1.959963984540054**2))
    every = wilson(50, 50)
    assert every.value == every.high == 1
    assert 0.9 < every.low < 1
    with pytest.raises(ValueError):
        wilson(0, 0)


def test_wilson_is_symmetric() -> None:
    low, high = wilson(3, 40), wilson(37, 40)
    assert math.isclose(low.low, 1 - high.high)
    assert math.isclose(low.high, 1 - high.low)


def test_measure_counts_every_deal_and_reports_progress() -> None:
    calls: list[tuple[int, int]] = []
    stats = measure(1_000, progress=lambda done, total: calls.append((done, total)))
    counts = [final_count(deal(seed)) for seed in range(1_000)]  # seed 0: deals 0, 1, 2, ...
    assert isinstance(stats, DealStats)
    assert stats.deals == sum(stats.histogram) == 1_000
    assert list(stats.histogram) == [counts.count(k) for k in range(53)]
    assert stats.no_play.value == counts.count(0) / 1_000
    assert stats.cleared.value == 0 and stats.cleared.low == 0
    assert math.isclose(stats.mean_count.value, sum(counts) / 1_000)
    assert stats.median_count == sorted(counts)[499]
    assert calls[-1] == (1_000, 1_000)
    assert [done for done, _ in calls] == sorted({done for done, _ in calls})


def test_another_seed_gives_other_deals() -> None:
    assert measure(200, seed=1).histogram != measure(200, seed=0).histogram
    assert measure(200, seed=1) == measure(200, seed=1)


def test_every_interval_holds_its_estimate() -> None:
    stats = measure(500)
    for estimate in (stats.cleared, stats.no_play, stats.mean_count, stats.tie, stats.stalled_tie):
        assert estimate.low <= estimate.value <= estimate.high


def test_tie_rate_over_all_pairs() -> None:
    one_count = summarise((0, 0, 7) + (0,) * 50)
    assert one_count.tie.value == 1
    halves = summarise((3, 3) + (0,) * 51)
    assert halves.tie.value == (3 * 2 + 3 * 2) / (6 * 5)  # 12 of the 30 ordered pairs
    with_a_clear = summarise((3, 3) + (0,) * 50 + (1,))
    assert with_a_clear.stalled_tie.value == halves.tie.value
    assert with_a_clear.tie.value == 12 / (7 * 6)


def test_report_shows_a_zero_clear_rate_with_its_bound() -> None:
    histogram = (20_000, 40_000, 60_000, 50_000, 30_000) + (0,) * 48
    text = report(summarise(histogram))
    assert "cleared             0 (95% CI 0 to 1.9e-5)" in text
    assert f"exact C(30,4)/C(52,4) = {ACES_BURIED:.5f}" in text
    assert "200,000 random deals (seeds 0 to 199,999)" in text
    assert "    2    60000  30.0000%  " + "#" * 40 in text


def test_summarise_wants_the_whole_histogram() -> None:
    with pytest.raises(ValueError):
        summarise((1, 2, 3))


def test_estimates_are_values() -> None:
    assert Estimate(1.0, 0.5, 1.5) == Estimate(1.0, 0.5, 1.5)


def test_the_command_prints_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--deals", "300", "--seed", "2"]) == 0
    out, err = capsys.readouterr()
    assert out == report(measure(300, seed=2)) + "\n"
    assert "300 deals in" in err
    assert "\r" not in err  # no progress bar: stderr is not a terminal


def test_the_command_draws_progress_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--deals", "400", "--progress"]) == 0
    _, err = capsys.readouterr()
    assert "\r[" in err and "100% 400/400" in err


@pytest.mark.parametrize("argv", [["stats", "--deals", "1"], ["stats", "--seed", "-1"], []])
def test_the_command_refuses_bad_arguments(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2


def test_help_works_from_the_command_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "engine", "--help"], capture_output=True, text=True, check=True
    )
    assert "stats" in result.stdout
