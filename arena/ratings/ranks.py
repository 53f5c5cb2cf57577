"""Rank intervals: how settled each place is, from the fit's ratings and their covariance.

A place is settled when the strengths it rests on are: the ranks are drawn from the fit's
posterior (a normal law with its covariance), and each bot's interval holds the central ``level``
of its drawn ranks. The draws are seeded, so the same games give the same intervals.
"""

from __future__ import annotations

import numpy as np

DRAWS = 2000
"""Posterior draws: enough that a 95% interval's ends move by at most a place between seeds."""


def rank_intervals(
    rating: np.ndarray, cov: np.ndarray, level: float = 0.95, *, draws: int = DRAWS, seed: int = 0
) -> np.ndarray:
    """Each bot's rank interval (1 is the strongest) at ``level``: an ``(n, 2)`` int array of the
    lowest and highest rank, inclusive."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    n = rating.size
    if n == 0:
        return np.zeros((0, 2), dtype=np.int64)
    # The covariance of ratings relative to their average is singular: eigh copes with that.
    values, vectors = np.linalg.eigh(cov)
    scale = vectors * np.sqrt(np.clip(values, 0.0, None))
    normal = np.random.default_rng(seed).standard_normal((draws, n))
    drawn = rating[None, :] + normal @ scale.T
    ranks = np.empty((draws, n), dtype=np.int64)
    rows = np.arange(draws)[:, None]
    ranks[rows, np.argsort(-drawn, axis=1, kind="stable")] = np.arange(1, n + 1)[None, :]
    tail = (1.0 - level) / 2.0
    low = np.quantile(ranks, tail, axis=0, method="inverted_cdf")
    high = np.quantile(ranks, 1.0 - tail, axis=0, method="inverted_cdf")
    return np.column_stack([low, high]).astype(np.int64)
