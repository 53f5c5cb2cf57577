"""Sequential (running) Elo: each game moves both players' ratings, in play order.

This is the rating people know, and it is what a live tournament can show after every game, but
it depends on the order games were played and forgets old results; ``arena.ratings.mle`` gives
the order-independent fit. The arithmetic comes from the ``elo`` package (0.1.1) where it is
installed; that package cannot be installed on Python >= 3.12, so a built-in implementation of
the same formula is used there (and can be forced, to check that both agree):

    E = 1 / (1 + 10 ** ((r_other - r) / 400)),    r_new = r + K * (score - E).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from arena.ratings import GameLike

__all__ = ["Backend", "EloRatings", "expected_score", "package_available", "sequential_elo"]

Backend = Literal["auto", "package", "builtin"]

# The package's scale: its ``beta`` is half the 400-point "10 to 1" rating difference.
_BETA = 200.0

Rater = Callable[[float, float], tuple[float, float]]


def expected_score(rating: float, other: float) -> float:
    """Expected score (win probability) of a player rated ``rating`` against ``other``."""
    return float(1.0 / (1.0 + 10.0 ** ((other - rating) / (2.0 * _BETA))))


def package_available() -> bool:
    """Whether the ``elo`` package can be imported (it cannot on Python >= 3.12)."""
    try:
        import elo  # noqa: F401
    except ImportError:
        return False
    return True


def _builtin_rater(k: float) -> Rater:
    """Our own ``rate_1vs1``: both players move by K times their surprise."""

    def rate(winner: float, loser: float) -> tuple[float, float]:
        return (
            winner + k * (1.0 - expected_score(winner, loser)),
            loser + k * (0.0 - expected_score(loser, winner)),
        )

    return rate


def _package_rater(k: float, initial: float) -> Rater:
    """``elo.Elo.rate_1vs1`` with plain floats: the package's Rating class has a ``__repr__``
    that fails on Python 3.11, so it must never be handed out."""
    import elo

    env = elo.Elo(k_factor=k, rating_class=float, initial=initial, beta=_BETA)

    def rate(winner: float, loser: float) -> tuple[float, float]:
        w, l_ = env.rate_1vs1(float(winner), float(loser))
        return float(w), float(l_)

    return rate


def _rater(backend: Backend, k: float, initial: float) -> tuple[Rater, str]:
    """Pick the implementation; ``package`` raises ImportError where the package is absent."""
    if backend == "builtin":
        return _builtin_rater(k), "builtin"
    if backend == "package":
        return _package_rater(k, initial), "package"
    if backend == "auto":
        try:
            return _package_rater(k, initial), "package"
        except ImportError:
            return _builtin_rater(k), "builtin"
    raise ValueError(f"unknown Elo backend {backend!r} (expected auto, package or builtin)")


@dataclass(frozen=True)
class EloRatings:
    """Sequential Elo ratings after the last game.

    ``as_order`` and ``as_chaos`` are on one scale: ``expected_score(as_order[a], as_chaos[b])``
    predicts that ``a`` playing Order beats ``b`` playing Chaos.
    """

    overall: dict[str, float]
    """One rating per bot, whatever role it played (games against itself are skipped)."""
    as_order: dict[str, float]
    """Rating of each bot's Order play, updated only against Chaos ratings."""
    as_chaos: dict[str, float]
    """Rating of each bot's Chaos play, updated only against Order ratings."""
    k: float
    """The K-factor used."""
    initial: float
    """The starting rating of every bot and role."""
    backend: str
    """Which implementation did the arithmetic: ``"package"`` (``elo``) or ``"builtin"``."""

    def expected(self, order_bot: str, chaos_bot: str) -> float:
        """Predicted probability that ``order_bot`` as Order beats ``chaos_bot`` as Chaos."""
        return expected_score(self.as_order[order_bot], self.as_chaos[chaos_bot])


def sequential_elo(
    games: Iterable[GameLike],
    *,
    k: float = 16.0,
    initial: float = 1500.0,
    backend: Backend = "auto",
    names: Iterable[str] = (),
) -> EloRatings:
    """Run Elo over ``games`` in the given (play) order.

    Overall: the Order bot and the Chaos bot each have one rating. Per role: each bot has an
    Order entity and a Chaos entity, and a game is rated between the Order bot's Order entity
    and the Chaos bot's Chaos entity, so Order's advantage shows as Order entities drifting up.
    A game a bot plays against itself says nothing about its overall rating and is skipped
    there, but it still rates its Order play against its Chaos play.

    ``backend``: ``"auto"`` uses the ``elo`` package when installed and the built-in formula
    otherwise; ``"package"`` insists on the package; ``"builtin"`` forces the fallback.
    ``names`` adds bots without games, which keep ``initial``.
    """
    rate, used = _rater(backend, float(k), float(initial))
    overall: dict[str, float] = {}
    as_order: dict[str, float] = {}
    as_chaos: dict[str, float] = {}
    for name in names:
        overall[name] = as_order[name] = as_chaos[name] = float(initial)
    for g in games:
        for name in (g.order, g.chaos):
            if name not in overall:
                overall[name] = as_order[name] = as_chaos[name] = float(initial)
        if g.order_won:
            as_order[g.order], as_chaos[g.chaos] = rate(as_order[g.order], as_chaos[g.chaos])
        else:
            as_chaos[g.chaos], as_order[g.order] = rate(as_chaos[g.chaos], as_order[g.order])
        if g.order != g.chaos:
            winner, loser = (g.order, g.chaos) if g.order_won else (g.chaos, g.order)
            overall[winner], overall[loser] = rate(overall[winner], overall[loser])
    order = sorted(overall)
    return EloRatings(
        overall={n: overall[n] for n in order},
        as_order={n: as_order[n] for n in order},
        as_chaos={n: as_chaos[n] for n in order},
        k=float(k),
        initial=float(initial),
        backend=used,
    )
