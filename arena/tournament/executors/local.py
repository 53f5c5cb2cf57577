"""The local pool: matches in forked worker processes on this machine, one match per worker.

Workers are forked (``multiprocess``, fork context), pinned to cores when there are enough, die
with the parent, and keep their bots' scratch folders in a folder of their own that the parent
removes even when a worker was killed. A worker batches the events of fast games, records them
through its own game sink when it has one, and sends them with the standard pickle.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import pickle
import select
import signal
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Protocol

from arena.launch import procfs, reaper
from arena.limits import KeepBots
from arena.referee.match import MatchSettings
from arena.tournament.affinity import plan_cores
from arena.tournament.executors.base import (
    Asked,
    ChunksShared,
    Event,
    ExecutorSetup,
    GameDone,
    GameSink,
    JobDone,
    JobFailed,
    close_keeper,
    forget_keeper,
    play_job,
)
from arena.tournament.executors.placement import Placement
from arena.tournament.executors.worker import prepare_worker, stop_bots
from arena.tournament.schedule import MatchJob

RELEASE_S = 10.0
"""How long the end of a run waits for the workers to stop the bots they keep."""
STALL_MARGIN_S = 15.0
"""Beyond the slowest possible game: stopping bots, a busy store, a loaded machine."""


def slowest_game_seconds(settings: MatchSettings) -> float:
    """The longest one game can take when nothing is wrong with the harness.

    Both bots may (re)start in a game (each within its start-up's wall time), and every ply may
    use its whole time (``TimeControl.longest_moves_ms``: a clock, a margin, the wall cap of
    ``measure: cpu``); beyond that come the stopping of bots and the recording."""
    tc = settings.time_control
    return (2 * tc.startup_wall_ms() + tc.longest_moves_ms()) / 1000 + STALL_MARGIN_S


@dataclass(frozen=True)
class PlayMatch:
    """The pool to an idle worker: play ``job``."""

    job: MatchJob


@dataclass(frozen=True)
class ShareMatch:
    """The pool to a busy worker, while another is idle with nothing queued: give back the later
    chunks of your match (``Asked.SHARE``), or say that you keep them all."""


@dataclass(frozen=True)
class ReleaseBots:
    """The pool to an idle worker at the end of a run: stop the bots you keep, then answer
    ``BotsReleased``."""


@dataclass(frozen=True)
class QuitWorker:
    """The pool to a worker: it is closing; exit (in the middle of a match too)."""


@dataclass(frozen=True)
class BotsReleased:
    """A worker to the pool: the bots it kept have quit (its answer to ``ReleaseBots``)."""


ToWorker = PlayMatch | ShareMatch | ReleaseBots | QuitWorker
"""What the pool sends a worker."""
FromWorker = list[Event] | BotsReleased
"""What a worker sends the pool: its events in batches (``_Batcher``), or ``BotsReleased``."""


class Connection(Protocol):
    """The part of a ``multiprocess`` connection the pool uses."""

    def send_bytes(self, data: bytes) -> None: ...
    def recv_bytes(self) -> bytes: ...
    def fileno(self) -> int: ...
    def poll(self, timeout: float | None = 0.0) -> bool: ...
    def close(self) -> None: ...


class WorkerProcess(Protocol):
    """The part of a ``multiprocess`` process the pool uses."""

    pid: int | None
    exitcode: int | None
    sentinel: int

    def start(self) -> None: ...
    def join(self, timeout: float | None = None) -> None: ...
    def is_alive(self) -> bool: ...
    def terminate(self) -> None: ...
    def kill(self) -> None: ...


_STOPS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
"""The signals that stop a run (``arena.commands.stopping``): held while a worker is forked."""


@contextlib.contextmanager
def _stops_held() -> Iterator[None]:
    """Hold (block) the stop signals while the pool forks a worker and records it.

    A stop signal's handler raises; landing during ``fork``, it would raise inside an at-fork
    hook (logging has one), where Python ignores exceptions: the run would go on as if no signal
    had come. Held, the signal is handled when the block ends, with the new worker on record
    (so that closing the pool stops it). The child unblocks them once its handlers are set.
    """
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


# --- in the worker process ----------------------------------------------------------------------
_SCRATCH: list[str] = []
"""This worker's scratch folder (set in the worker process only)."""


def _terminate(_signum: int, _frame: FrameType | None) -> None:
    """SIGTERM (the pool is closing, or the harness died): kill the bots at once and exit.

    Raising SystemExit here to unwind through ``Match.__exit__`` is not reliable: a signal handler
    also runs inside at-fork hooks and finalizers (the worker forks a bot after every fault),
    where an exception is printed and swallowed, and the worker then plays on.
    """
    stop_bots()
    if _SCRATCH:  # the parent removes it too, unless it was killed itself (that is why we are here)
        reaper.remove_scratch(_SCRATCH[0])
    os._exit(1)


class _Batcher:
    """Sends a worker's events to the parent (recording its games first), in batches.

    Each batch costs the worker a commit to the store and a pickling, and the parent a system
    call and an unpickling: about half a millisecond with caches cold after a game, more than a
    game between instant bots and a good part of the harness's time beside searching bots. So
    games travel together as long as none waits longer than ``LATENCY_S`` for it (judged by the
    game that just ended: one more like it would come too late), at most ``SIZE`` of them. Games
    slower than that, and anything but a game (the end of a job, a share), are sent at once.
    What the parent shows is recorded already; a worker killed meanwhile loses the games it
    held, which a resumed run plays again.
    """

    SIZE = 128
    LATENCY_S = 0.25

    def __init__(self, conn: Connection, sink: GameSink | None) -> None:
        self.conn = conn
        self.sink = sink
        self.events: list[Event] = []
        self.first = self.last = 0.0

    def __call__(self, event: Event) -> None:
        now = time.monotonic()
        since_last = now - self.last  # about the next game's time, if it is like this one
        self.last = now
        if not self.events:
            self.first = now
        self.events.append(event)
        if (
            not isinstance(event, GameDone)
            or len(self.events) >= self.SIZE
            or now - self.first + since_last >= self.LATENCY_S
        ):
            self.flush()

    def flush(self) -> None:
        """Record the batch's games, then send the batch to the parent."""
        if not self.events:
            return
        self.events = self._recorded(self.events)
        self.conn.send_bytes(pickle.dumps(self.events, pickle.HIGHEST_PROTOCOL))
        self.events = []

    def _recorded(self, events: list[Event]) -> list[Event]:
        """``events`` with their games recorded through the sink, each saying whether it was
        new (unchanged without a sink: the parent records them)."""
        games = [e for e in events if isinstance(e, GameDone)]
        if self.sink is None or not games:
            return events
        try:
            recorded = iter(self.sink(games))
        except Exception:  # e.g. a full disk: the parent records them, and says what failed
            recorded = iter([False] * len(games))
        return [
            dataclasses.replace(e, recorded=next(recorded)) if isinstance(e, GameDone) else e
            for e in events
        ]


def _worker_main(
    conn: Connection,
    settings: MatchSettings,
    core: int | None,
    parent: int,
    sink_factory: Callable[[], GameSink] | None,
    scratch: str,
) -> None:
    """A worker process: receive jobs, play them, send events back, until ``QuitWorker``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # and so is a hang-up (it closes the pool)
    signal.signal(signal.SIGTERM, _terminate)
    procfs.die_with_parent(signal.SIGTERM)  # so that the worker can kill its bots
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)  # held by the parent while it forked
    if os.getppid() != parent:  # the parent died before the request took effect
        return
    # The bots' scratch folders go in ``scratch``, which the parent removes even if this process
    # is killed; subreaper and guardian: no bot process outlives the worker.
    _SCRATCH[:] = [scratch]
    forget_keeper()  # the parent's kept bots (an inline run before) are not this worker's
    mode = prepare_worker(settings.sandbox, scratch=scratch, core=core)
    settings = dataclasses.replace(settings, sandbox=mode)
    send = _Batcher(conn, sink_factory() if sink_factory is not None else None)
    try:
        _serve(conn, settings, send)
    finally:
        close_keeper()  # the bots it kept between its matches quit with it


def _receive(conn: Connection) -> ToWorker:
    """The pool's next message; a pool gone (the pipe closed) is one closing."""
    try:
        message: ToWorker = pickle.loads(conn.recv_bytes())
    except (EOFError, OSError):
        return QuitWorker()
    return message


def _serve(conn: Connection, settings: MatchSettings, send: _Batcher) -> None:
    """Play what the pool sends until it says to quit."""
    requests = _Requests(conn)
    while True:
        message = _receive(conn)
        if isinstance(message, QuitWorker):
            return
        if isinstance(message, ShareMatch):  # its match ended before the request came
            continue
        if isinstance(message, ReleaseBots):  # the run's jobs are done: its kept bots quit now
            close_keeper()
            conn.send_bytes(pickle.dumps(BotsReleased(), pickle.HIGHEST_PROTOCOL))
            continue
        try:
            play_job(message.job, settings, send, asked=requests)
        except Exception as error:
            send(JobFailed.of(message.job.key, error))
        if requests.quitting:  # its bots are stopped; the games it held are the pool's to replay
            return
        send.flush()


class _Requests:
    """What the pool asks this worker during its match (``play_job``'s ``asked``).

    Mid-match the pool sends nothing but ``ShareMatch``, unless it is closing and took this
    worker for idle: its ``QuitWorker`` then stops the match here, where taken for a share
    request the worker would play on and then wait for a job that never comes."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.readable = select.poll()
        """Watches ``conn``, made once: ``conn.poll()`` builds a selector at each call, tens of
        microseconds after every game."""
        self.readable.register(conn.fileno(), select.POLLIN)
        self.quitting = False

    def __call__(self) -> Asked:
        if not self.readable.poll(0):
            return Asked.NOTHING
        if isinstance(_receive(self.conn), QuitWorker):
            self.quitting = True
            return Asked.STOP
        return Asked.SHARE


# --- in the parent ------------------------------------------------------------------------------
@dataclass
class _Worker:
    process: WorkerProcess
    conn: Connection
    core: int | None
    scratch: str
    """A folder of the worker's own, holding its bots' scratch folders; removed with it."""
    number: int
    """Its number in the pool, new for each process (what ``Placement`` knows it by)."""
    job: MatchJob | None = None
    progress_at: float = 0.0
    """When the worker was last heard of (given its job, or sent events)."""
    played: int = 0
    """Games of its job it has reported."""
    asked: bool = False
    """Whether it was asked to share its job and has not answered yet."""
    keeps_all: bool = False
    """Whether it answered that it keeps all its job (not to be asked again)."""

    def games_left(self) -> int:
        """Games of its job it has yet to report (0 without a job)."""
        return 0 if self.job is None else self.job.owed - self.played

    def give(self, job: MatchJob) -> None:
        """Record that it was given ``job``."""
        self.job, self.played, self.asked, self.keeps_all = job, 0, False, False
        self.progress_at = time.monotonic()

    def send(self, message: ToWorker) -> None:
        """Send ``message`` to the worker (``OSError`` when it is gone)."""
        self.conn.send_bytes(pickle.dumps(message, pickle.HIGHEST_PROTOCOL))

    def remove_scratch(self) -> None:
        reaper.remove_scratch(self.scratch)  # with the bots' tmpfs mounted in it


class LocalPoolExecutor:
    """Matches in ``workers`` local processes (``multiprocess``), one match per worker at a time.

    Each worker is pinned to its core from ``cores`` (None: it floats). A worker that dies is
    replaced and its job reported as failed, so the tournament never stalls on it; so is a
    worker that is heard of no more for longer than the slowest possible game (stopped,
    stalled): it is killed with its bots, and its job fails (the caller replays it, never
    charging a bot).
    """

    def __init__(
        self,
        workers: int,
        settings: MatchSettings,
        cores: Sequence[int | None] | None = None,
        sink_factory: Callable[[], GameSink] | None = None,
        stall_seconds: float | None = None,
        winding_down: Callable[[], None] | None = None,
    ) -> None:
        """``sink_factory``: when given, each worker records its games itself (in parallel)
        through the sink it makes, and the events say so; otherwise the caller records them.
        ``stall_seconds``: silence after which a busy worker is killed (default: the slowest
        possible game, :func:`slowest_game_seconds`). ``winding_down``: told once, when a worker
        has nothing left to play nor to take a share of (``ExecutorSetup.winding_down``)."""
        import multiprocess

        self._ctx = multiprocess.get_context("fork")
        self.settings = settings
        self.keeps = settings.keep_bots is not KeepBots.OFF
        """Whether workers may keep bots between matches (``keep_bots``: ``auto`` or ``true``)."""
        self.sink_factory = sink_factory
        self.stall_seconds = (
            slowest_game_seconds(settings) if stall_seconds is None else stall_seconds
        )
        self.cores = list(cores) if cores is not None else [None] * workers
        self._workers: list[_Worker] = []
        self._numbers = itertools.count()
        self.winding_down = winding_down
        self._placement = Placement(self.keeps, workers)
        try:
            with _stops_held():
                for i in range(workers):
                    self._workers.append(self._spawn(self.cores[i]))
        except BaseException:  # a stop signal, delivered as the hold ends: no worker is left
            self.close()
            raise

    @property
    def worker_pids(self) -> list[int]:
        """The process ids of the current workers (a dead one is replaced by a new one)."""
        return [w.process.pid for w in self._workers if w.process.pid is not None]

    def _spawn(self, core: int | None) -> _Worker:
        parent_conn, child_conn = self._ctx.Pipe()
        scratch = tempfile.mkdtemp(prefix="arena-worker-")
        process: WorkerProcess = self._ctx.Process(
            target=_worker_main,
            args=(child_conn, self.settings, core, os.getpid(), self.sink_factory, scratch),
            daemon=True,
        )
        process.start()
        child_conn.close()
        return _Worker(process, parent_conn, core, scratch, next(self._numbers))

    def _replace(self, worker: _Worker) -> None:
        with contextlib.suppress(Exception):
            worker.conn.close()
        worker.process.join(timeout=5)
        worker.remove_scratch()  # a killed worker could not remove its bots' folders
        self._placement.forget(worker.number)
        index = self._workers.index(worker)
        with _stops_held():
            self._workers[index] = self._spawn(worker.core)

    def execute(self, jobs: Sequence[MatchJob]) -> Iterator[list[Event]]:
        """Run the jobs; once they are all done, the workers' kept bots (``keep_bots``) quit,
        so that none outlives the call. (A caller that stops iterating, a run being stopped,
        leaves them to ``close``, which stops the workers at once.)"""
        yield from self._execute(jobs)
        if self.keeps:
            self._release()

    def _release(self) -> None:
        """Ask every idle worker to stop the bots it keeps, and wait (bounded) until it has."""
        waiting = []
        for worker in self._workers:
            if worker.job is None:
                with contextlib.suppress(OSError):
                    worker.send(ReleaseBots())
                    waiting.append(worker)
                self._placement.forget(worker.number)
        deadline = time.monotonic() + RELEASE_S
        for worker in waiting:
            readable = select.poll()
            readable.register(worker.conn.fileno(), select.POLLIN)
            left_ms = max(0, int((deadline - time.monotonic()) * 1000))
            if readable.poll(left_ms):
                with contextlib.suppress(EOFError, OSError):
                    worker.conn.recv_bytes()

    def _execute(self, jobs: Sequence[MatchJob]) -> Iterator[list[Event]]:
        self._placement.fill(jobs)
        batch: list[Event] = []
        while True:
            # A worker that has finished gets its next job before the caller stores and tells
            # what it sent (the yield below): it never waits for the parent's bookkeeping.
            self._hand_out(batch)
            if not self._placement.queue:
                self._share()
            if batch:
                yield batch
                batch = []
            busy = [w for w in self._workers if w.job is not None]
            if not busy:
                return
            poller = select.poll()
            owners: dict[int, _Worker] = {}
            for worker in busy:
                for fd in (worker.conn.fileno(), worker.process.sentinel):
                    poller.register(fd, select.POLLIN)
                    owners[fd] = worker
            wait_ms = min(1000, max(10, int(self.stall_seconds * 1000 / 4)))
            for fd, _event in poller.poll(wait_ms):
                worker = owners[fd]
                if worker.job is not None:
                    self._collect(worker, batch)
            now = time.monotonic()
            for worker in busy:
                if worker.job is not None and now - worker.progress_at > self.stall_seconds:
                    self._kill_stalled(worker, batch, now - worker.progress_at)

    def _hand_out(self, batch: list[Event]) -> None:
        """Give each idle worker its next job from the queue (a worker found dead is replaced,
        and the job it could not take fails into ``batch``)."""
        for worker in list(self._workers):
            if worker.job is None and self._placement.queue:
                job = self._placement.take(worker.number)
                # Busy on record before the job is sent: a stop signal landing just after the
                # send must not leave a playing worker on record as idle, which ``close`` would
                # ask to exit between jobs instead of stopping it.
                worker.give(job)
                try:
                    worker.send(PlayMatch(job))
                except OSError:  # the worker died while idle (killed from outside)
                    worker.job = None
                    self._replace(worker)  # joins the old process: its exit code is known
                    code = worker.process.exitcode
                    batch.append(JobFailed(job.key, f"worker process died (exit code {code})"))

    def _share(self) -> None:
        """With a worker idle and nothing queued, ask the busy worker with the most games left
        to give back the later chunks of its match (one request at a time): without it, the
        last matches of a run play while the other workers wait."""
        if all(w.job is not None for w in self._workers) or any(w.asked for w in self._workers):
            return
        sharing = [w for w in self._workers if w.job is not None and not w.keeps_all]
        worker = max(sharing, key=_Worker.games_left, default=None)
        if worker is None or worker.games_left() < 2:
            if self.winding_down is not None:
                self.winding_down()
                self.winding_down = None
            return
        try:
            worker.send(ShareMatch())
        except OSError:  # it died: ``_collect`` finds out
            return
        worker.asked = True

    def _collect(self, worker: _Worker, batch: list[Event]) -> None:
        """Add everything a worker has sent to ``batch``; a failure if it died."""
        readable = select.poll()
        readable.register(worker.conn.fileno(), select.POLLIN)
        while worker.job is not None and readable.poll(0):
            try:
                message: FromWorker = pickle.loads(worker.conn.recv_bytes())
            except (EOFError, OSError):
                break
            if isinstance(message, BotsReleased):  # later than the end of a run waited for it
                continue
            for event in message:
                if isinstance(event, ChunksShared):
                    self._shared(worker, event)
                    continue
                if isinstance(event, JobDone | JobFailed):
                    worker.job, worker.asked = None, False  # a request after its end: unanswered
                elif isinstance(event, GameDone):
                    worker.played += 1
                    self._placement.observe(event.record)
                batch.append(event)
            worker.progress_at = time.monotonic()
        if worker.job is not None and not worker.process.is_alive():
            job, worker.job = worker.job, None
            code = worker.process.exitcode
            self._replace(worker)
            batch.append(JobFailed(job.key, f"worker process died (exit code {code})"))

    def _shared(self, worker: _Worker, answer: ChunksShared) -> None:
        """A worker's answer to ``ShareMatch``: the chunks it gave back go to the front of the
        queue, for the idle workers."""
        worker.asked = False
        if answer.rest is None or worker.job is None:
            worker.keeps_all = True
            return
        kept = len(worker.job.slots) - len(answer.rest.slots)
        worker.job = dataclasses.replace(worker.job, slots=worker.job.slots[:kept])
        self._placement.give_back(answer.rest)

    def _kill_stalled(self, worker: _Worker, batch: list[Event], silent_s: float) -> None:
        """Kill a worker that made no progress (its bots first: they may be stopped with it)."""
        job, worker.job = worker.job, None
        assert job is not None
        pid = worker.process.pid
        if pid is not None:
            for child in procfs.all_children(pid):
                with contextlib.suppress(OSError):
                    os.killpg(child, signal.SIGKILL)  # a bot leads its own process group
                with contextlib.suppress(OSError):
                    os.kill(child, signal.SIGKILL)
        worker.process.kill()  # SIGKILL ends a stopped process too
        self._replace(worker)
        batch.append(
            JobFailed(
                job.key,
                f"worker made no progress for {silent_s:.0f} s (a game takes at most"
                f" {self.stall_seconds:.0f} s): killed; its match is replayed",
            )
        )

    def close(self) -> None:
        """Stop the workers: ask idle ones to exit, SIGTERM busy ones (they kill their bots)."""
        for worker in self._workers:
            with contextlib.suppress(Exception):
                if worker.job is None:
                    worker.send(QuitWorker())
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


def make_local(setup: ExecutorSetup) -> LocalPoolExecutor:
    """The registry's factory: ``workers`` processes, pinned to cores as ``affinity`` says."""
    cores = plan_cores(setup.workers, setup.affinity)
    return LocalPoolExecutor(
        setup.workers, setup.settings, cores, setup.sink_factory, winding_down=setup.winding_down
    )
