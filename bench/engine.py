"""How fast the engine is: ``python -m bench.engine [--quick]``.

Measures the operations the server leans on:

- a greedy solve of a fresh deal, ``final_count(layout)`` on layouts dealt
  beforehand (the median over many layouts of each one's best time), which is
  what dealing ``winnable_only`` layouts and deciding races cost;
- one legality check, ``board.is_legal(card)``, done for every play received
  (the median over the 52 cards of a fresh board);
- ``deal(seed)`` and ``winnable_deal(seed)``, the dealing of races recorded
  before verifiable deals, and ``dealing.classic(seed)`` and
  ``dealing.winnable(seed)``, which deal every race now (mean over many seeds).

Every figure is the best of several repeats (``timeit``'s advice: the others
measure the machine's other work, not the code), with the garbage collector
off. Prints a Markdown table, then, as its last line, one JSON object.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import timeit
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from engine import CARDS, SEED_SIZE, Board, deal, final_count, winnable_deal
from engine.dealing import classic, winnable

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from engine import Layout

__all__ = ["Results", "main", "measure"]


@dataclass(frozen=True, slots=True)
class Results:
    """Timings of one run, each the typical cost of one call."""

    solve_us: float
    check_ns: float
    deal_us: float
    winnable_deal_us: float
    classic_us: float
    winnable_us: float
    layouts: int
    python: str


@dataclass(frozen=True, slots=True)
class _Effort:
    layouts: int  # fresh deals to solve
    solve_number: int  # solves of one layout per timing
    check_number: int  # checks of one card per timing
    deals: int  # seeds per deal timing
    repeat: int  # timings of each, the best kept


QUICK = _Effort(layouts=500, solve_number=100, check_number=50_000, deals=500, repeat=3)
FULL = _Effort(layouts=2_000, solve_number=200, check_number=200_000, deals=3_000, repeat=5)


def _best(stmt: str, number: int, repeat: int, **names: object) -> float:
    """Seconds per execution of ``stmt``: the best of ``repeat`` runs of ``number``."""
    timer = timeit.Timer(stmt, globals=names)
    return min(timer.repeat(repeat=repeat, number=number)) / number


def time_solve(effort: _Effort) -> float:
    """Median over fresh layouts of one ``final_count(layout)``, in microseconds."""
    layouts = [deal(seed) for seed in range(effort.layouts)]
    times = [
        _best("f(layout)", effort.solve_number, effort.repeat, f=final_count, layout=layout)
        for layout in layouts
    ]
    return statistics.median(times) * 1e6


def time_check(effort: _Effort) -> float:
    """Median over the 52 cards of one ``board.is_legal(card)`` on a fresh board, in ns."""
    board = Board(deal(1))
    times = [
        _best("board.is_legal(card)", effort.check_number, effort.repeat, board=board, card=card)
        for card in CARDS
    ]
    return statistics.median(times) * 1e9


def time_deal(dealer: Callable[[int], Layout], effort: _Effort) -> float:
    """Mean over ``effort.deals`` seeds of one call of ``dealer(seed)``, in microseconds."""
    stmt = "for seed in seeds: dealer(seed)"
    seeds = range(effort.deals)
    return _best(stmt, 1, effort.repeat, dealer=dealer, seeds=seeds) / effort.deals * 1e6


def measure(quick: bool = False) -> Results:
    effort = QUICK if quick else FULL
    return Results(
        solve_us=time_solve(effort),
        check_ns=time_check(effort),
        deal_us=time_deal(deal, effort),
        winnable_deal_us=time_deal(winnable_deal, effort),
        classic_us=time_deal(lambda n: classic(n.to_bytes(SEED_SIZE, "big")), effort),
        winnable_us=time_deal(lambda n: winnable(n.to_bytes(SEED_SIZE, "big")), effort),
        layouts=effort.layouts,
        python=f"{platform.python_implementation()} {platform.python_version()}",
    )


def table(results: Results) -> str:
    rows = [
        ("`final_count(layout)`, greedy solve of a fresh deal", results.solve_us, "µs"),
        ("`board.is_legal(card)`, one legality check", results.check_ns, "ns"),
        ("`deal(seed)`", results.deal_us, "µs"),
        ("`winnable_deal(seed)`", results.winnable_deal_us, "µs"),
        ("`dealing.classic(seed)`, a race's verifiable deal", results.classic_us, "µs"),
        ("`dealing.winnable(seed)`, a verifiable winnable deal", results.winnable_us, "µs"),
    ]
    lines = [
        f"Engine benchmark ({results.python}; solve: median of {results.layouts} layouts)",
        "",
        "| operation | time |",
        "|---|---:|",
    ]
    lines += [
        f"| {name} | {value:,.{0 if unit == 'ns' else 2}f} {unit} |" for name, value, unit in rows
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.engine",
        description="Time the engine's solver, legality check and dealing.",
    )
    parser.add_argument(
        "--quick", action="store_true", help="fewer layouts and repeats: a few seconds"
    )
    args = parser.parse_args(argv)
    results = measure(quick=args.quick)
    print(table(results))
    print()
    print(json.dumps(asdict(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
