"""``flowergarden-admin``: the operator's actions and reads from a shell, over the store itself.

The same actions as the admin API (:mod:`server.operator.actions`), on the
store ``--db`` names (an SQLite file or a ``postgresql://`` URL, as the
server's ``--db``), each in one transaction with its line in the audit log;
the running servers apply each within a second or two
(:mod:`server.operator.watch`). No server need be running, and no admin
token is needed: whoever may open the database may act on it.

Exit codes: 0 done; 1 refused (an unknown name or race, a name taken, a race
not rated, a store that cannot be reached), with the reason on stderr; 2 a
usage error (argparse's).
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from server.config import ENV_PREFIX, Settings
from server.http.models import LogAnswer
from server.store import StoreError, is_postgres, open_store

from . import review
from .actions import (
    ANNUL,
    PLAYER_ACTIONS,
    RENAME,
    ActionRefused,
    Order,
    annul,
    perform,
    rename,
)
from .printing import printed

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from pydantic import BaseModel

    from server.store import Store

__all__ = ["main", "parser"]

_REASON = "why, for the audit log (required)"


def parser() -> argparse.ArgumentParser:
    """The command line: its options and a subcommand per action or read."""
    root = argparse.ArgumentParser(
        prog="flowergarden-admin",
        description="The operator's tools for a Flower Garden race server: ban, rename,"
        " forget, mark a bot, clear flags, annul a race, review, read the audit log. Acts"
        " on the store itself; running servers apply each action within a second or two.",
        epilog="Exit codes: 0 done, 1 refused (the reason on stderr), 2 a usage error.",
    )
    db = os.environ.get(f"{ENV_PREFIX}DB", Settings().db)
    root.add_argument("--db", default=db, help=f"the server's store (default: {db}; or"
                      f" {ENV_PREFIX}DB): an SQLite file or a postgresql:// URL")  # fmt: skip
    root.add_argument("--by", default=_user(), help="who acts, for the audit log"
                      " (default: the user running this)")  # fmt: skip
    root.add_argument("--json", action="store_true", help="print the API's JSON instead of words")
    commands = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _actions(commands.add_parser)
    _reads(commands.add_parser)
    return root


def _actions(add: Callable[..., argparse.ArgumentParser]) -> None:
    """A subcommand per action, each with its ``--reason``."""
    for action in PLAYER_ACTIONS.values():
        command = add(action.name, help=action.summary, description=action.summary)
        command.add_argument("name", help="the player's name (any case)")
        command.add_argument("--reason", required=True, help=_REASON)
    command = add("rename", help=RENAME, description=RENAME)
    command.add_argument("name", help="the player's name now (any case)")
    command.add_argument("new", help="their new name: the rule of every name, and free")
    command.add_argument("--reason", required=True, help=_REASON)
    command = add("annul", help=ANNUL, description=ANNUL)
    command.add_argument("game_id", help="the race's id")
    command.add_argument("--reason", required=True, help=_REASON)


def _reads(add: Callable[..., argparse.ArgumentParser]) -> None:
    """The review and the log."""
    words = "Players flagged or reported; or one player's or one race's evidence."
    command = add("review", help=words, description=words)
    which = command.add_mutually_exclusive_group()
    which.add_argument(
        "--player", metavar="NAME", help="one player, every race that points at them"
    )
    which.add_argument("--race", metavar="GAME_ID", help="one race, with each seat's timing")
    command = add("log", help="The audit log, newest first.")
    low, high = review.LOG_LIMIT
    command.add_argument(
        "--limit", type=int, default=low, help=f"lines, 1 to {high} (default {low})"
    )


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return f"uid {os.getuid()}"


async def _run(args: argparse.Namespace, store: Store) -> BaseModel:
    """What the command asks of ``store``: the answer, as the admin API would give it."""
    order = Order(getattr(args, "reason", ""), args.by, time.time())
    if args.command in PLAYER_ACTIONS:
        _, player = await perform(store, PLAYER_ACTIONS[args.command].script(args.name, order))
        return review.standing(player)
    if args.command == "rename":
        _, player = await perform(store, rename(args.name, args.new, order))
        return review.standing(player)
    if args.command == "annul":
        return review.annulled(args.game_id, await perform(store, annul(args.game_id, order)))
    if args.command == "review":
        if args.player is not None:
            return await review.player_review(store, args.player)
        if args.race is not None:
            return await review.race_review(store, args.race)
        return await review.review(store)
    return LogAnswer(actions=await review.log(store, args.limit))


async def _main(args: argparse.Namespace) -> int:
    if not is_postgres(args.db) and not Path(args.db).is_file():
        # The server makes a missing file; the operator means one that is there.
        print(f"flowergarden-admin: no database at {args.db} (--db)", file=sys.stderr)
        return 1
    store = open_store(args.db)
    try:
        await store.open()
        answer = await _run(args, store)
    except (ActionRefused, StoreError) as refused:
        print(f"flowergarden-admin: {refused}", file=sys.stderr)
        return 1
    finally:
        await store.close()
    print(answer.model_dump_json(indent=2) if args.json else printed(args.command, answer))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "log" and not 1 <= args.limit <= review.LOG_LIMIT[1]:
        parser().error(f"--limit must be 1 to {review.LOG_LIMIT[1]}")
    return asyncio.run(_main(args))


if __name__ == "__main__":
    sys.exit(main())
