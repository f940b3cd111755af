"""Race times (``t_ms``, ``times_ms``, ``elapsed_ms``, ``clock_left_ms``) and verifiable deals."""

from __future__ import annotations

import hashlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from core.bot_policy import BotPolicy
from core.events import Output, RaceEnded, RaceStarted
from core.lobby import Lobby
from core.race import Race
from core.restore import restore
from protocol import (
    GameOver,
    GameStart,
    GameState,
    OpponentAway,
    Played,
    Redealt,
    Rules,
    Seek,
)
from server.http.export import race_record, summary_of

from .helpers import (
    ANN,
    BOB,
    GRACE,
    IDLE,
    ONE,
    THREE,
    TWO,
    game_over,
    journaled,
    make_race,
    messages,
    play,
    play_out,
    race_ended,
    redeal_with_a_play,
    started,
)

SPEED = Rules(deal="mirror", winnable_only=True)


def seed_race(rules: Rules, seed: int = 1) -> tuple[Race, list[Output]]:
    """A race dealt by the lobby, as on a server: 32-byte seeds drawn from ``seed``."""
    lobby = Lobby(rng=random.Random(seed), idle_limit=IDLE, grace=GRACE)
    for player in (ANN, BOB):
        lobby.connect(player.player_id, player.name, 0.0)
    lobby.handle(ANN.player_id, Seek(rules=rules), 0.0)
    out = lobby.handle(BOB.player_id, Seek(rules=rules), 0.0)
    (start, _) = (m for m in messages(out) if isinstance(m, GameStart))
    race = lobby.race(start.game_id)
    assert race is not None
    return race, out


def first_game_start(out: list[Output]) -> GameStart:
    return next(m for m in messages(out) if isinstance(m, GameStart))


# -- times ------------------------------------------------------------------------


def test_plays_and_redeals_say_when_the_server_accepted_them() -> None:
    race = started(ONE, ONE, redeals=1)
    (played,) = messages(play(race, 0, 1, 1.2346))
    assert isinstance(played, Played) and played.t_ms == 1235
    redeal = redeal_with_a_play(ONE)
    race = make_race(ONE, ONE, redeals=1, redeal0=redeal)
    race.start(10.0)
    play_out(race, 0, 11.0)
    redealt = next(m for m in messages(race.redeal(0, 14.5)) if isinstance(m, Redealt))
    assert redealt.t_ms == 4500


def test_game_over_gives_each_seats_time_of_its_last_card() -> None:
    race = started(TWO, THREE)
    play(race, 1, 3, 7.0)
    out = play(race, 0, 1, 3.0) + play(race, 0, 1, 9.25)  # Ann stalls at 2: Bob has 3
    over = game_over(out)
    assert over.times_ms == [9250, 7000]


def test_a_seat_that_played_nothing_has_no_time() -> None:
    race = started(ONE, TWO)
    out = race.resign(1, 5.0)
    assert game_over(out).times_ms == [None, None]


def test_game_state_says_how_long_the_race_has_run_and_what_is_left_on_the_clock() -> None:
    race = make_race(TWO, TWO, time_limit_s=90)
    race.start(100.0)
    state = race.state(0, 130.5)
    assert (state.elapsed_ms, state.clock_left_ms) == (30_500, 59_500)
    assert race.state(0, 100.0).elapsed_ms == 0
    race.resign(0, 140.0)
    after = race.state(None, 500.0)
    assert (after.elapsed_ms, after.clock_left_ms) == (40_000, 50_000)  # stopped at the end


def test_without_a_time_limit_there_is_no_clock_left() -> None:
    race = started(TWO, TWO)
    assert race.state(1, 12.0).clock_left_ms is None


def test_a_restored_race_goes_on_timing_from_where_it_stood() -> None:
    race, out = seed_race(SPEED)
    out += play(race, 0, 2, 4.0)
    (start,) = (o.start for o in out if isinstance(o, RaceStarted))
    entries = [o.entry for o in journaled(out)]
    again, _ = restore(start, entries, elapsed=6.0, now=1000.0, idle_limit=IDLE, grace=GRACE)
    again.come_back(0, 1000.0)
    assert again.state(0, 1001.0).elapsed_ms == 7000
    (played,) = messages(play(again, 0, 1, 1002.0))
    assert isinstance(played, Played) and played.t_ms == 8000


# -- verifiable deals -------------------------------------------------------------


def test_game_start_commits_to_the_seeds_game_over_reveals() -> None:
    race, out = seed_race(Rules(), seed=3)
    start = first_game_start(out)
    over = game_over(race.resign(0, 1.0))
    assert over.seeds[0] != over.seeds[1]  # independent deals
    for seed, commit in zip(over.seeds, start.commits, strict=True):
        assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commit
    verdict = engine.check_deal(
        winnable=False, seeds=over.seeds, commits=start.commits, boards=start.boards
    )
    assert verdict.ok, verdict.report()


def test_a_mirror_race_deals_both_seats_from_one_seed() -> None:
    race, out = seed_race(SPEED, seed=4)
    start = first_game_start(out)
    assert start.commits[0] == start.commits[1]
    assert start.boards[0] == start.boards[1]
    over = game_over(race.resign(1, 1.0))
    verdict = engine.check_deal(
        winnable=True, seeds=over.seeds, commits=start.commits, boards=start.boards
    )
    assert verdict.ok, verdict.report()


def test_game_state_carries_the_commits() -> None:
    race, out = seed_race(SPEED)
    assert race.state(None, 1.0).commits == first_game_start(out).commits


def test_a_finished_race_exports_as_a_record_that_verifies() -> None:
    race, _ = seed_race(Rules(deal="mirror", winnable_only=True, redeals=1), seed=5)
    out: list[Output] = []
    for step in range(120):  # both play, turn about, until one clears
        seat = step % 2
        cards = engine.greedy_plays(race.boards()[seat])
        if race.over is None and cards:
            out += race.play(seat, cards[0], 1.0 + step * 0.37)
    record = race_ended(out).record
    exported = race_record(record, summary_of(record, ("Ann", "Bob"))).model_dump(mode="json")
    assert exported["reason"] == "cleared"
    verdict = engine.verify_record(exported)
    assert verdict.ok, verdict.report()
    exported["moves"][0]["card"] = "KS"  # a King first: never legal
    assert not engine.verify_record(exported).ok


def test_an_over_message_in_a_resumed_state_has_the_times_and_seeds() -> None:
    race, _ = seed_race(SPEED)
    play(race, 1, 1, 2.0)
    over = game_over(race.resign(0, 3.0))
    state = race.state(1, 10.0)
    assert isinstance(state, GameState) and isinstance(state.over, GameOver)
    assert state.over == over
    assert over.times_ms == [None, 2000]


def test_a_race_dealt_before_verifiable_deals_restores_dealt_the_same() -> None:
    old = make_race(THREE, TWO, redeals=1)
    out = old.start(0.0)
    (start,) = (o.start for o in out if isinstance(o, RaceStarted))
    assert (start.dealing, start.seeds) == ("mt19937", (THREE, TWO, 0, 1))
    again, _ = restore(start, [], elapsed=1.0, now=50.0, idle_limit=IDLE, grace=GRACE)
    assert [str(b) for b in again.boards()] == [str(b) for b in old.boards()]
    assert [str(b) for b in old.boards()] == [
        str(engine.Board(engine.deal(seed), 1)) for seed in (THREE, TWO)
    ]
    assert not any(isinstance(o, RaceEnded) for o in out)


def _times_in_seq_order(out: list[Output]) -> list[int]:
    """Every ``played`` and ``redealt`` time, in the order of their ``seq``."""
    events = [m for m in messages(out) if isinstance(m, Played | Redealt)]
    return [event.t_ms for event in sorted(events, key=lambda event: event.seq)]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.lists(st.tuples(st.booleans(), st.floats(0.0, 0.6)), max_size=80))
def test_t_ms_never_goes_back_along_seq_with_a_bot_and_late_ticks(seed: int, steps: list) -> None:
    """A bot's play is timed when the race takes it, not when it was planned.

    The glue's timer falls on a grid and late on a busy loop, so a tick can
    apply a bot's move planned for before a play that the race took since:
    the bot's ``t_ms`` must still not be smaller than that play's.
    """
    rules = Rules(deal="mirror", winnable_only=True, redeals=1)
    dealer = engine.SeedDealer(random.Random(seed).randbytes(engine.SEED_SIZE))
    bot = BotPolicy(5, random.Random(seed))
    race = Race(
        "race-b", (ANN, BOB), rules, (dealer, dealer), idle_limit=IDLE, grace=GRACE,
        bots=(None, bot),
    )  # fmt: skip
    out = race.start(0.0)
    now = 0.0
    for human_plays, wait in steps:
        if race.over is not None:
            break
        now += wait
        board = race.boards()[0]
        playable = engine.greedy_plays(board)[:1] if human_plays else []
        if playable:  # the human plays, while the bot's planned move may be overdue
            out += race.play(0, playable[0], now)
        else:  # the timer falls, late
            out += race.tick(now)
    times = _times_in_seq_order(out)
    assert times == sorted(times)


def test_a_bot_move_applied_late_is_timed_when_taken() -> None:
    """The case the property found: a human play at 6.428 s, then a tick at 6.44 s
    applying the bot's move planned for 6.403 s."""
    rules = Rules(deal="mirror", winnable_only=True)
    dealer = engine.SeedDealer(bytes(engine.SEED_SIZE))
    race = Race(
        "race-c", (ANN, BOB), rules, (dealer, dealer), idle_limit=IDLE, grace=GRACE,
        bots=(None, BotPolicy(3, random.Random(7))),
    )  # fmt: skip
    race.start(0.0)
    due = race.next_deadline()
    assert due is not None
    card = engine.greedy_plays(race.boards()[0])[0]
    human = [m for m in messages(race.play(0, card, due + 0.025)) if isinstance(m, Played)]
    bot = [m for m in messages(race.tick(due + 0.037)) if isinstance(m, Played)]
    assert human[0].t_ms == round((due + 0.025) * 1000)
    assert bot[0].seat == 1 and bot[0].t_ms == round((due + 0.037) * 1000)


@pytest.mark.parametrize(("grace", "shown"), [(2.5, 2.5), (30.0, 30), (0.25, 0.25)])
def test_opponent_away_gives_the_grace_as_applied_not_rounded_up(grace, shown) -> None:
    race = Race(
        "race-g", (ANN, BOB), Rules(), (engine.LegacyDealer(ONE, 0), engine.LegacyDealer(TWO, 1)),
        idle_limit=IDLE, grace=grace,
    )  # fmt: skip
    race.start(0.0)
    (away,) = (m for m in messages(race.leave(0, 1.0)) if isinstance(m, OpponentAway))
    assert away.grace_s == shown and type(away.grace_s) is type(shown)
    assert race.next_deadline() == 1.0 + grace
