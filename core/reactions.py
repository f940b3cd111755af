"""When each card of one seat's board became playable, and how long its play took to come.

The race core keeps one :class:`Timing` per seat, fed as the seat's board
changes (times are seconds into the race, the race's own ``at``):

* :meth:`Timing.saw` at the deal and at a redeal: every card playable then
  became playable then;
* :meth:`Timing.played` for each accepted play: the card's *reaction* (from
  becoming playable to its play arriving) and the *gap* since the seat's last
  move (or the deal) are kept, and the cards the play made playable (the next
  card of its suit, the card it uncovered: ``engine.Board.play``) start their
  time.

A card stays playable until it is played (nothing covers it again), so each
play has exactly one reaction. The opponent's plays change nothing here: each
seat has its own board. What the times mean, and which are too fast or too
regular for a person, is :mod:`core.fair_play`'s to judge.

The times are the server's: when a play *arrived*, not when it was sent. Both
ends of a reaction after the deal are this seat's own plays, so the network's
latency cancels out and only its jitter remains; a card playable at the deal or
a redeal also carries one round trip (the board had to reach the player).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import engine

__all__ = ["Timing"]


class Timing:
    """One seat's playable-since times, and the reaction and gap of each of its plays."""

    __slots__ = ("_last", "_since", "gaps", "reactions")

    def __init__(self) -> None:
        self._since: dict[int, float] = {}
        """Each card playable now: seconds into the race since which it is."""
        self._last = 0.0
        """When the seat last moved (a play or its redeal), or the deal."""
        self.reactions: list[float] = []
        """Each play's seconds from its card becoming playable to the play, in order."""
        self.gaps: list[float] = []
        """Each play's seconds since the seat's move before it (or the deal), in order."""

    @property
    def plays(self) -> int:
        """Cards played so far."""
        return len(self.reactions)

    def saw(self, board: engine.Board, at: float) -> None:
        """The board was dealt (or dealt again by a redeal) at ``at``."""
        self._last = at
        self._note(board, at)

    def played(self, card: int, bed: int | None, board: engine.Board, at: float) -> None:
        """``card`` was played from ``bed`` (None: the bouquet) at ``at``; ``board`` is as
        the play left it."""
        since = self._since
        self.reactions.append(at - since.pop(card, at))
        self.gaps.append(at - self._last)
        self._last = at
        # Made once a play, so only the two cards a play can make playable are
        # looked at (engine.Board.play): the next of its suit, and the card it
        # uncovered. Neither was playable before, so neither has a time yet.
        if card % 13 != 12 and board.is_legal(card + 1):
            since[card + 1] = at
        if bed is not None and board.beds[bed] and board.is_legal(front := board.beds[bed][-1]):
            since[front] = at

    def _note(self, board: engine.Board, at: float) -> None:
        """Every card playable on ``board`` and not yet timed became playable at ``at``."""
        since = self._since
        for card in board.legal_plays():
            if card not in since:
                since[card] = at
