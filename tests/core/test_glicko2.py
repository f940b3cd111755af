"""Glicko-2 (core/glicko2.py): Glickman's worked example, the protocol's parameters,
hand-checked races, and properties that any sound rating update has.

Expected values here do not come from the code under test: they are the figures of
Glickman's "Example of the Glicko-2 system" (2013), numbers worked out by hand in the
comments, or ``_reference``, a plain re-derivation of the same formulas that finds
the new volatility by bisection rather than by the Illinois iteration.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.glicko2 import (
    EPSILON,
    MAX_DEVIATION,
    MIN_DEVIATION,
    NEW,
    PROVISIONAL_DEVIATION,
    TAU,
    Glicko,
    new_volatility,
    rate_race,
    to_glicko2_scale,
    update,
    variance_and_improvement,
)

# -- an independent re-derivation ---------------------------------------------------


def _reference(
    player: tuple[float, float, float], games: list[tuple[float, float, float]], tau: float
) -> tuple[float, float, float]:
    """(rating, deviation, volatility) after ``games`` of (rating, deviation, score).

    Glickman's steps 2 to 8 written out once more, unclamped, with sigma' by bisection.
    """
    q = 400.0 / math.log(10.0)
    mu, phi, sigma = (player[0] - 1500.0) / q, player[1] / q, player[2]
    terms = []
    for rating_j, deviation_j, score in games:
        g = 1.0 / math.sqrt(1.0 + 3.0 * (deviation_j / q) ** 2 / math.pi**2)
        e = 1.0 / (1.0 + math.exp(-g * (mu - (rating_j - 1500.0) / q)))
        terms.append((g, e, score))
    v = 1.0 / sum(g * g * e * (1.0 - e) for g, e, _ in terms)
    delta = v * sum(g * (s - e) for g, e, s in terms)
    a = math.log(sigma**2)

    def f(x: float) -> float:
        return (
            math.exp(x)
            * (delta**2 - phi**2 - v - math.exp(x))
            / (2.0 * (phi**2 + v + math.exp(x)) ** 2)
            - (x - a) / tau**2
        )

    low, high = a - 40.0, a
    while f(high) > 0.0:  # f > 0 far left, < 0 far right: step right past a root
        high += 10.0
    assert f(low) > 0.0
    for _ in range(200):
        middle = (low + high) / 2.0
        low, high = (middle, high) if f(middle) > 0.0 else (low, middle)
    sigma_new = math.exp(low / 2.0)
    phi_new = 1.0 / math.sqrt(1.0 / (phi**2 + sigma_new**2) + 1.0 / v)
    mu_new = mu + phi_new**2 * sum(g * (s - e) for g, e, s in terms)
    return q * mu_new + 1500.0, q * phi_new, sigma_new


def _as_reference(player: Glicko, games: list[tuple[Glicko, float]], tau: float = TAU) -> Glicko:
    rating, deviation, volatility = _reference(
        (player.rating, player.deviation, player.volatility),
        [(opponent.rating, opponent.deviation, score) for opponent, score in games],
        tau,
    )
    deviation = min(max(deviation, MIN_DEVIATION), MAX_DEVIATION)
    return Glicko(rating, deviation, volatility)


def _close(got: Glicko, want: Glicko) -> None:
    # ε = 10⁻⁶ on ln sigma² leaves sigma' good to about 10⁻⁷, and rating and RD
    # to about 10⁻⁴ where φ' is large.
    assert got.rating == pytest.approx(want.rating, abs=1e-3)
    assert got.deviation == pytest.approx(want.deviation, abs=1e-3)
    assert got.volatility == pytest.approx(want.volatility, abs=1e-6)


# -- (1) Glickman's worked example --------------------------------------------------

GLICKMAN_PLAYER = Glicko(1500.0, 200.0, 0.06)
GLICKMAN_GAMES = [
    (Glicko(1400.0, 30.0, 0.06), 1.0),
    (Glicko(1550.0, 100.0, 0.06), 0.0),
    (Glicko(1700.0, 300.0, 0.06), 0.0),
]


def test_glickmans_example_intermediate_quantities() -> None:
    mu, phi = to_glicko2_scale(GLICKMAN_PLAYER)
    assert mu == 0.0
    assert phi == pytest.approx(1.1513, abs=1e-4)
    v, delta = variance_and_improvement(GLICKMAN_PLAYER, GLICKMAN_GAMES)
    # The paper rounds g and E to 4 places before summing, so its v and Δ are off
    # in the fourth digit: 1.7785 and -0.4834 against 1.77898 and -0.48393.
    assert v == pytest.approx(1.7785, abs=1e-3)
    assert delta == pytest.approx(-0.4834, abs=1e-3)
    assert new_volatility(phi, 0.06, v, delta, tau=0.5) == pytest.approx(0.05999, abs=1e-5)


def test_glickmans_example_result() -> None:
    after = update(GLICKMAN_PLAYER, GLICKMAN_GAMES, tau=0.5, clamp=False)
    # The paper's 1464.06 and 151.52, from rounded intermediates; unrounded it is
    # 1464.0507 and 151.5165.
    assert after.rating == pytest.approx(1464.06, abs=0.02)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)
    assert after == update(GLICKMAN_PLAYER, GLICKMAN_GAMES, tau=0.5)  # 151.5 needs no clamp
    _close(after, _as_reference(GLICKMAN_PLAYER, GLICKMAN_GAMES, tau=0.5))
    assert after.shown == 1464


def test_the_volatility_function_uses_phi_squared_not_mu_squared() -> None:
    # A 2500 player (μ = 5.756, μ² = 33.1 against φ² = 0.119) losing five races
    # to 2000 players in one period: the surprise lifts sigma from 0.06 to 0.0606.
    # The PyPI package's μ² in f would leave it at 0.06001.
    player = Glicko(2500.0, 60.0, 0.06)
    games = [(Glicko(2000.0, 60.0, 0.06), 0.0)] * 5
    after = update(player, games)
    assert after.volatility == pytest.approx(0.06062, abs=1e-5)
    _close(after, _as_reference(player, games))


# -- (2) the protocol's parameters --------------------------------------------------


def test_parameters() -> None:
    assert Glicko(1500.0, 500.0, 0.09) == NEW
    assert TAU == 0.75
    assert (MIN_DEVIATION, MAX_DEVIATION) == (45.0, 500.0)
    assert PROVISIONAL_DEVIATION == 110.0
    assert EPSILON == 0.000001


def test_provisional_while_the_deviation_is_110_or_more() -> None:
    assert NEW.provisional
    assert Glicko(1500.0, 110.0, 0.09).provisional
    assert not Glicko(1500.0, 109.99, 0.09).provisional
    assert not Glicko(1500.0, 45.0, 0.09).provisional


def test_shown_is_the_rating_rounded() -> None:
    assert NEW.shown == 1500
    assert Glicko(1741.62, 396.8, 0.09).shown == 1742
    assert Glicko(1258.38, 396.8, 0.09).shown == 1258
    assert isinstance(Glicko(1500.4, 45.0, 0.09).shown, int)


def test_no_games_only_grows_the_deviation() -> None:
    player = Glicko(1700.0, 100.0, 0.06)
    after = update(player, [])
    assert (after.rating, after.volatility) == (1700.0, 0.06)
    # Step 6 alone: √(100² + (0.06 * 173.7178)²).
    assert after.deviation == pytest.approx(math.sqrt(100.0**2 + (0.06 * 173.7178) ** 2))


def test_the_deviation_never_exceeds_500() -> None:
    assert update(NEW, []) == NEW
    assert update(NEW, [], clamp=False).deviation > MAX_DEVIATION
    assert update(Glicko(1500.0, 499.9, 0.09), []).deviation == MAX_DEVIATION


def test_scores_outside_zero_to_one_are_refused() -> None:
    with pytest.raises(ValueError, match="score"):
        update(NEW, [(NEW, 2.0)])
    with pytest.raises(ValueError, match="score"):
        rate_race(NEW, NEW, -0.5)


# -- (3) hand-checked races ---------------------------------------------------------


def test_two_new_players_one_wins() -> None:
    winner, loser = rate_race(NEW, NEW, 1.0)
    # By hand: φ = 500/173.7178 = 2.8782, g(φ) = 1/√(1 + 3φ²/π²) = 0.5331, E = 1/2,
    # v = 4/g² = 14.07, Δ = v g/2 = 3.751; Δ² < φ² + v, so sigma' stays a hair under
    # 0.09; φ* ≈ 2.8796, φ' = 1/√(1/φ*² + 1/v) = 2.2842 (RD 396.8) and
    # μ' - μ = φ'² g/2 = 1.3909, 241.6 points.
    gain = winner.rating - NEW.rating
    assert gain == pytest.approx(241.6, abs=0.1)
    assert NEW.rating - loser.rating == pytest.approx(gain, abs=1e-9)
    assert winner.deviation == loser.deviation == pytest.approx(396.8, abs=0.1)
    assert winner.volatility == loser.volatility == pytest.approx(0.09, abs=1e-4)
    assert winner.provisional and loser.provisional
    _close(winner, _as_reference(NEW, [(NEW, 1.0)]))
    _close(loser, _as_reference(NEW, [(NEW, 0.0)]))


def test_a_large_upset_gains_more_than_a_win_against_an_equal() -> None:
    underdog, favourite = Glicko(1200.0, 60.0, 0.09), Glicko(2000.0, 60.0, 0.09)
    after, fallen = rate_race(underdog, favourite, 1.0)
    even, _ = rate_race(underdog, underdog, 1.0)
    # By hand: E ≈ 0.0105 against 0.5, so the upset is worth about 0.99/0.5 twice
    # as much: about 21.5 points against 10.5.
    upset_gain, even_gain = after.rating - underdog.rating, even.rating - underdog.rating
    assert upset_gain == pytest.approx(21.5, abs=0.1)
    assert even_gain == pytest.approx(10.5, abs=0.1)
    assert upset_gain > 2.0 * even_gain - 0.5
    assert favourite.rating - fallen.rating == pytest.approx(upset_gain, abs=1e-9)
    assert after.volatility > underdog.volatility  # a surprise: the volatility rises
    _close(after, _as_reference(underdog, [(favourite, 1.0)]))
    _close(even, _as_reference(underdog, [(underdog, 1.0)]))


def test_a_draw_between_equals_changes_no_rating_but_shrinks_deviations() -> None:
    for player in (NEW, Glicko(1834.0, 70.0, 0.06)):
        a, b = rate_race(player, player, 0.5)
        assert a.rating == b.rating == player.rating
        assert a.deviation == b.deviation < player.deviation
        assert a.volatility == b.volatility < player.volatility  # as expected: calmer
        _close(a, _as_reference(player, [(player, 0.5)]))


def test_a_draw_against_a_much_stronger_player_raises_the_weaker() -> None:
    weaker, stronger = Glicko(1400.0, 80.0, 0.06), Glicko(2100.0, 80.0, 0.06)
    weaker_after, stronger_after = rate_race(weaker, stronger, 0.5)
    assert weaker_after.rating > weaker.rating + 5.0
    assert stronger_after.rating < stronger.rating - 5.0
    _close(weaker_after, _as_reference(weaker, [(stronger, 0.5)]))


def test_the_deviation_never_drops_below_45_over_many_games() -> None:
    # A steady player: with volatility 0.01 the deviation would settle near
    # 173.7 √(2 * 0.01) ≈ 25 unclamped; clamped it stops at 45.
    opponent = Glicko(1500.0, 45.0, 0.01)
    clamped = unclamped = Glicko(1500.0, 200.0, 0.01)
    for game in range(500):
        score = (1.0, 0.5, 0.0)[game % 3]
        clamped = update(clamped, [(opponent, score)])
        unclamped = update(unclamped, [(opponent, score)], clamp=False)
        assert MIN_DEVIATION <= clamped.deviation <= MAX_DEVIATION
    assert clamped.deviation == MIN_DEVIATION
    assert unclamped.deviation < MIN_DEVIATION


def test_an_established_player_moves_much_less_than_a_provisional_one() -> None:
    opponent = Glicko(1500.0, 50.0, 0.06)
    established, provisional = Glicko(1500.0, 50.0, 0.06), Glicko(1500.0, 350.0, 0.09)
    assert not established.provisional and provisional.provisional
    small = update(established, [(opponent, 1.0)]).rating - established.rating
    large = update(provisional, [(opponent, 1.0)]).rating - provisional.rating
    # By hand: gains φ'² g/2 with φ'² ≈ 0.085 and 2.04: about 7 and 175 points.
    assert 5.0 < small < 10.0
    assert 150.0 < large < 200.0
    assert large > 10.0 * small


# -- properties ---------------------------------------------------------------------

ratings = st.floats(100.0, 3000.0)
deviations = st.floats(MIN_DEVIATION, MAX_DEVIATION)
volatilities = st.floats(0.02, 0.15)
players = st.builds(Glicko, ratings, deviations, volatilities)
scores = st.sampled_from([0.0, 0.5, 1.0])


@given(players, players)
def test_a_win_never_lowers_a_rating_and_a_loss_never_raises_it(
    player: Glicko, opponent: Glicko
) -> None:
    assert update(player, [(opponent, 1.0)]).rating > player.rating
    assert update(player, [(opponent, 0.0)]).rating < player.rating


@given(players, players)
def test_the_new_rating_rises_with_the_score(player: Glicko, opponent: Glicko) -> None:
    loss, draw, win = (update(player, [(opponent, s)]).rating for s in (0.0, 0.5, 1.0))
    assert loss < draw < win


@given(players, players, scores)
def test_the_deviation_stays_within_bounds_and_the_volatility_positive(
    player: Glicko, opponent: Glicko, score: float
) -> None:
    for after in rate_race(player, opponent, score):
        assert MIN_DEVIATION <= after.deviation <= MAX_DEVIATION
        assert 0.0 < after.volatility < 1.0


@given(ratings, ratings, deviations, volatilities, scores)
def test_between_equally_certain_players_one_gains_what_the_other_loses(
    rating_a: float, rating_b: float, deviation: float, volatility: float, score: float
) -> None:
    a, b = Glicko(rating_a, deviation, volatility), Glicko(rating_b, deviation, volatility)
    a_after, b_after = rate_race(a, b, score)
    assert a_after.rating - a.rating == pytest.approx(b.rating - b_after.rating, abs=1e-6)
    assert a_after.deviation == pytest.approx(b_after.deviation)


@given(players, ratings, ratings, deviations)
def test_beating_a_stronger_opponent_gains_at_least_as_much(
    player: Glicko, rating_1: float, rating_2: float, deviation: float
) -> None:
    weaker = Glicko(min(rating_1, rating_2), deviation, 0.06)
    stronger = Glicko(max(rating_1, rating_2), deviation, 0.06)
    gain_weaker = update(player, [(weaker, 1.0)]).rating - player.rating
    gain_stronger = update(player, [(stronger, 1.0)]).rating - player.rating
    assert gain_stronger >= gain_weaker - 1e-9


offsets = st.floats(-800.0, 800.0)


@given(
    players, st.lists(st.tuples(offsets, deviations, volatilities, scores), min_size=1, max_size=4)
)
def test_agrees_with_the_reference(
    player: Glicko, games: list[tuple[float, float, float, float]]
) -> None:
    # Within 800 points f has one root. Further apart (a loss to a far weaker
    # player) it can have three, and bisection and Illinois may pick different ones.
    results = [(Glicko(player.rating + d, rd, sigma), s) for d, rd, sigma, s in games]
    _close(update(player, results), _as_reference(player, results))


def test_where_f_has_three_roots_the_volatility_stays_near_the_old_one() -> None:
    # A 1865 player losing to a 100 player: f(x) > 0 at ln sigma², < 0 just above it,
    # > 0 again near x = 10 and < 0 from about 20. Illinois from A = ln sigma² settles
    # on the first root; the far one (sigma' ≈ 2800) would blow the deviation up to 500.
    player = Glicko(1865.0, 45.0, 0.125)
    after = update(player, [(Glicko(100.0, 45.0, 0.125), 0.0)])
    assert 0.125 < after.volatility < 0.126
    assert after.deviation < 50.0
