"""An arena's rules as pure functions: scores and streaks worked out by hand, the standings'
order, and pairing (closest in score, then rating; never the same two twice in a row)."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from core.arena_rules import Candidate, Outcome, Placed, pairings, ranked, scored


def run(outcomes: list[tuple[Outcome, bool]]) -> tuple[list[int], list[int]]:
    """Each race's points and the streak after it, from no streak: (outcome, flagged)."""
    points, streaks, streak = [], [], 0
    for outcome, flagged in outcomes:
        gained, streak = scored(outcome, streak, flagged)
        points.append(gained)
        streaks.append(streak)
    return points, streaks


# -- scores and streaks, worked out by hand -------------------------------------------


def test_two_wins_in_a_row_make_wins_count_double_until_a_race_is_not_won() -> None:
    # race:    1  2  3  4  5  6  7  8
    # result:  W  W  W  D  W  W  W  L
    # streak   0  1  2  3  0  1  2  3   (wins in a row before the race)
    # points:  2  2  4  1  2  2  4  0   = 17
    races: list[tuple[Outcome, bool]] = [
        ("win", False), ("win", False), ("win", False), ("draw", False),
        ("win", False), ("win", False), ("win", False), ("loss", False),
    ]  # fmt: skip
    points, streaks = run(races)
    assert points == [2, 2, 4, 1, 2, 2, 4, 0] and sum(points) == 17
    assert streaks == [1, 2, 3, 0, 1, 2, 3, 0]


def test_a_loss_and_a_draw_start_over_and_a_long_streak_keeps_doubling() -> None:
    # result:  L  D  W  W  L  W  W  W  W
    # points:  0  1  2  2  0  2  2  4  4   = 17
    races: list[tuple[Outcome, bool]] = [
        ("loss", False), ("draw", False), ("win", False), ("win", False), ("loss", False),
        ("win", False), ("win", False), ("win", False), ("win", False),
    ]  # fmt: skip
    points, streaks = run(races)
    assert points == [0, 1, 2, 2, 0, 2, 2, 4, 4] and sum(points) == 17
    assert streaks[-1] == 4


def test_a_flagged_race_scores_nothing_and_ends_the_streak() -> None:
    # result:  W  W  W(flagged)  W  W  W
    # points:  2  2  0           2  2  4   = 12
    races: list[tuple[Outcome, bool]] = [
        ("win", False), ("win", False), ("win", True), ("win", False), ("win", False),
        ("win", False),
    ]  # fmt: skip
    points, streaks = run(races)
    assert points == [2, 2, 0, 2, 2, 4] and sum(points) == 12
    assert streaks == [1, 2, 0, 1, 2, 3]
    assert scored("draw", 5, True) == (0, 0) and scored("loss", 0, True) == (0, 0)


# -- standings ----------------------------------------------------------------------


def test_ties_in_score_go_to_more_points_per_race_and_equals_share_a_rank() -> None:
    # Cat 9 in 6 (1.5 a race); Ann 8 in 4 (2.0); Dan 8 in 4 (2.0), joined after Ann;
    # Bob 8 in 5 (1.6); Eve joined, no race yet (0).
    places = [
        Placed("bob", 8, 5, 1), Placed("eve", 0, 0, 4), Placed("dan", 8, 4, 3),
        Placed("ann", 8, 4, 0), Placed("cat", 9, 6, 2),
    ]  # fmt: skip
    table = [(rank, place.player_id) for rank, place in ranked(places)]
    assert table == [(1, "cat"), (2, "ann"), (2, "dan"), (4, "bob"), (5, "eve")]


# -- pairing ------------------------------------------------------------------------


def c(
    player_id: str, score: int, rating: float, last: str | None = None, order: int = 0
) -> Candidate:
    return Candidate(player_id, score, rating, last, order)


def test_the_closest_in_score_are_paired_first_then_the_closest_in_rating() -> None:
    free = [c("a", 0, 1500), c("b", 0, 1700), c("c", 4, 1500), c("d", 4, 1510), c("e", 2, 1600)]
    assert pairings(free) == [("d", "c"), ("b", "a")]  # e waits: nobody close is left
    free = [c("a", 0, 1500), c("b", 2, 1500), c("c", 6, 1500), c("d", 8, 1500)]
    assert sorted(pairings(free)) == [("b", "a"), ("d", "c")]
    free = [c("a", 2, 1500), c("b", 2, 1800), c("c", 2, 1550)]
    assert pairings(free) == [("c", "a")]


def test_the_same_two_are_never_paired_twice_in_a_row_while_anyone_else_is_free() -> None:
    free = [c("a", 2, 1500, last="b"), c("b", 2, 1510, last="a"), c("c", 2, 1600)]
    assert pairings(free) == [("c", "b")]  # a and b just raced: the closest other pair
    # Only one of them raced the other last: still twice in a row for that one.
    free = [c("a", 2, 1500, last="b"), c("b", 2, 1510, last="z"), c("c", 0, 1000)]
    assert pairings(free) == [("a", "c")]
    # Nobody else is free: the two race again.
    assert pairings([c("a", 2, 1500, last="b"), c("b", 0, 1500, last="a")]) == [("a", "b")]
    # Past two who may not race, the next one along is offered: a with x (a rating
    # point closer than b with x), b waits.
    free = [c("a", 0, 1500, last="b"), c("b", 0, 1501, last="a"), c("x", 5, 1500)]
    assert pairings(free) == [("x", "a")]


def brute_force(free: list[Candidate]) -> list[tuple[str, str]]:
    """The closest allowed pair again and again, trying every pair: the rule as stated."""
    line = sorted(free, key=lambda x: (x.score, x.rating, x.order))
    pairs = []
    while len(line) > 1:
        best = min(
            ((abs(a.score - b.score), abs(a.rating - b.rating), i, j), a, b)
            for (i, a), (j, b) in itertools.combinations(enumerate(line), 2)
        )
        _, a, b = best
        pairs.append((b.player_id, a.player_id))
        line = [x for x in line if x is not a and x is not b]
    return pairs


candidates = st.lists(
    st.tuples(st.integers(0, 12), st.integers(1200, 1800)), min_size=0, max_size=14
).map(lambda xs: [c(f"p{i}", s, r, order=i) for i, (s, r) in enumerate(xs)])


@settings(max_examples=300, deadline=None)
@given(candidates)
def test_without_recent_opponents_pairing_is_the_closest_pair_again_and_again(
    free: list[Candidate],
) -> None:
    assert pairings(free) == brute_force(free)


@settings(max_examples=300, deadline=None)
@given(candidates, st.randoms(use_true_random=False))
def test_with_recent_opponents_no_one_is_paired_twice_and_no_allowed_pair_is_left(
    free: list[Candidate], rng: random.Random
) -> None:
    ids = [x.player_id for x in free]
    free = [
        Candidate(x.player_id, x.score, x.rating, rng.choice([*ids, None]), x.order) for x in free
    ]
    pairs = pairings(free)
    paired = [player for pair in pairs for player in pair]
    assert len(paired) == len(set(paired))
    by_id = {x.player_id: x for x in free}

    def again(a: str, b: str) -> bool:
        return by_id[a].last == b or by_id[b].last == a

    assert all(not again(a, b) for a, b in pairs) or len(free) == 2
    left = [x for x in ids if x not in paired]
    assert not any(not again(a, b) for a, b in itertools.combinations(left, 2))


def test_a_thousand_free_players_are_all_paired() -> None:
    rng = random.Random(7)
    free = [c(f"p{i}", rng.randrange(0, 40), rng.gauss(1500, 200), order=i) for i in range(1000)]
    pairs = pairings(free)
    assert len(pairs) == 500 and len({p for pair in pairs for p in pair}) == 1000
