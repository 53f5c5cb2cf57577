"""Executors: where matches run, behind one interface (local worker processes; a cluster later).

An executor takes ``MatchJob``s and yields events as they happen, in batches (the events that
arrived together, so that the caller can commit their games in one transaction): a ``GameDone``
for every finished game (so that the caller stores it at once), a ``JobDone`` when a match is
over, and a ``JobFailed`` when the harness itself failed (a worker died, an internal error): it is
never charged to a bot; the caller replays the job's missing games.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import shutil
import signal
import tempfile
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from arena import procfs
from arena.affinity import pin_to_core
from arena.records import GameRecord
from arena.referee import Match, MatchSettings
from arena.schedule import GameSlot, MatchJob

__all__ = [
    "GameDone",
    "JobDone",
    "JobFailed",
    "Event",
    "MatchExecutor",
    "play_job",
    "InlineExecutor",
    "LocalPoolExecutor",
]


@dataclass(frozen=True)
class GameDone:
    """A game of job ``key`` finished."""

    key: str
    slot: GameSlot
    record: GameRecord
    recorded: bool | None = None
    """Whether the worker's ``GameSink`` stored it as a new game (None: no sink; the caller
    stores it)."""


@dataclass(frozen=True)
class JobDone:
    """Every game of job ``key`` was played."""

    key: str


@dataclass(frozen=True)
class JobFailed:
    """Job ``key`` stopped because of the harness (not a bot): replay what it did not play."""

    key: str
    error: str


Event = GameDone | JobDone | JobFailed
GameSink = Callable[[list[GameDone]], list[bool]]
"""Records finished games where they were played (e.g. commits them to a store) and says, for
each, whether it was new. A factory of sinks is called once in each worker process."""


class MatchExecutor(Protocol):
    """Runs matches somewhere and reports their games as they finish."""

    def execute(self, jobs: Sequence[MatchJob]) -> Iterator[list[Event]]:
        """Run every job; yield batches of events until each job is done or failed."""
        ...

    def close(self) -> None:
        """Stop everything still running (bots included)."""
        ...


_ACTIVE: list[Match] = []
"""The matches being played in this process (their bots are killed by a worker's SIGTERM)."""


def play_job(job: MatchJob, settings: MatchSettings, emit: Callable[[Event], None]) -> None:
    """Play one match job, emitting a ``GameDone`` after each game."""
    match = Match(job.bot_a, job.bot_b, settings, job.seed, expected_games=len(job.slots))
    _ACTIVE.append(match)
    try:
        with match:
            for slot in job.slots:
                emit(GameDone(job.key, slot, match.play(slot.order_seat)))
    finally:
        _ACTIVE.remove(match)
    emit(JobDone(job.key))


class InlineExecutor:
    """Plays jobs one after another in this process (for library use and debugging)."""

    def __init__(self, settings: MatchSettings) -> None:
        self.settings = settings

    def execute(self, jobs: Sequence[MatchJob]) -> Iterator[list[Event]]:
        for job in jobs:
            events: list[Event] = []
            try:
                play_job(job, self.settings, events.append)
            except Exception:
                events.append(JobFailed(job.key, traceback.format_exc(limit=8)))
            yield events

    def close(self) -> None:
        pass


# --- local worker processes --------------------------------------------------------------------
def _terminate(_signum: int, _frame: object) -> None:
    """SIGTERM (the pool is closing, or the harness died): kill the bots at once and exit.

    Raising SystemExit here to unwind through ``Match.__exit__`` is not reliable: a signal handler
    also runs inside at-fork hooks and finalizers (the worker forks a bot after every fault),
    where an exception is printed and swallowed, and the worker then plays on.
    """
    processes = [seat.process for match in _ACTIVE for seat in match.seats if seat.process]
    for pid in {p.pid for p in processes if p.pid > 0} | procfs.all_children():
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)  # a bot leads its own process group
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)  # in case it had not got there yet
    for process in processes:
        with contextlib.suppress(Exception):
            process.plan.cleanup()  # its scratch folder
    os._exit(1)


class _Batcher:
    """Sends a worker's events to the parent, in batches while games are very fast.

    Each send costs both processes a system call and a pickling, more than a game between instant
    bots; so while games take under ``FAST_S`` each, up to ``SIZE`` of them travel together, for
    at most ``LATENCY_S``. Slow games, and the end of a job, are sent at once.
    """

    SIZE = 128
    FAST_S = 0.002
    LATENCY_S = 0.05

    def __init__(self, conn, sink: GameSink | None) -> None:  # noqa: ANN001 - a Connection
        self.conn = conn
        self.sink = sink
        self.events: list[Event] = []
        self.first = self.last = 0.0

    def __call__(self, event: Event) -> None:
        now = time.monotonic()
        fast = now - self.last < self.FAST_S
        self.last = now
        if not self.events:
            self.first = now
        self.events.append(event)
        if (
            not fast
            or not isinstance(event, GameDone)
            or len(self.events) >= self.SIZE
            or now - self.first >= self.LATENCY_S
        ):
            self.flush()

    def flush(self) -> None:
        """Record the games (when there is a sink), then tell the parent."""
        if not self.events:
            return
        games = [e for e in self.events if isinstance(e, GameDone)]
        if self.sink is not None and games:
            try:
                recorded: Iterator[bool | None] = iter(self.sink(games))
            except Exception:  # e.g. a full disk: the parent records them, and says what failed
                recorded = iter([None] * len(games))
            self.events = [
                GameDone(e.key, e.slot, e.record, next(recorded)) if isinstance(e, GameDone) else e
                for e in self.events
            ]
        self.conn.send_bytes(pickle.dumps(self.events, pickle.HIGHEST_PROTOCOL))
        self.events = []


def _worker_main(
    conn,  # noqa: ANN001 - a multiprocess Connection
    settings: MatchSettings,
    core: int | None,
    parent: int,
    sink_factory: Callable[[], GameSink] | None,
    scratch: str,
) -> None:
    """A worker process: receive jobs, play them, send events back; ``None`` ends it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGTERM, _terminate)
    procfs.die_with_parent(signal.SIGTERM)  # so that the worker can kill its bots
    if os.getppid() != parent:  # the parent died before the request took effect
        return
    pin_to_core(core)
    # The bots' scratch folders go here, which the parent removes even if this process is killed.
    tempfile.tempdir = scratch
    send = _Batcher(conn, sink_factory() if sink_factory is not None else None)
    while True:
        try:
            job = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            return
        if job is None:
            return
        try:
            play_job(job, settings, send)
        except Exception:
            send(JobFailed(job.key, traceback.format_exc(limit=8)))
        send.flush()


@dataclass
class _Worker:
    process: object
    conn: object
    core: int | None
    scratch: str
    """A folder of the worker's own, holding its bots' scratch folders; removed with it."""
    job: MatchJob | None = None

    def remove_scratch(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)


class LocalPoolExecutor:
    """Matches in ``workers`` local processes (``multiprocess``), one match per worker at a time.

    Each worker is pinned to its core from ``cores`` (None: it floats). A worker that dies is
    replaced and its job reported as failed, so the tournament never stalls on it.
    """

    def __init__(
        self,
        workers: int,
        settings: MatchSettings,
        cores: Sequence[int | None] | None = None,
        sink_factory: Callable[[], GameSink] | None = None,
    ) -> None:
        """``sink_factory``: when given, each worker records its games itself (in parallel)
        through the sink it makes, and the events say so; otherwise the caller records them."""
        import multiprocess

        self._ctx = multiprocess.get_context("fork")
        self.settings = settings
        self.sink_factory = sink_factory
        self.cores = list(cores) if cores is not None else [None] * workers
        self._workers = [self._spawn(self.cores[i]) for i in range(workers)]

    def _spawn(self, core: int | None) -> _Worker:
        parent_conn, child_conn = self._ctx.Pipe()
        scratch = tempfile.mkdtemp(prefix="arena-worker-")
        process = self._ctx.Process(
            target=_worker_main,
            args=(child_conn, self.settings, core, os.getpid(), self.sink_factory, scratch),
            daemon=True,
        )
        process.start()
        child_conn.close()
        return _Worker(process, parent_conn, core, scratch)

    def _replace(self, worker: _Worker) -> None:
        with contextlib.suppress(Exception):
            worker.conn.close()
        worker.process.join(timeout=5)
        worker.remove_scratch()  # a killed worker could not remove its bots' folders
        index = self._workers.index(worker)
        self._workers[index] = self._spawn(worker.core)

    def execute(self, jobs: Sequence[MatchJob]) -> Iterator[list[Event]]:
        queue = deque(jobs)
        while True:
            for worker in list(self._workers):
                if worker.job is None and queue:
                    job = queue.popleft()
                    try:
                        worker.conn.send_bytes(pickle.dumps(job, pickle.HIGHEST_PROTOCOL))
                    except OSError:  # the worker died while idle (killed from outside)
                        self._replace(worker)  # joins the old process: its exit code is known
                        code = worker.process.exitcode
                        yield [JobFailed(job.key, f"worker process died (exit code {code})")]
                        continue
                    worker.job = job
            busy = [w for w in self._workers if w.job is not None]
            if not busy:
                return
            poller = select.poll()
            owners = {}
            for worker in busy:
                for fd in (worker.conn.fileno(), worker.process.sentinel):
                    poller.register(fd, select.POLLIN)
                    owners[fd] = worker
            batch: list[Event] = []
            for fd, _event in poller.poll(1000):
                worker = owners[fd]
                if worker.job is not None:
                    self._collect(worker, batch)
            if batch:
                yield batch

    def _collect(self, worker: _Worker, batch: list[Event]) -> None:
        """Add everything a worker has sent to ``batch``; a failure if it died."""
        readable = select.poll()
        readable.register(worker.conn.fileno(), select.POLLIN)
        while worker.job is not None and readable.poll(0):
            try:
                events = pickle.loads(worker.conn.recv_bytes())
            except (EOFError, OSError):
                break
            for event in events:
                if isinstance(event, JobDone | JobFailed):
                    worker.job = None
            batch.extend(events)
        if worker.job is not None and not worker.process.is_alive():
            job, worker.job = worker.job, None
            code = worker.process.exitcode
            self._replace(worker)
            batch.append(JobFailed(job.key, f"worker process died (exit code {code})"))

    def close(self) -> None:
        """Stop the workers: ask idle ones to exit, SIGTERM busy ones (they kill their bots)."""
        for worker in self._workers:
            with contextlib.suppress(Exception):
                if worker.job is None:
                    worker.conn.send_bytes(pickle.dumps(None))
                else:
                    worker.process.terminate()
        for worker in self._workers:
            worker.process.join(timeout=5)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(timeout=5)
            with contextlib.suppress(Exception):
                worker.conn.close()
            worker.remove_scratch()
        self._workers = []
