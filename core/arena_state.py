"""One arena as the lobby holds it: what the operator scheduled, who joined with what score,
its races, and the ``arena`` messages and listing it shows.

The arenas desk (:mod:`core.arenas`) changes an :class:`ArenaState` through
its inputs; this module holds the data and builds what it shows. What the store
keeps of an arena is its :class:`ScheduledArena` and one :class:`Entrant` per
player who joined it (:class:`~core.events.ArenaChanged` says when one
changes), which is all :meth:`ArenaState.restored` needs.

The standings of a thousand players go out as a thousand ``arena`` messages
that differ only in their receiver's place (``you``): one message is built
per push (:meth:`ArenaState.message`) and each receiver's is a copy of it with
their place (:meth:`ArenaState.yours`), which costs half of building each anew
(``python -m bench.arena``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeAlias

from protocol import STANDINGS_CAP, Arena, ArenaInfo, ArenaPlace, Standing

from .arena_rules import Candidate, Placed, ranked

if TYPE_CHECKING:
    from collections.abc import Iterable

    from protocol import ArenaStatus, Rules

__all__ = ["ArenaState", "Entrant", "Phase", "ScheduledArena"]

Phase: TypeAlias = Literal["upcoming", "running", "ending", "finished"]
"""Where an arena is: ``ending`` once its time is up while races it paired still run
(``running`` on the wire); ``finished`` once they have all ended."""


@dataclass(frozen=True, slots=True)
class ScheduledArena:
    """An arena the operator scheduled, as the glue gives it to the lobby."""

    arena_id: str
    name: str
    rules: Rules
    starts: float
    """When it starts, on the cores' clock."""
    ends: float
    """When its time is up, on the cores' clock."""
    starts_at: str
    """``starts`` as the wire shows it: ISO 8601 with its offset."""
    ends_at: str

    def __post_init__(self) -> None:
        if not self.ends > self.starts:
            raise ValueError(f"arena {self.arena_id} ends before it starts")


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player who joined an arena, with their score there: one row the store keeps."""

    player_id: str
    name: str
    bot: bool
    order: int
    """How many joined before them: the last tiebreak in the standings."""
    joined: bool = True
    """Still joined; False once they left (their score stays in the standings)."""
    score: int = 0
    streak: int = 0
    """Wins in a row: from two on, wins score double."""
    races: int = 0
    last_opponent: str | None = None
    """Whom they raced last here: not paired with them again at once."""

    @property
    def listed(self) -> bool:
        """In the standings: joined, or scored a race before leaving."""
        return self.joined or self.races > 0


@dataclass(slots=True)
class ArenaState:
    """One arena of a lobby (see the module docstring)."""

    spec: ScheduledArena
    phase: Phase
    entrants: dict[str, Entrant] = field(default_factory=dict)
    racing: set[str] = field(default_factory=set)
    """The ids of the races it paired that are still running."""
    free: set[str] = field(default_factory=set)
    """Joined players who may be free to pair: checked when pairing."""
    pushed: float | None = None
    """When the standings last went out to the joined players."""
    dirty: bool = False
    """The standings changed since they last went out."""

    @classmethod
    def restored(
        cls, spec: ScheduledArena, entrants: Iterable[Entrant], racing: Iterable[str], now: float
    ) -> ArenaState:
        """The arena as the store kept it, at ``now``; ``racing``: its races still live."""
        phase: Phase = (
            "upcoming" if now < spec.starts else "running" if now < spec.ends else "ending"
        )
        arena = cls(spec, phase, {e.player_id: e for e in entrants}, set(racing))
        arena.free = {e.player_id for e in arena.entrants.values() if e.joined}
        return arena

    @property
    def status(self) -> ArenaStatus:
        return "running" if self.phase == "ending" else self.phase

    def info(self) -> ArenaInfo:
        """The arena as ``lobby.arenas`` lists it."""
        spec = self.spec
        return ArenaInfo(
            arena_id=spec.arena_id, name=spec.name, status=self.status,
            starts_at=spec.starts_at, ends_at=spec.ends_at, players=self.players(),
        )  # fmt: skip

    def players(self) -> int:
        """How many the standings list."""
        return sum(1 for entrant in self.entrants.values() if entrant.listed)

    def candidate(self, entrant: Entrant, rating: float) -> Candidate:
        return Candidate(
            entrant.player_id, entrant.score, rating, entrant.last_opponent, entrant.order
        )

    def standings(self) -> tuple[list[Standing], dict[str, int]]:
        """The first :data:`~protocol.STANDINGS_CAP` places, and the rank of each player
        who has raced."""
        entrants = self.entrants
        places = [
            Placed(e.player_id, e.score, e.races, e.order) for e in entrants.values() if e.listed
        ]
        top: list[Standing] = []
        ranks: dict[str, int] = {}
        for rank, place in ranked(places):
            entrant = entrants[place.player_id]
            if len(top) < STANDINGS_CAP:
                top.append(
                    Standing(rank=rank, name=entrant.name, score=entrant.score,
                             streak=entrant.streak, races=entrant.races, bot=entrant.bot)
                )  # fmt: skip
            if entrant.races:
                ranks[entrant.player_id] = rank
        return top, ranks

    def message(self, standings: list[Standing], players: int) -> Arena:
        """The ``arena`` message as a joined player with no race yet gets it."""
        spec = self.spec
        return Arena(
            arena_id=spec.arena_id, name=spec.name, rules=spec.rules, status=self.status,
            starts_at=spec.starts_at, ends_at=spec.ends_at, joined=True,
            standings=standings, players=players, you=None,
        )  # fmt: skip

    def yours(self, message: Arena, player_id: str, ranks: dict[str, int]) -> Arena:
        """``message`` as ``player_id`` gets it: with their place, or not joined."""
        entrant = self.entrants[player_id]
        if not entrant.joined:
            return message.model_copy(update={"joined": False})
        rank = ranks.get(player_id)
        if rank is None:
            return message
        you = ArenaPlace(rank=rank, score=entrant.score, streak=entrant.streak, races=entrant.races)
        return message.model_copy(update={"you": you})

    def next_due(self, every: float) -> float | None:
        """When the desk's timer for this arena must fall next: its start, its end, or
        the next push of standings that changed (``every`` seconds after the last)."""
        if self.phase == "upcoming":
            return self.spec.starts
        push = None
        if self.dirty:
            push = self.spec.starts if self.pushed is None else self.pushed + every
        if self.phase == "running":
            return self.spec.ends if push is None else min(push, self.spec.ends)
        return push
