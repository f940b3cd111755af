"""The rules of Flower Garden, pure and standard-library only.

Everything here is a value or a pure function of its arguments: no I/O, no
clocks, no unseeded randomness. The server and the client both build on it.
"""

from __future__ import annotations

from .board import BOUQUET, Board, Placement, Status
from .cards import CARDS, RANKS, SUITS, Card, parse_lenient
from .deal import BED_SIZE, BEDS, BOUQUET_SIZE, Layout, deal, deal_cards, winnable_deal
from .dealing import (
    ALGORITHM,
    LEGACY_ALGORITHM,
    SEED_SIZE,
    Dealer,
    LegacyDealer,
    SeedDealer,
    commit,
    seed_from_hex,
)
from .errors import EngineError, IllegalMove, IllegalPlay, IllegalRedeal, MalformedCard
from .solver import can_clear, final_count, greedy_plays
from .verify import Verdict, check_deal, verify_record

__all__ = [
    "ALGORITHM",
    "BEDS",
    "BED_SIZE",
    "BOUQUET",
    "BOUQUET_SIZE",
    "CARDS",
    "LEGACY_ALGORITHM",
    "RANKS",
    "SEED_SIZE",
    "SUITS",
    "Board",
    "Card",
    "Dealer",
    "EngineError",
    "IllegalMove",
    "IllegalPlay",
    "IllegalRedeal",
    "Layout",
    "LegacyDealer",
    "MalformedCard",
    "Placement",
    "SeedDealer",
    "Status",
    "Verdict",
    "can_clear",
    "check_deal",
    "commit",
    "deal",
    "deal_cards",
    "final_count",
    "greedy_plays",
    "parse_lenient",
    "seed_from_hex",
    "verify_record",
    "winnable_deal",
]
