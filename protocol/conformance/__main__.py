"""``python -m protocol.conformance``: check a server, or race a client as its peer.

    python -m protocol.conformance ws://HOST:PORT/ws
    python -m protocol.conformance --serve ws://HOST:PORT/ws [--seek] [--rules JSON] [--pace S]

The first checks the server at the URL against PROTOCOL.md (see
:mod:`protocol.conformance.checks`); the second plays a scripted opponent for
the client being written (see :mod:`protocol.conformance.peer`). Each prints
one line a check and ``N passed, M failed`` last, and exits 0 only if every
check passed (2 for a usage error).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING

from protocol import Rules

from .checks import run
from .peer import Script, serve

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main"]

DEFAULT_RULES = '{"deal": "mirror", "winnable_only": true}'


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m protocol.conformance",
        description="Check a Flower Garden race server against PROTOCOL.md, or race a "
        "client as a scripted peer (--serve).",
    )
    parser.add_argument("url", help="the server's websocket URL, such as ws://127.0.0.1:8765/ws")
    parser.add_argument("--serve", action="store_true", help="be a scripted peer to race")
    peer = parser.add_argument_group("the scripted peer (--serve)")
    peer.add_argument("--seek", action="store_true", help="seek instead of opening a room")
    peer.add_argument(
        "--rules", default=DEFAULT_RULES, help=f"the rules, JSON (default {DEFAULT_RULES})"
    )
    peer.add_argument(
        "--pace", type=float, default=1.0, help="seconds between its plays (default 1)"
    )
    peer.add_argument(
        "--races", type=int, default=2, help="races to play, rematches included (default 2)"
    )
    peer.add_argument(
        "--wait", type=float, default=300.0, help="seconds to wait for the other side (default 300)"
    )
    peer.add_argument("--name", help="its name (default: a random one)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.url.startswith(("ws://", "wss://")):
        parser.error("the URL is a websocket URL: ws://HOST:PORT/ws")
    if not args.serve:
        return 0 if asyncio.run(run(args.url)).ok else 1
    try:
        rules = Rules.model_validate(json.loads(args.rules), strict=True)
    except ValueError as exc:
        parser.error(f"--rules: {exc}")
    script = Script(
        rules=rules.model_dump(),
        seek=args.seek,
        pace=args.pace,
        races=args.races,
        wait=args.wait,
        name=args.name,
    )
    return 0 if asyncio.run(serve(args.url, script)).ok else 1


if __name__ == "__main__":
    sys.exit(main())
