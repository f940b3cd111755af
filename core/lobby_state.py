"""What a lobby holds at one moment: its players, races and desks, to read.

:class:`LobbyState` holds the lobby's data and answers questions about it;
the lobby core (:class:`core.lobby.Lobby`, its subclass) is the only code that
changes it, through its inputs, as :class:`~core.race_state.RaceState` is for
a race.
"""

from __future__ import annotations

from itertools import islice
from typing import TYPE_CHECKING

from protocol import LIST_CAP, GameInfo, LobbySnapshot

from .events import Output, Send
from .listing import Listed, Listing
from .lobby_player import LobbyPlayer

if TYPE_CHECKING:
    import random

    from protocol import GameState

    from .arenas import Arenas
    from .daily import DailyDesk
    from .quick_match import QuickMatch
    from .race import Race
    from .rematches import Rematches
    from .rooms import Rooms

__all__ = ["LobbyState"]


class LobbyState:
    """What a lobby holds at one moment; :class:`~core.lobby.Lobby` changes it."""

    _quick_match: QuickMatch
    _rooms: Rooms
    _daily: DailyDesk
    _arenas: Arenas
    _rematches: Rematches

    def __init__(self, *, rng: random.Random, idle_limit: float | None, grace: float) -> None:
        self._rng = rng
        self.idle_limit = idle_limit
        self.grace = grace
        self._players: dict[str, LobbyPlayer] = {}
        self._races: dict[str, Race] = {}

    # -- reading ---------------------------------------------------------------

    @property
    def online(self) -> int:
        return sum(1 for player in self._players.values() if player.online)

    def elapsed(self, now: float) -> dict[str, float]:
        """How far each live race has gone at ``now``, by game id: what a restart resumes from."""
        return {game_id: now - race.started for game_id, race in self._races.items()}

    def race(self, game_id: str) -> Race | None:
        """A live race."""
        return self._races.get(game_id)

    def has_arena(self, arena_id: str) -> bool:
        """Whether ``arena_id`` names an upcoming or running arena of this lobby."""
        return self._arenas.has(arena_id)

    def let_go_of_arena(self, arena_id: str) -> list[str]:
        """Another worker owns ``arena_id`` now (:meth:`Arenas.let_go <core.arenas.Arenas.let_go>`):
        its players here whom the glue sends to it."""
        return self._arenas.let_go(arena_id)

    def has_room(self, code: str) -> bool:
        """Whether ``code`` (as a player types it) names a room of this lobby."""
        return self._rooms.has(code)

    def open_rooms(self) -> list[str]:
        """The codes of the rooms waiting for a second player."""
        return self._rooms.waiting()

    def snapshot(self) -> LobbySnapshot:
        """What a ``lobby`` command answers: players online, seekers, open public rooms, races."""
        return self.listing().snapshot()

    def listing(self) -> Listing:
        """The lobby as :meth:`snapshot` shows it, with when each room opened and race began."""
        rooms, rooms_total = self._rooms.listed()
        games = [
            Listed(race.started, GameInfo(game_id=race.game_id, players=race.names,
                                          counts=race.counts, bots=race.bots))
            for race in islice(reversed(self._races.values()), LIST_CAP)
        ]  # fmt: skip
        seeks = self._quick_match.seeks.counts()
        return Listing(
            self.online, seeks, rooms, rooms_total, games, len(self._races),
            arenas=self._arenas.listed(), daily=self._daily.info(),
        )  # fmt: skip

    def resync(self, player_id: str, now: float) -> list[Output]:
        """A racing player's whole race again (``game_state``), as on coming back."""
        race = self.race_of(player_id)
        return (
            [] if race is None else [Send((player_id,), race.state(race.seat_of(player_id), now))]
        )

    def missed(self, player_id: str) -> None:
        """``player_id``'s connection went without their learning all it carried (a link
        between workers lost messages): the end of their last race, if it ended, is told
        again when they come back, as to a racer away when it ended (``Lobby.connect``)."""
        player = self._players.get(player_id)
        if player is not None and player.race is None and player.last_race is not None:
            player.missed_over = True

    def ended_state(self, player_id: str, game_id: str, now: float) -> GameState | None:
        """The ``game_state`` of race ``game_id``, over, as ``player_id`` is told it on coming
        back; None unless it is their last race (they have moved on, or never raced it)."""
        player = self._players.get(player_id)
        race = None if player is None else player.last_race
        if race is None or race.game_id != game_id or race.over is None:
            return None
        return race.state(race.seat_of(player_id), now)

    def owes_end(self, player_id: str) -> bool:
        """Whether ``player_id`` is to learn their last race's end on coming back."""
        player = self._players.get(player_id)
        return player is not None and player.missed_over and player.last_race is not None

    def owed_ends(self) -> list[str]:
        """The players who are to learn their last race's end on coming back
        (:meth:`owes_end`)."""
        return [p.id for p in self._players.values() if p.missed_over and p.last_race is not None]

    def race_of(self, player_id: str) -> Race | None:
        """The live race of a player, if any."""
        player = self._players.get(player_id)
        return player.race if player else None

    def player(self, player_id: str) -> LobbyPlayer:
        """A player the lobby knows (the desks' :class:`~core.lobby_player.LobbyHost`)."""
        return self._players[player_id]

    def held(self, player_id: str) -> LobbyPlayer | None:
        """A player the lobby holds; None for one it does not (a bot, the ghost)."""
        return self._players.get(player_id)

    def known(self, player_id: str, name: str) -> LobbyPlayer:
        """The player with this id, held from now on (offline) if the lobby did not yet:
        a restored race's or arena's, until they come back."""
        return self._players.setdefault(player_id, LobbyPlayer(player_id, name))
