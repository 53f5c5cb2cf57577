"""Ratings for Order and Chaos bots: tallies, sequential Elo and an order-independent fit.

Pure functions of a sequence of games (no I/O), so the store, the CLI and the tests share them:

- ``GameResult``: the only input, one finished game (who played which role, who won);
- ``cross_table`` / ``tallies``: plain counts for standings tables;
- ``arena.ratings.elo.sequential_elo``: the classic running Elo (depends on game order);
- ``arena.ratings.mle.fit_mle``: a maximum-likelihood (MAP) fit, as BayesElo/Ordo do, which does
  not depend on game order and comes with standard errors and likelihood-of-superiority;
- ``compute_all``: all of the above bundled into ``Standings`` for the CLI and ``--json``.

Importing this package is cheap on purpose (the CLI's start-up time matters): numpy, scipy and
the ``elo`` package are imported only by the submodules, which load on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol

if TYPE_CHECKING:
    from arena.ratings.elo import EloRatings
    from arena.ratings.mle import MLEFit

__all__ = [
    "BotTally",
    "CrossCell",
    "EloRatings",
    "GameResult",
    "MLEFit",
    "Standings",
    "compute_all",
    "cross_table",
    "expected_score",
    "fit_mle",
    "order_win_rate",
    "sequential_elo",
    "tallies",
]

# Names re-exported from the submodules, loaded lazily by ``__getattr__`` below.
_LAZY = {
    "EloRatings": "arena.ratings.elo",
    "expected_score": "arena.ratings.elo",
    "sequential_elo": "arena.ratings.elo",
    "MLEFit": "arena.ratings.mle",
    "fit_mle": "arena.ratings.mle",
}


def __getattr__(name: str) -> Any:
    """Load the heavy submodules only when one of their names is first asked for."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


class GameLike(Protocol):
    """Anything with the three fields the ratings need (``GameResult`` or a look-alike)."""

    @property
    def order(self) -> str: ...

    @property
    def chaos(self) -> str: ...

    @property
    def order_won(self) -> bool: ...


class GameResult(NamedTuple):
    """One finished game, all the ratings need: Order and Chaos cannot draw."""

    order: str
    """Name of the bot that played Order."""
    chaos: str
    """Name of the bot that played Chaos."""
    order_won: bool
    """True when Order won, False when Chaos won."""

    @classmethod
    def from_record(cls, record: Any) -> GameResult:
        """Reduce an ``arena.records.GameRecord`` (or anything with ``order``, ``chaos`` and a
        ``winner`` role or ``"order"``/``"chaos"`` string) to what the ratings use."""
        winner = getattr(record.winner, "value", record.winner)
        if winner not in ("order", "chaos"):
            raise ValueError(f"unknown winner {record.winner!r}")
        return cls(str(record.order), str(record.chaos), winner == "order")

    @property
    def winner(self) -> str:
        """Name of the winning bot."""
        return self.order if self.order_won else self.chaos

    @property
    def loser(self) -> str:
        """Name of the losing bot."""
        return self.chaos if self.order_won else self.order


class CrossCell(NamedTuple):
    """The row bot's results against the column bot, split by the role the row bot played."""

    order_wins: int
    """Games the row bot won playing Order against the column bot as Chaos."""
    order_games: int
    """Games the row bot played as Order against the column bot as Chaos."""
    chaos_wins: int
    """Games the row bot won playing Chaos against the column bot as Order."""
    chaos_games: int
    """Games the row bot played as Chaos against the column bot as Order."""


@dataclass(frozen=True)
class BotTally:
    """Raw counts for one bot; a game a bot plays against itself counts once in each role."""

    name: str
    """The bot's name."""
    games: int
    """Games played in either role (``games_order + games_chaos``)."""
    wins: int
    """Games won in either role (``wins_order + wins_chaos``)."""
    wins_order: int
    """Games won as Order."""
    games_order: int
    """Games played as Order."""
    wins_chaos: int
    """Games won as Chaos."""
    games_chaos: int
    """Games played as Chaos."""

    @property
    def win_rate(self) -> float | None:
        """Fraction of games won, or None without games (never NaN, so JSON stays valid)."""
        return self.wins / self.games if self.games else None


def _names(games: Iterable[GameLike], names: Iterable[str] = ()) -> list[str]:
    """Sorted union of the bots in ``games`` and ``names``: sorting makes every result
    independent of the order games were played in."""
    found = set(names)
    for g in games:
        found.add(g.order)
        found.add(g.chaos)
    return sorted(found)


def cross_table(
    games: Iterable[GameLike], names: Iterable[str] = ()
) -> dict[str, dict[str, CrossCell]]:
    """``table[row][col]``: the row bot's results against the column bot, by the row's role.

    Every bot (from ``games`` and ``names``) has a row; a row holds a cell only for the opponents
    it met, in either role, so ``table[a][b]`` exists exactly when ``table[b][a]`` does.
    """
    games = list(games)
    # counts[(order_bot, chaos_bot)] = [order wins, games]
    counts: dict[tuple[str, str], list[int]] = {}
    for g in games:
        c = counts.setdefault((g.order, g.chaos), [0, 0])
        c[0] += bool(g.order_won)
        c[1] += 1
    table: dict[str, dict[str, CrossCell]] = {name: {} for name in _names(games, names)}
    for row, col in sorted({pair for o, c in counts for pair in ((o, c), (c, o))}):
        ow, og = counts.get((row, col), (0, 0))
        # The row as Chaos against the column as Order: the row wins the games Order lost.
        cw, cg = counts.get((col, row), (0, 0))
        table[row][col] = CrossCell(ow, og, cg - cw, cg)
    return table


def tallies(games: Iterable[GameLike], names: Iterable[str] = ()) -> dict[str, BotTally]:
    """Per-bot counts of games and wins, overall and by role, in name order."""
    games = list(games)
    # name -> [wins as Order, games as Order, wins as Chaos, games as Chaos]
    acc = {name: [0, 0, 0, 0] for name in _names(games, names)}
    for g in games:
        won = bool(g.order_won)
        o, c = acc[g.order], acc[g.chaos]
        o[0] += won
        o[1] += 1
        c[2] += not won
        c[3] += 1
    return {
        name: BotTally(name, og + cg, ow + cw, ow, og, cw, cg)
        for name, (ow, og, cw, cg) in acc.items()
    }


def order_win_rate(games: Iterable[GameLike]) -> float | None:
    """Fraction of games Order won, or None without games."""
    n = wins = 0
    for g in games:
        n += 1
        wins += bool(g.order_won)
    return wins / n if n else None


@dataclass(frozen=True)
class Standings:
    """Everything a standings table shows, computed once; ``to_json`` for ``--json``."""

    bots: list[str]
    """Bot names, best first by the maximum-likelihood rating (ties by name)."""
    tallies: dict[str, BotTally]
    """Raw game and win counts per bot."""
    elo: EloRatings
    """Sequential Elo (order-dependent, the familiar running rating)."""
    mle: MLEFit
    """Order-independent maximum-likelihood ratings with intervals and LOS."""
    cross: dict[str, dict[str, CrossCell]]
    """Head-to-head results, see ``cross_table``."""
    games: int
    """Number of games rated."""
    order_win_rate: float | None
    """Fraction of all games Order won, None without games."""

    def to_json(self) -> dict[str, Any]:
        """Plain dicts, lists, ints, floats and None only: ready for ``json.dumps``."""
        m, e = self.mle, self.elo
        bots = []
        for name in self.bots:
            t = self.tallies[name]
            bots.append(
                {
                    "name": name,
                    "games": t.games,
                    "wins": t.wins,
                    "wins_order": t.wins_order,
                    "games_order": t.games_order,
                    "wins_chaos": t.wins_chaos,
                    "games_chaos": t.games_chaos,
                    "elo": float(m.rating[name]),
                    "elo_ci95": float(m.rating_ci95[name]),
                    "elo_order": float(m.order_rating[name]),
                    "elo_order_ci95": float(m.order_ci95[name]),
                    "elo_chaos": float(m.chaos_rating[name]),
                    "elo_chaos_ci95": float(m.chaos_ci95[name]),
                    "elo_sequential": float(e.overall[name]),
                    "elo_sequential_order": float(e.as_order[name]),
                    "elo_sequential_chaos": float(e.as_chaos[name]),
                }
            )
        return {
            "bots": bots,
            "games": self.games,
            "order_win_rate": self.order_win_rate,
            "role_advantage": float(m.role_advantage),
            "role_advantage_ci95": float(m.role_advantage_ci95),
            "los": {a: {b: float(p) for b, p in row.items()} for a, row in m.los.items()},
            "cross_table": {
                row: {col: cell._asdict() for col, cell in cells.items()}
                for row, cells in self.cross.items()
            },
        }


def compute_all(
    games: Iterable[GameLike],
    *,
    names: Sequence[str] = (),
    k: float = 16.0,
    offset: float = 1500.0,
    prior_sd: float = 400.0,
    prior_sd_role: float = 1000.0,
    elo_backend: Literal["auto", "package", "builtin"] = "auto",
) -> Standings:
    """Tallies, sequential Elo and the maximum-likelihood fit of ``games`` (in play order).

    ``names`` adds bots that have no games yet (they get prior-only ratings). ``offset`` places
    the average bot of the fit at 1500, the sequential Elo's starting rating, so that the two
    columns read on the same scale. See ``sequential_elo`` and ``fit_mle`` for the rest.
    """
    from arena.ratings.elo import sequential_elo
    from arena.ratings.mle import fit_mle

    games = [
        g if isinstance(g, GameResult) else GameResult(g.order, g.chaos, g.order_won) for g in games
    ]
    fit = fit_mle(games, names=names, prior_sd=prior_sd, prior_sd_role=prior_sd_role, offset=offset)
    seq = sequential_elo(games, names=fit.names, k=k, initial=offset, backend=elo_backend)
    return Standings(
        bots=sorted(fit.names, key=lambda n: (-fit.rating[n], n)),
        tallies=tallies(games, fit.names),
        elo=seq,
        mle=fit,
        cross=cross_table(games, fit.names),
        games=len(games),
        order_win_rate=order_win_rate(games),
    )
