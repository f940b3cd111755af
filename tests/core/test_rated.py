"""Rated races in the cores: ratings on the events, and quick match by rating, time by hand."""

from __future__ import annotations

import random

import pytest

from core.events import Output, RaceEnded, RaceStarted, Wake
from core.glicko2 import NEW, Glicko, rate_race
from core.lobby import QUEUE, Lobby
from core.matching import WINDOW_GROWTH, WINDOW_START, Seeker, best_match, next_pairing
from core.restore import restore
from protocol import GameOver, GameStart, Play, Resign, Rules, Seek

from .helpers import GRACE, IDLE, messages

RATED = Rules(deal="mirror", winnable_only=True, rated=True)


def lobby_of(ratings: dict[str, float], **options: int) -> Lobby:
    lobby = Lobby(rng=random.Random(7), idle_limit=IDLE, grace=GRACE, **options)
    for name, rating in ratings.items():
        lobby.connect(name, name.title(), 0.0, rating=Glicko(rating, 200.0, 0.06))
    return lobby


def starts(out: list[Output]) -> list[GameStart]:
    return [m for m in messages(out) if isinstance(m, GameStart)]


def one_play_each(lobby: Lobby, player_id: str, now: float) -> None:
    """Both players of ``player_id``'s race make a play: only a race both raced is rated."""
    race = lobby.race_of(player_id)
    assert race is not None
    for seat, racer in enumerate(race.player_ids):
        card = race.boards()[seat].legal_plays()[0]
        lobby.handle(racer, Play(card=str(card)), now)


def queue_wake(out: list[Output]) -> float | None:
    (wake,) = [o for o in out if isinstance(o, Wake) and o.game_id == QUEUE]
    return wake.at


def test_a_rated_seek_pairs_the_closest_rating_within_the_window() -> None:
    lobby = lobby_of({"ann": 1500, "dan": 1700, "cat": 1530})
    lobby.handle("ann", Seek(rules=RATED), 0.0)
    assert starts(lobby.handle("dan", Seek(rules=RATED), 0.0)) == []  # 200 apart: not yet
    (start, _) = starts(lobby.handle("cat", Seek(rules=RATED), 1.0))
    assert start.players == ["Ann", "Cat"]
    lobby = lobby_of({"ann": 1500, "bob": 1580})
    lobby.handle("ann", Seek(rules=RATED), 0.0)
    assert len(starts(lobby.handle("bob", Seek(rules=RATED), 0.0))) == 2  # 80: at once


def test_the_closest_rating_wins_over_the_longest_wait() -> None:
    lobby = lobby_of({"ann": 1500, "bob": 1590, "cat": 1600})
    lobby.handle("ann", Seek(rules=RATED), 0.0)
    lobby.handle("bob", Seek(rules=RATED), 0.0)  # 90 apart: within 100, they pair at once
    assert lobby.snapshot().seeking == 0
    lobby = lobby_of({"ann": 1580, "bob": 1500, "cat": 1600})
    out = lobby.handle("ann", Seek(rules=RATED), 0.0)
    assert queue_wake(out) is None  # alone: nothing to wait for
    lobby.handle("bob", Seek(rules=RATED), 0.0)  # 80: pairs at once
    lobby = lobby_of({"ann": 1300, "bob": 1650, "cat": 1640})
    lobby.handle("ann", Seek(rules=RATED), 0.0)
    lobby.handle("bob", Seek(rules=RATED), 0.0)
    (start, _) = starts(lobby.handle("cat", Seek(rules=RATED), 0.0))
    assert set(start.players) == {"Bob", "Cat"}  # Ann waited longest, but is 340 away


def test_the_window_widens_with_waiting_until_the_pair_is_made() -> None:
    lobby = lobby_of({"ann": 1500, "bob": 1800})  # 300 apart: 10 s of waiting
    lobby.handle("ann", Seek(rules=RATED), 0.0)
    out = lobby.handle("bob", Seek(rules=RATED), 4.0)
    due = (300 - WINDOW_START) / WINDOW_GROWTH
    assert starts(out) == [] and queue_wake(out) == due
    early = lobby.tick(QUEUE, due - 0.5)
    assert starts(early) == [] and queue_wake(early) == due
    (start, _) = starts(lobby.tick(QUEUE, due))
    assert start.players == ["Ann", "Bob"]  # the longer waiting takes seat 0
    assert start.ratings == [1500, 1800]


def test_unrated_seeks_pair_by_rules_alone_whatever_the_ratings() -> None:
    lobby = lobby_of({"ann": 1000, "bob": 2500})
    lobby.handle("ann", Seek(rules=Rules(deal="mirror", winnable_only=True)), 0.0)
    (start, _) = starts(
        lobby.handle("bob", Seek(rules=Rules(deal="mirror", winnable_only=True)), 0.0)
    )
    assert start.ratings == [None, None]


def test_a_rated_race_ends_with_both_new_ratings_and_the_lobby_keeps_them() -> None:
    lobby = lobby_of({"ann": 1500, "bob": 1550})
    lobby.handle("ann", Seek(rules=RATED), 0.0)
    lobby.handle("bob", Seek(rules=RATED), 0.0)
    one_play_each(lobby, "bob", 2.0)
    out = lobby.handle("bob", Resign(), 5.0)
    (over,) = [m for m in messages(out) if isinstance(m, GameOver)]
    assert over.unrated is None
    ann, bob = Glicko(1500, 200, 0.06), Glicko(1550, 200, 0.06)
    new_ann, new_bob = rate_race(ann, bob, 1.0)
    assert over.ratings is not None
    assert [(r.before, r.after) for r in over.ratings] == [
        (1500, new_ann.shown),
        (1550, new_bob.shown),
    ]
    (ended,) = [o for o in out if isinstance(o, RaceEnded)]
    assert ended.record.ratings == (ann, bob)
    assert ended.record.ratings_after == (new_ann, new_bob)
    lobby.handle("ann", Seek(rules=RATED), 6.0)
    lobby.connect("eve", "Eve", 6.0, rating=new_ann)
    (again, _) = starts(lobby.handle("eve", Seek(rules=RATED), 6.0))
    assert again.ratings == [new_ann.shown, new_ann.shown]  # Ann's new rating, kept


def test_an_aborted_race_changes_no_rating() -> None:
    lobby = lobby_of({"ann": 1500, "bob": 1550})
    lobby.handle("ann", Seek(rules=RATED), 0.0)
    (start, _) = starts(lobby.handle("bob", Seek(rules=RATED), 0.0))
    race = lobby.race(start.game_id)
    assert race is not None
    out = race.abort(3.0)
    (over,) = [m for m in messages(out) if isinstance(m, GameOver)]
    assert over.ratings is None and race.ratings_after is None


def test_the_same_two_have_a_daily_limit_of_rated_races() -> None:
    lobby = lobby_of({"ann": 1500, "bob": 1500}, rated_per_day=2)
    lobby.handle("ann", Seek(rules=RATED), 0.0)
    assert starts(lobby.handle("bob", Seek(rules=RATED), 0.0))
    one_play_each(lobby, "bob", 0.5)
    lobby.handle("bob", Resign(), 1.0)
    lobby.handle("ann", Seek(rules=RATED), 10.0)
    lobby.handle("bob", Seek(rules=RATED), 10.0)  # far apart now: paired once the window is
    assert starts(lobby.tick(QUEUE, 60.0))
    one_play_each(lobby, "bob", 60.5)
    out = lobby.handle("bob", Resign(), 61.0)
    (over,) = [m for m in messages(out) if isinstance(m, GameOver)]
    assert over.ratings is not None
    lobby.handle("ann", Seek(rules=RATED), 70.0)
    out = lobby.handle("bob", Seek(rules=RATED), 70.0)
    assert starts(out) == [] and queue_wake(out) is None  # never, not later
    lobby.connect("cat", "Cat", 71.0, rating=Glicko(over.ratings[0].after, 200.0, 0.06))
    (start, _) = starts(lobby.handle("cat", Seek(rules=RATED), 71.0))
    assert start.players == ["Ann", "Cat"]  # anyone else races Ann as before


@pytest.mark.parametrize("gap", [0.0, 99.0, 100.0, 250.0, 1000.0])
def test_next_pairing_is_when_the_windows_first_cover_the_gap(gap: float) -> None:
    a, b = Seeker("a", 1500.0, 2.0), Seeker("b", 1500.0 + gap, 5.0)
    due = next_pairing([a, b], lambda x, y: True)
    assert due is not None
    assert best_match(b, [a], due, lambda x, y: True) == a
    if due > 5.0:
        assert best_match(b, [a], due - 0.01, lambda x, y: True) is None
    assert next_pairing([a, b], lambda x, y: False) is None


def test_a_new_player_starts_where_the_protocol_says() -> None:
    assert (NEW.rating, NEW.deviation, NEW.volatility) == (1500.0, 500.0, 0.09)
    assert NEW.provisional and NEW.shown == 1500


def test_a_restored_rated_race_rates_from_the_ratings_it_started_with() -> None:
    lobby = lobby_of({"ann": 1500, "bob": 1580})
    lobby.handle("ann", Seek(rules=RATED), 0.0)
    out = lobby.handle("bob", Seek(rules=RATED), 0.0)
    (start,) = [o.start for o in out if isinstance(o, RaceStarted)]
    assert start.ratings == (Glicko(1500, 200, 0.06), Glicko(1580, 200, 0.06))
    race, _ = restore(start, [], elapsed=2.0, now=100.0, idle_limit=IDLE, grace=GRACE)
    assert race.state(0, 100.0).ratings == [1500, 1580]
    for seat in (0, 1):
        race.play(seat, race.boards()[seat].legal_plays()[0], 100.5)
    over = next(m for m in messages(race.resign(0, 101.0)) if isinstance(m, GameOver))
    assert over.ratings is not None
    expected = rate_race(*start.ratings, 0.0)
    assert [r.after for r in over.ratings] == [g.shown for g in expected]
