"""The replay of a finished race, stepped on a clock moved by hand: pure, no screen, no sleep.

The records are real engine play (:func:`~tests.client.apistub.record`), so the
replay's boards can be checked against the engine's own, and the record verifies.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

import engine
from client.api_drawings import replay_bar, replay_end, verdict_text
from client.apidata import RaceRecordData
from client.replay import Replay, ReplayError

from .apistub import CLASSIC, record


def replay_of(data: dict[str, Any], now: float = 0.0) -> Replay:
    return Replay.of(RaceRecordData.of(data), now)


def boards_after(data: dict[str, Any], moves: int) -> list[engine.Board]:
    """The engine's boards after the first ``moves`` moves of ``data``, replayed here."""
    rules = data["rules"]
    dealers = [engine.SeedDealer(bytes.fromhex(seed)) for seed in data["seeds"]]
    boards = [engine.Board(d.layout(rules["winnable_only"]), rules["redeals"]) for d in dealers]
    for move in data["moves"][:moves]:
        board = boards[move["seat"]]
        if move["card"] == "redeal":
            board.redeal(dealers[move["seat"]].redeal)
        else:
            board.play(engine.Card.parse(move["card"]))
    return boards


def test_moves_come_at_their_time_at_real_speed():
    data = record()  # a move every 500 ms: seat 0 at 500, seat 1 at 1000, ...
    replay = replay_of(data, now=10.0)
    assert replay.index == 0 and replay.last_move_words().startswith("the deal: 9 moves")
    replay.advance(10.49)
    assert replay.index == 0
    replay.advance(10.5)
    assert replay.index == 1 and replay.view.boards[0].count == 1
    replay.advance(12.0)  # 2000 ms: four moves
    assert replay.index == 4
    assert replay.view.boards == boards_after(data, 4)
    assert replay.position(12.0) == 2000
    assert "time 0:02.0" in replay_bar(replay, 12.0).plain
    first = data["moves"][3]
    name = ["ann", "bob"][first["seat"]]
    assert replay.last_move_words(ascii=True).startswith(f"move 4 of 9: {name} played ")


@pytest.mark.parametrize("speed", [2, 4, 8])
def test_faster_speeds_run_the_race_faster(speed):
    replay = replay_of(record(), now=0.0)
    replay.set_speed(speed, 0.0)
    replay.advance(1.0 / speed)  # one second of the race
    assert replay.index == 2 and replay.position(1.0 / speed) == pytest.approx(1000)
    assert f"{speed}x playing" in replay_bar(replay, 1.0 / speed).plain


def test_a_speed_change_keeps_the_place():
    replay = replay_of(record(), now=0.0)
    replay.advance(1.2)  # 1200 ms at 1x
    replay.set_speed(4, 1.2)
    assert replay.position(1.2) == pytest.approx(1200)
    assert replay.position(1.3) == pytest.approx(1600)
    with pytest.raises(ValueError, match="a speed is one of"):
        replay.set_speed(3, 1.3)


def test_pause_freezes_time_and_space_plays_on():
    replay = replay_of(record(), now=0.0)
    replay.advance(0.75)
    replay.toggle_pause(0.75)
    assert replay.paused
    replay.advance(100.0)
    assert replay.index == 1 and replay.position(100.0) == 750
    assert "paused" in replay_bar(replay, 100.0).plain
    replay.toggle_pause(100.0)
    replay.advance(100.25)  # 1000 ms: the second move
    assert replay.index == 2


def test_stepping_pauses_and_shows_each_moves_time():
    data = record()
    replay = replay_of(data, now=0.0)
    for n in range(1, 4):
        replay.step(0.0)
        assert replay.paused and replay.index == n
        assert replay.position(50.0) == data["moves"][n - 1]["t_ms"]
    replay.back(0.0)
    assert replay.index == 2 and replay.position(0.0) == data["moves"][1]["t_ms"]
    assert replay.view.boards == boards_after(data, 2)
    replay.back(0.0)
    replay.back(0.0)
    replay.back(0.0)  # taking back past the deal stays at the deal
    assert replay.index == 0 and replay.position(0.0) == 0
    assert replay.view.boards == boards_after(data, 0)


def test_the_end_stands_still_and_the_record_verifies():
    data = record()
    replay = replay_of(data, now=0.0)
    assert replay.verdict is None
    replay.advance(1000.0)
    assert replay.ended and replay.index == len(data["moves"])
    last = data["moves"][-1]["t_ms"]
    assert replay.position(2000.0) == last
    assert replay.view.boards == boards_after(data, len(data["moves"]))
    assert replay.verdict is not None and replay.verdict.ok
    end = replay_end(replay).plain
    assert "ann won  bob resigned" in end
    assert "ann 1500 → 1523 (+23)" in end and "bob 1480 → 1457 (-23)" in end
    assert "record verified: every check passed (not checkable: result)" in end
    replay.toggle_pause(2000.0)  # Space at the end plays it again from the deal
    assert replay.index == 0 and not replay.paused and replay.verdict is not None


def test_to_the_end_at_once_and_back_to_the_start():
    data = record()
    replay = replay_of(data, now=0.0)
    replay.to_end(0.0)
    assert replay.ended and replay.verdict is not None and replay.verdict.ok
    replay.restart(5.0)
    assert replay.index == 0 and replay.position(5.5) == pytest.approx(500)


def redealing_record() -> dict[str, Any]:
    """A classic race (one redeal) in which seat 0 gets stuck and redeals."""
    for n in range(200):
        seeds = (n.to_bytes(32, "big"), (n + 1000).to_bytes(32, "big"))
        data = record(rules=CLASSIC, seeds=seeds, plays=(52, 0))
        cards = [move["card"] for move in data["moves"]]
        if "redeal" in cards and cards.index("redeal") > 0:
            return data
    raise AssertionError("no seed below 200 redeals")


def test_a_redeal_deals_from_the_seats_seed():
    data = redealing_record()
    at = next(i for i, move in enumerate(data["moves"]) if move["card"] == "redeal")
    replay = replay_of(data)
    for _ in range(at + 1):
        replay.step(0.0)
    assert replay.view.boards == boards_after(data, at + 1)
    assert replay.last_move_words().endswith(
        f"ann redealt at {data['moves'][at]['t_ms'] / 1000:.1f} s"
    )
    replay.to_end(0.0)
    assert replay.verdict is not None
    assert replay.verdict.ok, replay.verdict.report()
    assert replay.view.boards == boards_after(data, len(data["moves"]))


def test_a_tampered_move_ends_the_replay_there_and_fails_the_check():
    data = record()
    bad = copy.deepcopy(data)
    played = {move["card"] for move in data["moves"]}
    stranger = next(
        str(card) for card in engine.CARDS if str(card) not in played and card.rank == 13
    )
    bad["moves"][2]["card"] = stranger
    replay = replay_of(bad)
    replay.to_end(0.0)
    assert replay.ended and replay.index == 2 and replay.fault is not None
    assert f"cannot play {stranger}" in replay.fault
    assert replay.last_move_words().startswith("move 3 of 9 cannot be made: ")
    assert replay.verdict is not None and not replay.verdict.ok
    assert verdict_text(replay.verdict).plain.startswith("record NOT verified: moves: seq 3")


def test_a_record_that_does_not_read_cannot_be_replayed():
    data = record()
    del data["moves"]
    with pytest.raises(ReplayError, match="the record does not read: moves: missing"):
        replay_of(data)
