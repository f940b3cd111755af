"""The rules of Flower Garden, pure and standard-library only.

Everything here is a value or a pure function of its arguments: no I/O, no
clocks, no unseeded randomness. The server and the client both build on it.
"""

from __future__ import annotations

from .board import BOUQUET, Board, Play, Status
from .cards import CARDS, RANKS, SUITS, Card, parse_lenient
from .deal import BED_SIZE, BEDS, BOUQUET_SIZE, Layout, deal, deal_cards, winnable_deal
from .errors import EngineError, IllegalMove, IllegalPlay, IllegalRedeal, MalformedCard
from .solver import can_clear, final_count, greedy_plays

__all__ = [
    "BEDS",
    "BED_SIZE",
    "BOUQUET",
    "BOUQUET_SIZE",
    "CARDS",
    "RANKS",
    "SUITS",
    "Board",
    "Card",
    "EngineError",
    "IllegalMove",
    "IllegalPlay",
    "IllegalRedeal",
    "Layout",
    "MalformedCard",
    "Play",
    "Status",
    "can_clear",
    "deal",
    "deal_cards",
    "final_count",
    "greedy_plays",
    "parse_lenient",
    "winnable_deal",
]
