"""The lobby core's rooms: their codes, joining one, guessing codes, and when a room is gone."""

from __future__ import annotations

import random

import engine
from core.events import Refused, Send
from core.lobby import ROOM_ALPHABET, ROOM_CODE_LENGTH, Lobby
from protocol import Cancel, CreateRoom, JoinRoom, Room, Rules

from .helpers import GRACE, IDLE, kinds, messages, seed_bytes_with
from .lobby_helpers import MIRROR, PLAYERS, end_race, new_lobby, open_room, refusal, send, snapshot


class Seeds(random.Random):
    """A random source whose first 32-byte draws (the lobby's seeds) are the ones given."""

    def __init__(self, *seeds: bytes) -> None:
        super().__init__(1)
        self.seeds = list(seeds)

    def randbytes(self, n: int, /) -> bytes:
        if n == engine.SEED_SIZE and self.seeds:
            return self.seeds.pop(0)
        return super().randbytes(n)


# -- rooms ---------------------------------------------------------------------------


def test_a_room_has_a_code_of_six_characters_without_look_alikes(lobby: Lobby) -> None:
    assert set(ROOM_ALPHABET).isdisjoint("0O1I")
    codes = [open_room(lobby, player) for player in PLAYERS]
    assert len(set(codes)) == len(codes)
    for code in codes:
        assert len(code) == ROOM_CODE_LENGTH == 6
        assert set(code) <= set(ROOM_ALPHABET)


def test_create_room_answers_with_the_rules(lobby: Lobby) -> None:
    (reply,) = messages(send(lobby, "ann", CreateRoom(rules=Rules(redeals=1))))
    assert isinstance(reply, Room) and reply.rules == Rules(redeals=1)


def test_joining_a_room_starts_the_race_with_the_host_in_seat_0(lobby: Lobby) -> None:
    code = open_room(lobby, "ann", rules=MIRROR)
    out = send(lobby, "bob", JoinRoom(code=code))
    assert kinds(out) == ["game_start", "game_start"]
    seats = {send.to: send.message.seat for send in out if isinstance(send, Send)}  # type: ignore[union-attr]
    assert seats == {("ann",): 0, ("bob",): 1}
    assert messages(out)[0].rules == MIRROR  # type: ignore[union-attr]


def test_a_room_code_ignores_case(lobby: Lobby) -> None:
    code = open_room(lobby, "ann")
    assert kinds(send(lobby, "bob", JoinRoom(code=code.lower()))) == ["game_start", "game_start"]


def test_joining_an_unknown_room_is_room_not_found(lobby: Lobby) -> None:
    assert refusal(lobby, "bob", JoinRoom(code="ZZZZZZ")) == "room_not_found"


def test_guessing_room_codes_is_limited_per_address_and_then_every_join_refused() -> None:
    lobby = Lobby(rng=random.Random(1), idle_limit=IDLE, grace=GRACE, wrong_codes_per_hour=60)
    for player in PLAYERS:  # Bob and Cat share an address; Dan has his own
        lobby.connect(player, player.title(), 0.0, "10.0.0.9" if player == "dan" else "10.0.0.1")
    code = open_room(lobby, "ann")
    wrong = [
        refusal(lobby, "bob" if i % 2 else "cat", JoinRoom(code="ZZZZZZ"), 1.0) for i in range(21)
    ]
    assert wrong == ["room_not_found"] * 20 + ["rate_limited"]
    assert refusal(lobby, "bob", JoinRoom(code=code), 1.0) == "rate_limited"
    assert refusal(lobby, "dan", JoinRoom(code="ZZZZZZ"), 1.0) == "room_not_found"
    assert refusal(lobby, "bob", JoinRoom(code="ZZZZZZ"), 61.0) == "room_not_found"
    assert kinds(send(lobby, "bob", JoinRoom(code=code), 121.0)) == ["game_start", "game_start"]


def test_a_room_whose_race_started_is_full(lobby: Lobby) -> None:
    code = open_room(lobby, "ann")
    send(lobby, "bob", JoinRoom(code=code))
    assert refusal(lobby, "cat", JoinRoom(code=code)) == "room_full"


def test_of_two_players_joining_one_room_exactly_one_gets_it(lobby: Lobby) -> None:
    code = open_room(lobby, "ann")
    results = []
    for player in ("bob", "cat"):
        try:
            send(lobby, player, JoinRoom(code=code))
            results.append(player)
        except Refused as refused:
            results.append(refused.code)
    assert results == ["bob", "room_full"]
    race = lobby.race_of("ann")
    assert race is not None and race.player_ids == ("ann", "bob")


def test_joining_ones_own_room_is_busy(lobby: Lobby) -> None:
    code = open_room(lobby, "ann")
    assert refusal(lobby, "ann", JoinRoom(code=code)) == "busy"


def test_a_room_whose_race_is_over_is_gone(lobby: Lobby) -> None:
    code = open_room(lobby, "ann")
    send(lobby, "bob", JoinRoom(code=code))
    end_race(lobby, "bob")
    assert refusal(lobby, "cat", JoinRoom(code=code)) == "room_not_found"


def test_a_room_whose_race_ends_at_once_is_gone() -> None:
    no_play = seed_bytes_with(0)
    lobby = new_lobby(Seeds(no_play, seed_bytes_with(0, int.from_bytes(no_play, "big") + 1)))
    code = open_room(lobby, "ann")
    out = send(lobby, "bob", JoinRoom(code=code))
    assert kinds(out) == ["game_start", "game_start", "RaceEnded", "game_over"]
    assert refusal(lobby, "cat", JoinRoom(code=code)) == "room_not_found"


def test_cancel_closes_ones_room(lobby: Lobby) -> None:
    code = open_room(lobby, "ann", public=True)
    send(lobby, "ann", Cancel())
    assert refusal(lobby, "bob", JoinRoom(code=code)) == "room_not_found"
    assert snapshot(lobby).rooms == []
