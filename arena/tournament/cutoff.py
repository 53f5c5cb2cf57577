"""A round robin or a gauntlet cut short by ``until:`` or ``budget:``, at a round's end.

Its rounds are played one at a time; before each, the stored games are asked whether the
stopping rule holds or the budget is spent, and the round is cut to the whole meetings that fit
in what is left of the budget. Both read the stored games only, so a resume stops where an
unstopped run did, whatever the workers.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from arena.store.database import Store
from arena.tournament.course import course_fit
from arena.tournament.schedule import MatchJob
from arena.tournament.stoprule import Budget, StopRule


def by_round(jobs: Sequence[MatchJob]) -> list[list[MatchJob]]:
    """``jobs`` (in round order, as ``in_rounds`` gives them) cut into their rounds."""
    return [list(group) for _, group in groupby(jobs, key=lambda job: job.round)]


def stop_reason(
    store: Store, bots: Sequence[str], until: StopRule | None, budget: Budget | None
) -> str | None:
    """``"budget"`` when the stored games spend the budget, ``"until"`` when the stopping rule
    holds on their fit, else None."""
    played = store.count_games()
    if budget is not None and played >= budget.games:
        return "budget"
    if until is not None and played:
        from arena.ratings import GameResult

        games = [GameResult(g.order, g.chaos, g.winner == "order") for g in store.results()]
        if until.holds(course_fit(bots, [games])):
            return "until"
    return None


def within_budget(jobs: Sequence[MatchJob], left: int | None) -> list[MatchJob]:
    """The first whole meetings of a round (every match of a pairing) whose games fit in
    ``left`` (None: no budget)."""
    if left is None:
        return list(jobs)
    meetings: dict[tuple[str, str], list[MatchJob]] = {}
    for job in jobs:
        meetings.setdefault((job.bot_a.name, job.bot_b.name), []).append(job)
    kept: list[MatchJob] = []
    for meeting in meetings.values():
        games = sum(job.owed for job in meeting)
        if games > left:
            break
        kept += meeting
        left -= games
    return kept
