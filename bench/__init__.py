"""Benchmarks: how fast the engine is, and (elsewhere) how the server compares with a raw echo.

Run from the repository root, for instance ``python -m bench.engine``. These
are measurements to read, never timed assertions: the tests assert behaviour.
"""

from __future__ import annotations

__all__: list[str] = []
