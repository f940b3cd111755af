"""The plays that clear a race's board, for the load generator's players (:mod:`bench.loadgen`).

A player of the load benchmark plays the engine's first legal play each time,
as fast as acknowledgements come back: :class:`ClearingOrder` works those
plays out from the wire board of ``game_start`` and hands them over as
compact ``play`` frames. :mod:`bench.failover` plays from it too.
"""

from __future__ import annotations

from typing import ClassVar

import engine

__all__ = ["PLAY", "ClearingOrder"]

PLAY = b'{"type":"play","card":"%s"}'
"""A ``play`` frame, compact, as the project's own client writes it."""


class ClearingOrder:
    """The plays that take a wire board as far as it goes (all 52 cards for a winnable
    layout): the engine's first legal play each time, as compact ``play`` frames.

    Worked out a play at a time, when a player asks for it, rather than all 52
    at ``game_start``: races that start together (every one of them with
    ``--lockstep``) asked for 500 whole orders at once (0.25 ms each), which
    stalled the generator for over 0.1 s, so that the plays and
    acknowledgements of that moment were timed late.
    """

    NONE: ClassVar[ClearingOrder]
    """An order with no plays, for a player not in a race."""

    __slots__ = ("_board", "_frames")

    def __init__(self, board: dict[str, object] | None) -> None:
        self._frames: list[bytes] = []
        self._board: engine.Board | None = None if board is None else _engine_board(board)

    def frame(self, index: int) -> bytes | None:
        """The ``play`` frame of play number ``index`` (from 0), or None past the last."""
        frames, board = self._frames, self._board
        while len(frames) <= index:
            if board is None or not (plays := board.legal_plays()):
                return None
            board.play(plays[0])
            # Compact, as the echo's frame and the project's own client write it.
            frames.append(PLAY % str(plays[0]).encode())
        return frames[index]


ClearingOrder.NONE = ClearingOrder(None)


def _engine_board(board: dict[str, object]) -> engine.Board:
    parse = engine.Card.parse
    beds: list[list[str]] = board["beds"]  # type: ignore[assignment]
    bouquet: list[str] = board["bouquet"]  # type: ignore[assignment]
    found: dict[str, int] = board["foundations"]  # type: ignore[assignment]
    return engine.Board.from_parts(
        [[parse(code) for code in bed] for bed in beds],
        [parse(code) for code in bouquet],
        [found[suit] for suit in "SHDC"],
        0,
    )
