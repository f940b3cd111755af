"""What a worker does with the races of its lobby that it may no longer own.

With several workers (docs/design.md, "Several workers") a race is owned by
one worker at a time, under a lease. A worker that could not renew its lease
in time holds its races (:meth:`LobbyHandover.hold`) until it learns whether
they are still its own: then each goes on (:meth:`~LobbyHandover.go_on`), or
leaves this lobby unended for the worker that took it
(:meth:`~LobbyHandover.let_go_of`). These are inputs of the lobby core
(:class:`core.lobby.Lobby`, a subclass), kept apart from the commands it routes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .lobby_state import LobbyState

if TYPE_CHECKING:
    from .events import Output

__all__ = ["LobbyHandover"]


class LobbyHandover(LobbyState):
    """A lobby's races held, resumed and handed over (see the module docstring)."""

    def hold(self, now: float) -> list[Output]:
        """Hold every race here (:meth:`Race.pause <core.race.Race.pause>`): this worker
        is not sure it still owns them."""
        return [out for race in self._races.values() for out in race.pause(now)]

    def go_on(self, game_id: str, now: float) -> list[Output]:
        """Race ``game_id`` is this worker's after all: it goes on from where it was held."""
        race = self._races.get(game_id)
        return [] if race is None else race.resume(now)

    def let_go_of(self, game_id: str) -> tuple[str, ...]:
        """Race ``game_id`` leaves this lobby unended: another worker owns it now.

        Returns who was in it, players and spectators, for the glue to send
        away (they come back to the race's owner); the race's timer goes. A
        race that ended here, and whose end the store refused (another worker
        took it first), goes too: its players forget an end that never was.
        """
        race = self._races.pop(game_id, None)
        if race is None:
            return self._forget_end(game_id)
        self._rooms.race_over(race)
        players = []  # not those racing another race here now: theirs came here since
        for player_id in race.player_ids:
            player = self._players.get(player_id)
            if player is not None and player.race is race:
                player.race = player.last_race = None
                players.append(player_id)
        for player_id in race.watchers:
            self._players[player_id].watching = None
        return (*players, *race.watchers)

    def _forget_end(self, game_id: str) -> tuple[str, ...]:
        """Who ended race ``game_id`` here last: no rematch of it, no ``game_over`` of it."""
        players = [player for player in self._players.values() if player.finished == game_id]
        for player in players:
            self._rematches.lapse(player)
            player.last_race, player.finished, player.missed_over = None, None, False
        return tuple(player.id for player in players)
