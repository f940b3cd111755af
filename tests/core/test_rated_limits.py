"""Who may race rated, in the lobby core, time moved by hand: one address, provisional
opponents, players flagged again and again, and declared bots."""

from __future__ import annotations

import random

import pytest

import engine
from core.events import Output, Refused
from core.glicko2 import NEW, Glicko
from core.lobby import QUEUE, Lobby
from core.rated import AGAINST_PROVISIONAL, BARRED_AT, RATED_LIMITS, RatedLimits, origin
from protocol import (
    BotRequest,
    Cancel,
    ClientMessage,
    CreateRoom,
    GameOver,
    GameStart,
    JoinRoom,
    Play,
    Rematch,
    Resign,
    Room,
    Rules,
    Seek,
)

from .helpers import GRACE, IDLE, messages

RATED = Rules(deal="mirror", winnable_only=True, rated=True)
SPEED = Rules(deal="mirror", winnable_only=True)
SURE = Glicko(1500.0, 60.0, 0.06)
"""An established rating: not provisional."""
DAY = 24 * 3600.0


def lobby_of(
    *players: tuple[str, str],
    rating: Glicko = SURE,
    rated_per_day: int = 5,
    rated_limits: RatedLimits = RATED_LIMITS,
) -> Lobby:
    """A lobby with these players (id, address) online, each with ``rating``."""
    lobby = Lobby(rng=random.Random(3), idle_limit=IDLE, grace=GRACE,
                  rated_per_day=rated_per_day, rated_limits=rated_limits)  # fmt: skip
    for player_id, address in players:
        lobby.connect(player_id, player_id.title(), 0.0, address, rating)
    return lobby


def starts(out: list[Output]) -> list[GameStart]:
    return [m for m in messages(out) if isinstance(m, GameStart)]


def refusal(lobby: Lobby, player: str, message: ClientMessage, now: float = 1.0) -> tuple[str, str]:
    with pytest.raises(Refused) as refused:
        lobby.handle(player, message, now)
    return refused.value.code, refused.value.message


def open_room(lobby: Lobby, host: str, rules: Rules = RATED, now: float = 1.0) -> str:
    (reply,) = [m for m in messages(lobby.handle(host, CreateRoom(rules=rules), now))]
    assert isinstance(reply, Room)
    return reply.code


def race_once(lobby: Lobby, first: str, second: str, now: float, plays: float = 1.0) -> GameOver:
    """A rated race of these two (``first`` hosts a room, ``second`` joins it at ``now``):
    each plays once, then ``second`` resigns. ``plays``: seconds between ``first``'s plays;
    under a second, ``first`` plays every card that far apart."""
    code = open_room(lobby, first, now=now)
    assert starts(lobby.handle(second, JoinRoom(code=code), now)), "the race did not start"
    race = lobby.race_of(first)
    assert race is not None
    cards = engine.greedy_plays(race.boards()[0])
    for index, card in enumerate(cards if plays < 1.0 else cards[:1]):
        lobby.handle(first, Play(card=str(card)), now + 1.0 + index * plays)
    if race.over is None:
        second_card = engine.greedy_plays(race.boards()[1])[0]
        lobby.handle(second, Play(card=str(second_card)), now + 2.0)
        out = lobby.handle(second, Resign(), now + 3.0)
        (over,) = [m for m in messages(out) if isinstance(m, GameOver)]
        return over
    assert race.over is not None
    return race.over


# -- one address ----------------------------------------------------------------


def test_quick_match_never_pairs_two_of_one_address_for_a_rated_race() -> None:
    lobby = lobby_of(("ann", "11.0.0.1"), ("bob", "11.0.0.1"), ("cat", "11.0.0.2"))
    lobby.handle("ann", Seek(rules=RATED), 0.0)
    assert starts(lobby.handle("bob", Seek(rules=RATED), 0.0)) == []
    assert lobby.snapshot().seeking == 2
    (start, _) = starts(lobby.handle("cat", Seek(rules=RATED), 1.0))
    assert start.players == ["Ann", "Cat"]  # the first seeker another address may race


@pytest.mark.parametrize(
    ("address", "rules", "limits"),
    [
        ("11.0.0.1", SPEED, RATED_LIMITS),  # unrated: anyone
        ("", RATED, RATED_LIMITS),  # an address the lobby was not told
        ("127.0.0.1", RATED, RATED_LIMITS),  # a proxy on this machine: says nothing
        ("172.18.0.3", RATED, RATED_LIMITS),  # a proxy on a private network
        ("11.0.0.1", RATED, RatedLimits(one_address=False)),  # the rule turned off
    ],
)
def test_what_says_nothing_of_who_connects_keeps_nobody_apart(
    address: str, rules: Rules, limits: RatedLimits
) -> None:
    lobby = lobby_of(("ann", address), ("bob", address), rated_limits=limits)
    lobby.handle("ann", Seek(rules=rules), 0.0)
    assert starts(lobby.handle("bob", Seek(rules=rules), 0.0))


def test_an_address_is_its_public_ipv4_or_its_ipv6_slash_64() -> None:
    assert origin("11.0.0.1") == origin("::ffff:11.0.0.1") == "11.0.0.1"
    assert origin("2001:4860::1") == origin("2001:4860::ab:1") == "2001:4860::/64"
    assert origin("2001:4860:0:1::1") != origin("2001:4860::1")
    assert [origin(a) for a in ("", "?", "127.0.0.1", "::1", "10.1.2.3", "fe80::1")] == [None] * 6
    lobby = lobby_of(("ann", "2001:4860::1"), ("bob", "2001:4860::2"))
    lobby.handle("ann", Seek(rules=RATED), 0.0)
    assert starts(lobby.handle("bob", Seek(rules=RATED), 0.0)) == []


def test_a_rated_room_cannot_be_joined_from_the_hosts_address() -> None:
    lobby = lobby_of(("ann", "11.0.0.1"), ("bob", "11.0.0.1"), ("cat", "11.0.0.2"))
    code = open_room(lobby, "ann")
    assert refusal(lobby, "bob", JoinRoom(code=code))[0] == "not_allowed"
    assert lobby.open_rooms() == [code]  # nothing changed
    assert starts(lobby.handle("cat", JoinRoom(code=code), 2.0))
    unrated = open_room(lobby, "bob", SPEED)
    lobby.connect("dan", "Dan", 3.0, "11.0.0.1", SURE)
    assert starts(lobby.handle("dan", JoinRoom(code=unrated), 3.0))


def test_a_rated_rematch_is_refused_once_both_are_at_one_address() -> None:
    lobby = lobby_of(("ann", "11.0.0.1"), ("bob", "11.0.0.2"))
    race_once(lobby, "ann", "bob", 0.0)
    lobby.connect("bob", "Bob", 5.0, "11.0.0.1", SURE)  # back, from Ann's address
    assert refusal(lobby, "ann", Rematch(), 6.0)[0] == "not_allowed"


# -- provisional opponents ------------------------------------------------------


def test_a_player_races_provisional_opponents_rated_only_so_often_a_day() -> None:
    farm = [(f"f{n:02}", f"11.1.0.{n}") for n in range(AGAINST_PROVISIONAL + 1)]
    lobby = lobby_of(("ann", "11.0.0.1"), *farm, rating=NEW)
    for n, (account, _) in enumerate(farm[:-1]):
        race_once(lobby, account, "ann", 10.0 * n)
    last, _ = farm[-1]
    now = 10.0 * len(farm)
    lobby.handle(last, Seek(rules=RATED), now)
    lobby.handle("ann", Seek(rules=RATED), now)
    assert starts(lobby.tick(QUEUE, now + 600.0)) == []  # any gap by now: the limit keeps them
    lobby.handle(last, Cancel(), now + 600.0)
    lobby.connect("eve", "Eve", now, "11.2.0.1", SURE)  # an established player may race her
    (start, _) = starts(lobby.handle("eve", Seek(rules=RATED), now + 600.0))
    assert set(start.players) == {"Ann", "Eve"}


def test_past_the_provisional_limit_a_rated_room_is_rate_limited_until_the_day_has_passed() -> None:
    lobby = Lobby(rng=random.Random(3), idle_limit=IDLE, grace=GRACE, rated_per_day=50,
                  rated_limits=RatedLimits(against_provisional=2))  # fmt: skip
    for player_id, address in (("ann", "11.0.0.1"), ("bob", "11.0.0.2"), ("cat", "11.0.0.3")):
        lobby.connect(player_id, player_id.title(), 0.0, address, NEW)
    race_once(lobby, "ann", "bob", 0.0)
    race_once(lobby, "ann", "cat", 10.0)
    code = open_room(lobby, "ann", now=20.0)
    code_is, why = refusal(lobby, "bob", JoinRoom(code=code), 20.0)
    assert code_is == "rate_limited" and "new players" in why
    assert starts(lobby.handle("bob", JoinRoom(code=code), 20.0 + DAY))


# -- flagged again and again ----------------------------------------------------


def test_a_player_flagged_past_the_threshold_is_refused_every_rated_start() -> None:
    lobby = lobby_of(("ann", "11.0.0.1"), ("bob", "11.0.0.2"))
    lobby.connect("ann", "Ann", 0.0, "11.0.0.1", SURE, flags=BARRED_AT)
    assert refusal(lobby, "ann", Seek(rules=RATED))[0] == "not_allowed"
    assert refusal(lobby, "ann", CreateRoom(rules=RATED))[0] == "not_allowed"
    code = open_room(lobby, "bob")
    code_is, why = refusal(lobby, "ann", JoinRoom(code=code))
    assert code_is == "not_allowed" and "Ann" in why
    assert lobby.snapshot().seeking == 0 and lobby.open_rooms() == [code]
    lobby.handle("ann", Seek(rules=SPEED, bot=BotRequest(after_s=0, level=1)), 1.0)  # unrated: yes
    lobby.connect("cat", "Cat", 2.0, "11.0.0.3", SURE, flags=BARRED_AT - 1)
    assert starts(lobby.handle("cat", JoinRoom(code=code), 2.0))  # one short of it: races rated


def test_the_lobby_counts_flags_as_races_end_and_the_operator_clears_them() -> None:
    lobby = lobby_of(("ann", "11.0.0.1"), ("bob", "11.0.0.2"), rated_per_day=50)
    lobby.connect("ann", "Ann", 0.0, "11.0.0.1", SURE, flags=BARRED_AT - 1)
    over = race_once(lobby, "ann", "bob", 0.0, plays=0.02)  # Ann plays at the rate limit
    assert over.unrated == "fair_play" and over.winner == 0 and over.reason == "cleared"
    assert lobby.player("ann").flags == BARRED_AT and lobby.player("bob").flags == 0
    assert refusal(lobby, "bob", Rematch(), 10.0)[0] == "not_allowed"  # rated: Ann is barred
    assert refusal(lobby, "ann", Seek(rules=RATED), 11.0)[0] == "not_allowed"
    lobby.clear_flags("ann")
    lobby.clear_flags("nobody")  # not held here: the store's count comes with their hello
    lobby.handle("ann", Seek(rules=RATED), 12.0)
    assert starts(lobby.handle("bob", Seek(rules=RATED), 12.0))


# -- declared bots --------------------------------------------------------------


def bots_lobby() -> Lobby:
    lobby = lobby_of(("ann", "11.0.0.1"), ("bob", "11.0.0.2"))
    for n, program in enumerate(("rob", "max")):
        lobby.connect(program, program.title(), 0.0, f"11.9.0.{n}", SURE, bot=True)
    return lobby


def test_a_declared_bot_never_races_rated() -> None:
    lobby = bots_lobby()
    assert refusal(lobby, "rob", Seek(rules=RATED))[0] == "not_allowed"
    assert refusal(lobby, "rob", CreateRoom(rules=RATED))[0] == "not_allowed"
    code_is, why = refusal(lobby, "rob", JoinRoom(code=open_room(lobby, "ann")))
    assert code_is == "not_allowed" and "bot" in why


def test_quick_match_pairs_a_declared_bot_only_with_who_asked_for_a_bot_or_a_bot() -> None:
    lobby = bots_lobby()
    lobby.handle("rob", Seek(rules=SPEED), 0.0)
    assert starts(lobby.handle("ann", Seek(rules=SPEED), 1.0)) == []  # Ann did not ask
    wants = Seek(rules=SPEED, bot=BotRequest(after_s=60, level=3))
    (start, _) = starts(lobby.handle("bob", wants, 2.0))
    assert start.players == ["Rob", "Bob"] and start.bots == [True, False]
    assert start.ratings == [None, None]
    assert lobby.snapshot().games[0].bots == [True, False]
    assert starts(lobby.handle("max", Seek(rules=SPEED), 3.0)) == []  # nor did Ann ask for Max
    assert lobby.snapshot().seeking == 2


def test_two_declared_bots_race_and_a_rematch_with_one_is_asked_as_a_persons() -> None:
    lobby = bots_lobby()
    lobby.handle("rob", Seek(rules=SPEED), 0.0)
    (start, _) = starts(lobby.handle("max", Seek(rules=SPEED), 0.0))
    assert start.bots == [True, True]
    race = lobby.race(start.game_id)
    assert race is not None and race.state(None, 0.0).bots == [True, True]
    card = engine.greedy_plays(race.boards()[0])[0]
    lobby.handle("rob", Play(card=str(card)), 0.01)
    lobby.handle("max", Resign(), 1.0)
    assert race.fair_play == (None, None)  # never judged
    waiting = [m.type for m in messages(lobby.handle("rob", Rematch(), 2.0))]
    assert waiting == ["rematch_waiting", "rematch_offered"]
    (again, _) = starts(lobby.handle("max", Rematch(), 3.0))
    assert again.bots == [True, True]
