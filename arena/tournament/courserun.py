"""Playing a course (Swiss or contested) into a store, round by round.

Each round is decided by ``next_round`` from the stored games of the rounds before it, and its
games fill slot ``round - 1`` of their pairings (``round_matches``). So the stored games are a
function of the config and the stored games: a resume decides the finished rounds again from
their games, finishes a round stopped part-way, and goes on as an unstopped run would have,
whatever the workers.

A course keeps the pool it began with: its rounds are decided for those bots. A bot added later
(``arena submit``) is placed once the course's rounds are over (``arena.tournament.lateentry``):
meetings near its strength, one at a time, each decided from the stored games, in slot 0 of its
pairing; later entries meet the earlier ones too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.botspec import BotSpec
from arena.errors import StoreError
from arena.ratings import GameResult
from arena.store.database import Store
from arena.tournament.course import (
    DEFAULT_TOP,
    GAMES_PER_PAIRING,
    CoursePlan,
    Finished,
    next_round,
)
from arena.tournament.schedule import MatchJob, round_matches

COURSE_POOL = "course_pool"
"""The store's meta key of a course's bots, in the order its rounds were decided for."""

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
    unplaced: tuple[str, ...] = ()
    """Late entries the budget left no games to place (those of a late entry count in it)."""
    budget: int | None = None
    """The games the course may play (its file's budget, else its format's for the pool it
    began with), if any."""


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
    """Play the course's rounds that ``store`` does not hold whole, until it is finished, then
    place the bots that joined after it began."""
    by_name = {bot.name: bot for bot in bots}
    pool = began_pool(store, list(by_name), plan.format)
    budget = plan.budget_games(len(pool))
    finished: list[list[GameResult]] = []
    while not isinstance(decided := next_round(plan, pool, finished), Finished):
        pairs = [(by_name[a], by_name[b]) for a, b in decided.pairings]
        jobs = round_matches(pairs, decided.number, seed=seed, opening_plies=opening_plies)
        games = _played(store, jobs, play)
        owed = GAMES_PER_PAIRING * len(jobs) - len(games)
        if owed:
            return CourseEnd("incomplete", len(finished), owed, budget=budget)
        finished.append(games)
    level = (plan.until or DEFAULT_TOP).los
    placing = Placing(by_name, store, play, seed, opening_plies, level, budget)
    placed = list(pool)
    late = [name for name in by_name if name not in pool]
    for i, entry in enumerate(late):
        owed, done = placing.place(entry, placed)
        if owed:
            return CourseEnd("incomplete", decided.rounds, owed, budget=budget)
        if not done:
            unplaced = tuple(late[i:])
            return CourseEnd(decided.reason, decided.rounds, unplaced=unplaced, budget=budget)
        placed.append(entry)
    return CourseEnd(decided.reason, decided.rounds, budget=budget)


@dataclass(frozen=True)
class Placing:
    """Late entries' placement meetings, played into ``store``: one meeting at a time, each
    decided from the stored games, until the entry is placed at ``level`` or the games stored
    reach ``budget`` (None: no budget)."""

    by_name: dict[str, BotSpec]
    store: Store
    play: PlayJobs
    seed: int
    opening_plies: int
    level: float
    budget: int | None

    def place(self, entry: str, pool: Sequence[str]) -> tuple[int, bool]:
        """Play ``entry``'s meetings against ``pool``: (games still owed, whether it is placed).
        It is not when the next meeting would play past the budget."""
        from arena.tournament.lateentry import next_opponent

        among = set(pool)
        games = [g for g in _stored_results(self.store) if {g.order, g.chaos} <= among]
        while (opponent := next_opponent(entry, pool, games, level=self.level)) is not None:
            pair = [(self.by_name[opponent], self.by_name[entry])]
            jobs = round_matches(pair, 1, seed=self.seed, opening_plies=self.opening_plies)
            if not self._affordable(jobs):
                return 0, False
            met = _played(self.store, jobs, self.play)
            if len(met) < GAMES_PER_PAIRING:
                return GAMES_PER_PAIRING - len(met), False
            games += met
        return 0, True

    def _affordable(self, jobs: Sequence[MatchJob]) -> bool:
        """Whether the games stored and those of ``jobs`` not stored yet fit in the budget: the
        same answer before a stop and after its resume."""
        if self.budget is None:
            return True
        done = self.store.completed_slots()
        owed = sum(len(job.without(done).slots) for job in jobs)
        return len(self.store.slot_winners()) + owed <= self.budget


def _played(store: Store, jobs: Sequence[MatchJob], play: PlayJobs) -> list[GameResult]:
    """``jobs``' games: those stored, after playing the ones missing."""
    done = store.completed_slots()
    missing = [job.without(done) for job in jobs]
    missing = [job for job in missing if job.slots]
    if missing:
        play(missing)
    return _stored_games(store, jobs)


def course_pool(store: Store) -> list[str] | None:
    """The bots a stored course began with (None: the store holds no course)."""
    began = store.get_meta(COURSE_POOL)
    return None if began is None else list(json.loads(began))


def began_pool(store: Store, names: Sequence[str], format: str) -> list[str]:
    """The bots the course began with (``names`` on its first run), in their order. A run without
    one of them is refused before it plays: the stored rounds were decided with it."""
    first = course_pool(store)
    if first is None or not store.count_games(include_inactive=True):
        store.set_meta(COURSE_POOL, json.dumps(list(names)))
        return list(names)
    gone = sorted(set(first) - set(names))
    if gone:
        raise StoreError(
            f"{store.path}: the {format} course began with another pool (gone: {', '.join(gone)});"
            " its rounds are decided for the pool it began with: restore its bots, or run with"
            " --fresh to begin again"
        )
    return first


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


def _stored_results(store: Store) -> list[GameResult]:
    """Every stored game that counts, in the order of its slot's key (the store's own order
    depends on which worker finished first)."""
    winners = sorted(store.slot_winners().items())
    return [GameResult(order, chaos, won) for (order, chaos, _), won in winners]


def stored_rounds(store: Store) -> list[list[GameResult]]:
    """A course's stored games by round (round R in slot R - 1), up to its last round begun: the
    games among the pool it began with, not the placement games of a later entry."""
    began = course_pool(store)
    pool = None if began is None else set(began)
    rounds: dict[int, list[GameResult]] = {}
    for (order, chaos, slot), order_won in store.slot_winners().items():
        if pool is None or {order, chaos} <= pool:
            rounds.setdefault(slot, []).append(GameResult(order, chaos, order_won))
    return [rounds.get(slot, []) for slot in range(max(rounds, default=-1) + 1)]
