"""A late entry placed in a course: meetings near its estimated strength until its place is
known, not a game against every bot.

Its first opponent is the bot in the middle of the standings; each next one is the bot it has not
met whose rating is closest to its own, as the fit of every game so far puts it, so that it moves
up after wins and down after losses. It is placed once its rank interval is no wider than those of
the bots placed around it (known as well as theirs), or when it has met every bot. Pure: the next
meeting is a function of the games so far.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the fit (numpy, scipy) is imported where used: a config reads the plan
    from arena.ratings import GameLike
    from arena.ratings.mle import OverallFit


def next_opponent(
    entry: str, pool: Sequence[str], games: Sequence[GameLike], *, level: float
) -> str | None:
    """The bot of ``pool`` that ``entry`` meets next (both roles), or None once it is placed at
    ``level`` (the stopping rule's likelihood) or has met every bot of ``pool``."""
    from arena.tournament.course import course_fit

    met = {g.chaos if g.order == entry else g.order for g in games if entry in (g.order, g.chaos)}
    fit = course_fit([*pool, entry], [games])
    if met and is_placed(fit, entry, level):
        return None
    unmet = [bot for bot in pool if bot not in met]
    if not unmet:
        return None
    rating = dict(zip(fit.names, fit.rating.tolist(), strict=True))
    middle = sorted(rating[bot] for bot in pool)[len(pool) // 2]
    target = rating[entry] if met else middle
    return min(unmet, key=lambda bot: (abs(rating[bot] - target), -rating[bot], bot))


def is_placed(fit: OverallFit, entry: str, level: float) -> bool:
    """Whether ``entry``'s rank interval at ``level`` is no wider than the median width of the
    intervals of the bots whose rank lies in it."""
    import numpy as np

    from arena.ratings.ranks import rank_intervals

    intervals = rank_intervals(fit.rating, fit.rating_cov, level)
    index = fit.names.index(entry)
    low, high = intervals[index]
    rank = np.empty(len(fit.names), dtype=np.int64)
    rank[np.argsort(-fit.rating, kind="stable")] = np.arange(1, len(fit.names) + 1)
    around = (rank >= low) & (rank <= high)
    around[index] = False
    if not around.any():
        return True
    widths = intervals[around, 1] - intervals[around, 0]
    return bool(high - low <= np.median(widths))
