"""The engine stays pure: importing it pulls in no I/O framework (docs/design.md, "Layers")."""

from __future__ import annotations

import subprocess
import sys

FORBIDDEN = ("asyncio", "pydantic", "websockets", "textual")


def test_engine_imports_no_framework() -> None:
    code = (
        "import sys, engine, engine.stats, engine.__main__\n"
        f"print(','.join(name for name in {FORBIDDEN!r} if name in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
