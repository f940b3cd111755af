"""Practice personal bests, one per rule set, in ``$XDG_CONFIG_HOME/flowergarden/bests.json``.

A best is the most cards on the foundations, then the least time to get them
(the ``t_ms`` of the last card): a clear beats any count, and the faster of
two clears wins. Only practice games that ended by the cards (cleared, or no
play left) count; a game given up does not. The file is read forgivingly (a
missing or damaged file, or a damaged entry, is no best yet: never a crash)
and written atomically, like the token file (:mod:`client.jsonfile`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .jsonfile import config_dir, read_json, write_json

if TYPE_CHECKING:
    from pathlib import Path

    from protocol import Rules

__all__ = ["Best", "BestStore", "PracticeBest", "practice_key"]


@dataclass(frozen=True, slots=True)
class Best:
    """A practice result: ``count`` cards, the last of them ``ms`` after the deal."""

    count: int
    ms: int

    def beats(self, other: Best | None) -> bool:
        return other is None or (self.count, -self.ms) > (other.count, -other.ms)


@dataclass(frozen=True, slots=True)
class PracticeBest:
    """What the result says of the personal best for ``rules``: ``previous`` and whether
    this game beat it (``new``)."""

    rules: str
    previous: Best | None
    new: bool


def practice_key(rules: Rules) -> str:
    """The rule set a best belongs to: what practice can vary (the layouts, the redeal)."""
    key = "winnable" if rules.winnable_only else "any layout"
    return f"{key}, 1 redeal" if rules.redeals else key


class BestStore:
    """Personal bests by rule set, in one JSON file."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else config_dir() / "bests.json"

    def get(self, key: str) -> Best | None:
        entry = read_json(self.path).get(key)
        if not isinstance(entry, dict):
            return None
        count, ms = entry.get("count"), entry.get("ms")
        if type(count) is int and type(ms) is int and 0 < count <= 52 and ms >= 0:
            return Best(count, ms)
        return None

    def record(self, key: str, result: Best | None) -> PracticeBest:
        """Keep ``result`` if it beats the best for ``key`` (None: a game that does not count).

        A file that cannot be written (a read-only home) costs the best, not the game.
        """
        previous = self.get(key)
        if result is None or not result.beats(previous):
            return PracticeBest(key, previous, new=False)
        entries = read_json(self.path)
        entries[key] = {"count": result.count, "ms": result.ms}
        try:
            write_json(self.path, entries)
        except OSError:
            return PracticeBest(key, previous, new=False)
        return PracticeBest(key, previous, new=True)
