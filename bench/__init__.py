"""Benchmarks: how fast the engine is, and how the race server compares with a raw echo.

Run from the repository root: ``python -m bench.engine`` for the engine,
``python -m bench.run`` for the load benchmark (see ``bench/README.md``). These
are measurements to read, never timed assertions: the tests assert behaviour.
"""

from __future__ import annotations

__all__: list[str] = []
