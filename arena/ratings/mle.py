"""Order-independent ratings: a maximum-a-posteriori logistic (Bradley-Terry) fit on the Elo scale.

Like BayesElo and Ordo it uses all games at once and gives standard errors. Two models: overall
(one strength per bot and Order's advantage ``h``) and per role (an Order and a Chaos strength per
bot). A Gaussian prior keeps every rating finite; ratings are relative to the average bot. How to
read the two scales together: ``docs/ratings.md``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from arena.ratings import ELO_PER_LOGIT, expected_score

if TYPE_CHECKING:
    from arena.ratings import GameLike


_Z95 = 1.959963984540054  # two-sided 95% normal quantile

NEWTON = "newton"
"""``fit_mle``'s default method: damped Newton in numpy (no scipy import)."""
NEWTON_STEPS = 100
NEWTON_TOLERANCE = 1e-10
"""Newton stops when a step moves no parameter by more than this (logits: 2e-8 Elo)."""
_RESOLUTION = 1e-13
"""A predicted decrease this small (relative to the objective) is the mode, to rounding."""
_CLOSE = 1e-8
"""Newton that can make no more progress has converged if its predicted decrease is below this
(relative): within about 1e-4 Elo of the mode."""


def expit(x: np.ndarray) -> np.ndarray:
    """The logistic function ``1 / (1 + e^-x)``, without overflow for any ``x``."""
    result: np.ndarray = np.exp(-np.logaddexp(0.0, -x))
    return result


_erfc = np.frompyfunc(math.erfc, 1, 1)


def _normal_cdf(z: np.ndarray) -> np.ndarray:
    """The standard normal CDF, elementwise (``erfc`` keeps the far tails exact)."""
    tail = np.asarray(_erfc(-np.asarray(z, dtype=np.float64) / math.sqrt(2.0)), dtype=np.float64)
    result: np.ndarray = 0.5 * tail
    return result


@dataclass(frozen=True)
class PairCounts:
    """Games aggregated per (Order bot, Chaos bot) pair; only pairs that played are listed."""

    names: tuple[str, ...]
    """All bots, sorted; indices below refer to this tuple."""
    order_idx: np.ndarray
    """Index of the Order bot of each pair (int)."""
    chaos_idx: np.ndarray
    """Index of the Chaos bot of each pair (int)."""
    games: np.ndarray
    """Games played by each pair (float, for the arithmetic)."""
    order_wins: np.ndarray
    """Games Order won in each pair (float)."""


def aggregate(games: Iterable[GameLike], names: Iterable[str] = ()) -> PairCounts:
    """Count games and Order wins per (Order, Chaos) pair; names sorted, so play order is lost."""
    orders: list[str] = []
    chaoses: list[str] = []
    wins: list[bool] = []
    for g in games:
        orders.append(g.order)
        chaoses.append(g.chaos)
        wins.append(bool(g.order_won))
    all_names = tuple(sorted(set(names) | set(orders) | set(chaoses)))
    n = len(all_names)
    index = {name: i for i, name in enumerate(all_names)}
    o = np.fromiter((index[x] for x in orders), dtype=np.int64, count=len(orders))
    c = np.fromiter((index[x] for x in chaoses), dtype=np.int64, count=len(chaoses))
    w = np.asarray(wins, dtype=np.float64)
    cell = o * n + c
    total = np.bincount(cell, minlength=n * n).astype(np.float64)
    won = np.bincount(cell, weights=w, minlength=n * n)
    played = np.flatnonzero(total)
    return PairCounts(all_names, played // n, played % n, total[played], won[played])


class LogisticPosterior:
    """Negative log-posterior of a logistic model in which each pair's log-odds is a signed sum
    of a few parameters: ``x[p] = sum_k coefs[p, k] * u[cols[p, k]]`` (natural-log units).

    Gradient and Hessian are analytic; ``bincount`` scatters them without Python loops.
    """

    def __init__(
        self,
        cols: np.ndarray,
        coefs: np.ndarray,
        games: np.ndarray,
        wins: np.ndarray,
        precision: np.ndarray,
    ) -> None:
        self.cols, self.coefs, self.games, self.wins = cols, coefs, games, wins
        self.precision = precision
        self.dim = precision.size
        self._flat = cols.ravel()
        self._pairs = (cols[:, :, None] * self.dim + cols[:, None, :]).ravel()
        k = cols.shape[1]
        self._outer = (coefs[:, :, None] * coefs[:, None, :]).reshape(len(cols), k * k)

    def _x(self, u: np.ndarray) -> np.ndarray:
        x: np.ndarray = (self.coefs * u[self.cols]).sum(axis=1)
        return x

    def fun_grad(self, u: np.ndarray) -> tuple[float, np.ndarray]:
        """Objective and gradient: ``sum n*log(1+e^x) - w*x + u'Pu/2``."""
        x = self._x(u)
        f = float(np.sum(self.games * np.logaddexp(0.0, x) - self.wins * x))
        f += 0.5 * float(np.dot(self.precision * u, u))
        r = self.games * expit(x) - self.wins
        g = np.bincount(self._flat, weights=(self.coefs * r[:, None]).ravel(), minlength=self.dim)
        return f, g + self.precision * u

    def hess(self, u: np.ndarray) -> np.ndarray:
        """Hessian: ``sum n*p*(1-p) * a a'`` over pairs (``a`` the pair's coefficients) + P."""
        x = self._x(u)
        v = self.games * expit(x) * expit(-x)
        h = np.bincount(
            self._pairs, weights=(self._outer * v[:, None]).ravel(), minlength=self.dim**2
        ).reshape(self.dim, self.dim)
        h[np.diag_indices(self.dim)] += self.precision
        return h

    def solve(self, method: str = NEWTON) -> tuple[np.ndarray, np.ndarray, bool]:
        """Posterior mode and covariance (inverse Hessian), both in natural-log units.

        ``method``: ``NEWTON`` (numpy alone), or the name of a ``scipy.optimize.minimize``
        method (imported only then: it costs a summary a third of a second)."""
        u0 = np.zeros(self.dim)
        if self.cols.size == 0:  # no games: the prior alone, its mode is 0
            return u0, np.diag(1.0 / self.precision), True
        if method == NEWTON:
            u, ok = self._newton(u0)
        else:
            from scipy.optimize import minimize

            kwargs: dict[str, object] = {}
            if method in ("trust-exact", "trust-krylov", "trust-ncg", "Newton-CG", "dogleg"):
                kwargs["hess"] = self.hess
            res = minimize(self.fun_grad, u0, jac=True, method=method, **kwargs)
            u, ok = res.x, bool(res.success)
        # The posterior is log-concave: the Hessian is positive definite everywhere.
        cov = np.linalg.inv(self.hess(u))
        return u, 0.5 * (cov + cov.T), ok

    def _newton(self, u: np.ndarray) -> tuple[np.ndarray, bool]:
        """Damped Newton: the full step, halved until the objective falls enough (Armijo).

        The objective is strictly convex (a Gaussian prior on every parameter), so this
        converges from anywhere, quadratically near the mode: a handful of steps. It stops when
        a step would move no parameter by more than ``NEWTON_TOLERANCE`` (logits), when the
        gradient is that small, or when the objective stops falling in floating point. There
        the decrease the step predicts, ``g'H^-1 g``, about twice the distance to the minimum in
        objective, says whether it is at the minimum: within ``_CLOSE``."""
        f, g = self.fun_grad(u)
        for _ in range(NEWTON_STEPS):
            step = np.linalg.solve(self.hess(u), g)
            decrease = float(g @ step)  # > 0: the Hessian is positive definite
            scale = max(1.0, abs(f))
            if (
                float(np.max(np.abs(step))) < NEWTON_TOLERANCE
                or float(np.max(np.abs(g))) < NEWTON_TOLERANCE
                or decrease < _RESOLUTION * scale
            ):
                return u, True
            t = 1.0
            while True:
                candidate = u - t * step
                f_new, g_new = self.fun_grad(candidate)
                if f_new < f - 0.25 * t * decrease or (f_new <= f and t < 1.0):
                    break
                t *= 0.5
                if t < 1e-12:
                    return u, decrease < _CLOSE * scale
            if f_new >= f:  # no fall that floating point can show: as close as it gets
                return candidate, decrease < _CLOSE * scale
            u, f, g = candidate, f_new, g_new
        return u, False


def _summarise(
    theta: np.ndarray, cov: np.ndarray, transform: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Values, standard errors and covariance of the linear combinations ``transform @ theta``."""
    values = transform @ theta
    c = transform @ cov @ transform.T
    se = np.sqrt(np.clip(np.diag(c), 0.0, None))
    return values, se, c


def _los(values: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """``LOS[i, j] = Phi((v_i - v_j) / sd(v_i - v_j))`` with the full covariance; exactly
    ``LOS[j, i] = 1 - LOS[i, j]`` and 0.5 on the diagonal."""
    n = values.size
    d = values[:, None] - values[None, :]
    var = np.diag(cov)[:, None] + np.diag(cov)[None, :] - 2.0 * cov
    sd = np.sqrt(np.clip(var, 0.0, None))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(
            sd > 1e-12, _normal_cdf(d / sd), np.where(d > 0, 1.0, np.where(d < 0, 0.0, 0.5))
        )
    upper = np.triu(np.ones((n, n), dtype=bool), k=1)
    los = np.where(upper, p, 1.0 - p.T)
    np.fill_diagonal(los, 0.5)
    return los


@dataclass(frozen=True)
class MLEFit:
    """Maximum-a-posteriori ratings on the Elo scale, order-independent, with uncertainties.

    Every ``dict`` is keyed by bot name in ``names`` order. ``*_se`` are standard errors and
    ``*_ci95`` the half-widths of 95% intervals (``1.96 * se``), both in Elo points.
    """

    names: tuple[str, ...]
    """All bots rated, sorted by name."""
    games: int
    """Number of games fitted."""
    offset: float
    """The average rating of the bots that played (the scale's zero is fixed there)."""
    rating: dict[str, float]
    """Overall strength; the bots that played average ``offset``."""
    rating_se: dict[str, float]
    """Standard error of ``rating`` (relative to the average bot)."""
    rating_ci95: dict[str, float]
    """95% interval half-width of ``rating``."""
    role_advantage: float
    """``h``: Order's advantage in Elo points in the overall model (negative if Chaos's)."""
    role_advantage_se: float
    """Standard error of ``role_advantage``."""
    role_advantage_ci95: float
    """95% interval half-width of ``role_advantage``."""
    order_rating: dict[str, float]
    """Per-role model: strength of each bot's Order play."""
    order_se: dict[str, float]
    """Standard error of ``order_rating``."""
    order_ci95: dict[str, float]
    """95% interval half-width of ``order_rating``."""
    chaos_rating: dict[str, float]
    """Per-role model: strength of each bot's Chaos play (same scale as ``order_rating``)."""
    chaos_se: dict[str, float]
    """Standard error of ``chaos_rating``."""
    chaos_ci95: dict[str, float]
    """95% interval half-width of ``chaos_rating``."""
    los: dict[str, dict[str, float]]
    """``los[a][b]``: likelihood of superiority, the posterior probability that ``a``'s overall
    strength exceeds ``b``'s (0.5 on the diagonal; ``los[a][b] + los[b][a] == 1``)."""
    order_los: dict[str, dict[str, float]]
    """The same for the per-role model's Order strengths: that ``a`` plays Order better than
    ``b`` (a bot much better in one role can be ahead there and behind overall)."""
    chaos_los: dict[str, dict[str, float]]
    """The same for the per-role model's Chaos strengths."""
    order_win_rate: float | None
    """Observed fraction of games Order won (None without games)."""
    converged: bool
    """Whether both optimisations reported success."""
    rating_cov: np.ndarray = field(repr=False, compare=False)
    """Covariance of the overall ratings, in ``names`` order (Elo points squared)."""
    role_cov: np.ndarray = field(repr=False, compare=False)
    """Covariance of ``[order ratings..., chaos ratings...]``, in ``names`` order."""

    def expected(self, order_bot: str, chaos_bot: str) -> float:
        """Overall model: probability that ``order_bot`` as Order beats ``chaos_bot`` as Chaos."""
        return expected_score(self.rating[order_bot] + self.role_advantage, self.rating[chaos_bot])

    def expected_by_role(self, order_bot: str, chaos_bot: str) -> float:
        """Per-role model: probability that ``order_bot`` as Order beats ``chaos_bot``."""
        return expected_score(self.order_rating[order_bot], self.chaos_rating[chaos_bot])


def _active_weights(counts: PairCounts) -> np.ndarray:
    """Each bot's weight in "the average bot": the average of the bots that played, so that a
    newcomer's prior-wide uncertainty does not leak into everybody's rating."""
    n = len(counts.names)
    active = np.zeros(n, dtype=bool)
    active[counts.order_idx] = active[counts.chaos_idx] = True
    if not active.any():
        active[:] = True
    weights: np.ndarray = active / max(int(active.sum()), 1)
    return weights


@dataclass(frozen=True)
class OverallFit:
    """The overall model alone, as arrays in ``names`` order: what pairing decides from, every
    round, without the per-role model's doubled size and the dictionaries of ``MLEFit``."""

    names: tuple[str, ...]
    rating: np.ndarray
    """Strengths on the Elo scale, the bots that played averaging ``offset``."""
    rating_se: np.ndarray
    rating_cov: np.ndarray = field(repr=False)
    role_advantage: float
    role_advantage_se: float
    converged: bool

    def los_between(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """The likelihood that each bot of ``first`` (indices) is stronger than the bot of
        ``second`` beside it: the pairs asked for only, not all ``n * n``."""
        c = self.rating_cov
        diff = self.rating[first] - self.rating[second]
        var = c[first, first] + c[second, second] - 2.0 * c[first, second]
        sd = np.sqrt(np.clip(var, 1e-24, None))
        return _normal_cdf(diff / sd)


def _posterior(
    counts: PairCounts, strengths: int, prior_sd: float, prior_sd_role: float
) -> LogisticPosterior:
    """The posterior of ``strengths`` strengths then Order's advantage: each game compares the
    Order bot's strength with the Chaos bot's, which is the last ``len(counts.names)`` of them
    (the same as the Order bot's in the overall model, its own in the per-role one)."""
    n = len(counts.names)
    p = counts.order_idx.size
    tau_s = (prior_sd / ELO_PER_LOGIT) ** -2
    tau_h = (prior_sd_role / ELO_PER_LOGIT) ** -2
    chaos = counts.chaos_idx + (strengths - n)
    return LogisticPosterior(
        np.column_stack([counts.order_idx, chaos, np.full(p, strengths)]).astype(np.int64),
        np.tile([1.0, -1.0, 1.0], (p, 1)),
        counts.games,
        counts.order_wins,
        np.r_[np.full(strengths, tau_s), tau_h],
    )


def fit_overall(
    counts: PairCounts,
    *,
    prior_sd: float = 400.0,
    prior_sd_role: float = 1000.0,
    offset: float = 1500.0,
    method: str = NEWTON,
) -> OverallFit:
    """The overall model of ``fit_mle`` (one strength per bot and Order's advantage) alone."""
    n = len(counts.names)
    # u = [s_0 .. s_{n-1}, h].
    u, cov_u, ok = _posterior(counts, n, prior_sd, prior_sd_role).solve(method)
    transform = np.zeros((n + 1, n + 1))
    transform[:n, :n] = np.eye(n) - _active_weights(counts)[None, :]
    transform[n, n] = 1.0
    vals, se, cov = _summarise(u * ELO_PER_LOGIT, cov_u * ELO_PER_LOGIT**2, transform)
    return OverallFit(
        names=counts.names,
        rating=vals[:n] + offset,
        rating_se=se[:n],
        rating_cov=cov[:n, :n],
        role_advantage=float(vals[n]),
        role_advantage_se=float(se[n]),
        converged=ok,
    )


SPREAD_FLOOR = 50.0
"""The narrowest prior spread ``fit_pooled`` uses (Elo): a pool of equals still gets a prior
that lets the games speak."""


POOLING_STEPS = 6
"""At most this many refits: the spread settles to 1% in three or four."""


def fit_pooled(counts: PairCounts, *, offset: float = 1500.0) -> OverallFit:
    """``fit_overall`` with the prior's spread read from the games (empirical Bayes): each fit
    estimates how spread the pool is (its ratings' variance plus their mean squared error) and
    the next uses that as its prior, until the spread settles. Pairings that link the extremes
    by few games (Swiss, the contested format) otherwise leave them too far apart with too narrow
    intervals."""
    spread = 400.0
    fit = fit_overall(counts, prior_sd=spread, offset=offset)
    for _ in range(POOLING_STEPS):
        if not fit.names:
            break
        estimate = math.sqrt(float(np.var(fit.rating) + np.mean(fit.rating_se**2)))
        estimate = max(estimate, SPREAD_FLOOR)
        if abs(estimate - spread) < 0.01 * spread:
            break
        spread = estimate
        fit = fit_overall(counts, prior_sd=spread, offset=offset)
    return fit


def fit_mle(
    games: Iterable[GameLike],
    *,
    names: Iterable[str] = (),
    prior_sd: float = 400.0,
    prior_sd_role: float = 1000.0,
    offset: float = 1500.0,
    method: str = NEWTON,
) -> MLEFit:
    """Fit both models to ``games`` (their order does not matter).

    ``names`` adds bots without games (they get the average rating with a prior-wide interval).
    ``prior_sd`` (Elo) is the prior spread of strengths, ``prior_sd_role`` that of Order's
    advantage; the defaults barely move ratings backed by a few dozen games. ``method``: the default
    damped Newton (numpy, the analytic Hessian) converges to machine precision in a handful of
    steps; a ``scipy.optimize.minimize`` method (``"trust-exact"``, ``"L-BFGS-B"``) also works.
    """
    if not (prior_sd > 0 and prior_sd_role > 0):
        raise ValueError("prior standard deviations must be positive")
    counts = aggregate(games, names)
    n = len(counts.names)
    overall = fit_overall(
        counts, prior_sd=prior_sd, prior_sd_role=prior_sd_role, offset=offset, method=method
    )
    by_role = _fit_by_role(
        counts, prior_sd=prior_sd, prior_sd_role=prior_sd_role, offset=offset, method=method
    )
    total = float(counts.games.sum())

    def by_name(a: np.ndarray, scale: float = 1.0) -> dict[str, float]:
        return {name: float(x) * scale for name, x in zip(counts.names, a, strict=True)}

    def los(values: np.ndarray, cov: np.ndarray) -> dict[str, dict[str, float]]:
        return {a: by_name(row) for a, row in zip(counts.names, _los(values, cov), strict=True)}

    return MLEFit(
        names=counts.names,
        games=int(total),
        offset=float(offset),
        rating=by_name(overall.rating),
        rating_se=by_name(overall.rating_se),
        rating_ci95=by_name(overall.rating_se, _Z95),
        role_advantage=overall.role_advantage,
        role_advantage_se=overall.role_advantage_se,
        role_advantage_ci95=overall.role_advantage_se * _Z95,
        order_rating=by_name(by_role.order),
        order_se=by_name(by_role.order_se),
        order_ci95=by_name(by_role.order_se, _Z95),
        chaos_rating=by_name(by_role.chaos),
        chaos_se=by_name(by_role.chaos_se),
        chaos_ci95=by_name(by_role.chaos_se, _Z95),
        los=los(overall.rating, overall.rating_cov),
        order_los=los(by_role.order, by_role.cov[:n, :n]),
        chaos_los=los(by_role.chaos, by_role.cov[n:, n:]),
        order_win_rate=float(counts.order_wins.sum()) / total if total else None,
        converged=overall.converged and by_role.converged,
        rating_cov=overall.rating_cov,
        role_cov=by_role.cov,
    )


@dataclass(frozen=True)
class _RoleFit:
    """The per-role model as arrays in ``names`` order."""

    order: np.ndarray
    order_se: np.ndarray
    chaos: np.ndarray
    chaos_se: np.ndarray
    cov: np.ndarray
    """Covariance of ``[order..., chaos...]``."""
    converged: bool


def _fit_by_role(
    counts: PairCounts, *, prior_sd: float, prior_sd_role: float, offset: float, method: str
) -> _RoleFit:
    """The per-role model of ``fit_mle``: each bot's Order and Chaos strengths on one scale."""
    n = len(counts.names)
    # u = [a_0 .. a_{n-1}, b_0 .. b_{n-1}, h] with s_order = a + h/2, s_chaos = b - h/2.
    u, cov_u, ok = _posterior(counts, 2 * n, prior_sd, prior_sd_role).solve(method)
    half = np.tile(-0.5 * _active_weights(counts), (n, 1))  # minus half the mean of a + b
    transform = np.block(
        [
            [np.eye(n) + half, half, np.full((n, 1), 0.5)],
            [half, np.eye(n) + half, np.full((n, 1), -0.5)],
        ]
    )
    values, se, cov = _summarise(u * ELO_PER_LOGIT, cov_u * ELO_PER_LOGIT**2, transform)
    values = values + offset
    return _RoleFit(values[:n], se[:n], values[n:], se[n:], cov, ok)
