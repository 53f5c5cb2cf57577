"""The sequential probability ratio test on game pairs: is bot A stronger than bot B?

Order and Chaos has a large role advantage, so the test counts **pairs** of games (one in each role
assignment, the same opening), as fishtest does, with a trinomial model of a pair's score and the
generalized SPRT (logistic or normalized Elo bounds). The mathematics, the estimates and the
normalized Elo are in ``docs/ratings.md``. Pure functions of counts of shape ``(3,)`` or
``(..., 3)`` (numpy, no I/O).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

PAIR_SCORES = np.array([0.0, 0.5, 1.0])
"""The score ``x`` of a pair of games won 0, 1 or 2 times by A."""

_REGULARISE = 1e-3
_Z95 = 1.959963984540054
_NELO_PER_T = 800.0 / math.log(10.0)
_T_PER_NELO = math.sqrt(2.0) / _NELO_PER_T  # per-pair t-value of one normalized Elo point

FloatArray = npt.NDArray[np.float64]


def elo_to_score(elo: float | FloatArray) -> Any:
    """``L(e)``: the expected score of a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-np.asarray(elo, dtype=float) / 400.0))


def score_to_elo(score: float | FloatArray) -> Any:
    """``E(mu)``: the logistic Elo difference of an expected score (infinite at 0 and 1)."""
    mu = np.clip(np.asarray(score, dtype=float), 0.0, 1.0)
    with np.errstate(divide="ignore"):
        return -400.0 * np.log10(1.0 / mu - 1.0)


def _lambda(w: FloatArray, g: FloatArray) -> FloatArray:
    """The root of ``sum w g / (1 + lambda g) = 0`` with every ``1 + lambda g > 0`` (see above)."""
    g0, g1, g2 = g[..., 0], g[..., 1], g[..., 2]
    total = g0 + g1 + g2
    a = g0 * g1 * g2 * w.sum(axis=-1)
    b = (w * g * (total[..., None] - g)).sum(axis=-1)
    c = (w * g).sum(axis=-1)
    disc = np.sqrt(np.maximum(b * b - 4.0 * a * c, 0.0))
    q = -0.5 * (b + np.where(b >= 0, disc, -disc))
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.where(q != 0, c / q, 0.0)  # finite as a -> 0 (s on an outcome: linear)
        second = np.where(a != 0, q / a, np.nan)
    ok = np.all(1.0 + first[..., None] * g > 0, axis=-1)
    return np.where(ok, first, second)


def _regularised(counts: npt.ArrayLike) -> FloatArray:
    n = np.asarray(counts, dtype=float)
    if n.shape[-1] != 3:
        raise ValueError(f"expected counts of pairs scoring 0, 1 and 2 points, got shape {n.shape}")
    return np.where(n > 0, n, _REGULARISE)


def llr(counts: npt.ArrayLike, elo0: float, elo1: float) -> Any:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) for pair counts."""
    n = _regularised(counts)
    total = n.sum(axis=-1)
    w = n / total[..., None]
    result = np.zeros(total.shape)
    for sign, elo in ((1.0, elo0), (-1.0, elo1)):
        g = PAIR_SCORES - elo_to_score(elo)
        g = np.broadcast_to(g, w.shape)
        lam = _lambda(w, g)
        result += sign * (w * np.log1p(lam[..., None] * g)).sum(axis=-1)
    result = result * total
    return float(result) if result.ndim == 0 else result


def _mle_t_value(w: FloatArray, t: float) -> FloatArray:
    """The most likely distribution with t-value ``t`` for empirical ``w`` (see above)."""
    x = PAIR_SCORES
    p = np.full_like(w, 1.0 / 3.0)
    for _ in range(200):
        mu = (p * x).sum(axis=-1)[..., None]
        sigma = np.sqrt((p * (x - mu) ** 2).sum(axis=-1))[..., None]
        h = (x - 0.5) - 0.5 * t * (sigma + (x - mu) ** 2 / sigma)
        lam = _lambda(w, h)
        new: FloatArray = w / (1.0 + lam[..., None] * h)
        if np.nanmax(np.abs(new - p)) < 1e-13:
            return new
        p = new
    return p


def llr_normalized(counts: npt.ArrayLike, nelo0: float, nelo1: float) -> Any:
    """The GSPRT log-likelihood ratio with bounds in normalized Elo (see the module docstring)."""
    n = _regularised(counts)
    total = n.sum(axis=-1)
    w = n / total[..., None]
    result = np.zeros(total.shape)
    for sign, nelo in ((-1.0, nelo0), (1.0, nelo1)):
        p = _mle_t_value(w, nelo * _T_PER_NELO)
        result += sign * (w * np.log(p)).sum(axis=-1)
    result = result * total
    return float(result) if result.ndim == 0 else result


@dataclass(frozen=True)
class SPRT:
    """A test: H0 ``elo = elo0`` against H1 ``elo = elo1``, with error rates alpha and beta.

    ``model``: ``logistic`` (bounds in Elo) or ``normalized`` (bounds in normalized Elo).
    """

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 ({self.elo0}) must be below elo1 ({self.elo1})")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, got {value}")
        if self.model not in ("logistic", "normalized"):
            raise ValueError(f"model must be logistic or normalized, got {self.model!r}")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR: ``log((1 - beta) / alpha)``."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, counts: npt.ArrayLike) -> Any:
        if self.model == "normalized":
            return llr_normalized(counts, self.elo0, self.elo1)
        return llr(counts, self.elo0, self.elo1)

    def verdict(self, value: float) -> str | None:
        """``"H1"``, ``"H0"``, or None while the LLR lies between the bounds."""
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return None


@dataclass(frozen=True)
class Estimate:
    """What the pairs so far say about A's strength relative to B."""

    pairs: int
    score: float
    """A's mean score per game (0.5: equal)."""
    elo: float
    elo_low: float
    elo_high: float
    """The 95% interval of ``elo``."""
    los: float
    """Likelihood of superiority: the probability that A is stronger."""
    nelo: float
    """Normalized Elo (see the module docstring)."""
    nelo_ci95: float
    """Half-width of its 95% interval."""


def estimate(counts: npt.ArrayLike) -> Estimate:
    """Elo with its 95% interval, LOS and normalized Elo, from the counts of one run."""
    n = np.asarray(counts, dtype=float)
    total = float(n.sum())
    if total <= 0:
        return Estimate(0, 0.5, 0.0, -math.inf, math.inf, 0.5, 0.0, math.inf)
    w = n / total
    mu = float((w * PAIR_SCORES).sum())
    var = float((w * (PAIR_SCORES - mu) ** 2).sum())
    if var == 0.0:  # every pair scored the same: the Jeffreys-smoothed spread instead of none
        smooth = (n + 0.5) / (total + 1.5)
        var = float((smooth * (PAIR_SCORES - (smooth * PAIR_SCORES).sum()) ** 2).sum())
    se = math.sqrt(var / total)
    los = 0.5 * math.erfc(-(mu - 0.5) / se / math.sqrt(2.0))
    nelo = (mu - 0.5) / math.sqrt(2.0 * var) * _NELO_PER_T
    nelo_ci = _Z95 / math.sqrt(2.0 * total) * _NELO_PER_T
    return Estimate(
        pairs=int(total),
        score=mu,
        elo=float(score_to_elo(mu)),
        elo_low=float(score_to_elo(mu - _Z95 * se)),
        elo_high=float(score_to_elo(mu + _Z95 * se)),
        los=los,
        nelo=nelo,
        nelo_ci95=nelo_ci,
    )


def pair_probabilities(elo: float, role_elo: float = 0.0) -> FloatArray:
    """The trinomial of a pair when A is ``elo`` stronger and Order has ``role_elo`` advantage.

    A wins its Order game with ``L(d + h)`` and its Chaos game with ``L(d - h)``, independently,
    where ``d`` is chosen so that A's mean score is ``L(elo)`` (with a role advantage the two
    differ: the pair's mean of two logistic curves is flatter than one).
    """
    target = float(elo_to_score(elo))
    lo, hi = -4000.0, 4000.0
    for _ in range(200):
        d = 0.5 * (lo + hi)
        mean = 0.5 * (elo_to_score(d + role_elo) + elo_to_score(d - role_elo))
        lo, hi = (d, hi) if mean < target else (lo, d)
    d = 0.5 * (lo + hi)
    p_order, p_chaos = float(elo_to_score(d + role_elo)), float(elo_to_score(d - role_elo))
    return np.array(
        [
            (1 - p_order) * (1 - p_chaos),
            p_order * (1 - p_chaos) + (1 - p_order) * p_chaos,
            p_order * p_chaos,
        ]
    )


def simulate(
    probabilities: npt.ArrayLike,
    test: SPRT,
    runs: int,
    max_pairs: int,
    rng: np.random.Generator,
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """Run ``runs`` independent tests on pairs drawn from ``probabilities``, all at once.

    Returns, per run, the verdict (1: H1, -1: H0, 0: none within ``max_pairs``) and the pairs
    played. The LLR is checked after every pair, as ``arena sprt`` does.
    """
    p = np.asarray(probabilities, dtype=float)
    counts = np.zeros((runs, 3))
    verdict = np.zeros(runs, dtype=np.int8)
    length = np.full(runs, max_pairs, dtype=np.int64)
    active = np.arange(runs)
    cumulative = np.cumsum(p)
    for step in range(1, max_pairs + 1):
        outcome = np.searchsorted(cumulative, rng.random(active.size), side="right")
        outcome = np.minimum(outcome, 2)
        counts[active, outcome] += 1
        value = test.llr(counts[active])
        up, down = value >= test.upper, value <= test.lower
        done = up | down
        if done.any():
            finished = active[done]
            verdict[finished] = np.where(up[done], 1, -1)
            length[finished] = step
            active = active[~done]
            if active.size == 0:
                break
    return verdict, length
