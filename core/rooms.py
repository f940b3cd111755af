"""The rooms desk of the lobby: ``create_room``, ``join_room``, and the codes that name rooms.

A room is opened by its host with rules and a code that one other player
joins; the race starts at once and the room is full. A public room is listed
in the lobby while it waits. Codes are :data:`ROOM_CODE_LENGTH` characters of
:data:`ROOM_ALPHABET`, drawn at random.

A code that names no open room is charged to the player's address
(:class:`~core.limits.AddressLimit`), and past the limit every ``join_room``
from that address is ``rate_limited``, so that guessing finds no room: the
one refusal that changes something, which is its point.

The desk tells other workers which rooms are open (:class:`~core.events.RoomListed`),
before the ``room`` reply, so that the glue can hold the reply until the code
can be found anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING

from protocol import LIST_CAP, ROOM_ALPHABET, ROOM_CODE_LENGTH, Room, RoomInfo

from .events import Output, Refused, RoomListed, Send
from .limits import AddressLimit
from .listing import Listed

if TYPE_CHECKING:
    import random

    from protocol import CreateRoom, JoinRoom, Rules

    from .lobby_player import LobbyHost, LobbyPlayer
    from .race import Race

__all__ = ["ROOM_ALPHABET", "ROOM_CODE_LENGTH", "OpenRoom", "Rooms"]


@dataclass(slots=True)
class OpenRoom:
    """A room: its host's id, rules, whether it is listed, when it opened, and its race."""

    code: str
    host: str
    rules: Rules
    public: bool
    opened: float
    race: Race | None = None

    def hold(self, race: Race) -> None:
        """The room is full: ``race`` is its race."""
        self.race = race


class Rooms:
    """Every room of one lobby, by code (see the module docstring)."""

    def __init__(self, host: LobbyHost, rng: random.Random, wrong_codes_per_hour: int) -> None:
        """``wrong_codes_per_hour``: room codes naming no open room one address may try
        (20 at most at once); past it every ``join_room`` from there is refused."""
        self._host, self._rng = host, rng
        self._rooms: dict[str, OpenRoom] = {}
        self._wrong_codes = AddressLimit(min(20, wrong_codes_per_hour), wrong_codes_per_hour)

    def has(self, code: str) -> bool:
        """Whether ``code`` (as a player types it) names a room of this lobby."""
        return _key(code) in self._rooms

    def waiting(self) -> list[str]:
        """The codes of the rooms waiting for a second player."""
        return [code for code, room in self._rooms.items() if room.race is None]

    def listed(self) -> tuple[list[Listed[RoomInfo]], int]:
        """The public rooms that wait, newest first and capped, and how many there are."""
        public = [room for room in self._rooms.values() if room.public and room.race is None]
        rooms = [
            Listed(room.opened, RoomInfo(code=room.code, host=self._name(room), rules=room.rules))
            for room in islice(reversed(public), LIST_CAP)
        ]
        return rooms, len(public)

    def _name(self, room: OpenRoom) -> str:
        return self._host.player(room.host).name

    def create(self, player: LobbyPlayer, message: CreateRoom, now: float) -> list[Output]:
        """``player``, free, opens a room."""
        code = self._new_code()
        self._rooms[code] = OpenRoom(code, player.id, message.rules, message.public, now)
        player.room = code
        room = Room(code=code, rules=message.rules)
        # Listed first: the glue holds the reply until other workers can find the code.
        return [RoomListed(code, True), Send((player.id,), room)]

    def check_join(self, player: LobbyPlayer, message: JoinRoom, now: float) -> OpenRoom:
        """The room ``player`` may join; raises (a wrong code is charged) and changes nothing."""
        room = self._rooms.get(_key(message.code))
        if not self._wrong_codes.allows(player.address, now):
            raise Refused("rate_limited", "too many wrong room codes; try again in a minute")
        if room is None:
            self._wrong_codes.charge(player.address, now)
            raise Refused("room_not_found", f"no open room has the code {message.code!r}")
        if room.race is not None:
            raise Refused("room_full", "that room's race has already started")
        self._host.check_rated(room.rules, room.host, player.id, now)
        return room

    def join(self, player: LobbyPlayer, room: OpenRoom, now: float) -> list[Output]:
        """``player`` joins ``room`` (checked by :meth:`check_join`): the race starts."""
        host = self._host.player(room.host)
        host.room = None
        # The room knows its race before the race starts, which may end it at once.
        _race, started = self._host.start(host, player, room.rules, now, made=room.hold)
        return [RoomListed(room.code, False), *started]

    def close(self, player: LobbyPlayer) -> list[Output]:
        """``player``'s open room closes, if they have one."""
        if player.room is None:
            return []
        code, player.room = player.room, None
        del self._rooms[code]
        return [RoomListed(code, False)]

    def race_over(self, race: Race) -> None:
        """A race is over: the room it was started in, if any, goes."""
        self._rooms = {code: room for code, room in self._rooms.items() if room.race is not race}

    def _new_code(self) -> str:
        while True:
            code = "".join(self._rng.choices(ROOM_ALPHABET, k=ROOM_CODE_LENGTH))
            if code not in self._rooms:
                return code


def _key(code: str) -> str:
    """A room code as players type it, as the rooms are kept."""
    return code.strip().upper()
