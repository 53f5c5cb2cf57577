"""When a course has played enough: a stopping rule on how settled its top is, and a budget.

``until: {top: K, los: 0.95}`` holds when each of the fit's top K is ahead of the bot placed
next with at least that likelihood of superiority; ``budget: {games: G}`` caps the games. Pure:
both are read from the fit of the games of finished rounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy and the fit are imported where used: a config reads these classes
    import numpy as np

    from arena.ratings.mle import OverallFit


@dataclass(frozen=True)
class StopRule:
    """Stop once each of the top ``top`` is separated from the next with likelihood ``los``."""

    top: int
    los: float = 0.95

    def __post_init__(self) -> None:
        if self.top < 1:
            raise ValueError(f"top must be at least 1, got {self.top}")
        if not 0.5 < self.los < 1.0:
            raise ValueError(f"los must be between 0.5 and 1, got {self.los}")

    def holds(self, fit: OverallFit) -> bool:
        """Whether every place of the top is separated from the next (a pool no larger than
        ``top`` needs every place separated)."""
        import numpy as np

        return bool(np.all(adjacent_los(fit)[: self.top] >= self.los))


@dataclass(frozen=True)
class Budget:
    """At most ``games`` games in the whole course."""

    games: int

    def __post_init__(self) -> None:
        if self.games < 1:
            raise ValueError(f"a budget needs at least 1 game, got {self.games}")


def placing(fit: OverallFit) -> np.ndarray:
    """The bots' indices in ``fit.names`` from the strongest down (ties by name)."""
    import numpy as np

    order: np.ndarray = np.lexsort((np.arange(len(fit.names)), -fit.rating))
    return order


def adjacent_los(fit: OverallFit) -> np.ndarray:
    """For each place but the last, the likelihood that its bot is stronger than the next's."""
    order = placing(fit)
    return fit.los_between(order[:-1], order[1:])


def trimmed_to_budget(
    pairings: Sequence[tuple[str, str]], games_per_pairing: int, games_left: int
) -> tuple[tuple[str, str], ...]:
    """The first pairings of a round that fit in what is left of the budget, whole: a pairing
    plays both roles or not at all."""
    fitting = max(games_left, 0) // games_per_pairing
    return tuple(pairings[:fitting])
