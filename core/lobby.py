"""The lobby core: who is online, and routing their commands to races and desks.

Theory of operation
-------------------
The :class:`Lobby` knows every player who has been online since the server
started (:class:`~core.lobby_player.LobbyPlayer`), and routes their commands.
It is sans-I/O like :mod:`core.race`: each input takes ``now`` and returns
the outputs to carry out, and a refused command raises
:class:`~core.events.Refused` having changed nothing.

* :meth:`connect` and :meth:`disconnect` follow a player's connection (the
  glue calls ``connect`` after ``welcome``, and handles replaced connections
  itself: a replacement is not a disconnect).
* :meth:`handle` takes every decoded command after ``hello``: race moves go to
  the player's race, the rest to a desk: quick match (:mod:`core.quick_match`),
  rooms (:mod:`core.rooms`), rematches (:mod:`core.rematches`), the daily deal
  (:mod:`core.daily`), arenas (:mod:`core.arenas`).
* :meth:`tick` applies what is due when one of the glue's timers falls: a
  race's deadlines, or a desk's timer; the glue learns when to set each timer
  from :class:`~core.events.Wake` outputs, and asks the lobby nothing back.
* :meth:`daily_deal`, :meth:`schedule_arena` and :meth:`restore_arena` are
  the glue's news of the day it is and of the operator's arenas.

The lobby alone starts races (:meth:`start`, which the desks ask for) and
retires them when they end. A player is at most one of: seeking, hosting an
open room, racing; watching ends when they start anything else. A finished
race stays attached to its players (``last_race``) until they move on, so that
a late ``play`` gets ``game_over``; its id stays (``finished``) until their
next race, so that a ``rematch`` whose offer lapsed is told so
(``game_not_found``). A race's spectators are kept by the race itself
(:meth:`Race.watch <core.race.Race.watch>`), so every event it makes names
them, the one that ends it included. What the lobby holds and answers is its
base class, :class:`~core.lobby_state.LobbyState`; what a worker does with races
it may no longer own, :class:`~core.lobby_handover.LobbyHandover`; the glue's news
of the day, the arenas and the operator's actions, :class:`~core.lobby_news.LobbyNews`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import engine
from protocol import Cancelled, ClientMessage, Rules

from .arenas import ARENA_TIMER, Arenas
from .bots import is_bot
from .daily import DailyDesk
from .events import Output, Refused, Send, Wake
from .glicko2 import NEW, Glicko
from .lobby_news import LobbyNews
from .quick_match import BOT_TIMER, QUEUE, QuickMatch
from .race import Race, SeatInfo
from .race_kind import PLAIN
from .race_views import with_results
from .rated import RATED_LIMITS, RatedGate, RatedLimits
from .rematches import Rematches
from .rooms import ROOM_ALPHABET, ROOM_CODE_LENGTH, Rooms
from .seeding import fresh_dealers

if TYPE_CHECKING:
    import random
    from collections.abc import Callable

    from .bot_policy import SeatPolicy
    from .lobby_player import LobbyPlayer
    from .race_kind import RaceKind
    from .seeding import Dealers

__all__ = ["ARENA_TIMER", "BOT_TIMER", "QUEUE", "ROOM_ALPHABET", "ROOM_CODE_LENGTH", "Lobby"]


class Lobby(LobbyNews):
    """Players, queue, rooms and races of one server."""

    def __init__(
        self,
        *,
        rng: random.Random,
        idle_limit: float | None,
        grace: float,
        wrong_codes_per_hour: int = 120,
        rated_per_day: int = 5,
        rated_limits: RatedLimits = RATED_LIMITS,
    ) -> None:
        """``rng`` deals, names races and rooms: pass ``secrets.SystemRandom()`` in production.

        ``wrong_codes_per_hour``: see :class:`~core.rooms.Rooms`; ``rated_per_day``:
        rated races one pair of players may start a day; ``rated_limits``: the
        others on rated races (:mod:`core.rated`).
        """
        super().__init__(rng=rng, idle_limit=idle_limit, grace=grace)
        self._rated = RatedGate(rated_per_day, rated_limits)
        self._quick_match = QuickMatch(self, rng)
        self._rooms = Rooms(self, rng, wrong_codes_per_hour)
        self._daily = DailyDesk(self, rng)
        self._arenas = Arenas(self, self._rated.check_player)
        self._rematches = Rematches(self, self._quick_match, self._daily)
        self._handlers: dict[str, Callable[[LobbyPlayer, ClientMessage, float], list[Output]]] = {
            "lobby": lambda player, _message, _now: [Send((player.id,), self.snapshot())],
            "seek": self._seek,
            "create_room": self._create_room,
            "join_room": self._join_room,
            "cancel": self._cancel,
            "play": self._play,
            "redeal": self._redeal,
            "resign": self._resign,
            "rematch": lambda player, _message, now: self._rematches.ask(player, now),
            "watch": self._watch,
            "daily": self._daily_race,
            "join_arena": self._join_arena,
            "leave_arena": lambda player, _message, now: self._arenas.leave(player, now),
        }

    # -- connections -----------------------------------------------------------

    def connect(
        self,
        player_id: str,
        name: str,
        now: float,
        address: str = "",
        rating: Glicko = NEW,
        *,
        flags: int = 0,
        bot: bool = False,
        last_daily: str | None = None,
    ) -> list[Output]:
        """A player is online (new, back, or on a replacing connection) from ``address``.

        ``rating`` and ``flags`` (races in which their play was flagged, not
        cleared) are the store's, as of this hello: a race records its ratings
        and flags before its ``game_over`` goes out, so the store is never
        behind. ``bot``: a declared bot (``hello.bot``, kept for ever).
        ``last_daily``: the day they last raced the daily deal, the store's
        (the later of it and the lobby's own mark counts).

        A player away when their race ended is told its end (``game_state``
        with ``over``); so is one who comes back on a replacing connection and
        has not moved on since it ended: the old connection was still open here,
        so the client lost it with what it carried, a ``game_over`` maybe (a
        socket's last bytes, or a link between workers that loses its last
        frames before anyone notices: it is noticed only after the replacement).
        """
        player = self.known(player_id, name)
        replacing = player.online
        player.online, player.address, player.rating = True, address, rating
        player.flags, player.bot = flags, bot
        player.last_daily = max(filter(None, (player.last_daily, last_daily)), default=None)
        if player.race is not None:
            return player.race.come_back(player.race.seat_of(player_id), now)
        out: list[Output] = []
        if (player.missed_over or replacing) and player.last_race is not None:
            player.missed_over = False
            race = player.last_race
            out.append(Send((player_id,), race.state(race.seat_of(player_id), now)))
        return [*out, *self._arenas.came_back(player, now)]

    def disconnect(self, player_id: str, now: float) -> list[Output]:
        """A player's connection is gone: they leave the queue, their room and what they watch."""
        player = self._players[player_id]
        player.online = False
        moved = self._move_on(player)
        if player.race is None:
            return moved
        race = player.race
        return [*moved, *self._after_race(race, race.leave(race.seat_of(player_id), now))]

    def restore(self, race: Race, out: list[Output]) -> list[Output]:
        """Take back a race rebuilt from its journal (:func:`core.restore.restore`).

        Its players are offline until they say hello again; ``out`` is what
        the restoring left to do, a :class:`~core.events.RaceEnded` if the
        race is over, and the players learn the result when they come back.
        """
        self._races[race.game_id] = race
        self._arenas.adopt(race)
        for player_id, name in zip(race.player_ids, race.names, strict=True):
            if is_bot(player_id):
                continue
            player = self.known(player_id, name)
            player.race, player.last_race, player.finished = race, None, None
            if race.kind.ranked:  # their first daily race of its day, even before it is kept
                player.last_daily = max(filter(None, (player.last_daily, race.kind.daily)))
        return self._after_race(race, [*out, Wake(race.game_id, race.next_deadline())])

    # -- commands --------------------------------------------------------------

    def handle(self, player_id: str, message: ClientMessage, now: float) -> list[Output]:
        """Carry out one command of a connected player."""
        handler = self._handlers.get(message.type)
        if handler is None:  # hello: the glue answers a second one
            raise Refused("busy", "you have already said hello")
        return handler(self._players[player_id], message, now)

    def tick(self, key: str, now: float) -> list[Output]:
        """Apply what is due by ``now`` for the timer ``key``: a race's, or a desk's."""
        due = self._quick_match.due(key, now)
        if due is None and key.startswith(ARENA_TIMER):
            due = self._arenas.due(key, now)
        if due is not None:
            return due
        race = self._races.get(key)
        return self._after_race(race, race.tick(now)) if race else []

    def _seek(self, player: LobbyPlayer, message: ClientMessage, now: float) -> list[Output]:
        assert message.type == "seek"
        self._check_free(player)
        if message.rules.rated:
            self._rated.check_player(player)
        return [*self._move_on(player), *self._quick_match.seek(player, message, now)]

    def _create_room(self, player: LobbyPlayer, message: ClientMessage, now: float) -> list[Output]:
        assert message.type == "create_room"
        self._check_free(player)
        if message.rules.rated:
            self._rated.check_player(player)
        return [*self._move_on(player), *self._rooms.create(player, message, now)]

    def _join_room(self, player: LobbyPlayer, message: ClientMessage, now: float) -> list[Output]:
        assert message.type == "join_room"
        self._check_free(player)
        room = self._rooms.check_join(player, message, now)
        return [*self._move_on(player), *self._rooms.join(player, room, now)]

    def _daily_race(self, player: LobbyPlayer, message: ClientMessage, now: float) -> list[Output]:
        assert message.type == "daily"
        self._check_free(player)
        self._daily.check()
        return [*self._move_on(player), *self._daily.race(player, message.ghost, now)]

    def _join_arena(self, player: LobbyPlayer, message: ClientMessage, now: float) -> list[Output]:
        assert message.type == "join_arena"
        return self._arenas.join(player, message.arena_id, now)

    def _cancel(self, player: LobbyPlayer, message: ClientMessage, now: float) -> list[Output]:
        return [*self._move_on(player), Send((player.id,), Cancelled())]

    def _play(self, player: LobbyPlayer, message: ClientMessage, now: float) -> list[Output]:
        assert message.type == "play"
        race = self._racing(player)
        card = engine.Card.parse(message.card)  # the decoder has checked the code
        return self._after_race(race, race.play(race.seat_of(player.id), card, now))

    def _redeal(self, player: LobbyPlayer, message: ClientMessage, now: float) -> list[Output]:
        race = self._racing(player)
        return self._after_race(race, race.redeal(race.seat_of(player.id), now))

    def _resign(self, player: LobbyPlayer, message: ClientMessage, now: float) -> list[Output]:
        race = self._racing(player)
        return self._after_race(race, race.resign(race.seat_of(player.id), now))

    def _watch(self, player: LobbyPlayer, message: ClientMessage, now: float) -> list[Output]:
        assert message.type == "watch"
        if player.race is not None:
            raise Refused("busy", "you cannot watch while racing")
        race = self._races.get(message.game_id)
        if race is None:
            raise Refused("game_not_found", f"no live race has the id {message.game_id!r}")
        self._stop_watching(player)
        self._rematches.lapse(player)
        player.watching = race.game_id
        return race.watch(player.id, now)

    # -- races -----------------------------------------------------------------

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
        """A new race: ``first`` takes seat 0, ``second`` or the ``bot`` seat 1.

        ``made`` is told of the race before it starts, which may end it at once.
        ``dealers``: the seats' (fresh ones when None); ``kind``: a daily race or
        an arena's (:mod:`core.race_kind`).
        """
        game_id = f"{self._rng.getrandbits(64):016x}"
        players = [first] if second is None else [first, second]
        if bot is not None:
            seat1 = bot[0]
        else:
            assert second is not None, "a race needs a second player or a bot"
            seat1 = SeatInfo(second.id, second.name, second.bot)
        ratings = None
        if rules.rated and second is not None and not (first.bot or second.bot):
            self._rated.charge(first, second, now)
            ratings = (first.rating, second.rating)
        race = Race(
            game_id, (SeatInfo(first.id, first.name, first.bot), seat1), rules,
            dealers or fresh_dealers(rules, self._rng), idle_limit=self.idle_limit,
            grace=self.grace, ratings=ratings, bots=(None, None if bot is None else bot[1]),
            kind=kind or PLAIN,
        )  # fmt: skip
        self._races[game_id] = race
        if made is not None:
            made(race)
        for player in players:
            self._stop_watching(player)
            player.race, player.last_race, player.finished = race, None, None
        return race, self._after_race(race, race.start(now))

    def check_rated(self, rules: Rules, first: str, second: str, now: float) -> None:
        """With rated ``rules``, raise if these two may not race rated (:mod:`core.rated`)."""
        if rules.rated:
            self._rated.check(self._players[first], self._players[second], now)

    def allows_rated(self, first: str, second: str, now: float) -> bool:
        """Whether quick match may pair these two for a rated race at ``now``."""
        return self._rated.allows(self._players[first], self._players[second], now)

    def _after_race(self, race: Race, out: list[Output]) -> list[Output]:
        """Retire a race that these outputs end; the desks learn what it did."""
        if race.over is None or race.game_id not in self._races:
            return out
        del self._races[race.game_id]
        self._rooms.race_over(race)
        # Not a player who races another race here now: this one was taken over by
        # another worker, and theirs came here since (a worker that holds a race it
        # no longer owns finds out at its next write: here, its end's).
        known = [self._players[pid] for pid in race.player_ids if pid in self._players]
        players = [p for p in known if p.race is race or p.race is None]
        for player in players:
            seat = race.seat_of(player.id)
            player.race, player.last_race, player.finished = None, race, race.game_id
            player.missed_over = not player.online
            evidence = race.fair_play[seat]
            player.flags += evidence is not None and evidence.flagged
            if race.ratings_after is not None:
                player.rating = race.ratings_after[seat]
        if (
            len(players) == len(known)
            and all(p.online for p in players)
            and race.kind.arena_id is None
        ):
            self._rematches.open(race)  # an arena pairs its players again itself
        for player_id in race.watchers:  # they have had the game_over: nothing more to watch
            self._players[player_id].watching = None
        assert race.ended is not None
        daily = self._daily.race_over(race)
        arena, more = self._arenas.race_over(race, race.ended)
        return [*with_results(race, out, daily, arena), *more]

    # -- internals -------------------------------------------------------------

    def _check_free(self, player: LobbyPlayer) -> None:
        if player.race is not None:
            raise Refused("busy", "you are in a race")
        if player.seeking is not None:
            raise Refused("busy", "you are seeking a match; cancel first")
        if player.room is not None:
            raise Refused("busy", "you have an open room; cancel first")
        if player.arena is not None:
            raise Refused("busy", "you are in an arena; leave it first")

    def _racing(self, player: LobbyPlayer) -> Race:
        if player.race is not None:
            return player.race
        if player.last_race is not None:
            raise Refused("game_over", "your race is over")
        raise Refused("not_in_game", "you are not in a race")

    def _move_on(self, player: LobbyPlayer) -> list[Output]:
        """Leave the queue, close one's open room, stop watching; forget the last race.

        Returns what others must see of it: leaving the queue, closing a room.
        """
        self._rematches.lapse(player)
        out = [*self._quick_match.leave(player), *self._rooms.close(player)]
        self._stop_watching(player)
        if player.race is None and not player.missed_over:  # else kept until they are told
            player.last_race = None
        return out

    def _stop_watching(self, player: LobbyPlayer) -> None:
        if player.watching is not None:
            race = self._races.get(player.watching)
            if race is not None:
                race.unwatch(player.id)
            player.watching = None
