"""The lobby core: the queue, rooms, spectators, rematches and connections."""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING

import pytest

import engine
from core.events import Queued, Refused, RoomListed, Send, SendPlayed, Wake
from core.lobby import ROOM_ALPHABET, ROOM_CODE_LENGTH, Lobby
from protocol import (
    LIST_CAP,
    Cancel,
    Cancelled,
    CreateRoom,
    GameInfo,
    GameOver,
    GameStart,
    GameState,
    Hello,
    JoinRoom,
    LobbyRequest,
    LobbySnapshot,
    OpponentAway,
    OpponentBack,
    Play,
    Redeal,
    Rematch,
    RematchOffered,
    RematchWaiting,
    Resign,
    Room,
    RoomInfo,
    Rules,
    Seek,
    SeekInfo,
    Seeking,
    Watch,
    decode,
    encode,
)

from .helpers import GRACE, IDLE, kinds, message, messages, seed_bytes_with

if TYPE_CHECKING:
    from core.events import Output
    from protocol import ClientMessage, ServerMessage

PLAYERS = ("ann", "bob", "cat", "dan")
MIRROR = Rules(deal="mirror")


class Seeds(random.Random):
    """A random source whose first 32-byte draws (the lobby's seeds) are the ones given."""

    def __init__(self, *seeds: bytes) -> None:
        super().__init__(1)
        self.seeds = list(seeds)

    def randbytes(self, n: int, /) -> bytes:
        if n == engine.SEED_SIZE and self.seeds:
            return self.seeds.pop(0)
        return super().randbytes(n)


def new_lobby(rng: random.Random | None = None) -> Lobby:
    """A lobby with Ann, Bob, Cat and Dan online (ids ``ann`` ... ``dan``)."""
    lobby = Lobby(rng=rng or random.Random(1), idle_limit=IDLE, grace=GRACE)
    for player in PLAYERS:
        lobby.connect(player, player.title(), 0.0)
    return lobby


@pytest.fixture
def lobby() -> Lobby:
    return new_lobby()


def send(lobby: Lobby, player: str, message: ClientMessage, now: float = 1.0) -> list[Output]:
    """A command's outputs, but for what only other workers need (test_lobby_shared.py)."""
    outputs = lobby.handle(player, message, now)
    return [out for out in outputs if not isinstance(out, Queued | RoomListed)]


def refusal(lobby: Lobby, player: str, message: ClientMessage, now: float = 1.0) -> str:
    with pytest.raises(Refused) as refused:
        lobby.handle(player, message, now)
    return refused.value.code


def inbox(lobby: Lobby, outputs: list[Output], player: str) -> list[ServerMessage]:
    """What ``player`` receives of ``outputs``: the outputs name every receiver."""
    return [
        message(out) for out in outputs if isinstance(out, Send | SendPlayed) and player in out.to
    ]


def watchers(lobby: Lobby, game_id: str) -> frozenset[str]:
    """The spectators of a live race; nobody once it is over."""
    race = lobby.race(game_id)
    return race.watchers if race is not None else frozenset()


def snapshot(lobby: Lobby) -> LobbySnapshot:
    (reply,) = messages(send(lobby, "ann", LobbyRequest()))
    assert isinstance(reply, LobbySnapshot)
    return reply


def start_race(lobby: Lobby, first: str, second: str, rules: Rules = MIRROR) -> str:
    """Seek with ``first`` then ``second``; the id of their live race."""
    send(lobby, first, Seek(rules=rules))
    (start, _) = (
        m for m in messages(send(lobby, second, Seek(rules=rules))) if m.type == "game_start"
    )
    assert isinstance(start, GameStart)
    assert lobby.race(start.game_id) is not None, "pick another rng seed: this race ended at once"
    return start.game_id


def open_room(lobby: Lobby, host: str, **options: object) -> str:
    (reply,) = messages(send(lobby, host, CreateRoom(**options)))
    assert isinstance(reply, Room)
    return reply.code


def end_race(lobby: Lobby, loser: str) -> GameOver:
    """``loser`` resigns their race; the ``game_over``."""
    (over,) = (m for m in messages(send(lobby, loser, Resign())) if isinstance(m, GameOver))
    return over


def a_play(lobby: Lobby, player: str) -> Play:
    race = lobby.race_of(player)
    assert race is not None
    board = race.boards()[race.seat_of(player)]
    return Play(card=str(engine.greedy_plays(board)[0]))


# -- quick match -------------------------------------------------------------------


def test_two_seekers_with_equal_rules_race_and_the_longest_waiting_takes_seat_0(
    lobby: Lobby,
) -> None:
    assert send(lobby, "ann", Seek()) == [Send(("ann",), Seeking(rules=Rules()))]
    out = send(lobby, "bob", Seek())
    assert kinds(out) == ["seeking", "game_start", "game_start"]
    assert out[0] == Send(("bob",), Seeking(rules=Rules()))
    starts = {send.to: send.message for send in out[1:] if isinstance(send, Send)}
    ann, bob = starts[("ann",)], starts[("bob",)]
    assert isinstance(ann, GameStart) and isinstance(bob, GameStart)
    assert (ann.seat, bob.seat, ann.players) == (0, 1, ["Ann", "Bob"])
    assert ann.game_id == bob.game_id
    assert lobby.race_of("ann") is lobby.race_of("bob") is lobby.race(ann.game_id)


def test_rules_match_once_their_defaults_are_filled_in(lobby: Lobby) -> None:
    send(lobby, "ann", decode('{"type": "seek"}'))
    out = send(
        lobby, "bob", decode('{"type": "seek", "rules": {"deal": "independent", "redeals": 0}}')
    )
    assert kinds(out) == ["seeking", "game_start", "game_start"]


def test_seekers_with_different_rules_do_not_match(lobby: Lobby) -> None:
    send(lobby, "ann", Seek())
    assert kinds(send(lobby, "bob", Seek(rules=MIRROR))) == ["seeking"]
    assert lobby.race_of("bob") is None
    assert snapshot(lobby).seeking == 2


def test_of_three_seekers_the_first_two_race(lobby: Lobby) -> None:
    for player in ("ann", "bob", "cat"):
        send(lobby, player, Seek())
    race = lobby.race_of("ann")
    assert race is not None and race.player_ids == ("ann", "bob")
    assert lobby.race_of("cat") is None
    assert snapshot(lobby).seeking == 1


def test_mirror_deals_both_players_the_same_board(lobby: Lobby) -> None:
    send(lobby, "ann", Seek(rules=MIRROR))
    start = messages(send(lobby, "bob", Seek(rules=MIRROR)))[1]
    assert isinstance(start, GameStart)
    assert start.boards[0] == start.boards[1]


def test_independent_deals_differ(lobby: Lobby) -> None:
    send(lobby, "ann", Seek())
    start = messages(send(lobby, "bob", Seek()))[1]
    assert isinstance(start, GameStart)
    assert start.boards[0] != start.boards[1]


def test_cancel_leaves_the_queue(lobby: Lobby) -> None:
    send(lobby, "ann", Seek())
    assert send(lobby, "ann", Cancel()) == [Send(("ann",), Cancelled())]
    assert kinds(send(lobby, "bob", Seek())) == ["seeking"]


def test_cancel_with_nothing_to_cancel_is_answered_all_the_same(lobby: Lobby) -> None:
    assert send(lobby, "ann", Cancel()) == [Send(("ann",), Cancelled())]


def be(lobby: Lobby, state: str) -> None:
    """Put Ann in ``state``."""
    if state == "seeking":
        send(lobby, "ann", Seek())
    elif state == "hosting":
        open_room(lobby, "ann")
    else:
        start_race(lobby, "ann", "bob")


@pytest.mark.parametrize("state", ["seeking", "hosting", "racing"])
@pytest.mark.parametrize("command", ["seek", "create_room", "join_room"])
def test_asking_for_another_game_while_in_one_is_busy(
    lobby: Lobby, state: str, command: str
) -> None:
    code = open_room(lobby, "dan")
    be(lobby, state)
    message: dict[str, ClientMessage] = {
        "seek": Seek(),
        "create_room": CreateRoom(),
        "join_room": JoinRoom(code=code),
    }
    before = snapshot(lobby)
    assert refusal(lobby, "ann", message[command]) == "busy"
    assert snapshot(lobby) == before


def test_a_second_hello_is_busy(lobby: Lobby) -> None:
    assert refusal(lobby, "ann", Hello(name="Ann")) == "busy"


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


# -- spectators ------------------------------------------------------------------------


def test_a_spectator_gets_the_race_without_a_seat_then_every_event(lobby: Lobby) -> None:
    game_id = start_race(lobby, "ann", "bob")
    (state,) = messages(send(lobby, "dan", Watch(game_id=game_id)))
    assert isinstance(state, GameState)
    assert (state.game_id, state.seat, state.seq, state.over) == (game_id, None, 0, None)
    assert "seat" not in json.loads(encode(state))
    assert watchers(lobby, game_id) == {"dan"}
    out = send(lobby, "ann", a_play(lobby, "ann"))
    assert [m.type for m in inbox(lobby, out, "dan")] == ["played"]


def test_a_spectator_sees_the_race_end(lobby: Lobby) -> None:
    game_id = start_race(lobby, "ann", "bob")
    send(lobby, "dan", Watch(game_id=game_id))
    out = send(lobby, "ann", Resign())
    assert [m.type for m in inbox(lobby, out, "dan")] == ["status", "game_over"]
    assert inbox(lobby, out, "dan") == inbox(lobby, out, "bob")
    assert watchers(lobby, game_id) == set()


def test_watching_an_unknown_race_is_game_not_found(lobby: Lobby) -> None:
    assert refusal(lobby, "dan", Watch(game_id="nope")) == "game_not_found"


def test_watching_while_racing_is_busy(lobby: Lobby) -> None:
    start_race(lobby, "ann", "bob")
    other = start_race(lobby, "cat", "dan")
    assert refusal(lobby, "ann", Watch(game_id=other)) == "busy"


def test_a_spectator_who_starts_racing_stops_watching(lobby: Lobby) -> None:
    game_id = start_race(lobby, "ann", "bob")
    send(lobby, "cat", Watch(game_id=game_id))
    start_race(lobby, "cat", "dan")
    assert watchers(lobby, game_id) == set()


# -- moves through the lobby --------------------------------------------------------------

MOVES = [Play(card="AS"), Redeal(), Resign()]


@pytest.mark.parametrize("move", MOVES, ids=lambda move: move.type)
def test_a_move_outside_a_race_is_not_in_game(lobby: Lobby, move: ClientMessage) -> None:
    assert refusal(lobby, "ann", move) == "not_in_game"


@pytest.mark.parametrize("move", MOVES, ids=lambda move: move.type)
def test_a_move_after_game_over_is_game_over(lobby: Lobby, move: ClientMessage) -> None:
    start_race(lobby, "ann", "bob")
    end_race(lobby, "bob")
    assert refusal(lobby, "ann", move) == "game_over"


def test_a_move_after_moving_on_from_a_finished_race_is_not_in_game(lobby: Lobby) -> None:
    start_race(lobby, "ann", "bob")
    end_race(lobby, "bob")
    send(lobby, "ann", Cancel())
    assert refusal(lobby, "ann", Resign()) == "not_in_game"


def test_a_play_reaches_both_players(lobby: Lobby) -> None:
    start_race(lobby, "ann", "bob")
    out = send(lobby, "bob", a_play(lobby, "bob"))
    assert inbox(lobby, out, "ann") == inbox(lobby, out, "bob") == messages(out)


# -- rematch -------------------------------------------------------------------------------


def test_a_rematch_is_registered_for_the_asker_and_offered_to_the_opponent(lobby: Lobby) -> None:
    game_id = start_race(lobby, "ann", "bob")
    end_race(lobby, "bob")
    assert send(lobby, "ann", Rematch()) == [
        Send(("ann",), RematchWaiting(game_id=game_id)),
        Send(("bob",), RematchOffered(game_id=game_id)),
    ]


def test_when_both_ask_a_rematch_starts_with_the_same_rules_and_seats(lobby: Lobby) -> None:
    rules = Rules(deal="mirror", tiebreak="first", redeals=1)
    code = open_room(lobby, "ann", rules=rules)
    send(lobby, "bob", JoinRoom(code=code))
    old = end_race(lobby, "ann").game_id
    send(lobby, "bob", Rematch())
    out = send(lobby, "ann", Rematch())
    assert kinds(out) == ["game_start", "game_start"]
    starts = {send.to: send.message for send in out if isinstance(send, Send)}
    for player, seat in (("ann", 0), ("bob", 1)):
        start = starts[(player,)]
        assert isinstance(start, GameStart)
        assert (start.seat, start.rules, start.players) == (seat, rules, ["Ann", "Bob"])
        assert start.game_id != old


def leave_for(lobby: Lobby, action: str) -> None:
    """Ann moves on after her race with Bob: ``action``."""
    if action == "seek":
        send(lobby, "ann", Seek())
    elif action == "create_room":
        open_room(lobby, "ann")
    elif action == "join_room":
        send(lobby, "ann", JoinRoom(code=open_room(lobby, "cat")))
    elif action == "watch":
        send(lobby, "ann", Watch(game_id=start_race(lobby, "cat", "dan")))
    elif action == "cancel":
        send(lobby, "ann", Cancel())
    else:
        lobby.disconnect("ann", 2.0)


@pytest.mark.parametrize(
    "action", ["seek", "create_room", "join_room", "watch", "cancel", "disconnect"]
)
def test_a_rematch_offer_lapses_when_either_player_moves_on(lobby: Lobby, action: str) -> None:
    start_race(lobby, "ann", "bob")
    end_race(lobby, "bob")
    send(lobby, "bob", Rematch())
    leave_for(lobby, action)
    assert refusal(lobby, "bob", Rematch()) == "game_not_found"
    if action not in {"join_room", "disconnect"}:  # Ann is not racing, nor gone
        assert refusal(lobby, "ann", Rematch()) == "game_not_found"


def test_a_rematch_offer_outlives_a_look_at_the_lobby_and_a_refused_command(lobby: Lobby) -> None:
    start_race(lobby, "ann", "bob")
    end_race(lobby, "bob")
    send(lobby, "bob", Rematch())
    snapshot(lobby)  # Ann looks at the lobby
    refusal(lobby, "ann", JoinRoom(code="ZZZZZZ"))  # changes nothing
    assert kinds(send(lobby, "ann", Rematch())) == ["game_start", "game_start"]


def test_no_rematch_is_offered_when_a_player_was_away_at_the_end(lobby: Lobby) -> None:
    start_race(lobby, "ann", "bob")
    lobby.disconnect("ann", 2.0)
    end_race(lobby, "bob")
    lobby.connect("ann", "Ann", 3.0)
    assert refusal(lobby, "ann", Rematch()) == "game_not_found"


def test_a_rematch_without_a_finished_race_is_not_in_game(lobby: Lobby) -> None:
    assert refusal(lobby, "ann", Rematch()) == "not_in_game"


def test_a_rematch_while_racing_is_busy(lobby: Lobby) -> None:
    start_race(lobby, "ann", "bob")
    assert refusal(lobby, "ann", Rematch()) == "busy"


# -- connections ------------------------------------------------------------------------------


def test_disconnecting_leaves_the_queue(lobby: Lobby) -> None:
    send(lobby, "ann", Seek())
    assert lobby.disconnect("ann", 2.0) == [Queued("ann", None)]
    assert kinds(send(lobby, "bob", Seek())) == ["seeking"]
    assert snapshot(lobby).seeking == 1


def test_disconnecting_closes_ones_room(lobby: Lobby) -> None:
    code = open_room(lobby, "ann", public=True)
    lobby.disconnect("ann", 2.0)
    assert refusal(lobby, "bob", JoinRoom(code=code)) == "room_not_found"
    assert snapshot(lobby).rooms == []


def test_disconnecting_stops_watching(lobby: Lobby) -> None:
    game_id = start_race(lobby, "ann", "bob")
    send(lobby, "dan", Watch(game_id=game_id))
    lobby.disconnect("dan", 2.0)
    assert watchers(lobby, game_id) == set()


def test_disconnecting_while_racing_tells_the_opponent(lobby: Lobby) -> None:
    game_id = start_race(lobby, "ann", "bob")
    out = lobby.disconnect("ann", 2.0)
    assert out == [
        Send(("bob",), OpponentAway(game_id=game_id, grace_s=30)),
        Wake(game_id, 2.0 + GRACE),
    ]


def test_connecting_again_resumes_the_race(lobby: Lobby) -> None:
    game_id = start_race(lobby, "ann", "bob")
    send(lobby, "ann", a_play(lobby, "ann"))
    lobby.disconnect("ann", 2.0)
    state, back, wake = lobby.connect("ann", "Ann", 10.0)
    assert wake == Wake(
        game_id, 1.0 + IDLE
    )  # Bob's idle limit, from the deal, before Ann's fresh one
    assert isinstance(state, Send) and state.to == ("ann",)
    assert isinstance(state.message, GameState)
    assert (state.message.seat, state.message.seq, state.message.over) == (0, 1, None)
    assert back == Send(("bob",), OpponentBack(game_id=game_id))


def test_a_race_that_ended_while_away_is_shown_on_connecting(lobby: Lobby) -> None:
    game_id = start_race(lobby, "ann", "bob")
    lobby.disconnect("ann", 2.0)
    assert lobby.tick(game_id, 2.0 + GRACE - 0.001) == [Wake(game_id, 2.0 + GRACE)]
    out = lobby.tick(game_id, 2.0 + GRACE)
    over = game_over_of(out)
    assert (over.winner, over.reason) == (1, "abandoned")
    assert lobby.race(game_id) is None and out[-1] == Wake(game_id, None)
    (state,) = messages(lobby.connect("ann", "Ann", 40.0))
    assert isinstance(state, GameState)
    assert (state.seat, state.over) == (0, over)
    lobby.disconnect("ann", 41.0)
    assert lobby.connect("ann", "Ann", 42.0) == []  # shown once


def game_over_of(outputs: list[Output]) -> GameOver:
    (over,) = (m for m in messages(outputs) if isinstance(m, GameOver))
    return over
