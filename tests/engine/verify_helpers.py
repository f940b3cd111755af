"""Helpers for the verifier's tests: race records as the server would write them, played
with the engine, and reading a verdict's checks."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from engine import Board, Card, SeedDealer, Status, Verdict

if TYPE_CHECKING:
    from collections.abc import Sequence

    from engine import Dealer, Layout

Record = dict[str, Any]
"""A race record as JSON gives it."""


def seed_of(i: int) -> bytes:
    return hashlib.sha256(b"verify seed %d" % i).digest()


def board_json(layout: Layout) -> dict[str, object]:
    """A board as the wire has it (its other fields, which the verifier ignores, too)."""
    return {
        "beds": [[str(card) for card in bed] for bed in layout.beds],
        "bouquet": [str(card) for card in layout.bouquet],
        "foundations": {"S": 0, "H": 0, "D": 0, "C": 0},
        "count": 0,
        "status": "playing",
        "redeals_left": 0,
    }


def play(
    dealers: Sequence[Dealer],
    *,
    winnable: bool = True,
    redeals: int = 0,
    tiebreak: str = "draw",
    mirror: bool = False,
) -> Record:
    """A race as the server would record it: both seats play greedily, turn about, seat 0 first.

    A stuck seat redeals; the race ends when a seat clears or neither can move,
    and is decided as PROTOCOL.md says.
    """
    layouts = [dealer.layout(winnable) for dealer in dealers]
    boards = [Board(layout, redeals) for layout in layouts]
    moves: list[dict[str, object]] = []
    last: list[Record | None] = [None, None]
    while all(board.status is not Status.CLEARED for board in boards):
        moved = False
        for seat, board in enumerate(boards):
            if any(board.status is Status.CLEARED for board in boards):
                break  # clearing ends the race at once
            card: Card | str | None = None
            if board.status is Status.STUCK:
                board.redeal(dealers[seat].redeal)
                card = "redeal"
            elif board.status is Status.PLAYING:
                card = board.legal_plays()[0]
                board.play(card)
            if card is not None:
                seq = len(moves) + 1
                moves.append({"seq": seq, "seat": seat, "card": str(card), "t_ms": 250 * seq})
                if card != "redeal":
                    last[seat] = moves[-1]
                moved = True
        if not moved:
            break
    counts = [board.count for board in boards]
    winner, reason = decide(counts, last, tiebreak)
    return {
        "game_id": "0123456789abcdef",
        "players": ["ann", "bob"],
        "rules": {
            "deal": "mirror" if mirror else "independent",
            "winnable_only": winnable,
            "redeals": redeals,
            "tiebreak": tiebreak,
            "time_limit_s": None,
            "rated": True,
        },
        "result": "draw" if winner is None else "win",
        "winner": winner,
        "reason": reason,
        "counts": counts,
        "times_ms": [None if move is None else move["t_ms"] for move in last],
        "seeds": [dealer.seed.hex() for dealer in dealers if isinstance(dealer, SeedDealer)],
        "commits": [dealer.commit for dealer in dealers if isinstance(dealer, SeedDealer)],
        "boards": [board_json(layout) for layout in layouts],
        "moves": moves,
        "dealing": dealers[0].algorithm,
    }


def decide(counts: list[int], last: list[Record | None], tiebreak: str) -> tuple[int | None, str]:
    if 52 in counts:
        return counts.index(52), "cleared"
    if counts[0] != counts[1]:
        return (0 if counts[0] > counts[1] else 1), "most_cards"
    if tiebreak == "first" and counts[0] > 0:
        seqs = [0 if move is None else move["seq"] for move in last]
        return (0 if seqs[0] < seqs[1] else 1), "first_to_count"
    return None, "equal_cards"


def outcome(verdict: Verdict, name: str) -> str:
    [check] = [check for check in verdict.checks if check.name == name]
    return check.outcome


def failed(verdict: Verdict) -> list[str]:
    return [check.name for check in verdict.checks if check.outcome == "failed"]
