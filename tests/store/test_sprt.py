"""The SPRT on game pairs: the exact GSPRT against a brute-force optimiser, the estimates against
hand-computed values, and the error rates over many simulated runs (vectorised with numpy)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from arena.ratings.sprt import (
    PAIR_SCORES,
    SPRT,
    elo_to_score,
    estimate,
    llr,
    llr_normalized,
    pair_probabilities,
    score_to_elo,
    simulate,
)

COUNTS = [(10, 30, 12), (5, 50, 40), (3, 0, 7), (100, 250, 160), (1, 0, 0), (0, 0, 4), (7, 7, 7)]


def _brute_llr(counts: tuple[int, int, int], elo0: float, elo1: float) -> float:
    """The GSPRT by definition: maximise the likelihood under each mean with a generic optimiser."""
    n = np.where(np.asarray(counts, float) > 0, counts, 1e-3)
    w = n / n.sum()

    def best(score: float) -> float:
        constraints = [
            {"type": "eq", "fun": lambda p: p.sum() - 1},
            {"type": "eq", "fun": lambda p: p @ PAIR_SCORES - score},
        ]
        result = minimize(
            lambda p: -(w * np.log(np.maximum(p, 1e-300))).sum(),
            w,
            constraints=constraints,
            bounds=[(1e-12, 1)] * 3,
            method="SLSQP",
            options={"ftol": 1e-14, "maxiter": 500},
        )
        return float(-result.fun)

    return float(n.sum() * (best(elo_to_score(elo1)) - best(elo_to_score(elo0))))


@pytest.mark.parametrize("counts", COUNTS)
@pytest.mark.parametrize(("elo0", "elo1"), [(0, 20), (-10, 10), (0, 50), (5, 6)])
def test_llr_is_the_generalized_sprt(
    counts: tuple[int, int, int], elo0: float, elo1: float
) -> None:
    assert llr(counts, elo0, elo1) == pytest.approx(_brute_llr(counts, elo0, elo1), abs=1e-6)


def test_llr_properties() -> None:
    batch = np.array(COUNTS)
    values = llr(batch, 0, 20)
    assert values.shape == (len(COUNTS),)
    assert values == pytest.approx([llr(c, 0, 20) for c in COUNTS])
    assert llr((10, 30, 12), 20, 0) == pytest.approx(-llr((10, 30, 12), 0, 20))
    assert llr((10, 20, 10), -10, 10) == pytest.approx(0, abs=1e-12)  # symmetric data, bounds
    assert llr((10, 20, 11), 0, 20) > llr((10, 20, 10), 0, 20) > llr((11, 20, 10), 0, 20)
    # Far from the bounds the LLR grows linearly with the number of pairs (same proportions).
    assert llr((50, 150, 100), 0, 20) == pytest.approx(10 * llr((5, 15, 10), 0, 20), rel=1e-9)


def test_bounds_and_verdicts() -> None:
    test = SPRT(0, 20, 0.05, 0.05)
    assert test.upper == pytest.approx(math.log(19)) and test.lower == pytest.approx(-math.log(19))
    assert (test.verdict(3.0), test.verdict(-3.0), test.verdict(0.0)) == ("H1", "H0", None)
    uneven = SPRT(0, 10, alpha=0.1, beta=0.02)
    assert uneven.upper == pytest.approx(math.log(0.98 / 0.1))
    assert uneven.lower == pytest.approx(math.log(0.02 / 0.9))
    for bad in ({"elo0": 5, "elo1": 5}, {"alpha": 0}, {"beta": 0.7}):
        with pytest.raises(ValueError):
            SPRT(**bad)  # type: ignore[arg-type]


def test_estimate_known_values() -> None:
    e = estimate((10, 30, 12))
    mu = (30 * 0.5 + 12) / 52
    var = (10 * mu**2 + 30 * (0.5 - mu) ** 2 + 12 * (1 - mu) ** 2) / 52
    se = math.sqrt(var / 52)
    assert e.pairs == 52 and e.score == pytest.approx(mu)
    assert e.elo == pytest.approx(-400 * math.log10(1 / mu - 1))
    assert e.elo_low == pytest.approx(-400 * math.log10(1 / (mu - 1.959964 * se) - 1), rel=1e-6)
    assert e.elo_high == pytest.approx(-400 * math.log10(1 / (mu + 1.959964 * se) - 1), rel=1e-6)
    assert e.los == pytest.approx(0.5 * (1 + math.erf((mu - 0.5) / se / math.sqrt(2))))
    assert e.nelo == pytest.approx((mu - 0.5) / math.sqrt(2 * var) * 800 / math.log(10))
    even = estimate((5, 10, 5))
    assert (even.elo, even.los, even.nelo) == (pytest.approx(0), pytest.approx(0.5), 0.0)
    assert estimate((0, 0, 0)).pairs == 0
    # Every pair split (each bot won as Order): no sample spread, yet an interval of real width.
    split = estimate((0, 20, 0))
    assert split.elo == pytest.approx(0) and split.elo_high == pytest.approx(-split.elo_low)
    assert 5 < split.elo_high < 100
    assert split.los == pytest.approx(0.5)
    swept = estimate((0, 0, 20))
    assert swept.elo == math.inf and swept.los > 0.99 and 0 < swept.elo_low < math.inf


def test_pair_model() -> None:
    for elo, role in ((0, 0), (30, 150), (-50, 300)):
        p = pair_probabilities(elo, role)
        assert p.sum() == pytest.approx(1) and (p >= 0).all()
        assert p @ PAIR_SCORES == pytest.approx(elo_to_score(elo))
    assert score_to_elo(elo_to_score(37.5)) == pytest.approx(37.5)
    # With a role advantage the pair's two games disagree more often: fewer 0s and 2s.
    assert pair_probabilities(0, 300)[1] > pair_probabilities(0, 0)[1]
    # Without one, a pair is two independent games won with L(elo) each: a binomial.
    for elo in (0, 35, -120):
        s = float(elo_to_score(elo))
        assert pair_probabilities(elo, 0) == pytest.approx([(1 - s) ** 2, 2 * s * (1 - s), s**2])
    assert pair_probabilities(0, 0) == pytest.approx([0.25, 0.5, 0.25])
    # Order wins 90% of games between equals (role Elo 382): a pair is nearly always split.
    p_order = float(elo_to_score(400 * math.log10(9)))
    assert p_order == pytest.approx(0.9)
    assert pair_probabilities(0, 400 * math.log10(9)) == pytest.approx([0.09, 0.82, 0.09])


RUNS = 2000


def _rates(elo: float, test: SPRT, role_elo: float = 150, seed: int = 1) -> tuple[float, float]:
    verdict, _ = simulate(
        pair_probabilities(elo, role_elo), test, RUNS, 50_000, np.random.default_rng(seed)
    )
    assert (verdict != 0).all()  # every run decided
    return float((verdict == 1).mean()), float((verdict == -1).mean())


def _within(rate: float, target: float) -> bool:
    """``rate`` is at most ``target`` (overshoot makes the SPRT a little conservative) and not
    far below it: 4 binomial standard errors of slack on either side."""
    slack = 4 * math.sqrt(target * (1 - target) / RUNS)
    return target * 0.5 - slack <= rate <= target + slack


def test_error_rates_are_alpha_and_beta() -> None:
    test = SPRT(0, 40, alpha=0.05, beta=0.05)
    false_h1, _ = _rates(0, test)  # true Elo = elo0: accepting H1 is an error
    assert _within(false_h1, 0.05), false_h1
    _, false_h0 = _rates(40, test, seed=2)  # true Elo = elo1: accepting H0 is an error
    assert _within(false_h0, 0.05), false_h0


def test_uneven_error_rates() -> None:
    test = SPRT(0, 40, alpha=0.1, beta=0.02)
    false_h1, _ = _rates(0, test, seed=3)
    _, false_h0 = _rates(40, test, seed=4)
    assert _within(false_h1, 0.1), false_h1
    assert _within(false_h0, 0.02), false_h0


def test_known_differences_are_found() -> None:
    test = SPRT(0, 40)
    h1, _ = _rates(20, test, seed=5)  # halfway between the hypotheses: a coin toss
    assert 0.44 <= h1 <= 0.56
    h1, _ = _rates(100, test, seed=6)
    assert h1 >= 0.999
    _, h0 = _rates(-40, test, seed=7)
    assert h0 >= 0.999
    # No role advantage at all: the same guarantees.
    false_h1, _ = _rates(0, test, role_elo=0, seed=8)
    assert _within(false_h1, 0.05)


def _drift_and_variance(p: np.ndarray, test: SPRT) -> tuple[float, float]:
    """Mean and variance of one pair's LLR increment once the test has many pairs (the
    most likely distributions under H0 and H1 are then those of the true ``p``): the drift is
    the LLR of the counts ``p`` themselves, as fishtest computes it."""
    drift = float(llr(p, test.elo0, test.elo1))
    per_outcome = np.array([llr(p + 1e-7 * np.eye(3)[i], test.elo0, test.elo1) for i in range(3)])
    increment = (per_outcome - drift) / 1e-7  # d(N * LLR)/dn_i: the LLR a pair of outcome i adds
    return drift, float(p @ (increment - drift) ** 2)


def test_rates_and_lengths_follow_walds_approximation() -> None:
    """Between and beyond the hypotheses, the rate of H1 verdicts and the mean number of pairs
    follow the operating characteristic and average sample number of the SPRT (Wald's
    approximations for a random walk with the increments' drift and variance, no overshoot)."""
    test = SPRT(0, 40)
    a, b = test.lower, test.upper
    runs = 1000
    for seed, elo in enumerate((-20, 10, 30, 60)):
        p = pair_probabilities(elo, 150)
        drift, variance = _drift_and_variance(p, test)
        theta = 2 * drift / variance
        expected = (1 - math.exp(-theta * a)) / (math.exp(-theta * b) - math.exp(-theta * a))
        pairs = (expected * b + (1 - expected) * a) / drift
        verdict, length = simulate(p, test, runs, 50_000, np.random.default_rng(20 + seed))
        assert (verdict != 0).all()
        rate = float((verdict == 1).mean())
        slack = 4 * math.sqrt(expected * (1 - expected) / runs) + 0.02
        assert abs(rate - expected) <= slack, (elo, rate, expected)
        assert float(length.mean()) == pytest.approx(pairs, rel=0.15), (elo, pairs)
    # Known values of the approximation itself: a coin toss halfway, alpha at elo0, 1-beta at elo1.
    for elo, expected_rate in ((20, 0.5), (0, 0.05), (40, 0.95)):
        drift, variance = _drift_and_variance(pair_probabilities(elo, 150), test)
        theta = 2 * drift / variance
        if abs(theta) < 1e-9:
            rate = -a / (b - a)
        else:
            rate = (1 - math.exp(-theta * a)) / (math.exp(-theta * b) - math.exp(-theta * a))
        assert rate == pytest.approx(expected_rate, abs=0.01), elo


def _brute_normalized(counts: tuple[int, int, int], nelo0: float, nelo1: float) -> float:
    n = np.where(np.asarray(counts, float) > 0, counts, 1e-3)
    w = n / n.sum()
    per_nelo = math.sqrt(2) * math.log(10) / 800

    def best(t: float) -> float:
        def constraint(p: np.ndarray) -> float:
            mu = p @ PAIR_SCORES
            return float(mu - 0.5 - t * math.sqrt(max(p @ PAIR_SCORES**2 - mu**2, 1e-18)))

        result = minimize(
            lambda p: -(w * np.log(np.maximum(p, 1e-300))).sum(),
            np.full(3, 1 / 3),
            constraints=[
                {"type": "eq", "fun": lambda p: p.sum() - 1},
                {"type": "eq", "fun": constraint},
            ],
            bounds=[(1e-12, 1)] * 3,
            method="SLSQP",
            options={"ftol": 1e-15, "maxiter": 1000},
        )
        return float(-result.fun)

    return float(n.sum() * (best(nelo1 * per_nelo) - best(nelo0 * per_nelo)))


@pytest.mark.parametrize("counts", [(10, 30, 12), (5, 50, 40), (3, 1, 7), (100, 250, 160)])
@pytest.mark.parametrize(("nelo0", "nelo1"), [(0, 10), (-5, 5), (0, 40)])
def test_normalized_llr_is_the_generalized_sprt(
    counts: tuple[int, int, int], nelo0: float, nelo1: float
) -> None:
    assert llr_normalized(counts, nelo0, nelo1) == pytest.approx(
        _brute_normalized(counts, nelo0, nelo1), abs=1e-6
    )
    assert SPRT(nelo0, nelo1, model="normalized").llr(counts) == llr_normalized(
        counts, nelo0, nelo1
    )


def _nelo(p: np.ndarray) -> float:
    mu = p @ PAIR_SCORES
    return float((mu - 0.5) / math.sqrt(2 * (p @ PAIR_SCORES**2 - mu**2)) * 800 / math.log(10))


def test_normalized_error_rates() -> None:
    runs = 600
    h1 = pair_probabilities(40, 150)
    test = SPRT(0, _nelo(h1), model="normalized")
    rng = np.random.default_rng(11)
    at_h0, _ = simulate(pair_probabilities(0, 150), test, runs, 50_000, rng)
    at_h1, _ = simulate(h1, test, runs, 50_000, rng)
    slack = 4 * math.sqrt(0.05 * 0.95 / runs)
    assert (at_h0 != 0).all() and (at_h1 != 0).all()
    assert float((at_h0 == 1).mean()) <= 0.05 + slack
    assert float((at_h1 == -1).mean()) <= 0.05 + slack
    assert float((at_h0 == -1).mean()) >= 0.95 - slack - 0.05
