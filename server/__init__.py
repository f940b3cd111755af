"""The race server: lobby and race cores, the asyncio glue, persistence, the CLI."""

from __future__ import annotations

__all__: list[str] = []
