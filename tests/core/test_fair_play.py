"""Fair play in the race core, time moved by hand: timing, the rules, and when a race is unrated."""

from __future__ import annotations

import random
import statistics
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from core.bot_policy import LEVELS, BotPolicy
from core.bots import BOT_NAMES, bot_id
from core.events import RaceStarted
from core.fair_play import (
    FAST_ALLOWED,
    FLOOR_S,
    GAP_SPREAD_MIN,
    MIN_PLAYS,
    REACTION_SPREAD_MIN,
    Evidence,
    judge,
    quartiles,
    spread,
)
from core.glicko2 import NEW
from core.race import Race, SeatInfo
from core.reactions import Timing
from core.restore import restore
from protocol import RATE_PER_S, Rules

from .helpers import ANN, BOB, GRACE, IDLE, game_over, journaled, race_ended

if TYPE_CHECKING:
    from core.events import Output

RATED = Rules(deal="mirror", winnable_only=True, rated=True)
C = engine.CARDS


def rated_race(seed: int = 1, *, seats: tuple[SeatInfo, SeatInfo] = (ANN, BOB)) -> Race:
    """A rated race on a winnable mirror deal, started at 0."""
    dealer = engine.SeedDealer(seed.to_bytes(engine.SEED_SIZE, "big"))
    race = Race("g", seats, RATED, (dealer, dealer), idle_limit=IDLE, grace=GRACE,
                ratings=(NEW, NEW))  # fmt: skip
    race.start(0.0)
    return race


def paced(race: Race, seat: int, start: float, gaps: list[float]) -> float:
    """``seat`` plays its next cards (greedy order) after these gaps from ``start``; the time."""
    now = start
    for gap, card in zip(gaps, engine.greedy_plays(race.boards()[seat]), strict=False):
        now += gap
        race.play(seat, card, now)
    return now


def human_gaps(count: int, seed: int = 0) -> list[float]:
    """Gaps a person might leave: 0.3 to 2 s, all different."""
    rng = random.Random(seed)
    return [rng.uniform(0.3, 2.0) for _ in range(count)]


def timing_of(reactions: list[float], gaps: list[float] | None = None) -> Timing:
    """A seat's timing with these reactions (and gaps: the reactions themselves if None)."""
    timing = Timing()
    timing.reactions.extend(reactions)
    timing.gaps.extend(reactions if gaps is None else gaps)
    return timing


# -- timing ---------------------------------------------------------------------


def test_a_reaction_runs_from_when_the_card_became_playable_to_its_play() -> None:
    # Hearts-like suit 0 waits for its 11th card (index 10), suit 1 for its last (25).
    board = engine.Board.from_parts([[11, 10], [], [], [], [], []], [25, 12], [10, 12, 13, 13])
    timing = Timing()
    timing.saw(board, 0.0)  # 10 (bed 0's front) and 25 (bouquet) are playable at the deal
    for card, at in ((10, 1.0), (11, 1.3), (25, 2.0), (12, 2.1)):
        move = board.play(C[card])
        timing.played(C[card], move.bed, board, at)
    # 11 was uncovered at 1.0, 12 became next of its suit at 1.3, 25 was there from the deal.
    assert timing.reactions == pytest.approx([1.0, 0.3, 2.0, 0.8])
    assert timing.gaps == pytest.approx([1.0, 0.3, 0.7, 0.1])
    assert timing.plays == 4


def test_a_redeal_makes_its_playable_cards_new_and_restarts_the_gap() -> None:
    # Suit 0 needs card 9 next, buried under 10: stuck, with a redeal left.
    board = engine.Board.from_parts([[9, 10], [11, 12], [], [], [], []], [], [9, 13, 13, 13], 1)
    timing = Timing()
    timing.saw(board, 0.0)
    assert board.status is engine.Status.STUCK
    board.redeal(lambda cards: engine.Layout(((), (), (), (), (), ()), tuple(cards)))
    timing.saw(board, 5.0)  # all four in the bouquet now: 9 is playable from the redeal
    board.play(C[9])
    timing.played(C[9], None, board, 5.4)
    board.play(C[10])
    timing.played(C[10], None, board, 6.0)
    assert timing.reactions == pytest.approx([0.4, 0.6]) and timing.gaps == pytest.approx(
        [0.4, 0.6]
    )


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), winnable=st.booleans(), order=st.randoms())
def test_a_reaction_is_timed_from_the_move_that_made_the_card_playable(
    seed: int, winnable: bool, order: random.Random
) -> None:
    """The two cards a play can make playable are all it looks at: as if it looked at all."""
    dealer = engine.LegacyDealer(seed, seed)
    board = engine.Board(dealer.layout(winnable), redeals=1)
    timing = Timing()
    timing.saw(board, 0.0)
    since, reactions, at = dict.fromkeys(board.legal_plays(), 0.0), [], 0.0
    while board.status in (engine.Status.PLAYING, engine.Status.STUCK):
        at += 1.0
        if board.status is engine.Status.STUCK:
            board.redeal(dealer.redeal)
            timing.saw(board, at)
        else:
            card = order.choice(board.legal_plays())
            move = board.play(card)
            timing.played(card, move.bed, board, at)
            reactions.append(at - since.pop(card))
        for card in board.legal_plays():
            since.setdefault(card, at)
    assert timing.reactions == reactions and timing.plays == board.count


def test_the_race_times_each_seat_on_its_own_board() -> None:
    race = rated_race()
    first = engine.greedy_plays(race.boards()[0])[:2]
    race.play(0, first[0], 1.0)
    race.play(1, first[0], 1.5)  # Bob's play changes nothing of Ann's timing
    race.play(0, first[1], 2.5)
    ann, bob = (seat.timing for seat in race.seats)
    assert ann.gaps == pytest.approx([1.0, 1.5]) and bob.gaps == pytest.approx([1.5])


def test_a_restored_race_has_the_timing_it_had_and_a_declared_bot_stays_labelled() -> None:
    program = SeatInfo("p-prog", "Prog", bot=True)
    dealer = engine.SeedDealer(bytes(engine.SEED_SIZE))
    rules = Rules(deal="mirror", winnable_only=True)
    race = Race("g", (ANN, program), rules, (dealer, dealer), idle_limit=IDLE, grace=GRACE)
    out = race.start(0.0)
    now = 0.0
    for seat, gap in zip([0, 0, 1, 0, 1, 0, 0], human_gaps(7), strict=True):
        now += gap
        out += race.play(seat, engine.greedy_plays(race.boards()[seat])[0], now)
    (start,) = (o.start for o in out if isinstance(o, RaceStarted))
    assert start.bots == (False, True)
    journal = [o.entry for o in journaled(out)]
    back, _ = restore(start, journal, elapsed=now, now=100.0, idle_limit=IDLE, grace=GRACE)
    for before, after in zip(race.seats, back.seats, strict=True):
        assert after.timing.reactions == pytest.approx(before.timing.reactions)
        assert after.timing.gaps == pytest.approx(before.timing.gaps)
    assert back.bots == [False, True]


# -- the rules ------------------------------------------------------------------


def test_the_floor_allows_a_few_plays_under_it_and_flags_one_more() -> None:
    human = human_gaps(40)
    quick = [FLOOR_S / 2] * FAST_ALLOWED
    allowed = judge(timing_of(quick + human))
    assert (allowed.fast, allowed.flagged) == (FAST_ALLOWED, False)
    flagged = judge(timing_of([*quick, FLOOR_S / 2, *human]))
    assert flagged.reasons == ("fast",) and flagged.fast == FAST_ALLOWED + 1
    at_floor = judge(timing_of([FLOOR_S] * (FAST_ALLOWED + 1) + human))
    assert at_floor.fast == 0  # the floor itself is a person's


def test_reactions_too_regular_for_a_hand_are_flagged_once_there_are_enough_plays() -> None:
    gaps = human_gaps(MIN_PLAYS)
    steady = [0.25 + 0.001 * (i % 5) for i in range(MIN_PLAYS)]
    assert judge(timing_of(steady, gaps)).reasons == ("regular_reactions",)
    assert judge(timing_of(steady[:-1], gaps[:-1])).flagged is False  # too few to measure
    assert judge(timing_of(steady[:-1], gaps[:-1])).reaction_spread is None


def test_gaps_too_regular_are_flagged_whatever_the_reactions() -> None:
    reactions = human_gaps(MIN_PLAYS, seed=1)
    metronome = [0.25] * MIN_PLAYS
    evidence = judge(timing_of(reactions, metronome))
    assert evidence.reasons == ("regular_gaps",) and evidence.gap_spread == 0.0


def test_the_spread_thresholds_are_strict_and_measured_by_quartiles() -> None:
    assert spread([1.0, 1.0, 3.0, 3.0, 3.0]) == pytest.approx(0.5)  # Q1 1, Q3 3
    assert spread([0.0, 0.0, 0.0]) == 0.0
    # A few long pauses leave the quartiles where they were: still flagged.
    paused = [0.25] * (MIN_PLAYS + 10) + [3.0] * 4
    assert judge(timing_of(paused, human_gaps(len(paused)))).reasons == ("regular_reactions",)
    assert REACTION_SPREAD_MIN > 0 and GAP_SPREAD_MIN > 0


@given(st.lists(st.floats(0.0, 100.0), min_size=2, max_size=80))
def test_the_quartiles_are_the_statistics_modules_inclusive_ones(values: list[float]) -> None:
    ordered = sorted(values)
    expected = statistics.quantiles(ordered, n=4, method="inclusive")
    assert quartiles(ordered) == pytest.approx(expected)
    assert quartiles(ordered)[1] == pytest.approx(statistics.median(ordered))
    assert quartiles(ordered[:1]) == (ordered[0],) * 3


def test_a_person_who_played_at_all_is_not_flagged_by_a_short_race() -> None:
    evidence = judge(timing_of([0.01] * FAST_ALLOWED))
    assert evidence == Evidence(FAST_ALLOWED, FAST_ALLOWED, 0.01, 0.01, None, None, ())
    assert judge(Timing()) == Evidence(0, 0, None, None, None, None, ())


def test_evidence_is_kept_as_json_and_read_back_the_same() -> None:
    evidence = judge(timing_of([0.01] * 30, [0.02] * 30))
    assert evidence.flagged and Evidence.from_json(evidence.to_json()) == evidence


# -- when a rated race is unrated -----------------------------------------------


def test_a_rated_race_both_raced_by_hand_is_rated() -> None:
    race = rated_race()
    paced(race, 1, 0.0, human_gaps(3, seed=2))
    paced(race, 0, 0.0, human_gaps(52, seed=3))
    over = race.over
    assert over is not None and over.reason == "cleared"
    assert over.unrated is None and over.ratings is not None
    assert race.fair_play[0] is not None and not race.fair_play[0].flagged
    assert race.fair_play[1] is not None and race.fair_play[1].plays == 3


@pytest.mark.parametrize("how", ["resign", "abandon", "time_out"])
def test_a_player_who_made_no_play_leaves_the_race_unrated(how: str) -> None:
    race = rated_race()
    paced(race, 0, 0.0, human_gaps(4))
    if how == "resign":
        out = race.resign(1, 10.0)
    elif how == "abandon":
        race.leave(1, 10.0)
        out = race.tick(10.0 + GRACE)
    else:
        out = race.tick(IDLE)  # Bob never played: his idle limit from the deal
    over = game_over(out)
    assert (over.ratings, over.unrated) == (None, "no_play")
    record = race_ended(out).record
    assert (record.ratings_after, record.unrated) == (None, "no_play")
    assert record.ratings == (NEW, NEW)  # the ratings it started with, kept, changed by nothing


def test_a_rated_race_with_a_flagged_seat_is_unrated_and_its_record_says_why() -> None:
    race = rated_race()
    race.play(1, engine.greedy_plays(race.boards()[1])[0], 1.0)
    paced(race, 0, 1.0, [1 / RATE_PER_S] * 52)  # a program at the rate limit
    over = race.over
    assert over is not None and (over.ratings, over.unrated) == (None, "fair_play")
    (ann, bob) = race.fair_play
    assert ann is not None and "fast" in ann.reasons and ann.plays == 52
    assert bob is not None and not bob.flagged
    assert race.ratings_after is None


def test_the_record_carries_each_seats_evidence_and_flag() -> None:
    race = rated_race()
    race.play(1, engine.greedy_plays(race.boards()[1])[0], 1.0)
    paced(race, 0, 1.0, [1 / RATE_PER_S] * 51)
    last = engine.greedy_plays(race.boards()[0])[0]
    record = race_ended(race.play(0, last, 2.0)).record
    assert record.flagged == (True, False)
    assert record.fair_play == race.fair_play and record.unrated == "fair_play"


def test_an_unrated_race_is_judged_but_says_nothing_of_ratings() -> None:
    dealer = engine.SeedDealer(bytes(engine.SEED_SIZE))
    rules = Rules(deal="mirror", winnable_only=True)
    race = Race("g", (ANN, BOB), rules, (dealer, dealer), idle_limit=IDLE, grace=GRACE)
    race.start(0.0)
    paced(race, 0, 0.0, [1 / RATE_PER_S] * 52)
    assert race.over is not None and race.over.unrated is None and race.over.ratings is None
    assert race.fair_play[0] is not None and race.fair_play[0].flagged


def test_bots_are_never_judged_the_servers_nor_declared_ones() -> None:
    server_bot = SeatInfo(bot_id(5), BOT_NAMES[5])
    dealer = engine.SeedDealer(bytes(engine.SEED_SIZE))
    rules = Rules(deal="mirror", winnable_only=True)
    race = Race("g", (ANN, server_bot), rules, (dealer, dealer), idle_limit=IDLE, grace=GRACE,
                bots=(None, BotPolicy(5, random.Random(1))))  # fmt: skip
    race.start(0.0)
    while (due := race.next_deadline()) is not None:
        race.tick(due)
    assert race.fair_play == (judge(race.seats[0].timing), None)
    declared = SeatInfo("p-prog", "Prog", bot=True)
    race = Race("g", (ANN, declared), rules, (dealer, dealer), idle_limit=IDLE, grace=GRACE)
    race.start(0.0)
    assert race.bots == [False, True] and race.state(None, 0.0).bots == [False, True]
    out: list[Output] = []
    for card in engine.greedy_plays(race.boards()[1]):  # as fast as it likes: it said so
        out += race.play(1, card, 1.0)
    assert race.fair_play[1] is None
    assert race_ended(out).record.flagged == (False, False)


# -- the bar: a seat paced as the bots pace themselves is never flagged ---------


@settings(max_examples=25, deadline=None)
@given(level=st.sampled_from(LEVELS), seed=st.integers(0, 2**32), jitter=st.floats(0.0, 0.02))
def test_a_seat_paced_like_the_bots_is_never_flagged(level: int, seed: int, jitter: float) -> None:
    race = rated_race(seed)
    rng = random.Random(seed)
    policy, now = BotPolicy(level, rng), 0.0
    race.play(1, engine.greedy_plays(race.boards()[1])[0], 0.5)
    while race.over is None:
        move = policy.next_move(race.boards()[0], idle_left=None, clock_left=None)
        assert move is not None and move.card is not None
        now += move.delay + rng.uniform(0.0, jitter)  # and whatever the network adds
        race.play(0, move.card, now)
    assert race.fair_play[0] is not None and race.fair_play[0].flagged is False
    assert race.over.unrated is None and race.ratings_after is not None
