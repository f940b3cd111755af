"""The lobby snapshot: the open public rooms, the seekers per rule set, the live races,
and the caps on its lists."""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol import (
    LIST_CAP,
    CreateRoom,
    GameInfo,
    GameStart,
    JoinRoom,
    LobbySnapshot,
    Room,
    RoomInfo,
    Rules,
    Seek,
    SeekInfo,
)

from .helpers import messages
from .lobby_helpers import MIRROR, a_play, new_lobby, open_room, send, snapshot, start_race

if TYPE_CHECKING:
    from core.lobby import Lobby

# -- the lobby snapshot ----------------------------------------------------------------


def test_the_lobby_lists_open_public_rooms_only(lobby: Lobby) -> None:
    public = open_room(lobby, "ann", public=True, rules=MIRROR)
    open_room(lobby, "bob")  # private
    started = open_room(lobby, "cat", public=True)
    send(lobby, "dan", JoinRoom(code=started))
    assert snapshot(lobby).rooms == [RoomInfo(code=public, host="Ann", rules=MIRROR)]


def test_the_lobby_counts_players_and_seekers_and_lists_live_races(lobby: Lobby) -> None:
    game_id = start_race(lobby, "bob", "cat")
    send(lobby, "cat", a_play(lobby, "cat"))
    send(lobby, "ann", Seek())
    lobby.disconnect("dan", 2.0)
    assert snapshot(lobby) == LobbySnapshot(
        online=3,
        seeking=1,
        seeks=[SeekInfo(rules=Rules(), count=1)],
        rooms=[],
        rooms_total=0,
        games=[
            GameInfo(game_id=game_id, players=["Bob", "Cat"], counts=[0, 1], bots=[False, False])
        ],
        games_total=1,
    )
    assert lobby.online == 3


def test_the_lobby_counts_seekers_per_rule_set() -> None:
    lobby = new_lobby()
    lobby.connect("eve", "Eve", 0.0)
    send(lobby, "ann", Seek(rules=MIRROR))
    send(lobby, "bob", Seek(rules=Rules(redeals=1)))
    send(lobby, "cat", Seek(rules=Rules(redeals=1, tiebreak="first")))
    listed = snapshot(lobby)
    assert listed.seeking == 3
    assert {(seek.rules, seek.count) for seek in listed.seeks} == {
        (MIRROR, 1),
        (Rules(redeals=1), 1),
        (Rules(redeals=1, tiebreak="first"), 1),
    }
    send(lobby, "dan", Seek(rules=Rules(redeals=1)))  # pairs with Bob
    send(lobby, "eve", Seek(rules=Rules(time_limit_s=60)))
    listed = snapshot(lobby)
    assert listed.seeking == 3
    assert {seek.rules for seek in listed.seeks} == {
        MIRROR,
        Rules(redeals=1, tiebreak="first"),
        Rules(time_limit_s=60),
    }


def test_the_lobby_lists_the_newest_hundred_rooms_and_races_with_their_totals() -> None:
    lobby = new_lobby()
    players = [f"p{n}" for n in range(2 * 130 + 120)]
    for player in players:
        lobby.connect(player, player, 0.0)
    speed = Rules(deal="mirror", winnable_only=True)  # no race of these ends at once
    races = []
    for n in range(130):
        lobby.handle(players[2 * n], Seek(rules=speed), float(n))
        (start, _) = (m for m in messages(lobby.handle(players[2 * n + 1], Seek(rules=speed), n))
                      if isinstance(m, GameStart))  # fmt: skip
        races.append(start.game_id)
    rooms = []
    for n, player in enumerate(players[260:]):
        (room,) = messages(lobby.handle(player, CreateRoom(public=True), 1000.0 + n))
        assert isinstance(room, Room)
        rooms.append(room.code)
    listed = snapshot(lobby)
    assert (listed.games_total, listed.rooms_total) == (130, 120)
    assert [game.game_id for game in listed.games] == races[::-1][:LIST_CAP]
    assert [room.code for room in listed.rooms] == rooms[::-1][:LIST_CAP]
