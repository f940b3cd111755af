"""A ghost replays its line card by card at its own times, ``t_ms`` never goes back, and a
restored daily race keeps its ghost. Time is moved by hand."""

from __future__ import annotations

import dataclasses
import itertools
from typing import TYPE_CHECKING

import pytest

import engine
from core.events import Output, RaceStarted
from core.ghost import GHOST_ID, GHOST_NAME, REDEAL, Ghost, GhostPolicy, LineMove
from core.race_kind import PLAIN, RaceKind
from core.race_log import MoveRecord
from core.restore import restore
from protocol import Daily, Played, Redealt

from .daily_helpers import (
    DAY,
    SEED,
    deal_with_ghost,
    layout_plays,
    line_of,
    new_lobby,
    over_of,
    play_cards,
    race_daily,
    start_of,
)
from .helpers import GRACE, IDLE, journaled, messages

if TYPE_CHECKING:
    from core.daily import DailyDeal
    from core.lobby import Lobby
    from core.race import Race


def ticked(lobby: Lobby, race: Race, until: float) -> list[Output]:
    """Every deadline of ``race`` up to ``until``, each applied at the instant it falls."""
    out: list[Output] = []
    while race.over is None and (due := race.next_deadline()) is not None and due <= until:
        out += lobby.tick(race.game_id, due)
    return out


def best_line(deal: DailyDeal) -> tuple[LineMove, ...]:
    assert deal.best is not None
    return deal.best.line


def plays_of(out: list[Output], seat: int) -> list[tuple[str, int]]:
    return [(m.card, m.t_ms) for m in messages(out) if isinstance(m, Played) and m.seat == seat]


def race_times(out: list[Output]) -> list[tuple[int, int]]:
    """Each ``played`` and ``redealt`` as (seq, t_ms), in the order they went out."""
    return [(m.seq, m.t_ms) for m in messages(out) if isinstance(m, Played | Redealt)]


# -- the policy -------------------------------------------------------------------


def test_the_policy_answers_the_lines_next_move_due_at_its_time() -> None:
    line = line_of(SEED, first_ms=1200, every_ms=500)
    board = engine.Board(engine.SeedDealer(SEED).layout(True), 0)
    policy = GhostPolicy(line)
    move = policy.next_move(board, idle_left=None, clock_left=None, elapsed=0.2, moves=0)
    assert move is not None and str(move.card) == line[0].what
    assert move.delay == pytest.approx(1.0)
    board.play(engine.Card.parse(line[0].what))
    late = policy.next_move(board, idle_left=None, clock_left=None, elapsed=9.0, moves=1)
    assert late is not None and late.delay == 0.0  # already due: at once, never before
    assert policy.next_move(board, idle_left=None, clock_left=None, elapsed=0, moves=52) is None


def test_a_line_that_does_not_fit_the_board_ends_the_ghost_there() -> None:
    board = engine.Board(engine.SeedDealer(SEED).layout(True), 0)
    unplayable = next(c for c in engine.greedy_plays(board) if not board.is_legal(c))
    for what in (str(unplayable), "ZZ", REDEAL):  # not playable, not a card, not stuck
        policy = GhostPolicy([LineMove(what, 1000)])
        assert policy.next_move(board, idle_left=None, clock_left=None, elapsed=0, moves=0) is None


def test_a_ghost_keeps_within_the_idle_limit_and_the_clock() -> None:
    board = engine.Board(engine.SeedDealer(SEED).layout(True), 0)
    policy = GhostPolicy(line_of(SEED, first_ms=90_000))
    move = policy.next_move(board, idle_left=60.0, clock_left=None, elapsed=0.0, moves=0)
    assert move is not None and move.delay == 59.0  # a line from a longer idle limit
    assert policy.next_move(board, idle_left=None, clock_left=30.0, elapsed=0, moves=0) is None


def test_a_ghost_is_its_players_moves_and_round_trips_as_json() -> None:
    moves = [
        MoveRecord(1, 0, "AS", 1.2344),
        MoveRecord(2, 1, "AH", 1.5),
        MoveRecord(3, 0, REDEAL, 2.0),
    ]
    moves.append(MoveRecord(4, 0, "2S", 3.0006))
    ghost = Ghost.of_moves("Cat", moves, 0)
    assert ghost.line == (LineMove("AS", 1234), LineMove(REDEAL, 2000), LineMove("2S", 3001))
    assert ghost.time_ms == 3001
    assert Ghost.from_json(ghost.to_json()) == ghost
    kind = RaceKind(daily=DAY, ranked=True, ghost=ghost)
    assert RaceKind.from_json(kind.to_json()) == kind
    assert RaceKind.from_json(PLAIN.to_json()) == PLAIN and RaceKind.from_json(None) == PLAIN
    with pytest.raises(ValueError):
        RaceKind.from_json('{"ghost": {"name": "Cat", "line": [["AS", -1]]}}')


# -- in a race --------------------------------------------------------------------


def test_a_ghost_replays_its_line_exactly_when_ticked_at_its_instants() -> None:
    deal = deal_with_ghost(first_ms=1000, every_ms=700)
    lobby = new_lobby(deal)
    out = lobby.handle("ann", Daily(), 5.0)
    start = start_of(out)
    assert (start.players, start.bots, start.ghost, start.daily) == (
        ["Ann", GHOST_NAME],
        [False, True],
        "Cat",
        DAY,
    )
    race = lobby.race(start.game_id)
    assert race is not None and race.player_ids == ("ann", GHOST_ID)
    # Ann plays between the ghost's cards, slower than it: the ghost clears first.
    for k in range(30):
        out += ticked(lobby, race, 5.0 + 1.35 + k)
        out += play_cards(lobby, "ann", 1, 5.0 + 1.35 + k)
    out += ticked(lobby, race, 1000.0)
    assert plays_of(out, 1) == [tuple(move) for move in best_line(deal)]
    times = race_times(out)
    assert [t for _, t in times] == sorted(t for _, t in times)
    over = over_of(out)
    assert (over.winner, over.reason, over.times_ms[1]) == (1, "cleared", best_line(deal)[-1].t_ms)


def test_a_ghost_move_taken_late_is_timed_when_taken_and_t_ms_never_goes_back() -> None:
    deal = deal_with_ghost(first_ms=1000, every_ms=700)
    lobby = new_lobby(deal)
    race = race_daily(lobby, "ann", 0.0)
    # The ghost's first card is due at 1.0, but Ann's play at 1.25 comes in before
    # the glue's timer fires: the ghost's card is taken after it, at 1.25.
    out = play_cards(lobby, "ann", 1, 1.25)
    out += lobby.tick(race.game_id, 1.3)
    assert plays_of(out, 1) == [(best_line(deal)[0].what, 1300)]
    out += ticked(lobby, race, 2.0)
    assert plays_of(out, 1)[1] == tuple(best_line(deal)[1])
    times = [t for _, t in race_times(out)]
    assert times == sorted(times) and times[0] == 1250


def test_a_restored_daily_race_keeps_its_ghost_and_goes_on_with_its_line() -> None:
    deal = deal_with_ghost(first_ms=1000, every_ms=700)
    lobby = new_lobby(deal)
    out = lobby.handle("ann", Daily(), 0.0)
    race = lobby.race(start_of(out).game_id)
    assert race is not None
    out += play_cards(lobby, "ann", 3, 0.5)
    out += ticked(lobby, race, 4.0)  # the ghost's first five cards
    (first,) = (o.start for o in out if isinstance(o, RaceStarted))
    # What the store keeps of its kind is one JSON text.
    kept = dataclasses.replace(first, kind=RaceKind.from_json(first.kind.to_json()))
    entries = [o.entry for o in journaled(out)]
    again, left = restore(kept, entries, elapsed=4.0, now=500.0, idle_limit=IDLE, grace=GRACE)
    assert left == [] and again.kind == race.kind and again.kind.ghost == deal.best
    assert again.bots == [False, True] and again.counts == race.counts == [3, 5]
    other = new_lobby(deal, players=())
    other.restore(again, left)
    other.connect("ann", "Ann", 500.0)
    rest = ticked(other, again, 600.0)
    line = best_line(deal)
    assert plays_of(rest, 1) == [tuple(move) for move in line[5:]]
    over = over_of(rest)
    assert over.daily is not None and (over.daily.date, over.daily.ranked) == (DAY, True)


def test_every_ghost_t_ms_follows_the_line_whatever_the_pace_of_its_opponent() -> None:
    deal = deal_with_ghost(first_ms=800, every_ms=450)
    line = best_line(deal)
    for pace in (0.1, 0.33, 0.9):
        lobby = new_lobby(deal)
        race = race_daily(lobby, "ann", 0.0)
        out: list[Output] = []
        for k in itertools.count(1):
            if race.over is not None:
                break
            out += ticked(lobby, race, k * pace)
            if race.over is None:
                out += play_cards(lobby, "ann", 1, k * pace)
        ghost = plays_of(out, 1)
        assert ghost == [tuple(move) for move in line[: len(ghost)]]
        times = [t for _, t in race_times(out)]
        assert times == sorted(times)
    assert len(layout_plays(SEED)) == 52
