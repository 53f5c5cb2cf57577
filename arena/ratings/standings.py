"""The standings model: everything a standings table says about a set of games, computed once.

``compute_all`` builds a ``Standings`` from games; the terminal table
(``arena.commands.ratings``), ``arena ratings --json`` (``Standings.to_json``) and any future
report render this one typed model, so no renderer recomputes a number or reads back another
renderer's output.

A rating is shown for what it is (``Rating``): a value with its interval, or nothing at all for
a role the bot never played. It is a *bound* when the bot won or lost every game it played: the
likelihood then has no maximum and the prior alone sets the number.

This module imports only the standard library and ``arena.rules`` at import time; the fit and the
sequential Elo (numpy, scipy, ``elo``) load when ``compute_all`` runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from arena.ratings import BotTally, CrossCell, GameLike, GameResult, cross_table, tallies
from arena.rules import Reason

if TYPE_CHECKING:
    from arena.ratings.elo import EloRatings
    from arena.ratings.mle import MLEFit


FAULT_NAMES: tuple[str, ...] = tuple(r.value for r in Reason if r.is_fault)
"""The reasons a bot can lose by its own fault, in a fixed order: timeout, illegal, malformed,
crash, startup."""

SURVIVAL_DEFINITION = (
    "the number of marks on the board when the bot lost as Chaos to Order's five, not by a"
    " fault of its own (36 would be a full board, a Chaos win)"
)
"""The one definition of survival, which the table's footer, the report and docs/ratings.md quote:
the mean, the shortest and the longest loss, overall and per Order opponent, are all over the
same games (a Chaos timeout at ply 9 says nothing about how long it holds out on the board)."""

Bound = Literal["", ">", "<"]


@dataclass(frozen=True)
class Rating:
    """One rating as the data support it: a value with its interval, a bound, or nothing."""

    value: float | None
    """The fitted rating (Elo points), or None when the bot never played (in this role)."""
    ci95: float | None
    """Half-width of the 95% interval, or None with ``value`` (or for a bound, whose interval
    is the prior's, not the data's)."""
    bound: Bound = ""
    """``">"`` when the bot won every game it played (in this role): the data only say it is
    better than the others, and ``value`` is where the prior stops it; ``"<"`` when it lost
    every game; ``""`` for an ordinary estimate."""

    def text(self, interval: bool = True) -> str:
        """``1523 ±12``, ``>1850``, ``<1200`` or ``-``."""
        if self.value is None:
            return "-"
        value = int(round(self.value))  # never "-0"
        if self.bound:
            return f"{self.bound}{value}"
        if interval and self.ci95 is not None:
            return f"{value} ±{round(self.ci95)}"
        return f"{value}"

    def to_json(self) -> dict[str, Any]:
        """``{"value", "ci95", "bound"}`` with None for what is not known (``bound`` null for an
        ordinary estimate)."""
        return {"value": self.value, "ci95": self.ci95, "bound": self.bound or None}


class _ChaosRecord:
    """What ``SurvivalCell`` (one Order opponent) and ``Survival`` (all of them) both tell of a
    Chaos bot's games: its win rate and their JSON."""

    games: int
    wins: int
    mean_plies_lost: float | None

    @property
    def win_rate(self) -> float | None:
        """Fraction of these Chaos games won, None without games."""
        return self.wins / self.games if self.games else None

    def _record_json(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in ("games", "wins", "win_rate", "mean_plies_lost")}


@dataclass(frozen=True)
class SurvivalCell(_ChaosRecord):
    """How one Chaos bot fared against one Order bot."""

    games: int
    """Games the Chaos bot played against this Order bot."""
    wins: int
    """Of those, games the Chaos bot won (the board filled, or Order faulted)."""
    mean_plies_lost: float | None
    """Mean number of marks on the board when the Chaos bot lost to a five (None: it never
    did; ``SURVIVAL_DEFINITION``)."""

    def to_json(self) -> dict[str, Any]:
        return self._record_json()


@dataclass(frozen=True)
class Survival(_ChaosRecord):
    """A Chaos bot's survival: Chaos rarely wins against a good Order, so how long it
    holds out before losing is what tells Chaos bots apart."""

    games: int
    """Games played as Chaos."""
    wins: int
    """Games won as Chaos."""
    mean_plies_lost: float | None
    """The survival score: mean number of marks on the board when it lost to a five as Chaos
    (None: it never did; ``SURVIVAL_DEFINITION``). 36 would be a full board."""
    by_order: dict[str, SurvivalCell]
    """Per Order opponent (by name, sorted), its results against that bot."""
    shortest_loss: int | None = None
    """The fewest marks on the board in one of those losses (None: none)."""
    longest_loss: int | None = None
    """The most marks on the board in one of those losses (None: none)."""

    def to_json(self) -> dict[str, Any]:
        return {
            **self._record_json(),
            "shortest_loss": self.shortest_loss,
            "longest_loss": self.longest_loss,
            "by_order": {name: cell.to_json() for name, cell in self.by_order.items()},
        }


@dataclass(frozen=True)
class BotStanding:
    """One bot's line of the standings."""

    name: str
    """The bot's name."""
    rank: int
    """1 for the best overall fitted rating (bots without games come last)."""
    group: int
    """Index in ``Standings.groups`` of the group of bots it is connected to by games
    (-1 for a bot without games)."""
    tally: BotTally
    """Its games and wins, overall and per role."""
    rating: Rating
    """The overall fitted rating (Bradley–Terry with Order's advantage, all games at once)."""
    order: Rating
    """The per-role fit's rating of its Order play."""
    chaos: Rating
    """The per-role fit's rating of its Chaos play (same scale as ``order``)."""
    sequential: float | None
    """Sequential Elo over the games in canonical order (None without games)."""
    sequential_order: float | None
    """Sequential Elo of its Order play (None: never played Order)."""
    sequential_chaos: float | None
    """Sequential Elo of its Chaos play (None: never played Chaos)."""
    faults: dict[str, int]
    """Games it lost by its own fault, by reason (every name of ``FAULT_NAMES``, zeros
    included, in that order)."""
    survival: Survival | None
    """Its survival as Chaos (None: never played Chaos)."""
    display_name: str = ""
    """The name the bot gave itself with ``ready <name>`` in its latest game ("" if none): the
    bot's own words, shown beside ``name``, never instead of it."""
    shared_rank: int = 0
    """The rank it shares with the bots it is tied with (``tied``): the first one's; 0 reads as
    ``rank``."""
    tied: bool = False
    """Whether another bot has exactly its results and rating (``_tied``): listed after or before
    it only by name, the same place."""
    rank_interval: tuple[int, int] | None = None
    """How settled its place is: the best and worst rank at the standings' level
    (``arena.ratings.ranks``; None: not asked for, or no games)."""
    swiss_score: float | None = None
    """A Swiss course's score: games won, and a bye's points (None: not a Swiss course)."""

    @property
    def place(self) -> str:
        """Its rank as a table shows it: ``3``, or ``3=`` when tied."""
        return f"{self.shared_rank or self.rank}{'=' if self.tied else ''}"

    @property
    def score(self) -> float | None:
        """The share of the points it won: a win is a point, and there are no draws (None
        without games)."""
        return self.tally.wins / self.tally.games if self.tally.games else None

    @property
    def fault_total(self) -> int:
        """Games it lost by its own fault, whatever the reason."""
        return sum(self.faults.values())

    def to_json(self) -> dict[str, Any]:
        """The bot's entry of ``Standings.to_json``: the flat keys of earlier versions (``elo``,
        ``elo_ci95``, ``elo_order``...; null where there is no number) plus the structured
        ones (``rating``, ``order``, ``chaos`` with their bounds, ``faults``, ``survival``)."""
        t = self.tally
        return {
            "name": self.name,
            "display_name": self.display_name,
            "rank": self.rank,
            "shared_rank": self.shared_rank or self.rank,
            "tied": self.tied,
            "group": self.group,
            "games": t.games,
            "wins": t.wins,
            "score": self.score,
            "wins_order": t.wins_order,
            "games_order": t.games_order,
            "wins_chaos": t.wins_chaos,
            "games_chaos": t.games_chaos,
            "elo": self.rating.value,
            "elo_ci95": self.rating.ci95,
            "elo_order": self.order.value,
            "elo_order_ci95": self.order.ci95,
            "elo_chaos": self.chaos.value,
            "elo_chaos_ci95": self.chaos.ci95,
            "elo_sequential": self.sequential,
            "elo_sequential_order": self.sequential_order,
            "elo_sequential_chaos": self.sequential_chaos,
            "rating": self.rating.to_json(),
            "order": self.order.to_json(),
            "chaos": self.chaos.to_json(),
            "faults": dict(self.faults),
            "fault_total": self.fault_total,
            "survival": None if self.survival is None else self.survival.to_json(),
            "rank_interval": None if self.rank_interval is None else list(self.rank_interval),
            "swiss_score": self.swiss_score,
        }


@dataclass(frozen=True)
class EloSettings:
    """What the sequential Elo column is, so that it can be stated wherever it is shown."""

    k: float
    """The K-factor: the most one game moves a rating."""
    initial: float
    """Every bot's (and role's) starting rating."""
    order: str
    """How the games were ordered (``arena.ratings.elo.CANONICAL_ORDER``)."""
    backend: str
    """Which implementation did the arithmetic (``package``: the ``elo`` package; ``builtin``)."""

    def to_json(self) -> dict[str, Any]:
        return {"k": self.k, "initial": self.initial, "order": self.order, "backend": self.backend}


@dataclass(frozen=True)
class FitSettings:
    """What the fitted columns are: the model, its prior, and whether the optimiser converged."""

    model: str
    """The models, in words."""
    prior_sd: float
    """Prior standard deviation of each strength (Elo points)."""
    prior_sd_role: float
    """Prior standard deviation of Order's advantage (Elo points)."""
    offset: float
    """The average rating of the bots that played."""
    converged: bool
    """Whether both optimisations reported success; if not, the numbers are not to be trusted."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)  # every field, as it is


MODEL = (
    "Bradley-Terry (logistic, 400 Elo = 10:1) maximum a posteriori: overall P(Order wins) = "
    "1/(1+10^(-(s_order - s_chaos + h)/400)); per role, separate Order and Chaos strengths; "
    "Gaussian priors on strengths and h; 95% intervals from the Hessian"
)


@dataclass(frozen=True)
class Standings:
    """Everything a standings table shows, computed once; ``to_json`` for ``--json``."""

    bots: list[BotStanding]
    """One entry per bot, best first by the overall fitted rating (ties by name)."""
    games: int
    """Number of games rated."""
    distinct_games: int | None
    """How many of them differ (in players, opening, moves or result): deterministic bots
    replay the same few games, and the intervals then claim more than the games hold. None
    when the games carry no content digest (``GameResult.key``)."""
    order_win_rate: float | None
    """Fraction of all games Order won, None without games."""
    role_advantage: Rating
    """``h``: Order's advantage in the overall fit (Elo points, negative if Chaos's)."""
    los: dict[str, dict[str, float]]
    """``los[a][b]``: likelihood of superiority, the probability that ``a``'s overall strength
    exceeds ``b``'s (0.5 on the diagonal)."""
    los_order: dict[str, dict[str, float]]
    """The same for the bots' Order play (the per-role fit)."""
    los_chaos: dict[str, dict[str, float]]
    """The same for the bots' Chaos play (the per-role fit)."""
    cross: dict[str, dict[str, CrossCell]]
    """Head-to-head results, see ``arena.ratings.cross_table``."""
    groups: list[list[str]]
    """The bots with games, split into groups that are connected by games (sorted names; the
    largest group first). More than one group means ratings of bots in different groups are
    not comparable: nothing in the data relates them, only the prior does."""
    role_groups: list[list[str]]
    """The same for the per-role model, whose players are each bot's Order play and its Chaos
    play (``"NAME as Order"``): ratings in different role groups are not comparable."""
    elo: EloSettings
    """What the sequential Elo columns are."""
    fit: FitSettings
    """What the fitted columns are, and whether the fit converged."""
    elo_ratings: EloRatings | None = field(default=None, repr=False, compare=False)
    """The full sequential Elo result, for library users (not rendered)."""
    mle: MLEFit | None = field(default=None, repr=False, compare=False)
    """The full fit (covariances...), for library users (not rendered)."""

    def bot(self, name: str) -> BotStanding:
        """The entry of bot ``name`` (KeyError if it has none)."""
        for b in self.bots:
            if b.name == name:
                return b
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        """Bot names in standings order."""
        return [b.name for b in self.bots]

    @property
    def fault_total(self) -> int:
        """Games lost by a fault, all bots together."""
        return sum(b.fault_total for b in self.bots)

    def to_json(self) -> dict[str, Any]:
        """Plain dicts, lists, strings, numbers, booleans and None only: ready for
        ``json.dumps(..., allow_nan=False)``."""
        return {
            "games": self.games,
            "distinct_games": self.distinct_games,
            "order_win_rate": self.order_win_rate,
            "role_advantage": self.role_advantage.value,
            "role_advantage_ci95": self.role_advantage.ci95,
            "converged": self.fit.converged,
            "fit": self.fit.to_json(),
            "sequential_elo": self.elo.to_json(),
            "groups": [list(g) for g in self.groups],
            "role_groups": [list(g) for g in self.role_groups],
            "bots": [b.to_json() for b in self.bots],
            "los": {a: dict(row) for a, row in self.los.items()},
            "los_order": {a: dict(row) for a, row in self.los_order.items()},
            "los_chaos": {a: dict(row) for a, row in self.los_chaos.items()},
            "cross_table": {
                row: {col: cell._asdict() for col, cell in cells.items()}
                for row, cells in self.cross.items()
            },
        }


def groups(games: Iterable[GameLike]) -> list[list[str]]:
    """Bots split into groups connected by games (a game against itself connects nothing).

    Largest group first, then by first name; names sorted within a group.
    """
    return _components((g.order, g.chaos) for g in games)


def role_groups(games: Iterable[GameLike]) -> list[list[str]]:
    """The per-role model's groups: ``"NAME as Order"`` and ``"NAME as Chaos"`` are connected
    when they met. A gauntlet (one bot against all the others) makes two: the first bot's
    Order play with the others' Chaos play, and the reverse, so its Order rating does not
    compare with the others' Order ratings."""
    return _components((f"{g.order} as Order", f"{g.chaos} as Chaos") for g in games)


def _components(edges: Iterable[tuple[str, str]]) -> list[list[str]]:
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for x, y in edges:
        for name in (x, y):
            parent.setdefault(name, name)
        a, b = find(x), find(y)
        if a != b:
            parent[max(a, b)] = min(a, b)
    found: dict[str, list[str]] = {}
    for name in sorted(parent):
        found.setdefault(find(name), []).append(name)
    return sorted(found.values(), key=lambda g: (-len(g), g[0]))


def _bound(wins: int, games: int) -> Bound:
    if games == 0 or 0 < wins < games:
        return ""
    return ">" if wins == games else "<"


def _survival(results: Sequence[GameResult]) -> dict[str, Survival]:
    """Per Chaos bot, its results and the plies of its losses to a five, overall and per Order
    bot (``SURVIVAL_DEFINITION``: a loss by its own fault is not counted)."""
    faults = set(FAULT_NAMES)
    # chaos -> order -> [games, wins, plies summed over losses to a five, those losses]
    acc: dict[str, dict[str, list[int]]] = {}
    spans: dict[str, list[int]] = {}
    for g in results:
        cell = acc.setdefault(g.chaos, {}).setdefault(g.order, [0, 0, 0, 0])
        cell[0] += 1
        if not g.order_won:
            cell[1] += 1
        elif g.reason not in faults:  # Order's five (or an older store's unknown reason)
            cell[2] += g.plies
            cell[3] += 1
            spans.setdefault(g.chaos, []).append(g.plies)

    def mean(plies: int, losses: int) -> float | None:
        return plies / losses if losses else None

    out: dict[str, Survival] = {}
    for chaos, by_order in acc.items():
        cells = {
            order: SurvivalCell(n, w, mean(p, lost))
            for order, (n, w, p, lost) in sorted(by_order.items())
        }
        totals = [sum(c[i] for c in by_order.values()) for i in range(4)]
        span = spans.get(chaos, [])
        out[chaos] = Survival(
            totals[0],
            totals[1],
            mean(totals[2], totals[3]),
            cells,
            min(span, default=None),
            max(span, default=None),
        )
    return out


def _faults(results: Sequence[GameResult], names: Iterable[str]) -> dict[str, dict[str, int]]:
    """Per bot, the games it lost by its own fault, by reason."""
    counts = {name: dict.fromkeys(FAULT_NAMES, 0) for name in names}
    for g in results:
        if g.reason in FAULT_NAMES:
            counts[g.loser][g.reason] += 1
    return counts


TIE_ELO = 1e-6
"""Ratings closer than this are one rating: bots with the same results against the same
opponents are fitted equal but for the last bits of the arithmetic."""


def _tied(a: BotTally, b: BotTally, fit: MLEFit, name_a: str, name_b: str) -> bool:
    """Whether two bots are exactly tied: the same games and wins, overall and per role, and the
    same overall rating (bots without games are tied with one another)."""
    mine = (a.games, a.games_order, a.wins_order, a.wins_chaos)
    if mine != (b.games, b.games_order, b.wins_order, b.wins_chaos):
        return False
    return a.games == 0 or abs(fit.rating[name_a] - fit.rating[name_b]) < TIE_ELO


def _shared_ranks(ordered: Sequence[str], tied: Callable[[str, str], bool]) -> list[int]:
    """Per bot of ``ordered`` (best first), its rank: that of the first bot it is tied with
    through a run of ties, else its position."""
    ranks: list[int] = []
    for position, name in enumerate(ordered, 1):
        if ranks and tied(ordered[position - 2], name):
            ranks.append(ranks[-1])
        else:
            ranks.append(position)
    return ranks


def _rank_intervals(fit: MLEFit, level: float) -> dict[str, tuple[int, int]]:
    """Each bot's rank interval among all of the fit's bots."""
    import numpy as np

    from arena.ratings.ranks import rank_intervals

    rating = np.array([fit.rating[name] for name in fit.names])
    found = rank_intervals(rating, fit.rating_cov, level)
    return {name: (int(low), int(high)) for name, (low, high) in zip(fit.names, found, strict=True)}


def preload() -> None:
    """Import what ``compute_all`` needs (numpy, the fit, the Elo modules): a tenth of a second,
    more on a loaded machine. A caller with a core to spare before its standings (a tournament's
    last matches) runs this in a thread, so that its end does not wait for it."""
    from arena.ratings import elo, mle  # noqa: F401


def compute_all(
    games: Iterable[GameLike],
    *,
    names: Sequence[str] = (),
    display_names: Mapping[str, str] | None = None,
    k: float | None = None,
    offset: float | None = None,
    prior_sd: float = 400.0,
    prior_sd_role: float = 1000.0,
    elo_backend: Literal["auto", "package", "builtin"] = "auto",
    rank_level: float | None = None,
) -> Standings:
    """The standings of ``games`` (their order does not matter: see ``canonical_order``).

    ``names`` adds bots that have no games yet (listed last, without ratings);
    ``display_names`` gives the names the bots gave themselves (``ready <name>``). ``k`` and
    ``offset`` default to the sequential Elo's K and starting rating (16 and 1500): ``offset``
    places the average bot of the fit at the sequential Elo's start, so that the columns read on
    one scale. ``prior_sd``/``prior_sd_role``: see ``arena.ratings.mle.fit_mle``.
    ``rank_level``: give each bot its rank interval at that level.
    """
    from arena.ratings.elo import (
        CANONICAL_ORDER,
        DEFAULT_INITIAL,
        DEFAULT_K,
        canonical_order,
        sequential_elo,
    )
    from arena.ratings.mle import fit_mle

    k = DEFAULT_K if k is None else k
    offset = DEFAULT_INITIAL if offset is None else offset
    results = [
        g if isinstance(g, GameResult) else GameResult(g.order, g.chaos, g.order_won) for g in games
    ]
    fit = fit_mle(
        results, names=names, prior_sd=prior_sd, prior_sd_role=prior_sd_role, offset=offset
    )
    seq = sequential_elo(
        canonical_order(results), names=fit.names, k=k, initial=offset, backend=elo_backend
    )
    elo = EloSettings(k=float(k), initial=float(offset), order=CANONICAL_ORDER, backend=seq.backend)
    settings = FitSettings(
        model=MODEL,
        prior_sd=float(prior_sd),
        prior_sd_role=float(prior_sd_role),
        offset=float(offset),
        converged=fit.converged,
    )
    return _standings(results, fit, seq, elo, settings, display_names or {}, rank_level)


def _standings(
    results: Sequence[GameResult],
    fit: MLEFit,
    seq: EloRatings,
    elo: EloSettings,
    settings: FitSettings,
    display_names: Mapping[str, str],
    rank_level: float | None,
) -> Standings:
    """The model from the two fits of ``results``."""
    found = groups(results)
    return Standings(
        bots=_bot_standings(results, fit, seq, found, display_names, rank_level),
        games=len(results),
        distinct_games=len({g.key for g in results}) if all(g.key for g in results) else None,
        order_win_rate=fit.order_win_rate,
        role_advantage=Rating(
            fit.role_advantage if results else None,
            fit.role_advantage_ci95 if results else None,
        ),
        los=fit.los,
        los_order=fit.order_los,
        los_chaos=fit.chaos_los,
        cross=cross_table(results, fit.names),
        groups=found,
        role_groups=role_groups(results),
        elo=elo,
        fit=settings,
        elo_ratings=seq,
        mle=fit,
    )


def _rating(value: float, ci: float, wins: int, played: int) -> Rating:
    """A fitted rating as the bot's games support it: nothing without games, a bound when it
    won or lost them all."""
    if played == 0:
        return Rating(None, None)
    bound = _bound(wins, played)
    return Rating(value, None if bound else ci, bound)


def _bot_standings(
    results: Sequence[GameResult],
    fit: MLEFit,
    seq: EloRatings,
    found: Sequence[Sequence[str]],
    display_names: Mapping[str, str],
    rank_level: float | None,
) -> list[BotStanding]:
    """Each bot's row, best first: bots without games last, then by rating, then by name."""
    counts = tallies(results, fit.names)
    group_of = {name: i for i, members in enumerate(found) for name in members}
    faults = _faults(results, fit.names)
    survival = _survival(results)
    ordered = sorted(fit.names, key=lambda n: (counts[n].games == 0, -fit.rating[n], n))
    shared = _shared_ranks(ordered, lambda a, b: _tied(counts[a], counts[b], fit, a, b))
    intervals = {} if rank_level is None else _rank_intervals(fit, rank_level)
    bots = []
    for rank, name in enumerate(ordered, 1):
        t = counts[name]
        bots.append(
            BotStanding(
                name=name,
                rank=rank,
                group=group_of.get(name, -1),
                tally=t,
                rating=_rating(fit.rating[name], fit.rating_ci95[name], t.wins, t.games),
                order=_rating(
                    fit.order_rating[name], fit.order_ci95[name], t.wins_order, t.games_order
                ),
                chaos=_rating(
                    fit.chaos_rating[name], fit.chaos_ci95[name], t.wins_chaos, t.games_chaos
                ),
                sequential=seq.overall[name] if t.games else None,
                sequential_order=seq.as_order[name] if t.games_order else None,
                sequential_chaos=seq.as_chaos[name] if t.games_chaos else None,
                faults=faults[name],
                survival=survival.get(name),
                display_name=display_names.get(name, ""),
                shared_rank=shared[rank - 1],
                tied=shared.count(shared[rank - 1]) > 1,
                rank_interval=intervals.get(name) if t.games else None,
            )
        )
    return bots
