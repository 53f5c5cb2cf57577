"""A course played in rounds decided as it goes: Swiss, or contested (the top's order first),
with a budget and a stopping rule for either.

Each round is a function of the pool, the plan and the games of the finished rounds, so the same
games give the same next round whatever played them, however often the run was stopped. A pairing
is a meeting of both roles, so every bot plays Order as often as Chaos.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.tournament.stoprule import Budget, StopRule, trimmed_to_budget
from arena.tournament.swiss import SwissRound, meeting, swiss_round

if TYPE_CHECKING:  # the fit (numpy, scipy) is imported where used: a config reads the plan
    from arena.ratings import GameLike
    from arena.ratings.mle import OverallFit


COURSE_FORMATS = ("swiss", "contested")
GAMES_PER_PAIRING = 2
"""A pairing plays both roles, one game each."""
BYE_POINTS = 1.0
"""A bye scores as a shared meeting: half of its two games."""
DEFAULT_TOP = StopRule(top=10)


FOCUS_SHARE = 0.2
"""The contested format's pairings where the top is in doubt, per round, as a share of the Swiss
round every bot also plays: a sixth of the games. They are taken from everyone's Swiss rounds at
a given budget; at 300 bots and 15% or 30% of a round robin's games, a fifth (0.25) ranked below
random pairs (rho -0.0011 ±0.0005 and ±0.0004), a sixth within the noise of them and the true
top 10 found as often (``docs/scaling.md``)."""


def focus_meetings(pool: int) -> int:
    """Pairings a contested round spends on the top's doubts, beside its Swiss round."""
    return max(1, int(FOCUS_SHARE * pool / 2))


def default_rounds(pool: int) -> int:
    """Swiss rounds when the file names none: four more than a knockout of the pool needs, about
    a quarter of a round robin's games for 40 bots and a twentieth for 300."""
    return math.ceil(math.log2(max(pool, 2))) + 4


@dataclass(frozen=True)
class CoursePlan:
    """How a course is played: ``format`` one of ``COURSE_FORMATS``.

    ``rounds``: Swiss rounds (by default ``default_rounds``); for the contested format, the Swiss
    rounds before games also go to the top (by default ``default_rounds`` less four, a knockout's):
    every round of it is a Swiss round for all, so every bot plays every round, and after those
    its rounds add ``focus_meetings`` pairings where the top is in doubt. ``until``: the stopping
    rule, and for the contested format what its top is (by default the top 10 at 0.95).
    ``budget``: at most that many games (the contested format's default: a round robin's, one
    game per ordered pairing)."""

    format: str
    rounds: int | None = None
    until: StopRule | None = None
    budget: Budget | None = None

    def __post_init__(self) -> None:
        if self.format not in COURSE_FORMATS:
            expected = ", ".join(COURSE_FORMATS)
            raise ValueError(f"unknown course format {self.format!r}; expected one of {expected}")
        if self.rounds is not None and self.rounds < 1:
            raise ValueError(f"rounds must be at least 1, got {self.rounds}")

    def swiss_rounds(self, pool: int) -> int:
        """Rounds paired by score: all of a Swiss course, the opening of a contested one."""
        if self.rounds is not None:
            return self.rounds
        return default_rounds(pool) - (4 if self.format == "contested" else 0)

    def budget_games(self, pool: int) -> int | None:
        if self.budget is not None:
            return self.budget.games
        return pool * (pool - 1) if self.format == "contested" else None


@dataclass(frozen=True)
class Round:
    """The next round: its pairings (higher placed bot first) and the bot with a bye."""

    number: int
    pairings: tuple[tuple[str, str], ...]
    bye: str | None = None


@dataclass(frozen=True)
class Finished:
    """The course is over: ``reason`` is ``"until"`` (the rule holds), ``"budget"`` or
    ``"rounds"`` (the Swiss rounds are played)."""

    reason: str
    rounds: int


def round_games(pairings: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The (Order, Chaos) games of a round's pairings: each pairing plays both roles."""
    return [game for a, b in pairings for game in ((a, b), (b, a))]


def course_fit(bots: Sequence[str], rounds: Sequence[Sequence[GameLike]]) -> OverallFit:
    """The fit every decision reads: the overall model of all finished rounds' games."""
    from arena.ratings.mle import aggregate, fit_pooled

    return fit_pooled(aggregate((g for games in rounds for g in games), bots))


def next_round(
    plan: CoursePlan, bots: Sequence[str], rounds: Sequence[Sequence[GameLike]]
) -> Round | Finished:
    """The round after ``rounds`` (each the games of one finished round), or why there is none."""
    pool = len(bots)
    fit = course_fit(bots, rounds)
    played = sum(len(games) for games in rounds)
    budget = plan.budget_games(pool)
    rule = plan.until or (DEFAULT_TOP if plan.format == "contested" else None)
    if budget is not None and played >= budget:
        return Finished("budget", len(rounds))
    if rule is not None and played and rule.holds(fit):
        return Finished("until", len(rounds))
    if len(rounds) >= plan.swiss_rounds(pool) and plan.format == "swiss":
        return Finished("rounds", len(rounds))
    swiss = _swiss(bots, rounds, fit)
    pairings, bye = swiss.pairings, swiss.bye
    if len(rounds) >= plan.swiss_rounds(pool):
        from arena.tournament.contested import contested_round

        assert rule is not None
        focus = contested_round(fit, top=rule.top, los=rule.los, meetings=focus_meetings(pool))
        if not focus:  # the contested top is settled
            return Finished("until", len(rounds))
        taken = {meeting(a, b) for a, b in focus}
        pairings = focus + tuple(p for p in pairings if meeting(*p) not in taken)
        bye = None if any(bye in pair for pair in focus) else bye
    if budget is not None:
        pairings = trimmed_to_budget(pairings, GAMES_PER_PAIRING, budget - played)
        if not pairings:
            return Finished("budget", len(rounds))
    return Round(len(rounds) + 1, pairings, bye)


def _swiss(
    bots: Sequence[str], rounds: Sequence[Sequence[GameLike]], fit: OverallFit
) -> SwissRound:
    """The next Swiss round, from the scores, meetings and byes so far."""
    tally = swiss_tally(bots, rounds)
    ratings = dict(zip(fit.names, fit.rating.tolist(), strict=True))
    return swiss_round(tally.scores, ratings, tally.met, tally.byes)


@dataclass(frozen=True)
class SwissTally:
    """A Swiss course so far: each bot's score, the pairs met, each bot's byes."""

    scores: dict[str, float]
    met: set[frozenset[str]]
    byes: dict[str, int]


def swiss_tally(bots: Sequence[str], rounds: Sequence[Sequence[GameLike]]) -> SwissTally:
    """Scores are games won, and a bye (the one bot of the pool absent from a round) scores
    ``BYE_POINTS``."""
    scores = dict.fromkeys(bots, 0.0)
    met: set[frozenset[str]] = set()
    byes: dict[str, int] = {}
    for games in rounds:
        present: set[str] = set()
        for g in games:
            present.update((g.order, g.chaos))
            met.add(meeting(g.order, g.chaos))
            winner = g.order if g.order_won else g.chaos
            if winner in scores:
                scores[winner] += 1.0
        absent = [bot for bot in bots if bot not in present]
        if len(absent) == 1:
            byes[absent[0]] = byes.get(absent[0], 0) + 1
            scores[absent[0]] += BYE_POINTS
    return SwissTally(scores, met, byes)
