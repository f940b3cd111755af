"""A player as the lobby core holds them, and what the lobby's desks ask of the lobby.

The lobby (:mod:`core.lobby`) routes each command to a desk: the quick-match
queue (:mod:`core.quick_match`), the rooms (:mod:`core.rooms`), the rematch
offers (:mod:`core.rematches`), the daily deal (:mod:`core.daily`), the
arenas (:mod:`core.arenas`). Each desk reads and sets the fields of
:class:`LobbyPlayer` that are its own, and asks the lobby, through
:class:`LobbyHost`, for what only the lobby does: start a race, and check the
limits on rated races (:mod:`core.rated`).

A player is at most one of: seeking, hosting an open room, in an arena
(racing there or waiting to be paired). Racing is one more, except in an
arena, where a player who joins while racing is paired once the race is over.
Watching is separate: it ends when the player starts anything else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from .glicko2 import NEW, Glicko

if TYPE_CHECKING:
    from collections.abc import Callable

    from protocol import Rules

    from .bot_policy import SeatPolicy
    from .events import Output
    from .race import Race
    from .race_kind import RaceKind
    from .seat import SeatInfo
    from .seeding import Dealers

__all__ = ["LobbyHost", "LobbyPlayer"]


@dataclass(slots=True)
class LobbyPlayer:
    """One player the lobby knows, online or not, and what they are doing."""

    id: str
    name: str
    address: str = ""
    """The IP address of the player's connection, for the limits per address."""
    online: bool = False
    rating: Glicko = NEW
    bot: bool = False
    """A declared bot (``hello.bot``): labelled a bot, never rated (:mod:`core.rated`)."""
    flags: int = 0
    """Races in which their play was flagged (:mod:`core.fair_play`), until cleared."""
    seeking: Rules | None = None
    bot_wait: tuple[float, int] | None = None
    """While seeking with ``bot``: when a bot takes the other seat, and its level."""
    room: str | None = None
    race: Race | None = None
    last_race: Race | None = None
    finished: str | None = None
    """The id of the player's last finished race, until the next one starts."""
    watching: str | None = None
    missed_over: bool = False
    """Their race ended while they were away: they get its state on coming back."""
    arena: str | None = None
    """The arena they joined, until they leave it or it finishes."""
    last_daily: str | None = None
    """The day (``YYYY-MM-DD``) they last raced the daily deal: a race that day is practice."""


class LobbyHost(Protocol):
    """What a desk of the lobby asks of the lobby."""

    def player(self, player_id: str) -> LobbyPlayer: ...

    def held(self, player_id: str) -> LobbyPlayer | None:
        """A player the lobby holds; None for one it does not (a bot, the ghost)."""
        ...

    def known(self, player_id: str, name: str) -> LobbyPlayer:
        """The player with this id, held from now on (offline) if the lobby did not yet."""
        ...

    def start(
        self,
        first: LobbyPlayer,
        second: LobbyPlayer | None,
        rules: Rules,
        now: float,
        *,
        bot: tuple[SeatInfo, SeatPolicy | None] | None = None,
        made: Callable[[Race], None] | None = None,
        dealers: Dealers | None = None,
        kind: RaceKind | None = None,
    ) -> tuple[Race, list[Output]]:
        """A new race: ``first`` in seat 0, ``second`` or the ``bot`` in seat 1.

        ``made`` is told of the race before it starts (its start may end it).
        ``dealers``: the seats' (fresh ones when None); ``kind``: a daily race
        or an arena's (:mod:`core.race_kind`; a plain race when None).
        """
        ...

    def check_rated(self, rules: Rules, first: str, second: str, now: float) -> None:
        """With rated ``rules``, raise ``not_allowed`` or ``rate_limited`` if these two
        may not start a rated race (:mod:`core.rated`)."""
        ...

    def allows_rated(self, first: str, second: str, now: float) -> bool:
        """Whether quick match may pair these two for a rated race at ``now``."""
        ...
