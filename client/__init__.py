"""The terminal client: race from a terminal, or practise offline."""

from __future__ import annotations

__all__: list[str] = []
