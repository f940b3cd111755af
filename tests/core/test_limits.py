"""The rate limiter: a burst of 200 and 50 a second are never limited, even
arriving up to a second late; floods are closed."""

from __future__ import annotations

from core.limits import LATENESS, AddressLimit, Admission, RateLimiter

ACCEPT, LIMIT, DROP, CLOSE = Admission.ACCEPT, Admission.LIMIT, Admission.DROP, Admission.CLOSE
FULL = 200 + int(50 * LATENESS)
"""What the bucket holds: the burst, and a second at 50 for messages that arrive late."""


def burst(limiter: RateLimiter, count: int, now: float) -> list[Admission]:
    return [limiter.admit(now) for _ in range(count)]


def test_a_burst_of_200_is_accepted() -> None:
    assert burst(RateLimiter(), 200, 0.0) == [ACCEPT] * 200


def test_the_bucket_holds_the_burst_and_the_lateness() -> None:
    limiter = RateLimiter()
    assert limiter.capacity == FULL
    assert burst(limiter, FULL, 0.0) == [ACCEPT] * FULL


def test_a_burst_arriving_late_with_what_followed_it_is_never_limited() -> None:
    limiter = RateLimiter()
    # 200 sent at 0, then one every 20 ms; all that was sent by LATENESS arrives then.
    assert set(burst(limiter, 200 + int(50 * LATENESS), LATENESS)) == {ACCEPT}
    now = LATENESS
    for _ in range(50 * 60):
        now += 0.02
        assert limiter.admit(now) is ACCEPT


def test_beyond_the_bucket_one_limit_then_drops_then_close() -> None:
    limiter = RateLimiter()
    burst(limiter, FULL, 0.0)
    assert limiter.admit(0.0) is LIMIT
    assert burst(limiter, limiter.patience, 0.0) == [DROP] * (limiter.patience - 1) + [CLOSE]


def test_50_a_second_sustained_is_never_limited() -> None:
    limiter = RateLimiter()
    assert {limiter.admit(i / 50) for i in range(50 * 600)} == {ACCEPT}


def test_a_full_burst_then_50_a_second_is_never_limited() -> None:
    limiter = RateLimiter()
    verdicts = burst(limiter, 200, 0.0)
    now = 0.0
    for _ in range(50 * 600):  # ten minutes, the clock summed as a client's would be
        now += 0.02
        verdicts.append(limiter.admit(now))
    assert set(verdicts) == {ACCEPT}


def test_a_refused_message_does_not_count_against_the_client() -> None:
    limiter = RateLimiter()
    burst(limiter, FULL, 0.0)
    burst(limiter, 10, 0.0)  # refused
    assert limiter.admit(0.02) is ACCEPT


def test_an_episode_goes_on_until_half_the_burst_has_refilled() -> None:
    limiter = RateLimiter()
    burst(limiter, FULL + 1, 0.0)  # the last one is told
    assert limiter.admit(1.0) is ACCEPT  # 50 back: allowed, but still in the episode
    burst(limiter, 49, 1.0)
    assert limiter.admit(1.0) is DROP


def test_an_episode_ends_after_slowing_down() -> None:
    limiter = RateLimiter()
    burst(limiter, FULL + 50, 0.0)  # one LIMIT, 49 DROP
    assert burst(limiter, 100, 2.0) == [ACCEPT] * 100  # half the burst is back
    assert limiter.admit(2.0) is LIMIT  # a new episode: told again
    assert burst(limiter, limiter.patience, 2.0)[-1] is CLOSE  # with the full patience


# -- per address ------------------------------------------------------------------


def test_an_address_has_its_burst_then_its_rate() -> None:
    limit = AddressLimit(burst=3, per_hour=60)  # one a minute once the burst is spent
    assert [limit.charge("10.0.0.1", 0.0) for _ in range(4)] == [True, True, True, False]
    assert not limit.allows("10.0.0.1", 59.0)
    assert limit.charge("10.0.0.1", 60.0)
    assert not limit.charge("10.0.0.1", 60.0)


def test_addresses_are_limited_apart() -> None:
    limit = AddressLimit(burst=1, per_hour=1)
    assert limit.charge("10.0.0.1", 0.0)
    assert not limit.allows("10.0.0.1", 0.0)
    assert limit.allows("10.0.0.2", 0.0) and limit.charge("10.0.0.2", 0.0)


def test_a_refusal_uses_nothing_up() -> None:
    limit = AddressLimit(burst=1, per_hour=3600)
    assert limit.charge("a", 0.0)
    assert not limit.charge("a", 0.5)  # half a token: refused, and not spent
    assert limit.charge("a", 1.0)


def test_addresses_whose_bucket_refilled_are_forgotten() -> None:
    limit = AddressLimit(burst=2, per_hour=3600)
    for i in range(5000):
        limit.charge(f"10.0.{i // 256}.{i % 256}", i / 1000)
    # Each bucket refills within a second: only the last second's addresses are kept.
    assert len(limit) < 2100
    assert limit.allows("10.0.0.0", 5.0)  # forgotten, so full again
