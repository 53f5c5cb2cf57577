"""Courses of many bots simulated: how well each format finds the true order for its games.

Run it from the repository::

    python benchmarks/courses.py                # 40, 100 and 300 bots, a few repetitions
    python benchmarks/courses.py --reps 3       # repetitions multiplied by 3 (steadier figures)
    python benchmarks/courses.py --bots 300     # one pool size
    python benchmarks/courses.py --bots 40 --shares 0.3 --formats swiss   # one cell


Bots have known strengths (normal, sd 200 Elo); a game is Bradley-Terry on the 400-point scale
with Order's advantage of 200; every pairing plays two games, one per role. Each format is played
round by round and rated by arena's own fit (``arena.ratings.mle``); the rounds come from arena's
own pairing (``arena.tournament.course``) for Swiss and the contested format, and from here for
the round robin's first rounds (Berger tables) and random pairs. Per format and budget (a share
of the round robin's one game per ordered pairing) it prints the games played, the rank
correlation with the true strengths, how many of the true top 10 the fit's top 10 holds, how often
it holds all ten, and how often the 95% rank intervals hold the true rank. Each figure has its
standard error over the repetitions; "rho - random" is the difference from random pairs on the
same bots at the same budget, repetition by repetition (paired, so the bots' draw cancels out),
and "- full RR" the top 10 found less the full round robin's on the same bots.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path

# One BLAS thread per process: the pool's processes already fill the cores.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support import say, table  # noqa: E402

from arena.ratings import GameResult  # noqa: E402
from arena.ratings.mle import aggregate, fit_pooled  # noqa: E402
from arena.ratings.ranks import rank_intervals  # noqa: E402
from arena.tournament.course import CoursePlan, Round, next_round, round_games  # noqa: E402
from arena.tournament.schedule import berger_rounds as schedule_rounds  # noqa: E402
from arena.tournament.stoprule import Budget, StopRule  # noqa: E402

SD = 200.0
ORDER_ADVANTAGE = 200.0
TOP = 10
LEVEL = 0.95
SHARES = (0.03, 0.15, 0.30)
FORMATS = ("round robin", "random pairs", "swiss", "contested")
REPS = {40: 8, 100: 4, 300: 4}
"""Repetitions per pool size by default: a run of a couple of minutes on 2 cores."""

Pairings = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Outcome:
    games: int
    rho: float
    top_found: int
    coverage: float


def names_of(n: int) -> list[str]:
    return [f"bot{i:03d}" for i in range(n)]


def play(
    pairings: Pairings, strength: dict[str, float], rng: np.random.Generator
) -> list[GameResult]:
    """Both games of each pairing, one per role."""
    games = []
    for order, chaos in round_games(pairings):
        diff = strength[order] - strength[chaos] + ORDER_ADVANTAGE
        won = rng.random() < 1.0 / (1.0 + 10.0 ** (-diff / 400.0))
        games.append(GameResult(order, chaos, bool(won)))
    return games


def berger_rounds(bots: Sequence[str]) -> list[Pairings]:
    """The round robin in arena's rounds (Berger tables): each bot meets one opponent a round."""
    return [tuple((bots[i], bots[j]) for i, j in pairs) for pairs in schedule_rounds(len(bots))]


def random_rounds(bots: Sequence[str], rng: np.random.Generator) -> Callable[[int], Pairings]:
    def draw(_: int) -> Pairings:
        shuffled = [bots[i] for i in rng.permutation(len(bots))]
        return tuple(zip(shuffled[0::2], shuffled[1::2], strict=False))

    return draw


def fixed_rounds(
    bots: Sequence[str],
    strength: dict[str, float],
    budget: int,
    draw: Callable[[int], Pairings],
    rng: np.random.Generator,
) -> list[GameResult]:
    """Rounds decided in advance, played while the budget allows (the last one cut short)."""
    games: list[GameResult] = []
    number = 0
    while len(games) < budget:
        pairings = draw(number)[: (budget - len(games)) // 2]
        if not pairings:
            break
        games += play(pairings, strength, rng)
        number += 1
    return games


def course(
    plan: CoursePlan, bots: Sequence[str], strength: dict[str, float], rng: np.random.Generator
) -> list[GameResult]:
    """Rounds from arena's course, each decided from the finished rounds' games."""
    rounds: list[list[GameResult]] = []
    while isinstance(step := next_round(plan, bots, rounds), Round):
        rounds.append(play(step.pairings, strength, rng))
    return [g for games in rounds for g in games]


def judge(bots: Sequence[str], strength: dict[str, float], games: list[GameResult]) -> Outcome:
    fit = fit_pooled(aggregate(games, bots))
    truth = np.array([strength[name] for name in fit.names])
    true_rank = np.empty(truth.size, dtype=np.int64)
    true_rank[np.argsort(-truth)] = np.arange(1, truth.size + 1)
    fit_rank = np.empty(truth.size, dtype=np.int64)
    fit_rank[np.argsort(-fit.rating)] = np.arange(1, truth.size + 1)
    rho = float(np.corrcoef(true_rank, fit_rank)[0, 1])
    found = int(np.sum((true_rank <= TOP) & (fit_rank <= TOP)))
    intervals = rank_intervals(fit.rating, fit.rating_cov, LEVEL)
    covered = (intervals[:, 0] <= true_rank) & (true_rank <= intervals[:, 1])
    return Outcome(len(games), rho, found, float(covered.mean()))


def played(
    name: str, bots: Sequence[str], strength: dict[str, float], budget: int, seed: list[int]
) -> list[GameResult]:
    """The games of one format at one budget, from its own random numbers: a run of some
    formats plays them as a run of all does."""
    rng = np.random.default_rng([*seed, FORMATS.index(name), budget])
    if name == "round robin":
        return fixed_rounds(bots, strength, budget, berger_rounds(bots).__getitem__, rng)
    if name == "random pairs":
        return fixed_rounds(bots, strength, budget, random_rounds(bots, rng), rng)
    plan = (
        CoursePlan("swiss", rounds=len(bots), budget=Budget(budget))
        if name == "swiss"
        else CoursePlan("contested", until=StopRule(TOP), budget=Budget(budget))
    )
    return course(plan, bots, strength, rng)


def one_course(
    n: int, rep: int, shares: Sequence[float] = SHARES, wanted: Sequence[str] = FORMATS
) -> dict[tuple[str, float], Outcome]:
    """The ``wanted`` formats at every budget on one pool of bots (random pairs always, as the
    reference of the paired differences)."""
    seed = [n, rep]
    bots = names_of(n)
    draw = np.random.default_rng(seed).normal(0.0, SD, n)
    strength = dict(zip(bots, draw.tolist(), strict=True))
    results: dict[tuple[str, float], Outcome] = {}
    if "round robin" in wanted:
        full = played("round robin", bots, strength, n * (n - 1), seed)
        results["round robin", 1.0] = judge(bots, strength, full)
    for share in shares:
        budget = int(share * n * (n - 1))
        for name in FORMATS:
            if name in wanted or name == "random pairs":
                games = played(name, bots, strength, budget, seed)
                results[name, share] = judge(bots, strength, games)
    return results


def mean_se(values: Sequence[float], digits: int) -> str:
    """The mean, and its standard error when there is more than one value."""
    mean = float(np.mean(values))
    if len(values) < 2:
        return f"{mean:.{digits}f}"
    se = float(np.std(values, ddof=1) / np.sqrt(len(values)))
    return f"{mean:.{digits}f} ±{se:.{digits}f}"


def summarise(n: int, runs: list[dict[tuple[str, float], Outcome]]) -> None:
    say(f"\n{n} bots, {len(runs)} repetitions; round robin: {n * (n - 1):,} games")
    header = ("format", "budget", "games", "rho", "rho - random", f"top {TOP}", "- full RR")
    rows = []
    for key in runs[0]:
        outcomes = [run[key] for run in runs]
        name, share = key
        reference = [run.get(("random pairs", share)) for run in runs]
        gain = [o.rho - r.rho for o, r in zip(outcomes, reference, strict=True) if r is not None]
        full = [run.get(("round robin", 1.0)) for run in runs]
        found = [o.top_found - r.top_found for o, r in zip(outcomes, full, strict=True) if r]
        rows.append(
            (
                name,
                f"{share:.0%}",
                f"{np.mean([o.games for o in outcomes]):,.0f}",
                mean_se([o.rho for o in outcomes], 3),
                mean_se(gain, 4) if gain and name != "random pairs" else "",
                mean_se([o.top_found for o in outcomes], 1),
                mean_se(found, 2) if found and share < 1.0 else "",
                f"{np.mean([o.top_found == TOP for o in outcomes]):.0%}",
                mean_se([100 * o.coverage for o in outcomes], 1) + "%",
            )
        )
    say(table(rows, (*header, f"all {TOP}", "coverage")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, nargs="*", default=sorted(REPS))
    parser.add_argument("--reps", type=int, default=1, help="multiply the repetitions")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--shares", type=float, nargs="*", default=SHARES)
    parser.add_argument("--formats", nargs="*", choices=FORMATS, default=FORMATS)
    args = parser.parse_args()
    started = time.monotonic()
    tasks = [(n, rep) for n in args.bots for rep in range(REPS.get(n, 2) * args.reps)]
    with ProcessPoolExecutor(args.workers) as pool:
        done = list(
            pool.map(
                one_course,
                *zip(*tasks, strict=True),
                repeat(args.shares),
                repeat(args.formats),
            )
        )
    for n in args.bots:
        summarise(n, [run for (size, _), run in zip(tasks, done, strict=True) if size == n])
    say(f"\n{time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
