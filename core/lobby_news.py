"""The glue's news of what changed outside the lobby: the day, the operator's arenas, the
operator's actions on players.

These are inputs of the lobby core (:class:`core.lobby.Lobby`, a subclass),
kept apart from the commands it routes, as the handover is
(:class:`~core.lobby_handover.LobbyHandover`). Every worker applies them: the
day as its own clock turns (00:00 UTC), the rest as the store's audit log and
the arenas' rows tell it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .lobby_handover import LobbyHandover

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .arena_state import Entrant, ScheduledArena
    from .daily import DailyDeal
    from .events import Output
    from .glicko2 import Glicko

__all__ = ["LobbyNews"]


class LobbyNews(LobbyHandover):
    """The day, the arenas and the operator's changes, as the glue tells them."""

    def daily_deal(self, deal: DailyDeal) -> None:
        """The day it is (:class:`~core.daily.DailyDeal`): when the server starts, at
        00:00 UTC, and when the day's best clear or board changes elsewhere."""
        self._daily.set(deal)

    def schedule_arena(self, spec: ScheduledArena, now: float) -> list[Output]:
        """An arena the operator scheduled, or its new times (:mod:`core.arenas`)."""
        return self._arenas.schedule(spec, now)

    def restore_arena(
        self, spec: ScheduledArena, entrants: Iterable[Entrant], now: float
    ) -> list[Output]:
        """An arena as the store kept it, after a restart or on another worker; its races
        are this lobby's live races that name it, restored before or after it."""
        return self._arenas.restore(spec, entrants, self._races.values(), now)

    def clear_flags(self, player_id: str) -> None:
        """The operator cleared ``player_id``'s flags: they may race rated again.

        Nothing for a player this lobby does not hold: the store's count,
        cleared too, comes with their next hello.
        """
        player = self._players.get(player_id)
        if player is not None:
            player.flags = 0

    def update(
        self,
        player_id: str,
        *,
        name: str | None = None,
        rating: Glicko | None = None,
        bot: bool | None = None,
    ) -> None:
        """The operator changed a player: renamed them, annulled a race of theirs (their
        rating as the store now has it), or marked them a bot. Races already started
        keep what they started with; nothing for a player this lobby does not hold."""
        player = self._players.get(player_id)
        if player is None:
            return
        player.name = player.name if name is None else name
        player.rating = player.rating if rating is None else rating
        player.bot = player.bot if bot is None else bot
