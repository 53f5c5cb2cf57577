"""Sequential (running) Elo: each game moves both players' ratings, one game after another.

Games are rated in ``canonical_order`` (a fixed interleaving of rounds that depends only on the
games), so the same games always give the same numbers whatever the schedule. The arithmetic is the
``elo`` package's where it is installed (not on Python >= 3.12), else the same formula built in.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeVar

from arena.ratings import expected_score

if TYPE_CHECKING:
    from arena.ratings import GameLike


DEFAULT_K = 16.0
"""The K-factor of the standings' sequential Elo (the most a game can move a rating is K)."""

DEFAULT_INITIAL = 1500.0
"""The starting rating of every bot (and of each of its roles) in the sequential Elo."""

CANONICAL_ORDER = (
    "rounds: the n-th game of every (Order, Chaos) pairing, pairings shuffled by a fixed seed per "
    "round, each pairing's games sorted by a digest of their content"
)
"""How ``canonical_order`` orders games, in words (for ``--json`` and the standings' footer)."""

G = TypeVar("G", bound="GameLike")

Backend = Literal["auto", "package", "builtin"]

# The package's scale: its ``beta`` is half the 400-point "10 to 1" rating difference.
_BETA = 200.0

Rater = Callable[[float, float], tuple[float, float]]


def canonical_order(games: Iterable[G]) -> list[G]:
    """The games in an order that depends only on the games, not on when they were played.

    Round ``r`` holds the ``r``-th game of every (Order bot, Chaos bot) pairing that has one, the
    pairings shuffled by a generator seeded with ``r`` (so no bot is always rated first or last
    in a round); within a pairing, games are sorted by their content digest (``key``, see
    ``GameResult``), so that a rerun whose games finished in another order gives the same
    sequence. Games without a key keep their given order within their pairing.
    """
    by_pair: dict[tuple[str, str], list[G]] = {}
    for g in games:
        by_pair.setdefault((g.order, g.chaos), []).append(g)
    for pair_games in by_pair.values():
        pair_games.sort(key=lambda g: str(getattr(g, "key", "")))
    pairs = sorted(by_pair)
    rounds = max((len(v) for v in by_pair.values()), default=0)
    ordered: list[G] = []
    for r in range(rounds):
        present: Sequence[tuple[str, str]] = [p for p in pairs if len(by_pair[p]) > r]
        present = random.Random(r).sample(present, len(present))
        ordered.extend(by_pair[p][r] for p in present)
    return ordered


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
    k: float = DEFAULT_K,
    initial: float = DEFAULT_INITIAL,
    backend: Backend = "auto",
    names: Iterable[str] = (),
) -> EloRatings:
    """Run Elo over ``games`` in the given order (``canonical_order`` gives a reproducible one).

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
