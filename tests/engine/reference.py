"""The rules restated as plainly as possible, to check the engine's fast paths against."""

from __future__ import annotations

from engine import CARDS, Board, Card, Status


def legal_by_the_rules(board: Board, card: Card) -> bool:
    """PROTOCOL.md: in the bouquet or a bed's front card, and its foundation one below it."""
    in_reach = card in board.bouquet or any(bed and bed[-1] == card for bed in board.beds)
    return in_reach and board.foundations[card.suit] == card.rank - 1


def legal_cards(board: Board) -> list[Card]:
    return [card for card in CARDS if legal_by_the_rules(board, card)]


def status_by_the_rules(board: Board) -> Status:
    if sum(board.foundations) == 52:
        return Status.CLEARED
    if legal_cards(board):
        return Status.PLAYING
    return Status.STUCK if board.redeals_left > 0 else Status.STALLED


def snapshot(board: Board) -> tuple[object, ...]:
    """Everything observable about a board, to show that a refused move changed nothing."""
    return (
        [list(bed) for bed in board.beds],
        list(board.bouquet),
        list(board.foundations),
        board.redeals_left,
        list(board.where),
        # A played card's level means nothing (it is left as it was).
        [level for card, level in enumerate(board.level) if board.where[card] >= 0],
        board.legal_plays(),
        board.status,
    )
