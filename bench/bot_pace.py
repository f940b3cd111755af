"""A bot's pace, measured: ``python -m bench.bot_pace [--level N] [--cards K] [--out FILE.svg]``.

Plays the bot's policy (:mod:`core.bot_policy`) alone on real deals, as many
as it takes to play ``--cards`` cards at every level: winnable layouts dealt
by PROTOCOL.md's algorithm (``engine.SeedDealer(seed).layout(True)``, what
mirror, winnable-only races deal), or classic ones with one redeal
(``--classic``). No clock and no idle limit: the policy's own gaps. Seeds and
the bot's ``random.Random`` are fixed (``--seed``), so a run gives the same
figures and the same picture every time.

Prints, per level, the mean, the standard deviation, the coefficient of
variation and a few percentiles of the gaps before each card, and whether the
mean is within ``docs/bots.md``'s tolerance of the target. ``--out`` writes an
SVG histogram of one level's gaps (hand-written SVG, no plotting library);
``docs/bot-pace-level3.svg`` is ``--level 3 --out docs/bot-pace-level3.svg``.
``--calibrate`` prints the mean search effort per card, the figure
``core.bot_policy.MEAN_EFFORT`` is set to.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import engine
from core.bot_policy import LEVELS, MEAN_EFFORT, PACES, BotPolicy

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Gaps", "histogram_svg", "main", "play_deals"]

TOLERANCE = 0.10
"""How far a level's mean may be from its target, as a fraction (docs/bots.md)."""


@dataclass(frozen=True, slots=True)
class Gaps:
    """What a run measured at one level: the gap before each card, its effort, where it was."""

    level: int
    gaps: list[float]
    efforts: list[float]
    from_bed: list[bool]
    redeals: int


def deal_seed(number: int) -> bytes:
    """The 32-byte seed of deal ``number``: fixed, so that runs repeat."""
    return hashlib.sha256(f"bench.bot_pace {number}".encode()).digest()


def play_deals(level: int, cards: int, *, seed: int = 1, classic: bool = False) -> Gaps:
    """Deal after deal until the bot at ``level`` has played ``cards`` cards."""
    rng = random.Random(seed * 100 + level)  # each level its own draws
    gaps: list[float] = []
    efforts: list[float] = []
    from_bed: list[bool] = []
    redeals, number = 0, 0
    while len(gaps) < cards:
        dealer = engine.SeedDealer(deal_seed(number))
        number += 1
        board = engine.Board(dealer.layout(not classic), 1 if classic else 0)
        policy = BotPolicy(level, rng)
        while (move := policy.next_move(board, idle_left=None, clock_left=None)) is not None:
            if move.card is None:
                board.redeal(dealer.redeal)
                redeals += 1
                continue
            from_bed.append(board.where[move.card] != engine.BOUQUET)
            board.play(move.card)
            gaps.append(move.delay)
            efforts.append(move.effort)
    return Gaps(level, gaps[:cards], efforts[:cards], from_bed[:cards], redeals)


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """The value below which ``fraction`` of ``sorted_values`` lie (nearest rank)."""
    index = min(len(sorted_values) - 1, max(0, math.ceil(fraction * len(sorted_values)) - 1))
    return sorted_values[index]


def summary_row(run: Gaps) -> str:
    """One Markdown table row of a level's figures."""
    target = PACES[run.level].seconds
    mean, stdev = statistics.fmean(run.gaps), statistics.pstdev(run.gaps)
    ordered = sorted(run.gaps)
    p10, p50, p90 = (percentile(ordered, f) for f in (0.1, 0.5, 0.9))
    within = "yes" if abs(mean - target) <= TOLERANCE * target else "NO"
    return (
        f"| {run.level} | {target:.2f} | {mean:.3f} | {stdev:.3f} | {stdev / mean:.2f} "
        f"| {p10:.3f} | {p50:.3f} | {p90:.3f} | {within} |"
    )


# -- the picture ----------------------------------------------------------------

_W, _H = 720, 420
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 24, 64, 56
_PLOT_W, _PLOT_H = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM
_BASE = _TOP + _PLOT_H
_BOUQUET_FILL, _BED_FILL = "#6a9fd4", "#e0a040"


def _bins(gaps: Sequence[float], width: float, top: float) -> list[int]:
    """Counts of ``gaps`` in bins of ``width`` seconds from 0; the last takes all from ``top``."""
    count = round(top / width)
    bins = [0] * (count + 1)
    for gap in gaps:
        bins[min(count, int(gap / width))] += 1
    return bins


def _nice_step(span: float, ticks: int) -> float:
    """A round step (1, 2 or 5 times a power of ten) for about ``ticks`` ticks over ``span``."""
    raw = span / ticks
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _x_axis(x_of: float, top: float) -> list[str]:
    out = [f'<line x1="{_LEFT}" y1="{_BASE}" x2="{_LEFT + _PLOT_W}" y2="{_BASE}" stroke="#333"/>']
    step = _nice_step(top, 8)
    for k in range(int(top / step + 1e-9) + 1):
        x = _LEFT + k * step * x_of
        out.append(f'<line x1="{x:.1f}" y1="{_BASE}" x2="{x:.1f}" y2="{_BASE + 5}" stroke="#333"/>')
        out.append(f'<text x="{x:.1f}" y="{_BASE + 20}" text-anchor="middle">{k * step:g}</text>')
    out.append(
        f'<text x="{_LEFT + _PLOT_W / 2}" y="{_H - 14}" text-anchor="middle">'
        f"seconds before the card (the last bar: {top:g} s or longer)</text>"
    )
    return out


def _y_axis(y_max: int, total: int) -> list[str]:
    """The share of all cards, in per cent, up the left side."""
    out = [f'<line x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{_BASE}" stroke="#333"/>']
    highest = 100 * y_max / total
    step = _nice_step(highest, 5)
    for k in range(int(highest / step + 1e-9) + 1):
        y = _BASE - k * step / highest * _PLOT_H
        out.append(f'<line x1="{_LEFT - 5}" y1="{y:.1f}" x2="{_LEFT}" y2="{y:.1f}" stroke="#333"/>')
        out.append(f'<text x="{_LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{k * step:g}%</text>')
    return out


def _bars(run: Gaps, width: float, top: float, x_of: float) -> tuple[list[str], int]:
    """Each bin's bar, bouquet cards below and bed cards stacked on them; the tallest bin."""
    bouquet = _bins(
        [g for g, bed in zip(run.gaps, run.from_bed, strict=True) if not bed], width, top
    )
    bed = _bins([g for g, bed in zip(run.gaps, run.from_bed, strict=True) if bed], width, top)
    y_max = max(a + b for a, b in zip(bouquet, bed, strict=True))
    out = []
    for index, (low, high) in enumerate(zip(bouquet, bed, strict=True)):
        x, w = _LEFT + index * width * x_of, width * x_of - 1
        h_low, h_high = low / y_max * _PLOT_H, high / y_max * _PLOT_H
        out.append(
            f'<rect x="{x:.1f}" y="{_BASE - h_low:.1f}" width="{w:.1f}" height="{h_low:.1f}" '
            f'fill="{_BOUQUET_FILL}"/>'
        )
        out.append(
            f'<rect x="{x:.1f}" y="{_BASE - h_low - h_high:.1f}" width="{w:.1f}" '
            f'height="{h_high:.1f}" fill="{_BED_FILL}"/>'
        )
    return out, y_max


def _legend(run: Gaps) -> list[str]:
    """What the colours are, with each kind's mean gap."""
    out = []
    x, y = _LEFT + _PLOT_W - 300, _TOP + 8
    for row, (fill, label, bed) in enumerate(
        ((_BOUQUET_FILL, "from the bouquet", False), (_BED_FILL, "from a bed", True))
    ):
        gaps = [g for g, b in zip(run.gaps, run.from_bed, strict=True) if b == bed]
        share = len(gaps) / len(run.gaps)
        text = f"{label}: {share:.0%} of cards, mean {statistics.fmean(gaps):.2f} s"
        out.append(f'<rect x="{x}" y="{y + 18 * row}" width="12" height="12" fill="{fill}"/>')
        out.append(f'<text x="{x + 18}" y="{y + 18 * row + 10}">{text}</text>')
    return out


def _marker(x: float, colour: str, label: str, drop: int) -> list[str]:
    """A dashed vertical line at ``x`` with its label ``drop`` pixels below the plot's top."""
    return [
        f'<line x1="{x:.1f}" y1="{_TOP}" x2="{x:.1f}" y2="{_BASE}" stroke="{colour}" '
        'stroke-dasharray="5,3" stroke-width="1.5"/>',
        f'<text x="{x + 4:.1f}" y="{_TOP + 12 + drop}" fill="{colour}">{label}</text>',
    ]


def histogram_svg(run: Gaps, width: float | None = None) -> str:
    """An SVG histogram of ``run``'s gaps, with the mean and the target marked."""
    pace = PACES[run.level]
    width = width if width is not None else round(pace.seconds / 16, 3)
    ordered = sorted(run.gaps)
    top = math.ceil(percentile(ordered, 0.99) / width) * width
    x_of = _PLOT_W / (top + width)
    mean, stdev = statistics.fmean(run.gaps), statistics.pstdev(run.gaps)
    bars, y_max = _bars(run, width, top, x_of)
    body = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{_H}" '
        f'viewBox="0 0 {_W} {_H}" font-family="sans-serif" font-size="12">',
        f'<rect width="{_W}" height="{_H}" fill="white"/>',
        f'<text x="{_W / 2}" y="22" text-anchor="middle" font-size="15">Bot level {run.level}: '
        f"the gap before each of {len(run.gaps):,} cards (target {pace.seconds} s)</text>",
        f'<text x="{_W / 2}" y="40" text-anchor="middle" fill="#555">winnable deals; '
        f"mean {mean:.3f} s, standard deviation {stdev:.3f} s, "
        f"median {percentile(ordered, 0.5):.3f} s</text>",
        *bars,
        *_x_axis(x_of, top),
        *_y_axis(y_max, len(run.gaps)),
        *_legend(run),
        *_marker(_LEFT + mean * x_of, "#b22", f"mean {mean:.2f} s", 0),
        *_marker(_LEFT + pace.seconds * x_of, "#2a2", f"target {pace.seconds:g} s", 14),
        "</svg>",
    ]
    return "\n".join(body) + "\n"


# -- the command ----------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.bot_pace", description=__doc__)
    parser.add_argument("--level", type=int, choices=LEVELS, default=3, help="the histogram's")
    parser.add_argument("--cards", type=int, default=50_000, help="cards per level (50,000)")
    parser.add_argument("--seed", type=int, default=1, help="the bots' random seed (1)")
    parser.add_argument("--classic", action="store_true", help="classic deals, one redeal")
    parser.add_argument("--out", type=Path, help="write the level's histogram here (SVG)")
    parser.add_argument("--calibrate", action="store_true", help="print the mean effort")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    deals = "classic deals, one redeal" if args.classic else "winnable deals"
    print(f"{args.cards:,} cards a level on {deals}; target within ±{TOLERANCE:.0%}\n")
    print("| level | target s | mean s | stdev s | cv | p10 | median | p90 | within |")
    print("|---|---|---|---|---|---|---|---|---|")
    runs = {
        level: play_deals(level, args.cards, seed=args.seed, classic=args.classic)
        for level in LEVELS
    }
    for run in runs.values():
        print(summary_row(run))
    if args.calibrate:
        efforts = [e for run in runs.values() for e in run.efforts]
        print(
            f"\nmean effort per card: {statistics.fmean(efforts):.3f} (MEAN_EFFORT {MEAN_EFFORT})"
        )
    if args.classic:
        print(f"redeals: {sum(run.redeals for run in runs.values())}")
    if args.out is not None:
        args.out.write_text(histogram_svg(runs[args.level]))
        print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
