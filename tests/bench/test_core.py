"""The cores' benchmark drives whole races through the lobby, as the load generator does."""

from __future__ import annotations

from bench.core import _run, table


def test_every_race_is_played_out_and_begun_again() -> None:
    clock = _run(players=20, rounds=120)
    # 10 races of 104 plays, then each pair seeks again and plays a second one.
    assert clock.calls["last_play"] >= 10
    assert clock.calls["play"] + clock.calls["last_play"] >= 10 * 104
    assert clock.calls["seek"] >= 40  # 20 players, each at least twice
    assert clock.calls["played_frame"] == clock.calls["play"] + clock.calls["last_play"]
    assert all(clock.mean_us(kind) > 0 for kind in clock.calls)


def test_the_table_names_every_call() -> None:
    from bench.core import Results

    text = table(Results(10.0, 100.0, 200.0, 2.0, 15.0, plays=1040, races=10))
    assert "| a play (`Lobby.handle`) | 10.0 µs |" in text
    assert "1,040 plays, 10 races" in text
