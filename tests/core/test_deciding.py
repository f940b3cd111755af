"""Deciding the race, as pure functions: each rule of PROTOCOL.md's section once."""

from __future__ import annotations

import pytest

from core.deciding import SeatStanding, by_counts, decided


def seat(status: str, cards: int, last: int = 0) -> SeatStanding:
    return SeatStanding(status, cards, last)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("a", "b", "result"),
    [
        (seat("playing", 5), seat("stuck", 9), None),  # both can still move
        (seat("cleared", 52), seat("playing", 40), (0, "cleared")),
        (seat("stalled", 3), seat("playing", 3), None),  # Bob may still pass Ann
        (seat("stalled", 3), seat("playing", 4), (1, "most_cards")),  # he already has
        (seat("timed_out", 7), seat("stalled", 2), (0, "most_cards")),
        (seat("stalled", 2), seat("stalled", 2), (None, "equal_cards")),
    ],
)
def test_the_race_is_decided_only_once_its_result_cannot_change(a, b, result) -> None:
    assert decided(a, b, "draw") == result


def test_first_to_count_goes_to_the_earlier_last_card_and_no_card_is_a_draw() -> None:
    assert by_counts(seat("stalled", 4, 9), seat("stalled", 4, 7), "first") == (1, "first_to_count")
    assert by_counts(seat("stalled", 0), seat("stalled", 0), "first") == (None, "equal_cards")
    assert by_counts(seat("stalled", 4, 9), seat("stalled", 4, 7), "draw") == (None, "equal_cards")
