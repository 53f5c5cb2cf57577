"""Ratings for Order and Chaos bots: tallies, sequential Elo and an order-independent fit.

Pure functions of ``GameResult``s (no I/O): ``cross_table``/``tallies``, ``elo`` (running Elo in a
canonical order), ``mle.fit_mle`` (the order-independent fit) and ``standings`` (the one model every
view renders). Importing this package is cheap: numpy, scipy and ``elo`` load with the submodules.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from arena.lazy import lazy_getattr

if TYPE_CHECKING:
    from arena.ratings.elo import EloRatings
    from arena.ratings.mle import MLEFit
    from arena.ratings.standings import BotStanding, Standings

__all__ = [
    "ELO_PER_LOGIT",
    "BotStanding",
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

ELO_PER_LOGIT = 400.0 / math.log(10.0)
"""Elo points per unit of natural log-odds (about 173.7): 400 points are odds of 10 to 1."""


def expected_score(rating: float, other: float) -> float:
    """Expected score (win probability) of a player rated ``rating`` against ``other``: the
    Elo scale that sequential Elo and the fit share."""
    return 1.0 / (1.0 + float(10.0 ** ((other - rating) / 400.0)))


# Names re-exported from the submodules, loaded lazily by ``__getattr__`` below.
_LAZY = {
    "EloRatings": "arena.ratings.elo",
    "sequential_elo": "arena.ratings.elo",
    "MLEFit": "arena.ratings.mle",
    "fit_mle": "arena.ratings.mle",
    "BotStanding": "arena.ratings.standings",
    "Standings": "arena.ratings.standings",
    "compute_all": "arena.ratings.standings",
}


__getattr__ = lazy_getattr(__name__, _LAZY, globals())


class GameLike(Protocol):
    """Anything with the three fields the ratings need (``GameResult`` or a look-alike)."""

    @property
    def order(self) -> str: ...

    @property
    def chaos(self) -> str: ...

    @property
    def order_won(self) -> bool: ...


class GameResult(NamedTuple):
    """One finished game, all the ratings need: Order and Chaos cannot draw.

    Only the first three fields are rated; the others feed the fault counts, the survival
    statistic and the canonical order of the sequential Elo, and default to "unknown".
    """

    order: str
    """Name of the bot that played Order."""
    chaos: str
    """Name of the bot that played Chaos."""
    order_won: bool
    """True when Order won, False when Chaos won."""
    reason: str = ""
    """How the game ended (an ``arena.rules.Reason`` value: ``five``, ``full``, ``timeout``...);
    empty when unknown. For a fault, the loser is the bot at fault."""
    plies: int = 0
    """Marks on the board when the game ended (the opening's and the bots' moves)."""
    key: str = ""
    """A digest of the game's content (players, result, opening and moves): identical games have
    the same key, so sorting by it orders games independently of when they were played. Empty
    when unknown (such games keep their given order)."""

    @classmethod
    def from_record(cls, record: Any) -> GameResult:
        """Reduce an ``arena.records.GameRecord`` (or anything with ``order``, ``chaos`` and a
        ``winner`` role or ``"order"``/``"chaos"`` string) to what the ratings use."""
        winner = getattr(record.winner, "value", record.winner)
        reason = str(getattr(getattr(record, "reason", ""), "value", getattr(record, "reason", "")))
        opening = [str(m) for m in getattr(record, "opening", None) or ()]
        moves = [str(m) for m in getattr(record, "moves", None) or ()]
        return cls.from_texts(
            str(record.order),
            str(record.chaos),
            winner,
            reason,
            " ".join(opening),
            " ".join(moves),
            len(opening) + len(moves),
        )

    @classmethod
    def from_texts(
        cls, order: str, chaos: str, winner: str, reason: str, opening: str, moves: str, plies: int
    ) -> GameResult:
        """A game given as text: ``winner`` ``"order"`` or ``"chaos"``, the opening's and the
        bots' move tokens each joined by single spaces, and the number of both. The standings
        of a store read its games this way (``Store.results``): no list of moves is built."""
        import hashlib  # here, not at the top: `arena match` imports this package, never this

        if winner not in ("order", "chaos"):
            raise ValueError(f"unknown winner {winner!r}")
        content = "\n".join([order, chaos, winner, reason, opening, moves])
        key = hashlib.blake2b(content.encode("utf-8", "surrogateescape"), digest_size=8).hexdigest()
        return cls(order, chaos, winner == "order", reason, plies, key)

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
