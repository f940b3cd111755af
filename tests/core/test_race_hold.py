"""Holding a race while its worker is not sure it owns it: nothing moves, and the time
held does not count (core/race.py, Race.pause and Race.resume; core/lobby.py, hold)."""

from __future__ import annotations

import random

import pytest

from core.events import Refused, Wake
from core.lobby import Lobby
from protocol import GameStart, Seek, Watch

from .helpers import GRACE, IDLE, ONE, THREE, TWO, messages, play, started


def test_a_held_race_takes_no_move_and_no_deadline_falls() -> None:
    race = started(THREE, TWO)
    race.pause(1.0)
    assert race.next_deadline() is None
    with pytest.raises(Refused) as refused:
        play(race, 0, 1, 2.0)
    assert refused.value.code == "unavailable"
    assert race.tick(1.0 + IDLE + 5.0)[-1] == Wake("race-1", None)
    assert race.status_of(0) == race.status_of(1) == "playing"


def test_after_a_hold_the_race_goes_on_as_if_the_time_held_did_not_pass() -> None:
    race = started(THREE, TWO)
    out = play(race, 0, 1, 1.0)
    (played,) = [m for m in messages(out) if m.type == "played"]
    race.pause(2.0)
    race.resume(12.0)  # held ten seconds
    assert race.next_deadline() == pytest.approx(0.0 + IDLE + 10.0)  # Bob idle since the deal
    (later,) = [m for m in messages(play(race, 0, 1, 13.0)) if m.type == "played"]
    assert later.t_ms - played.t_ms == 2000  # 13 - 1 - 10 held
    assert race.state(0, 13.0).elapsed_ms == 3000


def test_a_player_who_leaves_while_held_keeps_the_whole_grace() -> None:
    race = started(ONE, TWO)
    race.pause(5.0)
    race.leave(1, 6.0)
    race.resume(20.0)
    assert race.next_deadline() == pytest.approx(min(6.0 + GRACE + 15.0, 0.0 + IDLE + 15.0))


def test_the_lobby_holds_every_race_and_lets_one_go_to_another_worker() -> None:
    lobby = Lobby(rng=random.Random(3), idle_limit=IDLE, grace=GRACE)
    for who in ("ann", "bob", "cat"):
        lobby.connect(who, who.title(), 0.0)
    lobby.handle("ann", Seek(), 0.0)
    out = lobby.handle("bob", Seek(), 0.0)
    (start, _) = (m for m in messages(out) if isinstance(m, GameStart))
    race = lobby.race(start.game_id)
    assert race is not None
    lobby.handle("cat", Watch(game_id=start.game_id), 1.0)
    lobby.hold(2.0)
    assert race.paused_at == 2.0
    assert sorted(lobby.let_go_of(start.game_id)) == ["ann", "bob", "cat"]
    assert lobby.race(start.game_id) is None and lobby.race_of("ann") is None
    lobby.handle("ann", Seek(), 3.0)  # free again: the race is another worker's now
    assert lobby.let_go_of(start.game_id) == ()
