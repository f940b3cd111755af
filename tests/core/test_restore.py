"""A race rebuilt from its journal is the race it was: boards, statuses, seq and clock."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest

import engine
from core.events import Output, RaceEnded, RaceStarted
from core.lobby import Lobby
from core.race_log import Entry, RaceStart
from core.restore import replay, restore

from .helpers import (
    ANN,
    BOB,
    GRACE,
    IDLE,
    ONE,
    THREE,
    TWO,
    journaled,
    kinds,
    make_race,
    play,
    play_out,
    sends,
)

if TYPE_CHECKING:
    from core.race import Race


def journal_of(outputs: list[Output]) -> tuple[RaceStart, list[Entry]]:
    (start,) = (out.start for out in outputs if isinstance(out, RaceStarted))
    return start, [out.entry for out in journaled(outputs)]


def started_with_journal(deal0: int, deal1: int, **rules: object) -> tuple[Race, list[Output]]:
    race = make_race(deal0, deal1, **rules)
    return race, race.start(0.0)


def rebuilt(outputs: list[Output], *, elapsed: float, now: float) -> tuple[Race, list[Output]]:
    start, entries = journal_of(outputs)
    return restore(start, entries, elapsed=elapsed, now=now, idle_limit=IDLE, grace=GRACE)


def same_race(a: Race, b: Race) -> None:
    assert b.seq == a.seq
    assert [board.count for board in b.boards()] == [board.count for board in a.boards()]
    assert [str(board) for board in b.boards()] == [str(board) for board in a.boards()]
    assert [b.status_of(seat) for seat in (0, 1)] == [a.status_of(seat) for seat in (0, 1)]


def test_every_accepted_event_is_journaled_before_it_is_announced() -> None:
    race, out = started_with_journal(THREE, THREE, redeals=1)
    assert isinstance(out[0], RaceStarted)
    out = play(race, 0, 1, 1.0)
    assert [type(o).__name__ for o in out] == ["Journaled", "SendPlayed", "Wake"]
    out = race.resign(1, 2.0)
    assert [type(o).__name__ for o in out][:2] == ["Journaled", "Send"]
    assert journaled(out)[0].entry == Entry(race.seq - 1, 1, "resigned", 2.0)


def test_a_restored_race_is_as_it_was_and_its_players_are_away_with_the_full_grace() -> None:
    race, out = started_with_journal(THREE, TWO, redeals=1)
    out += play(race, 0, 2, 1.0) + play(race, 1, 1, 2.5)
    restored, left = rebuilt(out, elapsed=2.5, now=1000.0)
    assert left == []
    same_race(race, restored)
    assert restored.next_deadline() == 1000.0 + GRACE
    back = restored.come_back(0, 1001.0)
    assert kinds(back) == ["game_state", "opponent_back"]
    (played,) = sends(play(restored, 0, 1, 1002.0))
    assert played.seq == race.seq + 1  # type: ignore[union-attr]


def test_the_time_the_server_was_down_does_not_count_on_the_clock() -> None:
    race, out = started_with_journal(THREE, THREE, time_limit_s=100)
    out += play(race, 0, 1, 40.0)
    restored, _ = rebuilt(out, elapsed=55.0, now=5000.0)  # suspended 55 s in
    for seat in (0, 1):
        restored.come_back(seat, 5000.0)
    assert restored.next_deadline() == 5000.0 + 45.0  # the clock, not the idle limits
    assert kinds(restored.tick(5045.0))[-2:] == ["RaceEnded", "game_over"]


@pytest.mark.parametrize("seed", range(8))
def test_a_race_restored_at_any_point_ends_as_the_original(seed: int) -> None:
    rng = random.Random(seed)
    race, out = started_with_journal(THREE, TWO, redeals=1, tiebreak="first")
    now, log = 0.0, []
    while race.over is None:
        now += rng.random()
        seat = rng.randrange(2)
        board = race.boards()[seat]
        cards = engine.greedy_plays(board)
        if race.status_of(seat) == "stuck":
            step = race.redeal(seat, now)
        elif cards and race.status_of(seat) == "playing":
            step = race.play(seat, cards[0], now)
        else:  # nothing to do: wait for the idle limit
            now += IDLE
            step = race.tick(now)
        out += step
        log.append(out.copy())
    cut = rng.randrange(len(log))
    restored, _left = rebuilt(log[cut], elapsed=now, now=now)
    final = next(o for o in out if isinstance(o, RaceEnded)).record
    if restored.over is None:
        for seat in (0, 1):
            restored.come_back(seat, now)
        _start, entries = journal_of(out)
        for entry in entries[len(journal_of(log[cut])[1]) :]:
            replay(restored, entry)
    assert restored.over is not None and restored.seq == race.seq
    assert (restored.over.result, restored.over.winner, restored.over.counts) == (
        final.result,
        final.winner,
        list(final.counts),
    )


def test_a_journal_that_ended_the_race_before_its_record_gives_the_record() -> None:
    race, out = started_with_journal(ONE, ONE)
    out += play_out(race, 0, 1.0) + play_out(race, 1, 2.0)
    assert race.over is not None
    _restored, left = rebuilt(out, elapsed=2.0, now=100.0)
    (ended,) = left
    assert isinstance(ended, RaceEnded)
    assert (ended.record.result, ended.record.reason) == (race.over.result, race.over.reason)


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda e: e._replace(what="ZZ"),  # not a card
        lambda e: e._replace(what="KS"),  # not playable
        lambda e: e._replace(seq=e.seq + 5),  # out of step
        lambda e: e._replace(seat=7),  # no such seat
        lambda e: e._replace(what="resigned", seat=0)._replace(seq=e.seq + 1),
    ],
)
def test_a_corrupted_entry_aborts_the_race_as_a_draw(corrupt) -> None:
    race, out = started_with_journal(THREE, THREE)
    out += play(race, 0, 2, 1.0)
    start, entries = journal_of(out)
    entries[1] = corrupt(entries[1])
    restored, left = restore(start, entries, elapsed=1.0, now=50.0, idle_limit=IDLE, grace=GRACE)
    (ended,) = left
    assert isinstance(ended, RaceEnded)
    assert (ended.record.result, ended.record.winner, ended.record.reason) == (
        "draw",
        None,
        "aborted",
    )
    assert restored.over is not None and restored.over.reason == "aborted"


def test_an_unreadable_start_aborts_the_race() -> None:
    _race, out = started_with_journal(THREE, THREE)
    start, entries = journal_of(out)
    broken = RaceStart(
        start.game_id, "{not json", start.dealing, start.seeds, start.player_ids, start.names
    )
    restored, left = restore(broken, entries, elapsed=0.0, now=5.0, idle_limit=IDLE, grace=GRACE)
    assert [type(o) for o in left] == [RaceEnded]
    assert restored.over is not None and restored.over.reason == "aborted"


def test_the_lobby_takes_a_restored_race_back_and_its_players_resume_it() -> None:
    race, out = started_with_journal(THREE, THREE)
    out += play(race, 0, 1, 1.0)
    restored, left = rebuilt(out, elapsed=1.0, now=10.0)
    lobby = Lobby(rng=random.Random(1), idle_limit=IDLE, grace=GRACE)
    (wake,) = lobby.restore(restored, left)
    assert wake.at == 10.0 + GRACE  # type: ignore[union-attr]
    assert lobby.race_of(ANN.player_id) is lobby.race_of(BOB.player_id) is restored
    state, back, _ = lobby.connect(ANN.player_id, ANN.name, 12.0)
    assert state.message.seq == race.seq  # type: ignore[union-attr]
    assert kinds([back]) == ["opponent_back"]


def test_the_lobby_shows_an_aborted_race_to_its_players_when_they_come_back() -> None:
    race, out = started_with_journal(THREE, THREE)
    start, entries = journal_of(out + play(race, 0, 1, 1.0))
    entries[0] = entries[0]._replace(what="ZZ")
    restored, left = restore(start, entries, elapsed=1.0, now=5.0, idle_limit=IDLE, grace=GRACE)
    lobby = Lobby(rng=random.Random(1), idle_limit=IDLE, grace=GRACE)
    assert next(type(o) for o in lobby.restore(restored, left)) is RaceEnded
    (state,) = sends(lobby.connect(ANN.player_id, ANN.name, 6.0))
    assert state.message.over.reason == "aborted"  # type: ignore[union-attr]
