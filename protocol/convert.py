"""Conversion between the engine's values and the wire's.

The engine knows nothing of pydantic or JSON, so the mapping lives here: a
card is its two-character code, a board is :class:`~protocol.common.WireBoard`,
and an :class:`engine.Status` is the wire status of the same name
(:func:`wire_status`, the only such map: the race core and the client use it).
"""

from __future__ import annotations

import engine

from .common import BoardStatus, Foundations, WireBoard

__all__ = ["board_from_wire", "board_to_wire", "card_from_wire", "card_to_wire", "wire_status"]

_STATUS: dict[engine.Status, BoardStatus] = {
    engine.Status.PLAYING: "playing",
    engine.Status.STUCK: "stuck",
    engine.Status.STALLED: "stalled",
    engine.Status.CLEARED: "cleared",
}


def wire_status(status: engine.Status) -> BoardStatus:
    """What the rules say of a board, as the wire says it (``engine.Status.STUCK``: ``"stuck"``).

    Only the race knows the other wire statuses (``timed_out``, ``resigned``,
    ``abandoned``), so they have no engine status to come from.
    """
    return _STATUS[status]


def card_to_wire(card: engine.Card) -> str:
    """``"QH"``."""
    return str(card)


def card_from_wire(code: str) -> engine.Card:
    """The card of a wire code; raises :class:`engine.MalformedCard` if it names none."""
    return engine.Card.parse(code)


def board_to_wire(board: engine.Board, status: BoardStatus | None = None) -> WireBoard:
    """The wire form of ``board``.

    ``status`` defaults to what the rules say (``board.status``); the race
    passes ``timed_out``, ``resigned`` or ``abandoned``, which only it knows.
    """
    spades, hearts, diamonds, clubs = board.foundations
    return WireBoard(
        beds=[[str(card) for card in bed] for bed in board.beds],
        bouquet=[str(card) for card in board.bouquet],
        foundations=Foundations(S=spades, H=hearts, D=diamonds, C=clubs),
        count=board.count,
        status=wire_status(board.status) if status is None else status,
        redeals_left=board.redeals_left,
    )


def board_from_wire(wire: WireBoard) -> engine.Board:
    """The engine board of a wire board; ``count`` and ``status`` are derived, not read.

    Raises :class:`engine.MalformedCard` for a bad code (only an unvalidated
    model can hold one), and ``ValueError`` if the cards and foundations do not
    account for each of the 52 cards exactly once.
    """
    parse = engine.Card.parse
    found = wire.foundations
    return engine.Board.from_parts(
        [[parse(code) for code in bed] for bed in wire.beds],
        [parse(code) for code in wire.bouquet],
        [found.S, found.H, found.D, found.C],
        wire.redeals_left,
    )
