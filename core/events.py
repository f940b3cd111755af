"""What the sans-I/O cores hand to the glue, and how they refuse a command.

The cores (:mod:`core.race`, :mod:`core.lobby`) never touch a socket and
never need to be asked anything back: every input returns a list of outputs,
which the glue carries out in order, and each output says all it needs.

* :class:`Send` delivers one message to the players and spectators it names
  (``to``, player ids, resolved by the core: the glue looks nobody up).
* :class:`SendPlayed` is the ``played`` event, the one made on every play:
  its fields as plain values, encoded at the edge (:meth:`SendPlayed.frame`,
  by :func:`protocol.played_frame`) rather than validated as a model.
* :class:`RaceStarted` and :class:`Journaled` ask the glue to write a live
  race's start and each event it accepts to the race's journal; they come
  right before the messages that announce them, which wait until it is written.
* :class:`RaceEnded` asks the glue to persist a finished race. It comes right
  before the ``game_over`` it leads to, so the glue can hold that message back
  until the race is on disk.
* :class:`Wake` gives a race's next deadline (None: it has none), so the glue
  keeps one timer per race and calls the lobby's ``tick`` when it falls.
* :class:`Queued` and :class:`RoomListed` say who waits in the quick-match
  queue and which rooms are open, for the workers that share a lobby; one
  process alone skips them.
* :class:`ArenaChanged` asks the glue to write what changed in an arena (its
  status, the rows of the players whose score or membership changed), as
  :class:`RaceEnded` does for a race: the messages after it wait until it is
  written, so an arena restored from the store is the arena its players saw.

The four made on every play (:class:`Send`, :class:`SendPlayed`,
:class:`Journaled`, :class:`Wake`) are plain slotted dataclasses, not frozen
ones: a frozen dataclass sets each field through ``object.__setattr__``, five
times slower (1.5 µs against 0.28 µs for a ``played``, measured by
``timeit``). Nothing changes an output once it is made; treat them as values.

A command the rules refuse raises :class:`Refused`, which carries the
protocol's error code; the core has changed nothing when it raises.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from protocol import played_frame

if TYPE_CHECKING:
    from protocol import ArenaStatus, BoardStatus, ErrorCode, Rules, ServerMessage

    from .arena_state import Entrant
    from .race_log import Entry, FinishedRace, RaceStart

__all__ = [
    "ArenaChanged",
    "Audience",
    "Journaled",
    "Output",
    "Queued",
    "RaceEnded",
    "RaceStarted",
    "Refused",
    "RoomListed",
    "Send",
    "SendPlayed",
    "Wake",
]


@dataclass(slots=True)
class Send:
    """Deliver ``message`` to the players and spectators ``to`` (player ids)."""

    to: tuple[str, ...]
    message: ServerMessage


@dataclass(slots=True)
class SendPlayed:
    """Deliver a ``played`` event to ``to``: a play was accepted."""

    to: tuple[str, ...]
    game_id: str
    seat: int
    card: str
    bed: int | None
    count: int
    status: BoardStatus
    t_ms: int
    seq: int

    def frame(self) -> bytes:
        """The ``played`` frame, as every receiver gets it (without an ``id``)."""
        return played_frame(
            game_id=self.game_id,
            seat=self.seat,
            card=self.card,
            bed=self.bed,
            count=self.count,
            status=self.status,
            t_ms=self.t_ms,
            seq=self.seq,
        )


@dataclass(frozen=True, slots=True)
class RaceStarted:
    """A race begins: write its start before announcing it."""

    start: RaceStart


@dataclass(slots=True)
class Journaled:
    """Race ``game_id`` accepted an event: write ``entry`` before announcing it."""

    game_id: str
    entry: Entry


@dataclass(frozen=True, slots=True)
class RaceEnded:
    """A race is over: persist its record before announcing it."""

    record: FinishedRace


@dataclass(slots=True)
class Wake:
    """Race ``game_id``'s next deadline is ``at`` (the cores' clock), or it has none."""

    game_id: str
    at: float | None


@dataclass(frozen=True, slots=True)
class Queued:
    """``player_id`` waits for an opponent with ``rules``; with None, waits no more.

    What other workers must see of the quick-match queue (docs/design.md,
    "Several workers"); one process alone has nothing to do with it.
    """

    player_id: str
    rules: Rules | None


@dataclass(frozen=True, slots=True)
class RoomListed:
    """Room ``code`` is open for a second player (``open``), or no longer is.

    As :class:`Queued`: what other workers must see, so that a ``join_room``
    anywhere finds the room.
    """

    code: str
    open: bool


@dataclass(frozen=True, slots=True)
class ArenaChanged:
    """Arena ``arena_id`` is now ``status``, and these ``entrants`` (players who joined it)
    are as given: write them (one row per arena and player) before what announces them."""

    arena_id: str
    status: ArenaStatus
    entrants: tuple[Entrant, ...] = ()


class Audience:
    """Who hears a race's events: its players, then its spectators in a stable order.

    :attr:`all` is kept as one tuple, since every event of the race is
    addressed to it and a play must not build it again.
    """

    __slots__ = ("_players", "_watchers", "all")

    def __init__(self, players: tuple[str, ...]) -> None:
        self._players = players
        self._watchers: set[str] = set()
        self.all: tuple[str, ...] = players

    @property
    def watchers(self) -> frozenset[str]:
        return frozenset(self._watchers)

    def add(self, player_id: str) -> None:
        self._watchers.add(player_id)
        self.all = (*self._players, *sorted(self._watchers))

    def discard(self, player_id: str) -> None:
        self._watchers.discard(player_id)
        self.all = (*self._players, *sorted(self._watchers))


Output = (
    Send
    | SendPlayed
    | RaceStarted
    | Journaled
    | RaceEnded
    | Wake
    | Queued
    | RoomListed
    | ArenaChanged
)


class Refused(Exception):
    """A command that the rules or the lobby refuse; nothing changed."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
