"""The lobby core: who is online, the quick-match queue, rooms, races, spectators.

Theory of operation
-------------------
The :class:`Lobby` knows every player who has been online since the server
started, and routes their commands. It is sans-I/O like :mod:`core.race`:
each input takes ``now`` and returns the outputs to carry out, and a refused
command raises :class:`~core.events.Refused` having changed nothing.

* :meth:`connect` and :meth:`disconnect` follow a player's connection (the
  glue calls ``connect`` after ``welcome``, and handles replaced connections
  itself: a replacement is not a disconnect).
* :meth:`handle` takes every decoded command after ``hello``.
* :meth:`tick` applies a race's deadlines when the glue's timer for it falls;
  the glue learns when to set that timer from the race's
  :class:`~core.events.Wake` outputs, and asks the lobby nothing back.

A refused command changes nothing, with one exception that is the point of
it: a room code that names no open room is charged to the player's address
(:class:`~core.limits.AddressLimit`), and past the limit every ``join_room``
from that address is ``rate_limited``, so that guessing finds no room.

A player is at most one of: seeking, hosting an open room, racing. Watching
is separate: it ends when the player starts anything else. A finished race
stays attached to its players (``last_race``) until they move on, so that a
late ``play`` gets ``game_over``; its id stays (``finished``) until their next
race, so that a ``rematch`` whose offer lapsed is told so (``game_not_found``).
A race's spectators are kept by the race itself (:meth:`Race.watch
<server.race.Race.watch>`), so every event it makes names them, the one that
ends it included.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING

import engine
from protocol import (
    LIST_CAP,
    Cancelled,
    ClientMessage,
    GameInfo,
    LobbySnapshot,
    RematchOffered,
    Room,
    RoomInfo,
    Rules,
    Seeking,
)

from .bots import BOT_NAMES, bot_id, bot_of, is_bot
from .events import Output, Queued, Refused, RoomListed, Send, Wake
from .glicko2 import NEW, Glicko
from .limits import AddressLimit
from .listing import Listed, Listing
from .race import Race, SeatInfo
from .seeding import fresh_dealers
from .seeks import Seeks

if TYPE_CHECKING:
    import random
    from collections.abc import Callable

    from .bot_policy import BotPolicy

__all__ = ["QUEUE", "ROOM_ALPHABET", "ROOM_CODE_LENGTH", "Lobby"]

QUEUE = ""
"""The key of the rated queue's timer among the races' (no game id is empty)."""
BOT_TIMER = "bot:"
"""The prefix of a seeker's bot timer's key (``bot:`` and the player's id)."""

ROOM_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
"""Digits and capitals without 0, O, 1 and I, which people mix up when reading out."""
ROOM_CODE_LENGTH = 6
"""32**6: about a billion codes, far too many to guess one friend's room."""


@dataclass(slots=True)
class _Player:
    id: str
    name: str
    address: str = ""
    """The IP address of the player's connection, for the limits per address."""
    online: bool = False
    rating: Glicko = NEW
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


@dataclass(slots=True)
class _Room:
    code: str
    host: str
    rules: Rules
    public: bool
    opened: float
    race: Race | None = None


@dataclass(slots=True)
class _Rematch:
    """An open rematch offer for a finished race: who has asked so far."""

    race: Race
    asked: set[str] = field(default_factory=set)


class Lobby:
    """Players, queue, rooms and races of one server."""

    def __init__(
        self,
        *,
        rng: random.Random,
        idle_limit: float | None,
        grace: float,
        wrong_codes_per_hour: int = 120,
        rated_per_day: int = 5,
    ) -> None:
        """``rng`` deals, names races and rooms: pass ``secrets.SystemRandom()`` in production.

        ``wrong_codes_per_hour``: room codes that name no open room one
        address may try (20 at most at once), so that nobody finds a friend's
        room by guessing; past it every ``join_room`` from there is refused.
        """
        self._rng = rng
        self._wrong_codes = AddressLimit(min(20, wrong_codes_per_hour), wrong_codes_per_hour)
        self.idle_limit = idle_limit
        self.grace = grace
        self._players: dict[str, _Player] = {}
        self._seeks = Seeks(rated_per_day)
        self._rooms: dict[str, _Room] = {}
        self._races: dict[str, Race] = {}
        self._rematches: dict[str, _Rematch] = {}
        self._handlers: dict[str, Callable[[_Player, ClientMessage, float], list[Output]]] = {
            "lobby": self._lobby,
            "seek": self._seek,
            "create_room": self._create_room,
            "join_room": self._join_room,
            "cancel": self._cancel,
            "play": self._play,
            "redeal": self._redeal,
            "resign": self._resign,
            "rematch": self._rematch,
            "watch": self._watch,
        }

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

    def has_room(self, code: str) -> bool:
        """Whether ``code`` (as a player types it) names a room of this lobby."""
        return code.strip().upper() in self._rooms

    def open_rooms(self) -> list[str]:
        """The codes of the rooms waiting for a second player."""
        return [code for code, room in self._rooms.items() if room.race is None]

    def snapshot(self) -> LobbySnapshot:
        """What a ``lobby`` command answers: players online, seekers, open public rooms, races."""
        return self.listing().snapshot()

    def listing(self) -> Listing:
        """The lobby as :meth:`snapshot` shows it, with when each room opened and race began."""
        public = [room for room in self._rooms.values() if room.public and room.race is None]
        rooms = [
            Listed(
                room.opened, RoomInfo(code=room.code, host=self._name(room.host), rules=room.rules)
            )
            for room in islice(reversed(public), LIST_CAP)
        ]
        games = [
            Listed(race.started, GameInfo(game_id=race.game_id, players=race.names,
                                          counts=race.counts, bots=race.bots))
            for race in islice(reversed(self._races.values()), LIST_CAP)
        ]  # fmt: skip
        seeks = self._seeks.counts()
        return Listing(self.online, seeks, rooms, len(public), games, len(self._races))

    def resync(self, player_id: str, now: float) -> list[Output]:
        """A racing player's whole race again (``game_state``), as on coming back."""
        race = self.race_of(player_id)
        return (
            [] if race is None else [Send((player_id,), race.state(race.seat_of(player_id), now))]
        )

    def race_of(self, player_id: str) -> Race | None:
        """The live race of a player, if any."""
        player = self._players.get(player_id)
        return player.race if player else None

    # -- connections -----------------------------------------------------------

    def connect(
        self, player_id: str, name: str, now: float, address: str = "", rating: Glicko = NEW
    ) -> list[Output]:
        """A player is online (new, back, or on a replacing connection) from ``address``.

        ``rating`` is the store's, as of this hello: a race records its ratings
        before its ``game_over`` goes out, so the store is never behind.
        """
        player = self._players.setdefault(player_id, _Player(player_id, name))
        player.online, player.address, player.rating = True, address, rating
        if player.race is not None:
            return player.race.come_back(player.race.seat_of(player_id), now)
        if player.missed_over and player.last_race is not None:
            player.missed_over = False
            race = player.last_race
            return [Send((player_id,), race.state(race.seat_of(player_id), now))]
        return []

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
        for player_id, name in zip(race.player_ids, race.names, strict=True):
            if is_bot(player_id):
                continue
            player = self._players.setdefault(player_id, _Player(player_id, name))
            player.race, player.last_race, player.finished = race, None, None
        return self._after_race(race, [*out, Wake(race.game_id, race.next_deadline())])

    # -- commands --------------------------------------------------------------

    def handle(self, player_id: str, message: ClientMessage, now: float) -> list[Output]:
        """Carry out one command of a connected player."""
        handler = self._handlers.get(message.type)
        if handler is None:  # hello: the glue answers a second one
            raise Refused("busy", "you have already said hello")
        return handler(self._players[player_id], message, now)

    def tick(self, game_id: str, now: float) -> list[Output]:
        """Apply what is due by ``now``: a race's deadlines, or the rated queue's (``QUEUE``)."""
        if game_id == QUEUE:
            return self._pair_waiting(now)
        if game_id.startswith(BOT_TIMER):
            return self._bot_due(game_id[len(BOT_TIMER) :], now)
        race = self._races.get(game_id)
        return self._after_race(race, race.tick(now)) if race else []

    def _lobby(self, player: _Player, message: ClientMessage, now: float) -> list[Output]:
        return [Send((player.id,), self.snapshot())]

    def _seek(self, player: _Player, message: ClientMessage, now: float) -> list[Output]:
        assert message.type == "seek"
        self._check_free(player)
        out = self._move_on(player)
        rules = message.rules
        out.append(Send((player.id,), Seeking(rules=rules)))
        found = self._seeks.opponent(player.id, rules, player.rating.rating, now)
        bot = message.bot
        if found is None and bot is not None and bot.after_s == 0:
            return [*out, *self._start_bot(player, bot.level, rules, now)]
        if found is None:
            self._seeks.add(player.id, rules, player.rating.rating, now)
            player.seeking = rules
            wake = self._queue_wake(now) if rules.rated else []
            if bot is not None:
                player.bot_wait = (now + bot.after_s, bot.level)
                wake.append(Wake(BOT_TIMER + player.id, now + bot.after_s))
            return [*out, Queued(player.id, rules), *wake]
        opponent = self._players[found]
        self._unqueue(opponent)
        return [*out, Queued(opponent.id, None), *self._start(opponent, player, rules, now)]

    def _unqueue(self, player: _Player) -> None:
        self._seeks.remove(player.id)
        player.seeking = player.bot_wait = None

    def _bot_due(self, player_id: str, now: float) -> list[Output]:
        """Nobody was paired with a seeker who asked for a bot in time: the bot takes the seat."""
        player = self._players.get(player_id)
        if player is None or player.bot_wait is None or player.seeking is None:
            return []  # paired, or gone, meanwhile
        at, level = player.bot_wait
        if now < at:
            return [Wake(BOT_TIMER + player_id, at)]
        rules = player.seeking
        self._unqueue(player)
        return [Queued(player.id, None), *self._start_bot(player, level, rules, now)]

    def _start_bot(self, player: _Player, level: int, rules: Rules, now: float) -> list[Output]:
        """A race between ``player`` (seat 0) and the bot of ``level``, never rated."""
        seat = SeatInfo(bot_id(level), BOT_NAMES[level])
        unrated = rules.model_copy(update={"rated": False}) if rules.rated else rules
        return self._start(
            player, None, unrated, now, bot=(seat, bot_of(seat.player_id, self._rng))
        )

    def _queue_wake(self, now: float) -> list[Output]:
        """When waiting alone next makes a rated pair acceptable (the queue's one timer)."""
        return [Wake(QUEUE, self._seeks.next_pairing(now))]

    def _pair_waiting(self, now: float) -> list[Output]:
        """Pair the rated seekers whose windows have widened enough by ``now``."""
        out: list[Output] = []
        for first_id, second_id, rules in self._seeks.due(now):
            first, second = self._players[first_id], self._players[second_id]
            first.seeking = second.seeking = None
            out += [Queued(first.id, None), Queued(second.id, None)]
            out += self._start(first, second, rules, now)
        return [*out, *self._queue_wake(now)]

    def _create_room(self, player: _Player, message: ClientMessage, now: float) -> list[Output]:
        assert message.type == "create_room"
        self._check_free(player)
        moved = self._move_on(player)
        code = self._new_code()
        self._rooms[code] = _Room(code, player.id, message.rules, message.public, now)
        player.room = code
        room = Room(code=code, rules=message.rules)
        # Listed first: the glue holds the reply until other workers can find the code.
        return [*moved, RoomListed(code, True), Send((player.id,), room)]

    def _join_room(self, player: _Player, message: ClientMessage, now: float) -> list[Output]:
        assert message.type == "join_room"
        room = self._rooms.get(message.code.strip().upper())
        self._check_free(player)
        if not self._wrong_codes.allows(player.address, now):
            raise Refused("rate_limited", "too many wrong room codes; try again in a minute")
        if room is None:
            self._wrong_codes.charge(player.address, now)
            raise Refused("room_not_found", f"no open room has the code {message.code!r}")
        if room.race is not None:
            raise Refused("room_full", "that room's race has already started")
        self._check_rated(room.rules, room.host, player.id, now)
        moved = self._move_on(player)
        host = self._players[room.host]
        host.room = None
        listed = RoomListed(room.code, False)
        return [*moved, listed, *self._start(host, player, room.rules, now, room=room)]

    def _cancel(self, player: _Player, message: ClientMessage, now: float) -> list[Output]:
        return [*self._move_on(player), Send((player.id,), Cancelled())]

    def _play(self, player: _Player, message: ClientMessage, now: float) -> list[Output]:
        assert message.type == "play"
        race = self._racing(player)
        card = engine.Card.parse(message.card)  # the decoder has checked the code
        return self._after_race(race, race.play(race.seat_of(player.id), card, now))

    def _redeal(self, player: _Player, message: ClientMessage, now: float) -> list[Output]:
        race = self._racing(player)
        return self._after_race(race, race.redeal(race.seat_of(player.id), now))

    def _resign(self, player: _Player, message: ClientMessage, now: float) -> list[Output]:
        race = self._racing(player)
        return self._after_race(race, race.resign(race.seat_of(player.id), now))

    def _rematch(self, player: _Player, message: ClientMessage, now: float) -> list[Output]:
        if player.race is not None:
            raise Refused("busy", "you are racing; a rematch is for after game_over")
        if player.finished is None:
            raise Refused("not_in_game", "you have no finished race to rematch")
        offer = self._rematches.get(player.finished)
        if offer is None:
            raise Refused("game_not_found", "the rematch offer has lapsed")
        race = offer.race
        self._check_rated(race.rules, race.player_ids[0], race.player_ids[1], now)
        if any(race.bots):  # a bot always wants another race
            del self._rematches[race.game_id]
            level = int(race.player_ids[1][len("bot") :])
            return self._start_bot(player, level, race.rules, now)
        offer.asked.add(player.id)
        if len(offer.asked) < 2:
            opponent = race.player_ids[1 - race.seat_of(player.id)]
            return [Send((opponent,), RematchOffered(game_id=race.game_id))]
        del self._rematches[race.game_id]
        first, second = (self._players[pid] for pid in race.player_ids)
        return self._start(first, second, race.rules, now)

    def _watch(self, player: _Player, message: ClientMessage, now: float) -> list[Output]:
        assert message.type == "watch"
        if player.race is not None:
            raise Refused("busy", "you cannot watch while racing")
        race = self._races.get(message.game_id)
        if race is None:
            raise Refused("game_not_found", f"no live race has the id {message.game_id!r}")
        self._stop_watching(player)
        self._lapse_rematch(player)
        player.watching = race.game_id
        return race.watch(player.id, now)

    # -- internals -------------------------------------------------------------

    def _name(self, player_id: str) -> str:
        return self._players[player_id].name

    def _check_rated(self, rules: Rules, first: str, second: str, now: float) -> None:
        if rules.rated and not self._seeks.allows_rated(first, second, now):
            raise Refused("rate_limited", "you two have had today's rated races; race unrated")

    def _check_free(self, player: _Player) -> None:
        if player.race is not None:
            raise Refused("busy", "you are in a race")
        if player.seeking is not None:
            raise Refused("busy", "you are seeking a match; cancel first")
        if player.room is not None:
            raise Refused("busy", "you have an open room; cancel first")

    def _racing(self, player: _Player) -> Race:
        if player.race is not None:
            return player.race
        if player.last_race is not None:
            raise Refused("game_over", "your race is over")
        raise Refused("not_in_game", "you are not in a race")

    def _move_on(self, player: _Player) -> list[Output]:
        """Leave the queue, close one's open room, stop watching; forget the last race.

        Returns what others must see of it: leaving the queue, closing a room.
        """
        out: list[Output] = []
        self._lapse_rematch(player)
        if player.seeking is not None:
            self._unqueue(player)
            out.append(Queued(player.id, None))
        if player.room is not None:
            del self._rooms[player.room]
            out.append(RoomListed(player.room, False))
            player.room = None
        self._stop_watching(player)
        if player.race is None:
            player.last_race = None
        return out

    def _stop_watching(self, player: _Player) -> None:
        if player.watching is not None:
            race = self._races.get(player.watching)
            if race is not None:
                race.unwatch(player.id)
            player.watching = None

    def _lapse_rematch(self, player: _Player) -> None:
        if player.finished is not None:
            self._rematches.pop(player.finished, None)

    def _new_code(self) -> str:
        while True:
            code = "".join(self._rng.choices(ROOM_ALPHABET, k=ROOM_CODE_LENGTH))
            if code not in self._rooms:
                return code

    def _start(
        self,
        first: _Player,
        second: _Player | None,
        rules: Rules,
        now: float,
        *,
        room: _Room | None = None,
        bot: tuple[SeatInfo, BotPolicy | None] | None = None,
    ) -> list[Output]:
        """A new race: ``first`` takes seat 0, ``second`` or the ``bot`` seat 1; ``room``,
        if any, is full from now on."""
        game_id = f"{self._rng.getrandbits(64):016x}"
        dealers = fresh_dealers(rules, self._rng)
        players = [first] if second is None else [first, second]
        seat1 = SeatInfo(second.id, second.name) if second is not None else None
        if bot is not None:
            seat1 = bot[0]
        assert seat1 is not None
        ratings = None
        if rules.rated and second is not None:
            self._seeks.charge_rated(first.id, second.id, now)
            ratings = (first.rating, second.rating)
        race = Race(
            game_id, (SeatInfo(first.id, first.name), seat1), rules, dealers,
            idle_limit=self.idle_limit, grace=self.grace, ratings=ratings,
            bots=(None, None if bot is None else bot[1]),
        )  # fmt: skip
        self._races[game_id] = race
        if room is not None:
            room.race = race  # before the start, which may end the race (and close the room)
        for player in players:
            self._stop_watching(player)
            player.race, player.last_race, player.finished = race, None, None
        return self._after_race(race, race.start(now))

    def _after_race(self, race: Race, out: list[Output]) -> list[Output]:
        """Retire a race that these outputs end."""
        if race.over is None or race.game_id not in self._races:
            return out
        del self._races[race.game_id]
        self._rooms = {code: room for code, room in self._rooms.items() if room.race is not race}
        players = [self._players[pid] for pid in race.player_ids if pid in self._players]
        for player in players:
            player.race, player.last_race, player.finished = None, race, race.game_id
            player.missed_over = not player.online
        if race.ratings_after is not None:
            for player, rating in zip(players, race.ratings_after, strict=True):
                player.rating = rating
        if all(player.online for player in players):
            self._rematches[race.game_id] = _Rematch(race)
        for player_id in race.watchers:  # they have had the game_over: nothing more to watch
            self._players[player_id].watching = None
        return out
