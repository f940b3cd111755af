"""``python -m engine``: the engine's own command line.

``python -m engine stats --deals 200000`` measures what the rules imply (see
:mod:`engine.stats`) and prints it; the defaults reproduce docs/game.md's figures.

``python -m engine verify RACE.json`` checks a finished race's record (the JSON
of ``GET /api/races/GAME_ID``; ``-`` reads it from stdin) by
:func:`engine.verify.verify_record` and prints the verdict: exit status 0 when
verified, 1 when a check failed, 2 when the file or its JSON cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING

from .stats import measure, report
from .verify import verify_record

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TextIO

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command named in ``argv`` (default: the process's arguments)."""
    args = _parser().parse_args(argv)
    if args.command == "stats":
        return _stats(args)
    if args.command == "verify":
        return _verify(args.file)
    raise AssertionError(args.command)  # argparse only lets known commands through


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m engine",
        description="Tools over the Flower Garden rules engine.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    stats = commands.add_parser(
        "stats",
        help="deal statistics with 95%% confidence intervals",
        description=(
            "Deal random layouts, solve each (no redeal) and print the clear rate, the "
            "final count's mean and distribution, the share with no play and the tie "
            "rate, with 95% confidence intervals."
        ),
    )
    _add_stats_options(stats)
    verify = commands.add_parser(
        "verify",
        help="check a finished race's record: seeds, deal, moves and result",
        description=(
            "Check a race record, the JSON of GET /api/races/GAME_ID: that the seeds match "
            "the commits, the boards are what the seeds deal, every move was legal in seq "
            "order, and the counts, times and result follow. Exit status 0 when verified, "
            "1 when a check failed, 2 when the record cannot be read."
        ),
    )
    verify.add_argument(
        "file", metavar="FILE", help="the race record, a JSON file; - reads it from stdin"
    )
    return parser


def _add_stats_options(stats: argparse.ArgumentParser) -> None:
    stats.add_argument(
        "--deals",
        type=_int_at_least(2),
        default=200_000,
        help="how many random deals to measure (default: %(default)s)",
    )
    stats.add_argument(
        "--seed",
        type=_int_at_least(0),
        default=0,
        help="derive the deals' seeds from this (deal i uses seed SEED * 2**32 + i; "
        "default: %(default)s, docs/game.md's figures)",
    )
    stats.add_argument(
        "--progress",
        action="store_true",
        help="show a progress bar on stderr even when it is not a terminal",
    )


def _verify(path: str) -> int:
    name = "stdin" if path == "-" else path
    try:
        if path == "-":
            record = json.load(sys.stdin)
        else:
            with open(path, encoding="utf-8") as file:
                record = json.load(file)
    except OSError as exc:
        print(f"cannot read {name}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except (ValueError, RecursionError) as exc:  # bad JSON or UTF-8; nesting too deep
        print(f"{name} is not JSON: {exc}", file=sys.stderr)
        return 2
    verdict = verify_record(record)
    print(verdict.report())
    return 0 if verdict.ok else 1


def _stats(args: argparse.Namespace) -> int:
    show = args.progress or sys.stderr.isatty()
    started = time.perf_counter()
    results = measure(args.deals, args.seed, _ProgressBar(sys.stderr) if show else None)
    elapsed = time.perf_counter() - started
    if show:
        sys.stderr.write("\n")
    print(report(results))
    rate = args.deals / elapsed if elapsed > 0 else float("inf")
    print(f"({args.deals:,} deals in {elapsed:.1f} s, {rate:,.0f} a second)", file=sys.stderr)
    return 0


class _ProgressBar:
    """A one-line text bar redrawn in place with a carriage return."""

    def __init__(self, stream: TextIO, width: int = 40) -> None:
        self.stream, self.width = stream, width

    def __call__(self, done: int, total: int) -> None:
        filled = self.width * done // total
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r[{bar}] {100 * done // total:3}% {done:,}/{total:,}")
        self.stream.flush()


def _int_at_least(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}")
        return value

    return parse


if __name__ == "__main__":
    sys.exit(main())
