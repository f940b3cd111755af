"""Glicko-2 ratings, pure and without I/O, with the parameters of docs/PROTOCOL.md.

Theory of operation. A player's strength is a normal belief: ``rating`` is its
mean and ``deviation`` its standard deviation (both on the familiar 1500 scale),
and ``volatility`` says how erratically the player's true strength moves. A
rating period follows Mark E. Glickman, "Example of the Glicko-2 system"
(Boston University, 2013, glicko.net/glicko/glicko2.pdf), steps 1 to 8:

1. Start from the player's rating, deviation and volatility, and the system
   constant τ, which bounds how fast volatility may change.
2. Convert to the Glicko-2 scale: μ = (r - 1500) / 173.7178, φ = RD / 173.7178.
3. The estimated variance of the rating from the results alone,
   v = 1 / Σ g(φⱼ)² E (1 - E), where g(φ) = 1 / √(1 + 3φ²/π²) discounts an
   uncertain opponent and E = 1 / (1 + exp(-g(φⱼ)(μ - μⱼ))) is the expected score.
4. The estimated improvement Δ = v Σ g(φⱼ)(sⱼ - E): how much better (or worse)
   the player did than expected.
5. The new volatility sigma': the root of
   f(x) = eˣ(Δ² - φ² - v - eˣ) / (2(φ² + v + eˣ)²) - (x - ln sigma²) / τ²,
   found with the Illinois algorithm to ε = 0.000001, sigma' = e^(A/2). (The
   PyPI ``glicko2`` package writes μ² where the formula has φ²; this is φ².)
6. The pre-period deviation φ* = √(φ² + sigma'²): uncertainty grows with time.
7. The new deviation φ' = 1 / √(1/φ*² + 1/v) and rating
   μ' = μ + φ'² Σ g(φⱼ)(sⱼ - E).
8. Back to the familiar scale: r' = 173.7178 μ' + 1500, RD' = 173.7178 φ'.

A player with no results in a period keeps rating and volatility; only step 6
applies, with the old volatility (Glickman, step 8's note).

As lichess does, and as the protocol fixes it: a new player is 1500, 500 and
0.09; τ = 0.75; the deviation is clamped to [45, 500] after every update; and
each rated race is its own rating period. Unlike lichess, a deviation does not
also grow with the time between a player's races: the server rates no idle
periods, so step 6 happens once per race and nowhere else. (Lichess also caps
volatility at 0.1; the protocol does not, and neither does this module.)
A player is provisional while the deviation is 110 or more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = [
    "EPSILON",
    "MAX_DEVIATION",
    "MIN_DEVIATION",
    "NEW",
    "PROVISIONAL_DEVIATION",
    "SCALE",
    "TAU",
    "Glicko",
    "new_volatility",
    "rate_race",
    "to_glicko2_scale",
    "update",
    "variance_and_improvement",
]

SCALE = 173.7178
"""Glicko-2 scale factor, 400 / ln 10: μ = (r - 1500) / SCALE, φ = RD / SCALE."""
TAU = 0.75
"""The system constant τ, lichess's: how much the volatility may move in one period."""
EPSILON = 0.000001
"""Convergence tolerance of the volatility iteration (step 5)."""
MIN_DEVIATION = 45.0
MAX_DEVIATION = 500.0
PROVISIONAL_DEVIATION = 110.0
"""A player is provisional while their deviation is at least this."""


@dataclass(frozen=True, slots=True)
class Glicko:
    """A player's rating, rating deviation and volatility, on the familiar 1500 scale."""

    rating: float
    deviation: float
    volatility: float

    @property
    def shown(self) -> int:
        """The rating as clients show it: a whole number."""
        return round(self.rating)

    @property
    def provisional(self) -> bool:
        """The deviation is still 110 or more: too few rated races to be sure."""
        return self.deviation >= PROVISIONAL_DEVIATION


NEW = Glicko(rating=1500.0, deviation=MAX_DEVIATION, volatility=0.09)
"""A player who has never raced rated."""


def to_glicko2_scale(player: Glicko) -> tuple[float, float]:
    """Step 2: the player's (μ, φ)."""
    return (player.rating - 1500.0) / SCALE, player.deviation / SCALE


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, g_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))


def _check_score(score: float) -> float:
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"a score is from 0 (loss) to 1 (win), not {score!r}")
    return score


def _sums(player: Glicko, results: Sequence[tuple[Glicko, float]]) -> tuple[float, float]:
    """Σ g²E(1 - E) (step 3's denominator) and Σ g(s - E) (steps 4 and 7)."""
    mu, _ = to_glicko2_scale(player)
    information = improvement = 0.0
    for opponent, score in results:
        mu_j, phi_j = to_glicko2_scale(opponent)
        g_j = _g(phi_j)
        e = _expected(mu, mu_j, g_j)
        information += g_j * g_j * e * (1.0 - e)
        improvement += g_j * (_check_score(score) - e)
    return information, improvement


def variance_and_improvement(
    player: Glicko, results: Sequence[tuple[Glicko, float]]
) -> tuple[float, float]:
    """Steps 3 and 4: the estimated variance v and improvement Δ; results must not be empty."""
    if not results:
        raise ValueError("v and Δ need at least one result")
    information, improvement = _sums(player, results)
    v = 1.0 / information
    return v, v * improvement


def new_volatility(
    phi: float, sigma: float, v: float, delta: float, *, tau: float = TAU, epsilon: float = EPSILON
) -> float:
    """Step 5: sigma', by Glickman's Illinois iteration on f (with φ², not μ²)."""
    a = math.log(sigma * sigma)
    phi2, delta2 = phi * phi, delta * delta

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (tau * tau)

    low, high = a, _upper_bracket(f, a, delta2 - phi2 - v, tau)
    f_low, f_high = f(low), f(high)
    while abs(high - low) > epsilon:
        c = low + (low - high) * f_low / (f_high - f_low)
        f_c = f(c)
        if f_c * f_high <= 0.0:  # <=, not <: a C exactly on the root must end the loop
            low, f_low = high, f_high
        else:
            f_low /= 2.0
        high, f_high = c, f_c
    return math.exp(low / 2.0)


def _upper_bracket(f: Callable[[float], float], a: float, excess: float, tau: float) -> float:
    """Step 5.2: the initial B, so that f(A) and f(B) have opposite signs.

    ``excess`` is Δ² - φ² - v: positive when the results surprise more than
    the player's and the results' own uncertainty explain.
    """
    if excess > 0.0:
        return math.log(excess)
    k = 1
    while f(a - k * tau) < 0.0:
        k += 1
    return a - k * tau


def _clamped(deviation: float) -> float:
    return min(max(deviation, MIN_DEVIATION), MAX_DEVIATION)


def update(
    player: Glicko,
    results: Sequence[tuple[Glicko, float]],
    *,
    tau: float = TAU,
    clamp: bool = True,
) -> Glicko:
    """One rating period: ``player`` after ``results``, (opponent, score) pairs.

    A score is 1 for a win, 0.5 for a draw and 0 for a loss. Each opponent is
    taken as they stood before the period. With ``clamp`` the new deviation is
    kept within [MIN_DEVIATION, MAX_DEVIATION].
    """
    _, phi = to_glicko2_scale(player)
    if not results:
        phi_new, sigma_new, gain = math.hypot(phi, player.volatility), player.volatility, 0.0
    else:
        v, delta = variance_and_improvement(player, results)
        sigma_new = new_volatility(phi, player.volatility, v, delta, tau=tau)
        phi_star = math.hypot(phi, sigma_new)
        phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
        # Steps 7 and 8 as r + SCALE (μ' - μ): the rating never round-trips through μ.
        gain = SCALE * phi_new * phi_new * (delta / v)
    deviation = SCALE * phi_new
    return Glicko(
        rating=player.rating + gain,
        deviation=_clamped(deviation) if clamp else deviation,
        volatility=sigma_new,
    )


def rate_race(a: Glicko, b: Glicko, score_a: float) -> tuple[Glicko, Glicko]:
    """Both players after one rated race, each rated against the other's pre-race rating.

    ``score_a`` is ``a``'s: 1 if ``a`` won, 0.5 for a draw, 0 if ``b`` won.
    """
    score_a = _check_score(score_a)
    return update(a, [(b, score_a)]), update(b, [(a, 1.0 - score_a)])
