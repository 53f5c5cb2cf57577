"""Rank intervals from the fit: settled places are points, unsettled ones spread, all seeded."""

from __future__ import annotations

import numpy as np
import pytest

from arena.ratings import GameResult
from arena.ratings.mle import aggregate, fit_pooled
from arena.ratings.ranks import rank_intervals


def _ladder(games_per_pair: int, step: float, seed: int = 0) -> list[GameResult]:
    """Five bots ``step`` Elo apart, every ordered pairing ``games_per_pair`` times."""
    rng = np.random.default_rng(seed)
    strength = {f"b{i}": -step * i for i in range(5)}
    games = []
    for order in strength:
        for chaos in strength:
            if order != chaos:
                p = 1.0 / (1.0 + 10.0 ** (-(strength[order] - strength[chaos]) / 400.0))
                games += [GameResult(order, chaos, bool(w)) for w in rng.random(games_per_pair) < p]
    return games


def test_a_clearly_separated_pool_has_one_rank_per_bot() -> None:
    fit = fit_pooled(aggregate(_ladder(200, 400.0)))
    intervals = rank_intervals(fit.rating, fit.rating_cov)
    assert intervals.tolist() == [[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]]


def test_without_games_every_place_is_open() -> None:
    fit = fit_pooled(aggregate([], names=["a", "b", "c", "d"]))
    assert rank_intervals(fit.rating, fit.rating_cov).tolist() == [[1, 4]] * 4


def test_close_bots_share_their_places_and_the_same_games_give_the_same_intervals() -> None:
    fit = fit_pooled(aggregate(_ladder(4, 20.0)))
    intervals = rank_intervals(fit.rating, fit.rating_cov, 0.9)
    assert (intervals[:, 1] - intervals[:, 0] >= 1).all()
    assert (intervals == rank_intervals(fit.rating, fit.rating_cov, 0.9)).all()
    narrower = rank_intervals(fit.rating, fit.rating_cov, 0.5)
    assert (narrower[:, 1] - narrower[:, 0] <= intervals[:, 1] - intervals[:, 0]).all()


def test_a_level_outside_zero_and_one_is_refused() -> None:
    with pytest.raises(ValueError, match="level"):
        rank_intervals(np.zeros(2), np.eye(2), 1.0)


def test_the_pooled_fit_takes_the_pools_spread_as_its_prior() -> None:
    from arena.ratings.mle import fit_overall

    counts = aggregate(_ladder(3, 20.0, seed=4))  # a narrow pool, few games
    wide = fit_overall(counts)  # the default prior: sd 400
    pooled = fit_pooled(counts)
    assert np.std(pooled.rating) < np.std(wide.rating)
    assert (pooled.rating_se < wide.rating_se).all()
