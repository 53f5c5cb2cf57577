"""Running a tournament: from a config to a store holding every game it owes.

``run_tournament`` registers the bots (their identity hashes) in the store, plans the missing
games, hands the matches to an executor, and has every game committed the moment it is played
(by the worker that played it, or here when an executor does not record games itself). A failure
of the harness (a worker that died, an internal error) is recorded as a harness error and its
games are replayed; it never costs a bot a game. Interrupting the run loses at most the games in
flight: running it again plays exactly what is missing.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Protocol

from arena.affinity import plan_cores, usable_cores
from arena.botspec import BotSpec
from arena.config import BotEntry, TournamentConfig
from arena.executors import Event, GameDone, JobFailed, LocalPoolExecutor, MatchExecutor
from arena.records import GameRecord
from arena.referee import MatchSettings
from arena.sandbox import resolve_mode
from arena.schedule import MatchJob, plan_matches
from arena.store import BotVersion, Store, VersionChange

__all__ = ["TournamentObserver", "TournamentResult", "bot_specs", "run_tournament"]

MAX_ATTEMPTS = 3


class TournamentObserver(Protocol):
    """What a tournament tells its user interface (all methods optional in spirit: no-ops)."""

    def started(self, total: int, already: int, jobs: int) -> None: ...
    def game(self, record: GameRecord) -> None: ...
    def harness_error(self, job: str, error: str) -> None: ...
    def bot_changed(self, change: VersionChange, set_aside: int) -> None:
        """A bot differs from its last run: ``set_aside`` earlier games no longer count."""


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
    changes: list[VersionChange] = field(default_factory=list)
    """Bots whose program or command changed since the store last saw them."""
    missing: int = 0
    """Games still owed at the end (repeated harness errors, or a bot edited during the run)."""

    @property
    def complete(self) -> bool:
        return self.missing == 0


def bot_specs(config: TournamentConfig) -> list[BotSpec]:
    """The runnable bots of a config."""
    base = config.path.parent if config.path is not None else None
    return [_spec(entry, base) for entry in config.bots]


def _describe_config(config: TournamentConfig) -> dict[str, object]:
    return {
        "name": config.name,
        "format": config.format,
        "games_per_pairing": config.games_per_pairing,
        "move_ms": config.time_control.move_ms,
        "startup_ms": config.time_control.startup_ms,
        "seed": config.seed,
        "bots": [entry.name for entry in config.bots],
    }


def _definition(config: TournamentConfig) -> dict[str, object]:
    """What makes two runs' games comparable; a store refuses a run that differs in any of it.

    Not in it: the bots (each game carries its bots' versions), games_per_pairing (only the
    slots it owes are rated), and how the run is carried out (workers, affinity, sandbox: the
    sandbox's mode depends on the machine, and must not stop a resume elsewhere).
    """
    openings = getattr(config, "openings", None)  # pipeline adds it (CONVENTIONS.md, issue 9)
    if dataclasses.is_dataclass(openings) and not isinstance(openings, type):
        openings = dataclasses.asdict(openings)
    return {
        "name": config.name,
        "seed": config.seed,
        "format": config.format,
        "time_control": dataclasses.asdict(config.time_control),
        "limits": dataclasses.asdict(config.limits),
        "freeze_idle": config.freeze_idle,
        "openings": openings,
        "rules": 1,  # the game's rules (arena.rules); a change makes every stored game another's
    }


def _spec(entry: BotEntry, base: Path | None) -> BotSpec:
    if entry.path is not None:
        spec = BotSpec.from_path(entry.path, name=entry.name)
        if entry.dir is not None:
            spec = BotSpec(spec.name, spec.argv, entry.dir, spec.program)
        return spec
    assert entry.command is not None
    return BotSpec.from_command(list(entry.command), entry.name, entry.dir, base_dir=base)


def match_settings(config: TournamentConfig) -> MatchSettings:
    return MatchSettings(
        time_control=config.time_control,
        limits=config.limits,
        sandbox=resolve_mode(config.sandbox),
        freeze_idle=config.freeze_idle,
    )


def run_tournament(
    config: TournamentConfig,
    store: Store,
    observer: TournamentObserver | None = None,
    executor_factory: Callable[[MatchSettings, int], MatchExecutor] | None = None,
) -> TournamentResult:
    """Play every game ``config`` owes that ``store`` does not hold yet."""
    specs = bot_specs(config)
    store.claim(_definition(config), config.games_per_pairing)  # refuses another tournament's
    store.set_meta("config", json.dumps(_describe_config(config)))
    changes = store.register_bots([BotVersion(s.name, s.version(), s.argv) for s in specs])
    notify = getattr(observer, "bot_changed", None)
    if notify is not None:  # before the games, so that an interrupted run has said it too
        for change in changes:
            notify(change, store.set_aside_count(change.name))
    store.set_meta("name", config.name)
    store.set_meta("seed", str(config.seed))
    done = store.completed_slots()
    owed = plan_matches(
        specs,
        config.games_per_pairing,
        format=config.format,
        seed=config.seed,
        workers=config.workers,
    )
    total = sum(len(job.slots) for job in owed)
    jobs = [job for job in (job.without(done) for job in owed) if job.slots]
    missing = sum(len(job.slots) for job in jobs)
    result = TournamentResult(total, already=total - missing, changes=changes, missing=missing)
    if observer is not None:
        observer.started(total, result.already, len(jobs))
    if not jobs:
        return result
    settings = match_settings(config)
    workers = min(config.workers, len(jobs))
    if executor_factory is None:
        cores = plan_cores(workers, config.affinity)
        executor: MatchExecutor = LocalPoolExecutor(
            workers, settings, cores, sink_factory=partial(_store_sink, config.db)
        )
    else:
        executor = executor_factory(settings, workers)
    try:
        for attempt in range(1, MAX_ATTEMPTS + 1):
            failed = _run_jobs(executor, jobs, store, observer, result)
            if not failed:
                break
            done = store.completed_slots()
            jobs = [job.without(done) for job in failed]
            jobs = [job for job in jobs if job.slots]
            if attempt == MAX_ATTEMPTS or not jobs:
                break
    finally:
        executor.close()
    owed_slots = {job.slot_key(slot) for job in owed for slot in job.slots}
    result.missing = len(owed_slots - store.completed_slots())
    return result


def _run_jobs(
    executor: MatchExecutor,
    jobs: list[MatchJob],
    store: Store,
    observer: TournamentObserver | None,
    result: TournamentResult,
) -> list[MatchJob]:
    by_key = {job.key: job for job in jobs}
    failed = []
    for batch in executor.execute(jobs):
        games = [event for event in batch if isinstance(event, GameDone)]
        unrecorded = [event for event in games if event.recorded is None]
        stored = iter(store.add_games([(e.record, e.slot.index) for e in unrecorded]))
        for event in games:
            new = next(stored) if event.recorded is None else event.recorded
            if new:  # told only once committed
                result.played += 1
                result.faults += event.record.reason.is_fault
                if observer is not None:
                    observer.game(event.record)
        for event in batch:
            _handle_job_event(event, store, observer, result, by_key, failed)
    return failed


def _store_sink(db: Path) -> Callable[[list[GameDone]], list[bool]]:
    """In a worker process: its own connection to the store, committing each batch of its games.

    Workers commit in parallel (SQLite serialises the short write transactions), so the parent,
    which shares the cores with them, does next to nothing per game.
    """
    store = Store.open(db)

    def record(games: list[GameDone]) -> list[bool]:
        return store.add_games([(game.record, game.slot.index) for game in games])

    return record


def _handle_job_event(
    event: Event,
    store: Store,
    observer: TournamentObserver | None,
    result: TournamentResult,
    by_key: dict[str, MatchJob],
    failed: list[MatchJob],
) -> None:
    """A harness failure is recorded (never charged to a bot) and its job queued for replay."""
    if isinstance(event, JobFailed):
        store.add_harness_error(event.key, event.error)
        result.harness_errors.append(f"{event.key}: {event.error}")
        failed.append(by_key[event.key])
        if observer is not None:
            observer.harness_error(event.key, event.error)


def oversubscribed(workers: int) -> bool:
    """More workers than cores: bots then compete for CPU and timing becomes unfair."""
    return workers > len(usable_cores())
