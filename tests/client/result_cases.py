"""How a race's times and margin read, the same in both clients.

Each case is (players, result, winner, counts, times_ms, the words): the terminal
client's :func:`client.words.times_words` is held to them in tests/client/test_time.py,
and the browser's ``timesWords`` in tests/web/test_result_words.py.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TIMES_CASES"]

TIMES_CASES: list[tuple[list[str], str, int | None, list[int], list[int | None], str]] = [
    # The winner cleared after the loser's last card: the margin is in cards, and the
    # loser's time is said as their last card's, not as a finishing time.
    (
        ["BOT-Swift", "ann"],
        "win",
        0,
        [52, 30],
        [16_800, 13_300],
        "BOT-Swift cleared in 16.8 s, 22 cards ahead   ·   ann 30/52, last card at 13.3 s",
    ),
    (
        ["ann", "bob"],
        "win",
        0,
        [52, 40],
        [41_200, None],
        "ann cleared in 41.2 s, 12 cards ahead   ·   bob 40/52",
    ),
    # Equal counts, won by getting there first: the margin is how much sooner.
    (
        ["ann", "bob"],
        "win",
        1,
        [4, 4],
        [9_000, 7_500],
        "ann 4/52, last card at 9.0 s   ·   bob 4/52, last card at 7.5 s, 1.5 s sooner",
    ),
    (
        ["ann", "bob"],
        "win",
        0,
        [3, 2],
        [6_000, 5_100],
        "ann 3/52, last card at 6.0 s, 1 card ahead   ·   bob 2/52, last card at 5.1 s",
    ),
    # The winner had fewer cards (the other resigned): no margin.
    (
        ["ann", "bob"],
        "win",
        0,
        [10, 30],
        [9_000, 20_000],
        "ann 10/52, last card at 9.0 s   ·   bob 30/52, last card at 20.0 s",
    ),
    (
        ["ann", "bob"],
        "draw",
        None,
        [20, 20],
        [30_000, 25_000],
        "ann 20/52, last card at 30.0 s   ·   bob 20/52, last card at 25.0 s",
    ),
    (["ann", "bob"], "draw", None, [0, 0], [None, None], "ann 0/52   ·   bob 0/52"),
]


def as_json(case: tuple[Any, ...]) -> dict[str, Any]:
    players, result, winner, counts, times_ms, _ = case
    return {
        "players": players,
        "result": result,
        "winner": winner,
        "counts": counts,
        "times_ms": times_ms,
    }
