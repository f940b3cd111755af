"""An arena's end with races still running, an arena rebuilt from what the store kept, and
rated arenas. Time is moved by hand."""

from __future__ import annotations

import pytest

from core.events import ArenaChanged, Output, RaceStarted, Refused, Wake
from core.restore import restore
from protocol import ArenaResult, JoinArena, Resign, Rules, Seek

from .arena_helpers import (
    KEY,
    entrants,
    join,
    new_lobby,
    overs,
    pushes,
    racing,
    spec,
    starts,
)
from .helpers import GRACE, IDLE, journaled

FOUR = ("ann", "bob", "cat", "dan")
RATED = Rules(deal="mirror", winnable_only=True, rated=True)


def test_at_the_end_no_race_is_paired_and_the_arena_finishes_when_its_last_race_ends() -> None:
    lobby = new_lobby(*FOUR, arena=spec(starts=10.0, ends=100.0))
    join(lobby, *FOUR)
    lobby.tick(KEY, 10.0)  # Bob v Ann, Dan v Cat
    assert starts(lobby.handle("ann", Resign(), 99.5)) == [("Bob", "Ann")]  # alone: again
    out = lobby.tick(KEY, 100.0)  # time is up; two races still run
    assert starts(out) == [] and out[-1] == Wake(KEY, None)
    assert lobby.snapshot().arenas[0].status == "running"
    with pytest.raises(Refused):
        lobby.handle("ann", JoinArena(arena_id="a1"), 100.2)  # nobody joins an arena that ends
    out = lobby.handle("cat", Resign(), 100.5)
    (over,) = overs(out)
    assert over.arena == ArenaResult(arena_id="a1", points=[2, 0])  # it still counts
    assert starts(out) == [] and ArenaChanged("a1", "finished") not in out
    out = lobby.handle("bob", Resign(), 101.0)  # the last race
    assert starts(out) == [] and ArenaChanged("a1", "finished") in out
    assert out[-1] == Wake(KEY, None)
    for player in FOUR:
        (last,) = pushes(out, player)
        assert last.status == "finished"
    (last,) = pushes(out, "ann")
    # Dan 2 in one race; Ann and Bob 2 in two (Ann joined first); Cat 0.
    assert [(s.rank, s.name, s.score, s.races) for s in last.standings] == [
        (1, "Dan", 2, 1), (2, "Ann", 2, 2), (2, "Bob", 2, 2), (4, "Cat", 0, 1)
    ]  # fmt: skip
    assert lobby.snapshot().arenas == [] and not lobby.has_arena("a1")
    lobby.handle("ann", Seek(rules=Rules()), 102.0)  # out of the arena: free again


def test_an_arena_whose_time_is_up_with_no_race_running_finishes_at_once() -> None:
    lobby = new_lobby("ann", arena=spec(starts=10.0, ends=20.0))
    join(lobby, "ann")
    assert starts(lobby.tick(KEY, 10.0)) == []  # alone: nobody to race
    out = lobby.tick(KEY, 20.0)
    assert ArenaChanged("a1", "finished") in out and out[-1] == Wake(KEY, None)
    (last,) = pushes(out, "ann")
    assert (last.status, last.players, last.you) == ("finished", 1, None)


def test_an_arena_not_yet_started_when_scheduled_late_starts_at_once() -> None:
    lobby = new_lobby("ann", "bob", arena=spec(starts=50.0))
    join(lobby, "ann", "bob")
    out = lobby.schedule_arena(spec(starts=5.0), 6.0)  # moved earlier, already past
    assert ArenaChanged("a1", "running") in out and starts(out) == [("Bob", "Ann")]


def test_an_arena_is_rebuilt_from_what_the_store_kept_and_goes_on() -> None:
    lobby = new_lobby(*FOUR)
    out: list[Output] = join(lobby, *FOUR)
    out += lobby.tick(KEY, 10.0)  # Bob v Ann, Dan v Cat
    out += lobby.handle("ann", Resign(), 20.0)  # Bob 2; Bob v Ann again
    kept = entrants(out)  # the rows the store keeps, each as last written
    assert (kept["bob"].score, kept["bob"].races, kept["bob"].last_opponent) == (2, 1, "ann")
    # A restart: the live races come back from their journals, the arena from its rows.
    again = new_lobby(arena=None)
    live = [o.start for o in out if isinstance(o, RaceStarted)][1:]  # Dan v Cat, Bob v Ann
    for start in live:
        entries = [o.entry for o in journaled(out) if o.game_id == start.game_id]
        race, left = restore(start, entries, elapsed=30.0, now=500.0, idle_limit=IDLE, grace=GRACE)
        again.restore(race, left)
    restored = again.restore_arena(spec(starts=10.0, ends=1000.0), kept.values(), 500.0)
    assert restored == [Wake(KEY, 1000.0)]  # running, as it was; nothing to push yet
    assert again.snapshot().arenas[0].players == 4
    for player in FOUR:
        again.connect(player, player.title(), 501.0)
    out = again.handle("cat", Resign(), 502.0)
    (over,) = overs(out)
    assert over.arena == ArenaResult(arena_id="a1", points=[2, 0])
    rows = entrants(out)
    assert (rows["dan"].score, rows["dan"].races) == (2, 1)
    (push,) = pushes(again.tick(KEY, 502.0), "ann")
    assert [(s.name, s.score, s.races) for s in push.standings][:2] == [
        ("Bob", 2, 1),
        ("Dan", 2, 1),
    ]
    assert starts(out) == [("Dan", "Cat")]  # the only two free: they race again
    out = again.handle("ann", Resign(), 503.0)
    assert entrants(out)["bob"].score == 4 and starts(out) == [("Bob", "Ann")]


def test_a_rated_arena_rates_what_the_rated_rules_allow_and_no_more() -> None:
    lobby = new_lobby(arena=spec(rules=RATED))
    for player, address in (("ann", "93.184.216.34"), ("bob", "93.184.216.34")):
        lobby.connect(player, player.title(), 0.0, address)
    for player, address in (("cat", "1.1.1.1"), ("dan", "9.9.9.9")):
        lobby.connect(player, player.title(), 0.0, address)
    lobby.connect("robo", "Robo", 0.0, bot=True)
    with pytest.raises(Refused) as refused:
        lobby.handle("robo", JoinArena(arena_id="a1"), 1.0)
    assert refused.value.code == "not_allowed"
    join(lobby, *FOUR, now=1.0)
    out = lobby.tick(KEY, 10.0)
    assert starts(out) == [("Bob", "Ann"), ("Dan", "Cat")]
    ann, cat = racing(lobby, "ann"), racing(lobby, "cat")
    assert ann.rules.rated is False and ann.ratings is None  # one address: unrated
    assert cat.rules.rated is True and cat.ratings is not None
