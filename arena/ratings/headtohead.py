"""Two bots, both roles: the Elo difference with Order's advantage taken out, in closed form.

What ``arena match`` reports: the model of the standings' fit has two cells and two parameters for
two bots, so its maximum likelihood is exact (no optimiser, no numpy): ``d = (logit(p_a) -
logit(p_b)) / 2``, as Ordo computes it (``ordo -W -d 0 -z 200.24``). Details: ``docs/ratings.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from arena.ratings import ELO_PER_LOGIT

_Z95 = 1.959963984540054


@dataclass(frozen=True)
class HeadToHead:
    """The Elo difference between bots A and B from their games in both roles."""

    diff: float | None
    """A's rating minus B's in Elo points, Order's advantage taken out (None: one of the two
    role assignments was never played, so strength and role cannot be told apart)."""
    ci95: float | None
    """Half-width of its 95% interval (None with ``diff``)."""
    los: float | None
    """Likelihood of superiority: the probability that A is the stronger (None with ``diff``)."""
    order_advantage: float | None
    """``h``: Order's advantage between these two bots, in Elo points."""
    bound: Literal["", ">", "<"] = ""
    """``">"``: A won every game, so ``diff`` is only a lower bound; ``"<"``: A lost every game;
    ``""``: an ordinary estimate."""

    def text(self) -> str:
        """``+120 ±80``, ``>+350`` or ``-``."""
        if self.diff is None:
            return "-"
        diff = round(self.diff)  # an int: never "-0"
        if self.bound or self.ci95 is None:
            return f"{self.bound}{diff:+d}"
        return f"{diff:+d} ±{round(self.ci95)}"


def _logit(wins: int, games: int) -> tuple[float, float]:
    """Log-odds of the win rate and its variance; Haldane's correction at 0 and 1."""
    if 0 < wins < games:
        w, n = float(wins), float(games)
    else:
        w, n = wins + 0.5, games + 1.0
    p = w / n
    return math.log(p / (1.0 - p)), 1.0 / (n * p * (1.0 - p))


def head_to_head(
    a_order_wins: int, a_order_games: int, b_order_wins: int, b_order_games: int
) -> HeadToHead:
    """A against B: ``a_order_*`` are A's wins and games as Order against B as Chaos,
    ``b_order_*`` B's as Order against A as Chaos."""
    if a_order_games <= 0 or b_order_games <= 0:
        return HeadToHead(None, None, None, None)
    la, va = _logit(a_order_wins, a_order_games)
    lb, vb = _logit(b_order_wins, b_order_games)
    d = (la - lb) / 2.0
    se = math.sqrt(va + vb) / 2.0
    a_won_all = a_order_wins == a_order_games and b_order_wins == 0
    a_lost_all = a_order_wins == 0 and b_order_wins == b_order_games
    bound: Literal["", ">", "<"] = ">" if a_won_all else "<" if a_lost_all else ""
    los = 0.5 * (1.0 + math.erf(d / se / math.sqrt(2.0)))
    return HeadToHead(
        diff=d * ELO_PER_LOGIT,
        ci95=None if bound else _Z95 * se * ELO_PER_LOGIT,
        los=los,
        order_advantage=(la + lb) / 2.0 * ELO_PER_LOGIT,
        bound=bound,
    )
