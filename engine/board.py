"""One player's board and the moves on it: plays and the redeal.

A :class:`Board` is mutable, because a race applies thousands of plays and
copying a layout for each would be waste; but every move checks first and
changes nothing when it raises, so a refused move leaves no trace.

The board keeps, beside its beds and bouquet, where each card is
(``where``: a bed index, :data:`BOUQUET` or :data:`PLAYED`), its index in its
bed (``level``) and the card under it (``below``), so that the solver needs no
search; and the set of cards playable now (at most one per suit), so that a
legality check is one set lookup. Only two cards can become playable by a play:
the next card of its suit and the card it uncovered, so a play updates that set
in a few steps.

Why a card cannot be played is said here too, once: :meth:`Board.why_illegal`
gives the reason that :meth:`Board.play` raises, so a client that checks a key
locally tells the player what the server would.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from .cards import CARDS, SUITS, Card
from .deal import Layout
from .errors import IllegalPlay, IllegalRedeal

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

__all__ = ["BOUQUET", "PLAYED", "Board", "Placement", "Status"]

BOUQUET = -1
PLAYED = -2


class Status(StrEnum):
    """What the rules alone say of a board (the race adds timed_out, resigned, abandoned)."""

    PLAYING = "playing"
    STUCK = "stuck"
    STALLED = "stalled"
    CLEARED = "cleared"


@dataclass(slots=True)
class Placement:
    """A play that happened: the card, and the bed it left (None for the bouquet).

    A value never changed once made, though not a frozen dataclass: one is
    made per play, and a frozen one costs several times as much to make.
    """

    card: Card
    bed: int | None


class Board:
    """Beds, bouquet, foundations and redeals left of one player.

    Read its attributes, change it only through its moves: ``where``, ``level``
    and ``below`` (as in :class:`Layout`) and the set of playable cards are kept
    in step with the beds by the moves alone.
    """

    __slots__ = (
        "_playable",
        "beds",
        "below",
        "bouquet",
        "foundations",
        "level",
        "redeals_left",
        "where",
    )

    beds: list[list[Card]]
    bouquet: list[Card]
    foundations: list[int]
    redeals_left: int
    where: list[int]
    level: list[int]
    below: Sequence[int]
    _playable: set[int]

    def __init__(self, layout: Layout, redeals: int = 0) -> None:
        self._set_up(layout, [0, 0, 0, 0], redeals)

    @classmethod
    def from_parts(
        cls,
        beds: Sequence[Sequence[int]],
        bouquet: Sequence[int],
        foundations: Sequence[int],
        redeals_left: int = 0,
    ) -> Board:
        """A board in the middle of a game; its cards and foundations must add up to 52."""
        board = cls.__new__(cls)
        layout = Layout(
            tuple(tuple(CARDS[card] for card in bed) for bed in beds),
            tuple(CARDS[card] for card in bouquet),
        )
        board._set_up(layout, list(foundations), redeals_left)
        return board

    def _set_up(self, layout: Layout, foundations: list[int], redeals_left: int) -> None:
        beds = [list(bed) for bed in layout.beds]
        bouquet = list(layout.bouquet)
        where, level = _locate(beds, bouquet, foundations)  # may raise: nothing set yet
        self.beds, self.bouquet, self.foundations = beds, bouquet, foundations
        self.redeals_left = redeals_left
        self.where, self.level, self.below = where, level, layout.below
        self._playable = set()
        for suit in range(4):
            if foundations[suit] < 13:
                self._note_if_playable(suit * 13 + foundations[suit])

    # -- reading ---------------------------------------------------------------

    @property
    def count(self) -> int:
        """Cards on the foundations."""
        f = self.foundations
        return f[0] + f[1] + f[2] + f[3]

    @property
    def status(self) -> Status:
        if self.count == 52:
            return Status.CLEARED
        if self._playable:
            return Status.PLAYING
        return Status.STUCK if self.redeals_left else Status.STALLED

    def is_legal(self, card: int) -> bool:
        """Whether ``card`` (0-51) may be played now."""
        # The hot path of every play the server receives: one set lookup.
        return card in self._playable

    def why_illegal(self, card: int, name: Callable[[Card], str] = str) -> str | None:
        """None if ``card`` may be played now, else why not: what :meth:`play` would raise.

        ``name`` writes a card in the reason (``str``: its code, ``"QH"``), so
        that a client can say it its own way while the rules stay here.
        """
        if card in self._playable:
            return None
        return self._refusal(card, name)

    def has_play(self) -> bool:
        """Whether any card may be played now."""
        return bool(self._playable)

    def legal_plays(self) -> list[Card]:
        """Every card that may be played now, in suit order (at most one per suit)."""
        return [CARDS[card] for card in sorted(self._playable)]

    def cards_in_play(self) -> list[Card]:
        """The cards still on the beds and in the bouquet, sorted."""
        return sorted(card for card in CARDS if self.where[card] != PLAYED)

    # -- moves -----------------------------------------------------------------

    def play(self, card: int) -> Placement:
        """Move ``card`` to its foundation, or raise :class:`IllegalPlay` and change nothing."""
        if card not in self._playable:
            raise IllegalPlay(self._refusal(card, str))
        where = self.where[card]
        if where == BOUQUET:
            self.bouquet.remove(card)  # type: ignore[arg-type]
        else:
            self.beds[where].pop()
        self.where[card] = PLAYED
        self.foundations[card // 13] += 1
        self._playable.remove(card)
        # Only two cards can have become playable: this suit's next card, and
        # the card this play uncovered (confluence: no play ever removes another).
        if card % 13 != 12:
            self._note_if_playable(card + 1)
        if where >= 0 and self.beds[where]:
            self._note_if_playable(self.beds[where][-1])
        return Placement(CARDS[card], None if where == BOUQUET else where)

    def redeal(self, deal: Callable[[Sequence[Card]], Layout]) -> None:
        """Gather the cards in play and set up what ``deal`` makes of them.

        Allowed only when the board is stuck (no play, a redeal left, not
        cleared); otherwise raises :class:`IllegalRedeal` and changes nothing.
        The cards go to ``deal`` in PROTOCOL.md's redeal order: beds 0 to 5,
        each from bottom to front, then the bouquet in order; a seat's
        :class:`~engine.dealing.Dealer` shuffles and deals them.
        """
        if self.redeals_left <= 0:
            raise IllegalRedeal("no redeal left")
        if self._playable:
            raise IllegalRedeal("a redeal is only for a board with no play")
        if self.count == 52:
            raise IllegalRedeal("the board is cleared")
        cards = [card for bed in self.beds for card in bed] + self.bouquet
        self._set_up(deal(cards), self.foundations, self.redeals_left - 1)

    def _refusal(self, card: int, name: Callable[[Card], str]) -> str:
        """Why ``card``, which is not in the playable set, cannot be played now."""
        if card not in range(52):
            return f"{card!r} is not a card"
        played = CARDS[card]
        top = self.foundations[played.suit]
        if top >= played.rank:
            return f"{name(played)} is already on its foundation"
        where = self.where[card]
        if where != BOUQUET and self.beds[where][-1] != card:
            above = len(self.beds[where]) - 1 - self.level[card]
            cards = "card" if above == 1 else "cards"
            return f"{name(played)} is under {above} {cards} in bed {where + 1}"
        # Uncovered and not played, yet not playable: only its foundation can be
        # behind (the playable set holds exactly the uncovered cards whose
        # foundation is ready, which a test holds this method to).
        needed = CARDS[played.suit * 13 + top]
        return f"{name(played)} must wait: {name(needed)} goes up first"

    def _note_if_playable(self, card: int) -> None:
        """Add ``card`` to the playable set if its foundation is ready and nothing covers it."""
        if self.foundations[card // 13] == card % 13:
            where = self.where[card]
            if where == BOUQUET or (where >= 0 and self.beds[where][-1] == card):
                self._playable.add(card)

    # -- values ----------------------------------------------------------------

    def copy(self) -> Board:
        return Board.from_parts(self.beds, self.bouquet, self.foundations, self.redeals_left)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (
            self.beds == other.beds
            and self.bouquet == other.bouquet
            and self.foundations == other.foundations
            and self.redeals_left == other.redeals_left
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        beds = [[str(c) for c in bed] for bed in self.beds]
        found = dict(zip(SUITS, self.foundations, strict=True))
        return (
            f"<Board beds={beds} bouquet={[str(c) for c in self.bouquet]} "
            f"foundations={found} redeals_left={self.redeals_left}>"
        )


def _locate(
    beds: Iterable[Sequence[Card]], bouquet: Iterable[Card], found: Sequence[int]
) -> tuple[list[int], list[int]]:
    """Where each card is and its index in its bed; checks that each card is there once."""
    where, level = [PLAYED] * 52, [0] * 52
    seen = sum(found)
    for card in bouquet:
        where[card] = BOUQUET
        seen += 1
    for index, bed in enumerate(beds):
        for depth, card in enumerate(bed):
            where[card], level[card] = index, depth
            seen += 1
    played = [card for card in range(52) if where[card] == PLAYED]
    expected = [suit * 13 + rank for suit in range(4) for rank in range(found[suit])]
    if seen != 52 or played != expected:
        raise ValueError("beds, bouquet and foundations must hold each card exactly once")
    return where, level
