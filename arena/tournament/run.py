"""Running a tournament: from a plan to a store holding every game it owes.

``run_tournament`` registers the bots (their identity hashes) in the store, plans the missing
games, hands their chunks to an executor, and has every game committed the moment it is played
(by the worker that played it, or here when an executor does not record games itself). A failure
of the harness (a worker that died, an internal error) is recorded as a harness error and its
games are replayed (by the executor); it never costs a bot a game. Interrupting the run loses at
most the games in flight: running it again plays exactly what is missing.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Protocol

from arena.botspec import BotSpec
from arena.limits import AffinityMode
from arena.records import GameRecord
from arena.referee.match import REPLAYED, MatchSettings
from arena.rules import RULES_VERSION
from arena.store.database import BotVersion, Store, VersionChange
from arena.tournament.affinity import core_count
from arena.tournament.capacity import fair_workers
from arena.tournament.course import COURSE_FORMATS, CoursePlan
from arena.tournament.courserun import course_games, course_pool, course_slots, play_course
from arena.tournament.cutoff import by_round, stop_reason, within_budget
from arena.tournament.executors import (
    DEFAULT_EXECUTOR,
    ExecutorSetup,
    ExecutorStatus,
    GameDone,
    JobFailed,
    MatchExecutor,
    make_executor,
)
from arena.tournament.live import LiveFeed, LiveProgress, live_folder, remove_folder
from arena.tournament.schedule import MatchJob, in_rounds, match_count, plan_matches
from arena.tournament.stoprule import Budget, StopRule

ExecutorFactory = Callable[[ExecutorSetup], MatchExecutor]
"""Makes the executor of a run (default: the registry's executor named by the plan)."""


@dataclass(frozen=True)
class TournamentPlan:
    """Everything a run needs, in the library's own terms (the config builds one from a file)."""

    name: str
    """The tournament's name, kept in the store."""
    bots: tuple[BotSpec, ...]
    """Two or more bots with distinct names, in order (a gauntlet's first bot is the challenger)."""
    format: str = "round-robin"
    """One of ``arena.tournament.schedule.FORMATS``, or a course's
    (``arena.tournament.course.COURSE_FORMATS``), played in rounds decided as it goes."""
    games_per_pairing: int = 10
    """Games per *ordered* pair: A as Order against B as Chaos (and as many the other way round)."""
    seed: int = 1
    """Seed of the schedule and of every match's bots."""
    workers: int = 1
    """Matches played at once (never more than there are matches)."""
    settings: MatchSettings = field(default_factory=MatchSettings)
    """Time control, limits, sandbox mode (resolved where the bots run) and freeze_idle."""
    db: Path | None = None
    """The store's file, for workers that record their own games (None: the parent records
    every game)."""
    affinity: AffinityMode = AffinityMode.AUTO
    """Whether local workers are pinned to cores."""
    executor: str = DEFAULT_EXECUTOR
    """The name of the executor in ``arena.tournament.executors.EXECUTORS``."""
    force_workers: bool = False
    """Use ``workers`` even beyond what the machine runs fairly (``arena.tournament.capacity``); by
    default a run uses no more, so that the harness's overload is never charged to bots."""
    opening_plies: int = 0
    """Random plies played before the bots' first turn, the same for both role assignments of each
    game index (``arena.tournament.schedule.opening_for``); 0: every game starts on the empty
    board."""
    cluster: str | None = None
    """The cluster of the ``cluster`` executor (``tcp://HOST:PORT`` or ``local:N``)."""
    trusted_bots: bool = False
    """Whether a cluster may run the bots without bubblewrap
    (``arena.tournament.executors.cluster``)."""
    folder: Path | None = None
    """The config's folder, kept in the store so that a page to publish can show paths relative
    to it rather than the host's (None: not from a file)."""
    live: bool = False
    """Keep the games in progress and the run's progress in the store's live folder while it
    runs (``arena.tournament.live``: for a live page; needs ``db``; a cluster's games in
    progress only on a ``local:N`` cluster, whose workers share this machine's files)."""
    rounds: int | None = None
    """A course's Swiss rounds (None: ``arena.tournament.course.default_rounds``)."""
    until: StopRule | None = None
    """The stopping rule, checked at each round's end (and the contested format's top)."""
    budget: Budget | None = None
    """The most games, each round cut to the whole meetings that fit."""

    def course(self) -> CoursePlan | None:
        """How the course is played, when the format is a course's."""
        if self.format not in COURSE_FORMATS:
            return None
        return CoursePlan(self.format, self.rounds, self.until, self.budget)

    def describe(self) -> dict[str, object]:
        """What the store keeps of the run's definition (shown by ``arena ratings``)."""
        tc = self.settings.time_control
        return {
            "name": self.name,
            "format": self.format,
            "games_per_pairing": self.games_per_pairing,
            "move_ms": tc.move_ms,
            "time_control": tc.describe(),
            "startup_ms": tc.startup_ms,
            "seed": self.seed,
            "opening_plies": self.opening_plies,
            "bots": [bot.name for bot in self.bots],
            "folder": None if self.folder is None else str(self.folder),
            "rounds": self.rounds,
            "until": None if self.until is None else dataclasses.asdict(self.until),
            "budget": None if self.budget is None else dataclasses.asdict(self.budget),
        }


class TournamentObserver(Protocol):
    """What a tournament tells its user interface (all methods optional in spirit: no-ops)."""

    def started(self, total: int, already: int, jobs: int) -> None: ...
    def game(self, record: GameRecord) -> None: ...
    def harness_error(self, job: str, error: str) -> None: ...
    def bot_changed(self, change: VersionChange, set_aside: int) -> None:
        """A bot differs from its last run: ``set_aside`` earlier games no longer count."""

    def workers_capped(self, asked: int, used: int, reason: str) -> None:
        """Fewer workers than asked are used: the machine runs no more fairly (``reason``)."""

    def executor_status(self, status: ExecutorStatus) -> None:
        """Now and then, from executors that tell: their workers, and which are busy."""

    def winding_down(self) -> None:
        """Once, from executors that tell: the last matches play and a core waits (prepare the
        standings there)."""

    def planned(self, jobs: Sequence[MatchJob], workers: int) -> None:
        """Before the games: the matches to play, in the order they are handed out, and how
        many workers play them (what an estimate of the time left needs)."""

    def total_grew(self, total: int) -> None:
        """The games owed grew to ``total``: a course's late entry plays meetings decided one
        at a time."""


@dataclass
class TournamentResult:
    """What a run did."""

    total: int
    """Games the tournament owes in all."""
    already: int
    """Games found in the store at the start (resumed)."""
    played: int = 0
    """Games played and stored by this run."""
    faults: int = 0
    """Games of this run lost by a fault."""
    harness_errors: list[str] = field(default_factory=list)
    """Failures of the harness in this run (their games were replayed)."""
    replayed: int = 0
    """Games of this run replayed from the start because the machine was too loaded to time a
    move (the referee stalled, or a late bot had been waiting for a CPU), then played through."""
    changes: list[VersionChange] = field(default_factory=list)
    """Bots whose program or command changed since the store last saw them."""
    missing: int = 0
    """Games still owed at the end (repeated harness errors, or a bot edited during the run)."""
    workers: int = 0
    """Workers the run used (0: it played nothing)."""
    distinct: int = 0
    """Distinct games among the tournament's stored games (same players, opening and moves
    count once): deterministic bots replay the same games, which measure nothing new."""
    stopped: str | None = None
    """What ended a course: ``"until"`` (its stopping rule holds), ``"budget"``, ``"rounds"``
    (all its Swiss rounds are played) or ``"incomplete"`` (None: not a course)."""
    rounds: int = 0
    """A course's rounds played whole."""
    unplaced: tuple[str, ...] = ()
    """A course's late entries its budget left unplaced."""
    budget: int | None = None
    """The run's budget of games, if it has one (its file's, else a course format's)."""

    @property
    def complete(self) -> bool:
        return self.missing == 0


def _definition(plan: TournamentPlan) -> dict[str, object]:
    """What makes two runs' games comparable; a store refuses a run that differs in any of it.

    Not in it: the bots (each game carries its bots' versions), games_per_pairing (only the
    slots it owes are rated), and how the run is carried out (workers, affinity, sandbox: the
    sandbox's mode depends on the machine, and must not stop a resume elsewhere).
    """
    settings = plan.settings
    return {
        "name": plan.name,
        "seed": plan.seed,
        "format": plan.format,
        "time_control": settings.time_control.definition(),
        "limits": dataclasses.asdict(settings.limits),
        "freeze_idle": settings.freeze_idle,
        "openings": {"random_plies": plan.opening_plies} if plan.opening_plies else None,
        "rules": RULES_VERSION,
    }


def run_tournament(
    plan: TournamentPlan,
    store: Store,
    observer: TournamentObserver | None = None,
    executor_factory: ExecutorFactory | None = None,
) -> TournamentResult:
    """Play every game ``plan`` owes that ``store`` does not hold yet."""
    if not plan.live or plan.db is None:
        return _run(plan, store, observer, executor_factory)
    folder = live_folder(plan.db)
    feed = LiveFeed(folder).start()  # the games an inline executor plays in this process
    try:
        return _run(plan, store, LiveProgress(folder, observer), executor_factory)
    finally:
        feed.stop()
        remove_folder(folder)


def _run(
    plan: TournamentPlan,
    store: Store,
    observer: TournamentObserver | None,
    executor_factory: ExecutorFactory | None,
) -> TournamentResult:
    specs = list(plan.bots)
    course = plan.course()
    slots = plan.games_per_pairing if course is None else course_slots(course, len(specs))
    store.claim(_definition(plan), slots)  # refuses another tournament's
    store.set_meta("config", json.dumps(plan.describe()))
    changes = store.register_bots([BotVersion(s.name, s.version(), s.command) for s in specs])
    notify = getattr(observer, "bot_changed", None)
    if notify is not None:  # before the games, so that an interrupted run has said it too
        for change in changes:
            notify(change, store.set_aside_count(change.name))
    store.set_meta("name", plan.name)
    store.set_meta("seed", str(plan.seed))
    if course is not None:
        return _run_course(plan, course, store, observer, executor_factory, changes)
    done = store.completed_slots()
    owed = plan_matches(
        specs,
        plan.games_per_pairing,
        format=plan.format,
        seed=plan.seed,
        opening_plies=plan.opening_plies,
    )
    total = sum(len(job.slots) for job in owed)
    jobs = in_rounds(owed, done, plan.format)
    missing = sum(job.owed for job in jobs)
    result = TournamentResult(total, already=total - missing, changes=changes, missing=missing)
    result.budget = None if plan.budget is None else plan.budget.games
    if observer is not None:
        observer.started(total, result.already, match_count(jobs))
    if not jobs:
        result.distinct = store.count_distinct_games()
        return result
    result.workers = _workers(plan, match_count(jobs), observer)
    if (planned := getattr(observer, "planned", None)) is not None:
        planned(jobs, result.workers)
    executor = _executor(plan, result.workers, observer, executor_factory)
    try:
        if plan.until is None and plan.budget is None:
            _play(executor, jobs, store, observer, result)
        else:
            result.stopped = _play_until(plan, executor, jobs, store, observer, result)
    finally:
        executor.close()
    if result.stopped in ("until", "budget"):  # what it owed is what it played
        result.total, result.missing = store.count_games(), 0
    else:
        owed_slots = {job.slot_key(slot) for job in owed for slot in job.slots}
        result.missing = len(owed_slots - store.completed_slots())
    result.distinct = store.count_distinct_games()
    return result


def _play_until(
    plan: TournamentPlan,
    executor: MatchExecutor,
    jobs: list[MatchJob],
    store: Store,
    observer: TournamentObserver | None,
    result: TournamentResult,
) -> str:
    """Play ``jobs`` round by round until the stopping rule holds or the budget is spent
    (``arena.tournament.cutoff``); which of them stopped it, or ``"rounds"``."""
    names = [bot.name for bot in plan.bots]
    for round_jobs in by_round(jobs):
        if reason := stop_reason(store, names, plan.until, plan.budget):
            return reason
        left = None if plan.budget is None else plan.budget.games - store.count_games()
        kept = within_budget(round_jobs, left)
        if not kept:
            return "budget"
        _play(executor, kept, store, observer, result)
    return stop_reason(store, names, plan.until, plan.budget) or "rounds"


def _run_course(
    plan: TournamentPlan,
    course: CoursePlan,
    store: Store,
    observer: TournamentObserver | None,
    executor_factory: ExecutorFactory | None,
    changes: list[VersionChange],
) -> TournamentResult:
    """Play a course round by round (``arena.tournament.courserun``); its total is the most
    games its rounds may play, as the stopping rule may end it sooner, and grows by a late
    entry's placement meetings as each is decided."""
    pool = len(plan.bots)
    already = store.count_games()
    total = max(course_games(course, len(course_pool(store) or plan.bots)), already)
    result = TournamentResult(total, already, changes=changes)
    if observer is not None:
        observer.started(result.total, result.already, pool // 2)
    executors: list[MatchExecutor] = []

    def play(jobs: list[MatchJob]) -> None:
        if not executors:  # started at the first round to play: a finished course needs none
            result.workers = _workers(plan, max(1, pool // 2), observer)
            executors.append(_executor(plan, result.workers, observer, executor_factory))
        owed = store.count_games() + sum(len(job.slots) for job in jobs)
        if owed > result.total:  # placement meetings, decided one at a time
            result.total = owed
            if (grew := getattr(observer, "total_grew", None)) is not None:
                grew(owed)
        _play(executors[0], jobs, store, observer, result)

    try:
        end = play_course(
            course, plan.bots, store, play, seed=plan.seed, opening_plies=plan.opening_plies
        )
    finally:
        for executor in executors:
            executor.close()
    result.stopped, result.rounds, result.missing = end.reason, end.rounds, end.missing
    result.unplaced, result.budget = end.unplaced, end.budget
    if not result.missing:  # what it owed is what it played: its end decided the rest
        result.total = store.count_games()
    result.distinct = store.count_distinct_games()
    return result


def _executor(
    plan: TournamentPlan,
    workers: int,
    observer: TournamentObserver | None,
    executor_factory: ExecutorFactory | None,
) -> MatchExecutor:
    """The run's executor, for ``workers`` workers."""
    setup = ExecutorSetup(
        settings=plan.settings,
        workers=workers,
        affinity=plan.affinity,
        sink_factory=None if plan.db is None else partial(_store_sink, plan.db, plan.live),
        cluster=plan.cluster,
        trusted_bots=plan.trusted_bots,
        status=getattr(observer, "executor_status", None),
        winding_down=getattr(observer, "winding_down", None),
        live=live_folder(plan.db) if plan.live and plan.db is not None else None,
    )
    if executor_factory is None:
        return make_executor(plan.executor, setup)
    return executor_factory(setup)


def _play(
    executor: MatchExecutor,
    jobs: list[MatchJob],
    store: Store,
    observer: TournamentObserver | None,
    result: TournamentResult,
) -> None:
    """Play ``jobs``: store their games, and record the harness's failures (the executor plays
    a failed chunk again, ``MAX_ATTEMPTS`` times at most)."""
    for batch in executor.execute(jobs):
        _store_games([e for e in batch if isinstance(e, GameDone)], store, observer, result)
        for failure in batch:
            if isinstance(failure, JobFailed):
                _record_failure(failure, store, observer, result)


def _workers(plan: TournamentPlan, jobs: int, observer: TournamentObserver | None) -> int:
    """The workers to use: never more than jobs, nor than is fair unless forced."""
    workers = min(plan.workers, jobs)
    if plan.force_workers or plan.cluster is not None:  # a cluster's machines are not this one
        return workers
    fair = fair_workers(plan.settings.limits.memory_mb)
    if workers <= fair.workers:
        return workers
    notify = getattr(observer, "workers_capped", None)
    if notify is not None:
        notify(plan.workers, fair.workers, fair.reason)  # what was asked, before the jobs' cap
    return fair.workers


def _store_games(
    games: list[GameDone],
    store: Store,
    observer: TournamentObserver | None,
    result: TournamentResult,
) -> None:
    """Store the games a worker did not, and tell the new ones."""
    unrecorded = [event for event in games if not event.recorded]
    stored = iter(store.add_games([(e.record, e.slot.index) for e in unrecorded]))
    for event in games:
        new = event.recorded or next(stored)
        if new:  # told only once committed
            result.played += 1
            result.faults += event.record.reason.is_fault
            result.replayed += REPLAYED in event.record.detail
            if observer is not None:
                observer.game(event.record)


def _store_sink(db: Path, live: bool = False) -> Callable[[list[GameDone]], list[bool]]:
    """In a worker process: its own store connection, committing each batch of its games (and,
    with ``live``, its games in progress beside the store): the parent does little per game."""
    if live:  # the worker's life is the feed's: its daemon thread ends with it
        LiveFeed(live_folder(db)).start()
    store = Store.open(db)

    def record(games: list[GameDone]) -> list[bool]:
        return store.add_games([(game.record, game.slot.index) for game in games])

    return record


def _record_failure(
    event: JobFailed,
    store: Store,
    observer: TournamentObserver | None,
    result: TournamentResult,
) -> None:
    """A harness failure is recorded and told, never charged to a bot (its chunk is replayed)."""
    store.add_harness_error(event.key, event.error)
    result.harness_errors.append(f"{event.key}: {event.error}")
    if observer is not None:
        observer.harness_error(event.key, event.error)


def oversubscribed(workers: int) -> bool:
    """More workers than cores: bots then compete for CPU and timing becomes unfair."""
    return workers > core_count()
