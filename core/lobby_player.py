"""A player as the lobby core holds them, and what the lobby's desks ask of the lobby.

The lobby (:mod:`core.lobby`) routes each command to a desk: the quick-match
queue (:mod:`core.quick_match`), the rooms (:mod:`core.rooms`), the rematch
offers (:mod:`core.rematches`). Each desk reads and sets the fields of
:class:`LobbyPlayer` that are its own, and asks the lobby, through
:class:`LobbyHost`, for what only the lobby does: start a race, and check the
limits on rated races (:mod:`core.rated`).

A player is at most one of: seeking, hosting an open room, racing. Watching
is separate: it ends when the player starts anything else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from .glicko2 import NEW, Glicko

if TYPE_CHECKING:
    from collections.abc import Callable

    from protocol import Rules

    from .bot_policy import BotPolicy
    from .events import Output
    from .race import Race
    from .seat import SeatInfo

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


class LobbyHost(Protocol):
    """What a desk of the lobby asks of the lobby."""

    def player(self, player_id: str) -> LobbyPlayer: ...

    def start(
        self,
        first: LobbyPlayer,
        second: LobbyPlayer | None,
        rules: Rules,
        now: float,
        *,
        bot: tuple[SeatInfo, BotPolicy | None] | None = None,
        made: Callable[[Race], None] | None = None,
    ) -> tuple[Race, list[Output]]:
        """A new race: ``first`` in seat 0, ``second`` or the ``bot`` in seat 1.

        ``made`` is told of the race before it starts (its start may end it).
        """
        ...

    def check_rated(self, rules: Rules, first: str, second: str, now: float) -> None:
        """With rated ``rules``, raise ``not_allowed`` or ``rate_limited`` if these two
        may not start a rated race (:mod:`core.rated`)."""
        ...

    def allows_rated(self, first: str, second: str, now: float) -> bool:
        """Whether quick match may pair these two for a rated race at ``now``."""
        ...
