"""Practice: one board on the engine alone, standing in for the server.

:class:`Practice` answers the same commands as :class:`~client.net.Connection`
and posts the same messages a server would (``played``, ``redealt``,
``status``), so the race screen and its keys are the very ones of a race.
Only the start of a deal has no server message of its own: :class:`Dealt`.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from textual.message import Message

import engine
from protocol import (
    Play,
    Played,
    Redeal,
    Redealt,
    Rematch,
    Resign,
    Rules,
    StatusChanged,
    board_to_wire,
)

from .net import ServerEvent

if TYPE_CHECKING:
    from collections.abc import Callable

    from protocol import ClientMessage

__all__ = ["Dealt", "Practice"]

GAME_ID = "practice"


class Dealt(Message):
    """A new practice deal."""

    def __init__(self, board: engine.Board, rules: Rules) -> None:
        super().__init__()
        self.board = board
        self.rules = rules


class Practice:
    """The offline backend of ``flowergarden practice``."""

    def __init__(
        self,
        post: Callable[[Message], object],
        *,
        seed: int | None = None,
        winnable_only: bool = False,
        redeals: int = 0,
    ) -> None:
        self._post = post
        self.seed = seed if seed is not None else secrets.randbits(63)
        self.rules = Rules(winnable_only=winnable_only, redeals=redeals)
        self.board = engine.Board(engine.deal(0))
        self.seq = 0
        self.over = False

    def start(self) -> None:
        """Deal ``seed`` (winnable if asked) and show it."""
        dealer = engine.winnable_deal if self.rules.winnable_only else engine.deal
        self.board = engine.Board(dealer(self.seed), redeals=self.rules.redeals)
        self.seq, self.over = 0, False
        self._post(Dealt(self.board.copy(), self.rules))

    def resync(self) -> None:
        """Nothing to catch up with: this is the authority."""

    def send(self, message: ClientMessage) -> bool:
        if isinstance(message, Rematch):
            self.seed += 1  # the next deal of a seeded practice is still reproducible
            self.start()
        elif self.over:
            return True
        elif isinstance(message, Play):
            self._play(engine.Card.parse(message.card))
        elif isinstance(message, Redeal):
            self._redeal()
        elif isinstance(message, Resign):
            self.over = True
            self.seq += 1
            self._post(ServerEvent(self._status("resigned")))
        return True

    def _play(self, card: engine.Card) -> None:
        try:
            move = self.board.play(card)
        except engine.IllegalPlay:
            return  # the race screen checks first; nothing to tell
        self.seq += 1
        wire = board_to_wire(self.board)
        self.over = wire.status not in ("playing", "stuck")
        played = Played(
            game_id=GAME_ID,
            seat=0,
            card=str(card),
            from_="bouquet" if move.bed is None else "bed",
            bed=move.bed,
            count=self.board.count,
            status=wire.status,
            seq=self.seq,
        )
        self._post(ServerEvent(played))

    def _redeal(self) -> None:
        try:
            self.board.redeal(self.seed ^ 0x5EED)
        except engine.IllegalRedeal:
            return
        self.seq += 1
        wire = board_to_wire(self.board)
        self.over = wire.status not in ("playing", "stuck")
        self._post(ServerEvent(Redealt(game_id=GAME_ID, seat=0, board=wire, seq=self.seq)))

    def _status(self, status: str) -> StatusChanged:
        return StatusChanged.model_validate(
            {
                "game_id": GAME_ID,
                "seat": 0,
                "status": status,
                "count": self.board.count,
                "seq": self.seq,
            }
        )
