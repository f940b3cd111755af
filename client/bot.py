"""``flowergarden bot``: the command line of the bot that plays as an ordinary client.

``flowergarden bot --server URL --level N (--seek | --room CODE) [--name NAME] [--forever]
[rules]`` races with the server's bot policy over the protocol
(:class:`~client.bot_client.BotClient`, whose docstring walks through the
messages). It logs to stderr and exits 0 after its last race, 1 when it cannot
go on, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from core.bot_policy import LEVELS
from protocol import Rules

from .bot_client import BotClient, BotOptions
from .cli import add_rules
from .failures import url_problem
from .options import DEFAULT_SERVER
from .tokens import TokenStore

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main", "parse_args"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flowergarden bot",
        description="Run the server's bot policy as an ordinary client: it races on a server "
        "at a level's pace, like a person (docs/bots.md).",
    )
    parser.add_argument(
        "--server",
        default=DEFAULT_SERVER,
        metavar="URL",
        help=f"the race server's websocket URL (default: {DEFAULT_SERVER})",
    )
    parser.add_argument(
        "--level",
        type=int,
        choices=LEVELS,
        default=3,
        help="1 (about 2.0 s a card), 2 (1.2), 3 (0.8, the default), 4 (0.5) or 5 (0.3)",
    )
    start = parser.add_mutually_exclusive_group(required=True)
    start.add_argument("--seek", action="store_true", help="race whoever quick match pairs")
    start.add_argument("--room", metavar="CODE", help="join the room with this code")
    parser.add_argument(
        "--name",
        help="the bot's name, 1-20 letters, digits, _ or - (default: botN for level N, "
        "with a suffix if that is taken)",
    )
    parser.add_argument(
        "--forever",
        action="store_true",
        help="after each race, seek another (default: stop after the first game_over)",
    )
    tokens_help = "keep the bot's token in FILE (default: the client's tokens.json)"
    parser.add_argument("--tokens", type=Path, metavar="FILE", help=tokens_help)
    parser.add_argument("--verbose", action="store_true", help="log every card the bot plays")
    add_rules(parser, "rules (for --seek; a room has its host's)", rated=False)
    return parser


def parse_args(argv: Sequence[str] | None = None) -> tuple[BotOptions, bool]:
    """The bot's options from ``argv`` (after ``bot``), and whether to log every card."""
    parser = _parser()
    args = parser.parse_args(argv)
    problem = url_problem(args.server)
    if problem is not None:
        parser.error(problem)
    limit = args.time_limit
    if limit is not None and not 30 <= limit <= 3600:
        parser.error("--time-limit must be 30 to 3600 seconds")
    rules = Rules(
        deal=args.deal,
        winnable_only=args.winnable_only,
        redeals=args.redeals,
        tiebreak=args.tiebreak,
        time_limit_s=limit,
    )
    options = BotOptions(
        server=args.server,
        level=args.level,
        name=args.name,
        action="seek" if args.seek else "join_room",
        room=args.room or "",
        rules=rules,
        forever=args.forever,
        tokens=args.tokens,
    )
    return options, args.verbose


def main(argv: Sequence[str] | None = None) -> int:
    """``flowergarden bot ...``: the exit code (0 after the last race, 1 if it cannot go on)."""
    options, verbose = parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(name)s %(message)s",
        stream=sys.stderr,
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)
    bot = BotClient(options, TokenStore(options.tokens))
    try:
        return asyncio.run(bot.run())
    except KeyboardInterrupt:
        return 130
