"""Playing a course (Swiss or contested) into a store, round by round.

Each round is decided by ``next_round`` from the stored games of the rounds before it, and its
games fill slot ``round - 1`` of their pairings (``round_matches``). So the stored games are a
function of the config and the stored games: a resume decides the finished rounds again from
their games, finishes a round stopped part-way, and goes on as an unstopped run would have,
whatever the workers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.botspec import BotSpec
from arena.ratings import GameResult
from arena.store.database import Store
from arena.tournament.course import GAMES_PER_PAIRING, CoursePlan, Finished, next_round
from arena.tournament.schedule import MatchJob, round_matches

__all__ = ["CourseEnd", "course_games", "course_slots", "play_course", "stored_rounds"]

PlayJobs = Callable[[list[MatchJob]], None]
"""Plays matches and stores their games (the run's executor, with its retries)."""


@dataclass(frozen=True)
class CourseEnd:
    """How a course ended: ``reason`` is ``"until"``, ``"budget"`` or ``"rounds"`` (see
    ``Finished``), or ``"incomplete"`` when a round's games could not all be played (the run
    is to be resumed); ``rounds`` is the rounds played whole."""

    reason: str
    rounds: int
    missing: int = 0


def course_slots(plan: CoursePlan, pool: int) -> int:
    """The most rounds, so slots, a course's pairings may fill: the store counts the slots below
    it. A round plays at least one pairing, so a budget bounds the rounds too."""
    budget = plan.budget_games(pool)
    most = plan.swiss_rounds(pool)
    if plan.format == "swiss":
        return most if budget is None else min(most, -(-budget // GAMES_PER_PAIRING))
    return max(most, -(-(budget or 0) // GAMES_PER_PAIRING))


def play_course(
    plan: CoursePlan,
    bots: Sequence[BotSpec],
    store: Store,
    play: PlayJobs,
    *,
    seed: int = 1,
    opening_plies: int = 0,
) -> CourseEnd:
    """Play the course's rounds that ``store`` does not hold whole, until it is finished."""
    by_name = {bot.name: bot for bot in bots}
    names = list(by_name)
    finished: list[list[GameResult]] = []
    while True:
        decided = next_round(plan, names, finished)
        if isinstance(decided, Finished):
            return CourseEnd(decided.reason, decided.rounds)
        pairs = [(by_name[a], by_name[b]) for a, b in decided.pairings]
        jobs = round_matches(pairs, decided.number, seed=seed, opening_plies=opening_plies)
        done = store.completed_slots()
        missing = [job.without(done) for job in jobs]
        missing = [job for job in missing if job.slots]
        if missing:
            play(missing)
        games = _stored_games(store, jobs)
        owed = GAMES_PER_PAIRING * len(jobs) - len(games)
        if owed:
            return CourseEnd("incomplete", len(finished), owed)
        finished.append(games)


def _stored_games(store: Store, jobs: Sequence[MatchJob]) -> list[GameResult]:
    """The stored games of ``jobs``' slots, in the round's order."""
    winners = store.slot_winners()
    games = []
    for job in jobs:
        for slot in job.slots:
            key = job.slot_key(slot)
            if key in winners:
                games.append(GameResult(key[0], key[1], winners[key]))
    return games


def course_games(plan: CoursePlan, pool: int) -> int:
    """The most games a course may play: its Swiss rounds' (every bot in each), or its budget."""
    budget = plan.budget_games(pool)
    if plan.format != "swiss":
        return budget or 0
    most = plan.swiss_rounds(pool) * GAMES_PER_PAIRING * (pool // 2)
    return most if budget is None else min(most, budget)


def stored_rounds(store: Store) -> list[list[GameResult]]:
    """A course's stored games by round (round R in slot R - 1), up to its last round begun."""
    rounds: dict[int, list[GameResult]] = {}
    for (order, chaos, slot), order_won in store.slot_winners().items():
        rounds.setdefault(slot, []).append(GameResult(order, chaos, order_won))
    return [rounds.get(slot, []) for slot in range(max(rounds, default=-1) + 1)]
