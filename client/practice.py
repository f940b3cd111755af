"""Practice: the server's own race core, run here on a local clock, standing in for the server.

:class:`Practice` answers the same commands as :class:`~client.net.ServerConnection`
and posts the same messages a server would (``played``, ``redealt``,
``status``, ``error``), so the race screen and its keys are the very ones of a
race. Those messages come from :class:`core.race.Race`, the core every
server race runs on: it is sans-I/O, so it runs in the client unchanged, and
practice holds no rule of its own (seq, statuses, what a redeal deals).

A practice race has two seats: the player's, and in seat 1 a ghost that is
dealt the same layout and never moves. With no idle limit, no game clock and
an endless grace, nothing ends the race by the ghost, and having no cards it
can never lead on count; so a stalled board does not end the race in the
core, and the client shows the solo outcome from seat 0's status, as for any
practice board whose count is final. Practice passes on only seat 0's events;
``game_over`` (a win or a loss against the ghost) means nothing here and is
dropped, which is safe because it is always the race's last event.

Only the start of a deal has no server message of its own: :class:`Dealt`.
"""

from __future__ import annotations

import math
import secrets
import time
from typing import TYPE_CHECKING

from textual.message import Message

import engine
from core.events import Refused, Send, SendPlayed
from core.race import Race, SeatInfo
from protocol import (
    RACING,
    Error,
    GameStart,
    Play,
    Redeal,
    Redealt,
    Rematch,
    Resign,
    Rules,
    StatusChanged,
    board_from_wire,
    decode_server,
)

from .net import ServerEvent

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.events import Output
    from protocol import ClientMessage, ServerMessage

__all__ = ["GAME_ID", "GHOST", "YOU", "Dealt", "Practice", "practice_dealer", "practice_race"]

GAME_ID = "practice"
YOU = SeatInfo("practice-you", "you")
GHOST = SeatInfo("practice-ghost", "ghost")
SEEDS = 2 ** (8 * engine.SEED_SIZE)
"""How many seeds there are: ``--seed N`` deals from N's 32 bytes, big-endian, modulo this."""


class Dealt(Message):
    """A new practice deal."""

    def __init__(self, board: engine.Board, rules: Rules) -> None:
        super().__init__()
        self.board = board
        self.rules = rules


def practice_dealer(seed: int) -> engine.SeedDealer:
    """The dealer of practice ``seed``: the seed's 32 bytes, big-endian, as a server's seed."""
    return engine.SeedDealer((seed % SEEDS).to_bytes(engine.SEED_SIZE, "big"))


def practice_race(seed: int, rules: Rules) -> Race:
    """The race a practice with ``seed`` runs: the ghost gets the same deal and redeal."""
    dealer = practice_dealer(seed)
    # No idle limit and an endless grace: nobody waits on a practice, and the ghost never leaves.
    return Race(GAME_ID, (YOU, GHOST), rules, (dealer, dealer), idle_limit=None, grace=math.inf)


class Practice:
    """The offline backend of ``flowergarden practice``."""

    def __init__(
        self,
        post: Callable[[Message], object],
        *,
        seed: int | None = None,
        winnable_only: bool = True,
        redeals: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._post = post
        self._clock = clock
        self.seed = seed if seed is not None else secrets.randbits(8 * engine.SEED_SIZE)
        self.rules = Rules(winnable_only=winnable_only, redeals=redeals)
        self.race = practice_race(self.seed, self.rules)

    @property
    def over(self) -> bool:
        """Whether the player's count is final (or the core ended the race): moves are moot."""
        return self.race.over is not None or self.race.status_of(0) not in RACING

    def start(self) -> None:
        """Deal ``seed`` (winnable if asked) and show it."""
        self.race = practice_race(self.seed, self.rules)
        for out in self.race.start(self._clock()):
            # Only the player's game_start matters: not the ghost's, nor the
            # game_over of a deal where neither seat can play (a draw with a ghost).
            start = out.message if isinstance(out, Send) else None
            if isinstance(start, GameStart) and start.seat == 0:
                self._post(Dealt(board_from_wire(start.boards[0]), start.rules))

    def resync(self) -> None:
        """Nothing to catch up with: this is the authority."""

    def send(self, message: ClientMessage) -> bool:
        if isinstance(message, Rematch):
            self.seed += 1  # the next deal of a seeded practice is still reproducible
            self.start()
            return True
        if self.over:
            return True
        now = self._clock()
        try:
            if isinstance(message, Play):
                self._forward(self.race.play(0, engine.Card.parse(message.card), now))
            elif isinstance(message, Redeal):
                self._forward(self.race.redeal(0, now))
            elif isinstance(message, Resign):
                self._forward(self.race.resign(0, now))
        except Refused as refused:
            # As the server answers a refused move (the race screen checks first,
            # so this is rare): the client drops what it had in flight.
            self._post(ServerEvent(Error(code=refused.code, message=refused.message)))
        return True

    def _forward(self, outputs: list[Output]) -> None:
        for out in outputs:
            message = _for_you(out)
            if message is not None:
                self._post(ServerEvent(message))


def _for_you(out: Output) -> ServerMessage | None:
    """The message in ``out`` that the player needs: seat 0's race events, no ``game_over``."""
    if isinstance(out, SendPlayed):
        if out.seat != 0:
            return None
        # The very frame the server's glue sends, read back as the client reads it.
        frame = out.frame()
        return decode_server(frame)
    if isinstance(out, Send) and isinstance(out.message, Redealt | StatusChanged):
        return out.message if out.message.seat == 0 else None
    return None
