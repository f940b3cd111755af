"""What the rules imply, measured: deal statistics with 95% confidence intervals.

:func:`measure` deals ``n`` random layouts and solves each one (no redeal; with
no redeal every deal that is not cleared ends stalled). It is pure: the seeds
are derived from its ``seed`` argument (deal ``i`` is ``deal(seed * 2**32 + i)``,
so seed 0 means seeds ``0, 1, 2, ...``), and progress is reported through a
callback. :func:`report` formats the result; ``python -m engine stats`` is the
command line over both.

Intervals: Wilson's score interval for proportions (it stays inside [0, 1] and
is honest at 0 successes, where the normal interval collapses to a point), the
normal interval for the mean. The tie rate, the chance that two independent
deals end with equal counts, is ``sum(p_k ** 2)`` over the final counts ``k``;
it is estimated over all pairs of deals (an unbiased U-statistic), with the
normal interval from its first-order variance ``4 (sum p^3 - (sum p^2)^2) / n``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .deal import deal
from .solver import final_count

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["ACES_BURIED", "DealStats", "Estimate", "measure", "report", "summarise", "wilson"]

ACES_BURIED = math.comb(30, 4) / math.comb(52, 4)
"""Exact share of deals with no play: all four Aces among the 30 covered bed cards."""

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile
SEED_STRIDE = 2**32  # deal i of a run with seed s uses seed s * SEED_STRIDE + i


@dataclass(frozen=True, slots=True)
class Estimate:
    """A measured value with its 95% confidence interval."""

    value: float
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class DealStats:
    """The results of :func:`measure`."""

    deals: int
    seed: int
    histogram: tuple[int, ...]
    """``histogram[k]``: how many deals had final count ``k`` (0 to 52)."""
    cleared: Estimate
    no_play: Estimate
    mean_count: Estimate
    median_count: int
    tie: Estimate
    """Chance that two independent deals end with equal final counts."""
    stalled_tie: Estimate
    """The same, given that both deals stall (neither is cleared)."""


def wilson(successes: int, trials: int, z: float = Z95) -> Estimate:
    """The share ``successes / trials`` with its Wilson score interval."""
    if trials <= 0:
        raise ValueError("a proportion needs at least one trial")
    p = successes / trials
    z2n = z * z / trials
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / trials + z2n / trials / 4) / (1 + z2n)
    # The bounds are exact at the edges; clamping removes rounding noise there.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return Estimate(p, low, high)


def measure(
    deals: int, seed: int = 0, progress: Callable[[int, int], None] | None = None
) -> DealStats:
    """Deal and solve ``deals`` layouts; ``progress(done, deals)`` is called now and then."""
    if not 1 < deals <= SEED_STRIDE:
        raise ValueError(f"deals must be between 2 and {SEED_STRIDE}")
    if seed < 0:
        raise ValueError("seed must be at least 0")
    histogram = [0] * 53
    first = seed * SEED_STRIDE
    step = max(1, deals // 200)  # about 200 progress reports, whatever the size
    for start in range(0, deals, step):
        stop = min(deals, start + step)
        for i in range(first + start, first + stop):
            histogram[final_count(deal(i))] += 1
        if progress is not None:
            progress(stop, deals)
    return summarise(tuple(histogram), seed)


def summarise(histogram: tuple[int, ...], seed: int = 0) -> DealStats:
    """The statistics of a histogram of final counts (``histogram[k]``: deals with count k)."""
    if len(histogram) != 53:
        raise ValueError("a histogram has one entry for each count from 0 to 52")
    n = sum(histogram)
    stalled = histogram[:52]
    return DealStats(
        deals=n,
        seed=seed,
        histogram=histogram,
        cleared=wilson(histogram[52], n),
        no_play=wilson(histogram[0], n),
        mean_count=_mean(histogram),
        median_count=_median(histogram),
        tie=_tie_rate(histogram),
        stalled_tie=_tie_rate(stalled),
    )


def _mean(histogram: tuple[int, ...]) -> Estimate:
    n = sum(histogram)
    mean = sum(k * c for k, c in enumerate(histogram)) / n
    variance = sum(c * (k - mean) ** 2 for k, c in enumerate(histogram)) / (n - 1)
    half = Z95 * math.sqrt(variance / n)
    return Estimate(mean, mean - half, mean + half)


def _median(histogram: tuple[int, ...]) -> int:
    """The lower median."""
    seen, half = 0, (sum(histogram) + 1) // 2
    for k, c in enumerate(histogram):
        seen += c
        if seen >= half:
            return k
    raise ValueError("empty histogram")


def _tie_rate(histogram: tuple[int, ...]) -> Estimate:
    """Share of the pairs of distinct deals whose final counts are equal."""
    n = sum(histogram)
    if n < 2:
        return Estimate(math.nan, math.nan, math.nan)
    rate = sum(c * (c - 1) for c in histogram) / (n * (n - 1))
    p2 = sum((c / n) ** 2 for c in histogram)
    p3 = sum((c / n) ** 3 for c in histogram)
    half = Z95 * math.sqrt(max(0.0, 4 * (p3 - p2 * p2) / n))
    return Estimate(rate, max(0.0, rate - half), min(1.0, rate + half))


# -- formatting -----------------------------------------------------------------


def report(stats: DealStats, bar_width: int = 40) -> str:
    """The results as text: a summary with intervals, then the distribution."""
    n = stats.deals
    first = stats.seed * SEED_STRIDE
    lines = [
        f"{n:,} random deals (seeds {first:,} to {first + n - 1:,}), no redeal, 95% CIs",
        "",
        f"cleared             {_share(stats.cleared)}",
        f"mean final count    {_number(stats.mean_count, 3)}",
        f"median final count  {stats.median_count}",
        f"no play at all      {_share(stats.no_play)}",
        f"                    exact C(30,4)/C(52,4) = {ACES_BURIED:.5f}",
        f"equal final counts  {_share(stats.tie)}",
        "  (two independent deals; P(equal counts), all pairs of deals)",
        f"  both stalled      {_share(stats.stalled_tie)}",
        "  (the same among pairs where neither deal is cleared)",
        "",
        *_distribution(stats.histogram, bar_width),
    ]
    return "\n".join(lines)


def _distribution(histogram: tuple[int, ...], bar_width: int) -> list[str]:
    n = sum(histogram)
    top = max(histogram)
    lines = ["count    deals     share", "-----  -------  --------"]
    for k, c in enumerate(histogram):
        if c:
            # At least one mark for any count seen, so rare counts stay visible.
            bar = "#" * max(1, round(bar_width * c / top))
            lines.append(f"{k:5}  {c:7}  {100 * c / n:7.4f}%  {bar}")
    return lines


def _share(estimate: Estimate) -> str:
    """A proportion as ``"0.1012 (95% CI 0.1000 to 0.1025)"``."""
    value, low, high = (_sig(x) for x in (estimate.value, estimate.low, estimate.high))
    return f"{value} (95% CI {low} to {high})"


def _number(estimate: Estimate, places: int) -> str:
    return (
        f"{estimate.value:.{places}f} "
        f"(95% CI {estimate.low:.{places}f} to {estimate.high:.{places}f})"
    )


def _sig(x: float) -> str:
    """Four decimals, or two significant digits in short scientific notation when tiny."""
    if x == 0:
        return "0"
    if x >= 1e-3:
        return f"{x:.4f}"
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"
