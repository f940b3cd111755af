"""The cores stay sans-I/O: importing them pulls in no event loop, socket library or database
(docs/design.md, "Layers"), as the engine's own test holds the engine."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import core

FORBIDDEN = ("asyncio", "websockets", "redis", "psycopg", "sqlite3", "textual", "server")


def test_core_imports_no_io() -> None:
    modules = sorted(
        f"core.{m.name}" for m in pkgutil.iter_modules([str(Path(core.__file__).parent)])
    )
    code = (
        f"import sys, {', '.join(modules)}\n"
        f"print(','.join(name for name in {FORBIDDEN!r} if name in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
    assert len(modules) > 10  # every module of the package, not an empty list


def test_the_client_uses_the_cores_and_never_the_server() -> None:
    code = (
        "import sys, client.__main__, client.textual_app, client.practice, client.bot,"
        " client.bot_client\n"
        "print(','.join(m for m in sys.modules if m == 'server' or m.startswith('server.')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
