"""The one retry policy (core/backoff.py): doubling, capped, jittered within its share."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.backoff import CLIENT, STORE, Attempts, Backoff


def test_delays_double_up_to_the_cap() -> None:
    policy = Backoff(first=0.05, cap=1.0)
    assert [policy.after(n) for n in range(1, 8)] == [0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0]


def test_a_huge_attempt_number_is_the_cap_not_an_overflow() -> None:
    assert STORE.after(10_000) == STORE.cap


@given(st.integers(1, 200), st.integers(0, 2**32))
def test_jitter_keeps_each_delay_in_the_upper_share_of_its_step(attempt: int, seed: int) -> None:
    step = CLIENT.step(attempt)
    delay = CLIENT.after(attempt, random.Random(seed))
    assert step * (1 - CLIENT.jitter) <= delay <= step


def test_delays_is_the_series_of_after() -> None:
    policy = Backoff(first=1.0, cap=4.0)
    series = policy.delays()
    assert [next(series) for _ in range(4)] == [1.0, 2.0, 4.0, 4.0]


@pytest.mark.parametrize("bad", [(0.0, 1.0, 0.0), (2.0, 1.0, 0.0), (1.0, 2.0, 1.5)])
def test_a_policy_that_is_not_one_is_refused(bad: tuple[float, float, float]) -> None:
    with pytest.raises(ValueError):
        Backoff(*bad)
    with pytest.raises(ValueError):
        STORE.after(0)


def test_attempts_start_over_after_a_healthy_run_or_a_success() -> None:
    attempts = Attempts(Backoff(first=0.5, cap=30.0), healthy=60.0)
    assert [attempts.failed(ran=1.0) for _ in range(3)] == [0.5, 1.0, 2.0]
    assert attempts.failed(ran=61.0) == 0.5  # ran long enough: a fresh start
    attempts.failed()
    attempts.succeeded()
    assert attempts.failures == 0
    assert attempts.failed() == 0.5
