"""``flowergarden``: the command line of the terminal client.

``flowergarden [--server URL] [--name NAME] [--seek | --create-room | --room CODE] [rules]
[--lang LANG]``
races on a server, by default with mirror, winnable-only rules; ``--bot LEVEL`` races a
server's bot at once, ``--seek --bot-after SECONDS`` if nobody comes in that time
(:data:`~client.options.RACE_RULES`); ``flowergarden practice [--seed N] [--any-layout]``
races the clock alone, on winnable layouts unless asked otherwise.
"""

from __future__ import annotations

import argparse
import locale
import sys
from typing import TYPE_CHECKING, Any, Literal

import lang
from protocol import BotRequest, Rules

from .card_faces import glyphs_supported
from .failures import url_problem, websocket_url
from .levels import DEFAULT_LEVEL, LEVELS
from .options import DEFAULT_SERVER, RACE_RULES, Options

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["add_rules", "main", "parse_args"]


def _add_display(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lang",
        metavar="LANG",
        help=f"the language of the screens: {', '.join(lang.LANGUAGES)} (default: the first of"
        " LANGUAGE, LC_ALL, LC_MESSAGES and LANG that is set, else en)",
    )
    parser.add_argument(
        "--ascii",
        action="store_true",
        help="suit letters S H D C instead of ♠ ♥ ♦ ♣ (automatic when the terminal is not UTF-8)",
    )


def add_rules(
    parser: argparse.ArgumentParser,
    title: str = "rules (for --seek, --create-room and the lobby's forms)",
    *,
    rated: bool = True,
) -> None:
    """The rules flags of ``flowergarden``, and of ``flowergarden bot`` (without ``--rated``)."""
    group = parser.add_argument_group(
        title,
        "The defaults make a pure speed race: the same layout for both, one that can be cleared.",
    )
    group.add_argument(
        "--deal",
        choices=("independent", "mirror"),
        default=RACE_RULES.deal,
        help="mirror (default): both get the same layout; independent: each their own",
    )
    winnable = group.add_mutually_exclusive_group()
    winnable.add_argument(
        "--winnable-only",
        dest="winnable_only",
        action="store_true",
        default=RACE_RULES.winnable_only,
        help="deal only layouts that can be cleared (the default)",
    )
    winnable.add_argument(
        "--any-layout",
        dest="winnable_only",
        action="store_false",
        help="deal any random layout, as the classic game does (most cannot be cleared)",
    )
    redeal_help = "1 allows one redeal of the cards left when stuck (default 0)"
    group.add_argument("--redeals", type=int, choices=(0, 1), default=0, help=redeal_help)
    group.add_argument(
        "--tiebreak",
        choices=("draw", "first"),
        default=RACE_RULES.tiebreak,
        help="equal final counts: draw (default), or first: won by who reached the count first",
    )
    _add_clock_and_rating(group, rated=rated)


def _add_clock_and_rating(group: Any, *, rated: bool) -> None:
    # ``group`` is what ``add_argument_group`` returns, a class argparse does not name publicly.
    group.add_argument(
        "--time-limit",
        type=int,
        metavar="SECONDS",
        help="a game clock of 30 to 3600 seconds (default: none)",
    )
    if not rated:
        return
    group.add_argument(
        "--rated",
        action="store_true",
        help="a rated race: it changes both players' ratings; needs the mirror deal and "
        "winnable layouts (the defaults), so that speed alone decides",
    )


def _add_bot(parser: argparse.ArgumentParser) -> None:
    levels = ", ".join(f"{level.level} {level.name} ({level.seconds:.1f} s)" for level in LEVELS)
    group = parser.add_argument_group(
        "bots (the server's own players; a race with a bot is never rated)",
        f"Levels, about so many seconds a card: {levels}.",
    )
    group.add_argument(
        "--bot",
        type=int,
        choices=[level.level for level in LEVELS],
        metavar="LEVEL",
        help="race the server's bot of this level (1-5) at once; with --seek --bot-after, "
        f"the bot that comes (default {DEFAULT_LEVEL})",
    )
    group.add_argument(
        "--bot-after",
        type=int,
        metavar="SECONDS",
        help="with --seek: if nobody is paired within SECONDS (0-300), a bot takes the seat",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flowergarden",
        description="Race a friend at the solitaire Flower Garden, from the terminal.",
        epilog="Keys: ? in the app. Practice alone: flowergarden practice --help. "
        "A bot that races: flowergarden bot --help.",
    )
    parser.add_argument(
        "--server",
        default=DEFAULT_SERVER,
        metavar="URL",
        help="the race server: its websocket URL, or the address of its page in a browser "
        f"(http://HOST:PORT, taken as ws://HOST:PORT/ws; https as wss) (default: {DEFAULT_SERVER})",
    )
    parser.add_argument(
        "--name",
        help="your name, 1-20 letters, digits, _ or - (default: the last name used on that server)",
    )
    start = parser.add_mutually_exclusive_group()
    start.add_argument("--seek", action="store_true", help="start straight into a quick match")
    start.add_argument(
        "--create-room", action="store_true", help="start by opening a room and showing its code"
    )
    start.add_argument("--room", metavar="CODE", help="start by joining the room with this code")
    parser.add_argument(
        "--public", action="store_true", help="with --create-room: list the room in the lobby"
    )
    _add_bot(parser)
    add_rules(parser)
    _add_display(parser)
    commands = parser.add_subparsers(dest="command", metavar="{practice}")
    practice = commands.add_parser(
        "practice",
        help="race the clock alone on this machine, no server",
        description="Practise alone: clear a layout as fast as you can, against your personal "
        "best for those rules (kept in $XDG_CONFIG_HOME/flowergarden/bests.json).",
    )
    _add_practice_options(practice)
    return parser


def _add_practice_options(practice: argparse.ArgumentParser) -> None:
    practice.add_argument("--seed", type=int, help="deal this layout again (default: random)")
    layouts = practice.add_mutually_exclusive_group()
    layouts.add_argument(
        "--winnable-only",
        dest="winnable_only",
        action="store_true",
        default=True,
        help="deal only layouts that can be cleared: a race against the clock (the default)",
    )
    layouts.add_argument(
        "--any-layout",
        dest="winnable_only",
        action="store_false",
        help="deal any random layout, as the classic game does (most cannot be cleared)",
    )
    practice.add_argument(
        "--redeals", type=int, choices=(0, 1), default=0, help="1 allows one redeal when stuck"
    )
    practice.add_argument("--name", help="your name on the screen (default: you)")
    _add_display(practice)


def parse_args(argv: Sequence[str] | None = None, *, encoding: str | None = None) -> Options:
    """Options from ``argv``; ``encoding`` is the terminal's, to decide on ASCII suits."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:  # first: the command line's own errors below speak the language chosen
        lang.use(lang.choose(args.lang))
    except ValueError as exc:
        parser.error(str(exc))
    ascii = args.ascii or not glyphs_supported(encoding)
    if args.command == "practice":
        rules = Rules(winnable_only=args.winnable_only, redeals=args.redeals)
        return Options(name=args.name, rules=rules, ascii=ascii, practice=True, seed=args.seed)
    server = websocket_url(args.server)
    problem = url_problem(server)
    if problem is not None:
        parser.error(problem)
    rules = _race_rules(parser, args)
    bot = _bot(parser, args)
    action: Literal["seek", "create_room", "join_room"] | None = None
    if args.seek or bot is not None:
        action = "seek"
    elif args.create_room:
        action = "create_room"
    elif args.room:
        action = "join_room"
    return Options(
        server=server,
        name=args.name,
        action=action,
        room=args.room or "",
        rules=rules,
        bot=bot,
        public=args.public,
        ascii=ascii,
    )


def _bot(parser: argparse.ArgumentParser, args: argparse.Namespace) -> BotRequest | None:
    """The bot ``--bot`` and ``--bot-after`` ask for, or the parser's error for a mix that
    cannot be."""
    if args.bot is None and args.bot_after is None:
        return None
    if args.create_room or args.room:
        parser.error("a bot races in quick match only: leave out --create-room and --room")
    after = args.bot_after
    if after is not None and not args.seek:
        parser.error("--bot-after is for --seek: a bot if nobody comes (--bot LEVEL: at once)")
    if after is not None and not 0 <= after <= 300:
        parser.error("--bot-after must be 0 to 300 seconds")
    if args.rated and not after:
        parser.error("a race with a bot is never rated: leave out --rated, or use --bot-after")
    level = DEFAULT_LEVEL if args.bot is None else args.bot
    return BotRequest(after_s=after or 0, level=level)


def _race_rules(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Rules:
    """The rules flags of a race, or the parser's error for a set that cannot be."""
    limit = args.time_limit
    if limit is not None and not 30 <= limit <= 3600:
        parser.error("--time-limit must be 30 to 3600 seconds")
    if args.rated and not (args.deal == "mirror" and args.winnable_only):
        parser.error(
            "--rated needs the mirror deal and winnable layouts: "
            "leave out --deal independent and --any-layout"
        )
    return Rules(
        deal=args.deal,
        winnable_only=args.winnable_only,
        redeals=args.redeals,
        tiebreak=args.tiebreak,
        time_limit_s=limit,
        rated=args.rated,
    )


def main(argv: list[str] | None = None) -> int:
    """The console script ``flowergarden``; returns the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bot"]:  # `flowergarden bot`: its own command line, in client/bot.py
        from .bot import main as bot

        return bot(argv[1:])
    encoding = sys.stdout.encoding or locale.getpreferredencoding(False)
    options = parse_args(argv, encoding=encoding)
    from .textual_app import FlowerGardenApp  # Textual loads only once the arguments are good

    result = FlowerGardenApp(options).run()
    return 0 if result is None else result
