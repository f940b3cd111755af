"""Arenas in the lobby core, time moved by hand: joining, pairing (a late joiner, no
immediate rematch), scores and streaks in ``game_over.arena``, and standings pushed at most
once a second."""

from __future__ import annotations

import pytest

import engine
from core.events import ArenaChanged, Output, RaceEnded, Refused, Wake
from protocol import (
    ArenaInfo,
    ArenaPlace,
    ArenaResult,
    CreateRoom,
    Daily,
    JoinArena,
    LeaveArena,
    Play,
    Resign,
    Rules,
    Seek,
)

from .arena_helpers import (
    KEY,
    entrants,
    join,
    new_lobby,
    overs,
    pushes,
    racing,
    sent,
    spec,
    starts,
)
from .helpers import IDLE

FOUR = ("ann", "bob", "cat", "dan")


def test_an_upcoming_arena_is_listed_joined_and_started_at_its_time() -> None:
    lobby = new_lobby(*FOUR, arena=None)
    assert lobby.schedule_arena(spec(starts=10.0), 0.0)[-1] == Wake(KEY, 10.0)
    (info,) = lobby.snapshot().arenas
    assert info == ArenaInfo(
        arena_id="a1", name="Evening", status="upcoming", starts_at="2025-06-01T18:00:00Z",
        ends_at="2025-06-01T18:01:30Z", players=0,
    )  # fmt: skip
    out = join(lobby, *FOUR, now=1.0)
    (reply,) = pushes(out, "ann")
    assert (reply.status, reply.joined, reply.you, reply.players) == ("upcoming", True, None, 1)
    assert starts(out) == [] and entrants(out)["dan"].order == 3
    assert lobby.has_arena("a1") and lobby.snapshot().arenas[0].players == 4
    out = lobby.tick(KEY, 10.0)
    assert ArenaChanged("a1", "running") in out
    assert starts(out) == [("Bob", "Ann"), ("Dan", "Cat")]  # equal scores: in join order
    for player in FOUR:
        (push,) = pushes(out, player)
        assert (push.status, push.players, push.you) == ("running", 4, None)
        assert [(s.rank, s.name, s.score) for s in push.standings] == [
            (1, "Ann", 0), (1, "Bob", 0), (1, "Cat", 0), (1, "Dan", 0)
        ]  # fmt: skip
        assert racing(lobby, player).kind.arena_id == "a1"
    assert lobby.snapshot().arenas[0].status == "running"


def test_a_race_scores_and_its_players_are_paired_again_never_with_each_other_at_once() -> None:
    lobby = new_lobby("ann", "bob", "cat")
    join(lobby, "ann", "bob", "cat")
    assert starts(lobby.tick(KEY, 10.0)) == [("Bob", "Ann")]  # Cat waits
    out = lobby.handle("ann", Resign(), 12.0)
    (over,) = overs(out)
    assert over.arena == ArenaResult(arena_id="a1", points=[2, 0])
    (record,) = (o.record for o in out if isinstance(o, RaceEnded))
    assert record.arena_points == (2, 0) and record.kind.arena_id == "a1"
    rows = entrants(out)
    assert (rows["bob"].score, rows["bob"].streak, rows["bob"].races) == (2, 1, 1)
    assert (rows["ann"].score, rows["ann"].last_opponent) == (0, "bob")
    assert starts(out) == [("Cat", "Ann")]  # Ann and Bob just raced; Cat is free: Bob waits
    out = lobby.handle("ann", Resign(), 13.0)
    assert starts(out) == [("Cat", "Bob")]  # Ann raced both last: she waits


def test_two_alone_race_each_other_again() -> None:
    lobby = new_lobby("ann", "bob")
    join(lobby, "ann", "bob")
    lobby.tick(KEY, 10.0)
    assert starts(lobby.handle("ann", Resign(), 12.0)) == [("Bob", "Ann")]


def test_a_late_joiner_races_at_once_if_someone_waits_and_else_after_the_next_race() -> None:
    lobby = new_lobby("ann", "bob", "cat", "dan", "eve")
    join(lobby, "ann", "bob", "cat")
    lobby.tick(KEY, 10.0)
    out = join(lobby, "dan", now=30.0)
    (reply,) = pushes(out, "dan")
    assert (reply.status, reply.joined) == ("running", True)
    assert starts(out) == [("Dan", "Cat")]
    assert starts(join(lobby, "eve", now=31.0)) == []  # everyone else is racing
    # Ann wins: Ann (2) and Bob (0) are free with Eve (0): Bob, closest to Eve, races her.
    assert starts(lobby.handle("bob", Resign(), 40.0)) == [("Eve", "Bob")]


def test_wins_in_a_row_score_double_from_the_third_until_a_race_is_not_won() -> None:
    # Ann beats Bob three times (2, 2, 4), loses (0), wins (2): 10 in five races.
    lobby = new_lobby("ann", "bob")
    join(lobby, "ann", "bob")
    lobby.tick(KEY, 10.0)
    points = []
    for now, loser in ((11.0, "bob"), (12.0, "bob"), (13.0, "bob"), (14.0, "ann"), (15.0, "bob")):
        out = lobby.handle(loser, Resign(), now)
        (over,) = overs(out)
        (record,) = (o.record for o in out if isinstance(o, RaceEnded))
        assert over.arena is not None
        points.append(over.arena.points[record.player_ids.index("ann")])
    assert points == [2, 2, 4, 0, 2]
    rows = entrants(out)
    assert (rows["ann"].score, rows["ann"].streak, rows["ann"].races) == (10, 1, 5)
    assert (rows["bob"].score, rows["bob"].races) == (2, 5)
    assert pushes(out, "ann") == [] and Wake(KEY, 11.0) in out  # due since 11: at once
    (push,) = pushes(lobby.tick(KEY, 15.0), "ann")
    assert push.you == ArenaPlace(rank=1, score=10, streak=1, races=5)
    assert [(s.name, s.score, s.streak) for s in push.standings] == [("Ann", 10, 1), ("Bob", 2, 0)]


def test_a_draw_scores_one_each() -> None:
    lobby = new_lobby("ann", "bob")
    join(lobby, "ann", "bob")
    race = racing(lobby, "ann") if lobby.tick(KEY, 10.0) else None
    assert race is not None
    out = lobby.tick(race.game_id, 10.0 + IDLE)  # neither plays: both time out, a draw
    (over,) = overs(out)
    assert (over.result, over.arena) == ("draw", ArenaResult(arena_id="a1", points=[1, 1]))


def test_a_race_flagged_by_the_fair_play_rules_scores_nothing_for_the_flagged_player() -> None:
    lobby = new_lobby("ann", "bob")
    join(lobby, "ann", "bob")
    lobby.tick(KEY, 10.0)
    race = racing(lobby, "ann")
    out: list[Output] = []
    for card in engine.greedy_plays(race.boards()[race.seat_of("ann")]):
        out += lobby.handle("ann", Play(card=str(card)), 11.0)  # 52 cards in no time at all
    (over,) = overs(out)
    evidence = race.fair_play[race.seat_of("ann")]
    assert over.reason == "cleared" and evidence is not None and "fast" in evidence.reasons
    assert over.arena is not None and over.arena.points == [0, 0]
    rows = entrants(out)
    assert (rows["ann"].score, rows["ann"].streak, rows["ann"].races) == (0, 0, 1)


def test_standings_go_out_at_most_once_a_second_as_they_change() -> None:
    six = ("ann", "bob", "cat", "dan", "eve", "fay")
    lobby = new_lobby(*six)
    join(lobby, *six)
    out = lobby.tick(KEY, 10.0)  # the start: everyone gets the standings
    assert starts(out) == [("Bob", "Ann"), ("Dan", "Cat"), ("Fay", "Eve")]
    later: list[Output] = []
    for now, loser in ((10.2, "ann"), (10.5, "cat"), (10.9, "eve")):
        changed = lobby.handle(loser, Resign(), now)
        assert pushes(changed, "bob") == [] and changed[-1] != Wake(KEY, None)
        assert Wake(KEY, 11.0) in changed
        later += changed
    pushed = lobby.tick(KEY, 11.0)
    assert all(len(pushes(pushed, player)) == 1 for player in six)
    (push,) = pushes(pushed, "ann")
    assert [s.score for s in push.standings] == [2, 2, 2, 0, 0, 0]
    changed = lobby.handle("ann", Resign(), 11.3)
    assert pushes(changed, "ann") == [] and Wake(KEY, 12.0) in changed
    assert pushes(lobby.tick(KEY, 11.5), "ann") == []  # a timer that fires early: nothing yet
    assert len(pushes(lobby.tick(KEY, 12.0), "ann")) == 1
    assert pushes(lobby.tick(KEY, 13.0), "ann") == []  # nothing changed since: nothing to say


def test_joining_and_leaving_are_refused_where_they_must_be_and_change_nothing() -> None:
    lobby = new_lobby("ann", "bob", "cat")
    with pytest.raises(Refused) as refused:
        lobby.handle("ann", JoinArena(arena_id="nope"), 1.0)
    assert refused.value.code == "game_not_found"
    with pytest.raises(Refused) as refused:
        lobby.handle("ann", LeaveArena(), 1.0)
    assert refused.value.code == "not_in_game"
    lobby.handle("bob", Seek(rules=Rules()), 1.0)
    lobby.handle("cat", CreateRoom(), 1.0)
    for player in ("bob", "cat"):
        with pytest.raises(Refused) as refused:
            lobby.handle(player, JoinArena(arena_id="a1"), 2.0)
        assert refused.value.code == "busy"
    join(lobby, "ann", now=2.0)
    for message in (Seek(rules=Rules()), CreateRoom(), Daily()):
        with pytest.raises(Refused) as refused:
            lobby.handle("ann", message, 3.0)
        assert refused.value.code == "busy"
    assert lobby.snapshot().arenas[0].players == 1


def test_a_player_who_leaves_finishes_their_race_keeps_their_score_and_is_not_paired() -> None:
    lobby = new_lobby("ann", "bob", "cat")
    join(lobby, "ann", "bob", "cat")
    lobby.tick(KEY, 10.0)
    out = lobby.handle("ann", LeaveArena(), 11.0)
    (reply,) = pushes(out, "ann")
    assert (reply.joined, reply.you) == (False, None)
    assert entrants(out)["ann"].joined is False and racing(lobby, "ann")
    out = lobby.handle("ann", Resign(), 12.0)  # the race goes on, and counts
    (over,) = overs(out)
    assert over.arena == ArenaResult(arena_id="a1", points=[2, 0])
    assert starts(out) == [("Bob", "Cat")]  # Ann is not paired again; Bob and Cat are
    pushed = lobby.tick(KEY, 12.0)
    (push,) = pushes(pushed, "bob")  # to those joined
    assert [s.name for s in push.standings] == ["Bob", "Ann", "Cat"] and push.players == 3
    assert pushes(pushed, "ann") == []
    lobby.handle("ann", Seek(rules=Rules()), 14.0)  # free to do anything else


def test_a_player_away_is_not_paired_and_is_when_they_come_back() -> None:
    lobby = new_lobby(*FOUR)
    join(lobby, *FOUR)
    lobby.tick(KEY, 10.0)  # Bob v Ann, Dan v Cat
    lobby.disconnect("dan", 11.0)
    out = lobby.handle("cat", Resign(), 12.0)
    assert overs(out)[0].arena == ArenaResult(arena_id="a1", points=[2, 0])
    assert starts(out) == []  # Cat is free, Dan is away
    back = lobby.connect("dan", "Dan", 13.0)
    assert type(sent(back)[0][1]).__name__ == "GameState"  # the race he missed
    assert starts(back) == [("Dan", "Cat")]


def test_a_push_falls_due_at_the_very_instant_its_timer_says() -> None:
    # (15.699352108166176 + 1) - 15.699352108166176 is a hair under 1 in floating
    # point: the push must still go out when the timer falls then, or the timer is set
    # again for that same instant, for ever.
    pushed = 15.699352108166176
    assert (pushed + 1.0) - pushed < 1.0
    lobby = new_lobby("ann", "bob", "cat", arena=spec(starts=pushed))
    join(lobby, "ann", "bob", "cat")
    lobby.tick(KEY, pushed)
    changed = lobby.handle("ann", Resign(), 16.0)
    assert Wake(KEY, pushed + 1.0) in changed
    out = lobby.tick(KEY, pushed + 1.0)
    assert len(pushes(out, "cat")) == 1 and Wake(KEY, pushed + 1.0) not in out
