"""The JSON Schema of both directions, generated from the models.

``python -m protocol.schema`` (``make schema``) writes ``protocol/schema/client.json``
and ``protocol/schema/server.json``; ``--check`` writes nothing and exits 1 if
either file differs from what would be written. The schemas describe what each
decoder accepts (pydantic's validation mode), which is also what the other side
sends, except that a sender leaves out ``id`` and a spectator's ``seat`` when empty.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .client import CLIENT_ADAPTER
from .common import PROTOCOL_VERSION
from .server import SERVER_ADAPTER

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic import TypeAdapter

__all__ = ["SCHEMA_DIR", "generate", "main"]

SCHEMA_DIR = Path(__file__).parent / "schema"


def _document(adapter: TypeAdapter[Any], title: str) -> str:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        **adapter.json_schema(),
    }
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def generate() -> dict[str, str]:
    """Each schema file's name and the text it should hold."""
    version = f"Flower Garden race protocol {PROTOCOL_VERSION}"
    return {
        "client.json": _document(CLIENT_ADAPTER, f"{version}: a client to server message"),
        "server.json": _document(SERVER_ADAPTER, f"{version}: a server to client message"),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m protocol.schema", description=__doc__)
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if the files are out of date; write nothing"
    )
    args = parser.parse_args(argv)
    stale = []
    for name, text in generate().items():
        path = SCHEMA_DIR / name
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(path)
        if not args.check:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if args.check and stale:
        for path in stale:
            print(f"{path} is out of date: run `make schema`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
