"""The local pool: chunks in forked worker processes on this machine, one match per worker.

Workers are forked (``multiprocess``), pinned to cores when there are enough, die with the
parent, and keep their bots' scratch folders in a folder the parent removes. A worker records
its games through its own sink and sends its events in batches. It is sent each chunk of its
match as it starts the one before, so it never waits for the pool between two chunks.
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
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Protocol

from arena.launch import procfs, reaper
from arena.limits import KeepBots
from arena.referee.match import MatchSettings
from arena.tournament.affinity import plan_cores
from arena.tournament.executors.base import (
    ChunkPlayer,
    Event,
    ExecutorSetup,
    GameDone,
    GameSink,
    JobDone,
    JobFailed,
    close_keeper,
    forget_keeper,
)
from arena.tournament.executors.placement import Chain, Placement, take_from_longest
from arena.tournament.executors.worker import prepare_worker, stop_bots
from arena.tournament.schedule import MatchJob

RELEASE_S = 10.0
"""How long the end of a run waits for the workers to stop the bots they keep."""
STALL_MARGIN_S = 15.0
"""Beyond the slowest possible game: stopping bots, a busy store, a loaded machine."""


def slowest_game_seconds(settings: MatchSettings) -> float:
    """The longest a game can take when nothing is wrong with the harness: both bots (re)start,
    every ply uses its whole time (``TimeControl.longest_moves_ms``), then stopping, recording."""
    tc = settings.time_control
    return (2 * tc.startup_wall_ms() + tc.longest_moves_ms()) / 1000 + STALL_MARGIN_S


@dataclass(frozen=True)
class PlayChunk:
    """The pool to a worker: play ``job`` once the chunks sent before are played (continuing
    their match when it follows the last of them, ``ChunkPlayer``)."""

    job: MatchJob
    ends_match: bool
    """Whether no chunk of its match is left to follow it (the match then ends with it)."""


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


ToWorker = PlayChunk | ReleaseBots | QuitWorker
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
    """Hold the stop signals while the pool forks a worker and records it: a handler raising in
    an at-fork hook (logging has one) is ignored by Python, and the run would go on. Held, the
    signal is handled once the new worker is on record (closing the pool stops it)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


# --- in the worker process ----------------------------------------------------------------------
_SCRATCH: list[str] = []
"""This worker's scratch folder (set in the worker process only)."""


def _terminate(_signum: int, _frame: FrameType | None) -> None:
    """SIGTERM (the pool closes, or the harness died): kill the bots and exit at once. Raising
    here is not reliable: in an at-fork hook or a finalizer the exception is swallowed."""
    stop_bots()
    if _SCRATCH:  # the parent removes it too, unless it was killed itself (that is why we are here)
        reaper.remove_scratch(_SCRATCH[0])
    os._exit(1)


class _Batcher:
    """Sends a worker's events to the parent (recording its games first), in batches.

    A batch costs a commit, a pickling and a system call: about half a millisecond, more than a
    game between instant bots. So games travel together while none waits longer than
    ``LATENCY_S`` (judged by the last game), at most ``SIZE``; anything but a game goes at once.
    A worker killed meanwhile loses the games it held, which a resumed run plays again.
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
    """Play what the pool sends until it says to quit; the match open at the end ends."""
    inbox = _Inbox(conn)
    player = ChunkPlayer(settings)
    failed: str | None = None
    try:
        while True:
            message = inbox.next()
            if isinstance(message, QuitWorker):
                return
            if isinstance(message, ReleaseBots):  # the run's chunks are done: its bots quit now
                player.end()
                close_keeper()
                conn.send_bytes(pickle.dumps(BotsReleased(), pickle.HIGHEST_PROTOCOL))
                continue
            job = message.job
            if job.follows is not None and job.follows == failed:
                failed = job.key  # the pool queued it again with the chunk that failed
                continue
            try:
                player.play(job, send, stop=inbox.quitting, ends_match=message.ends_match)
            except Exception as error:
                failed = job.key
                send(JobFailed.of(job.key, error))
            if inbox.stopped:  # its bots are stopped; the games it held are the pool's to replay
                return
            send.flush()
    finally:
        player.end()


class _Inbox:
    """What the pool sent this worker, read between games too: the next chunk of its match, or
    ``QuitWorker`` (the pool closes), which stops the match there (``quitting``)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.readable = select.poll()
        """Watches ``conn``, made once: ``conn.poll()`` builds a selector at each call, tens of
        microseconds after every game."""
        self.readable.register(conn.fileno(), select.POLLIN)
        self.waiting: deque[ToWorker] = deque()
        self.stopped = False

    def next(self) -> ToWorker:
        """The next message, read before or waited for."""
        return self.waiting.popleft() if self.waiting else _receive(self.conn)

    def quitting(self) -> bool:
        """Read what came during a game; whether it says to quit."""
        while self.readable.poll(0):
            message = _receive(self.conn)
            if isinstance(message, QuitWorker):
                self.stopped = True
                return True
            self.waiting.append(message)
        return False


# --- in the parent ------------------------------------------------------------------------------
@dataclass
class _Worker:
    process: WorkerProcess
    conn: Connection
    core: int | None
    scratch: str  # a folder of its own for its bots' scratch folders, removed with it
    number: int  # new for each process: what ``Placement`` knows it by
    job: MatchJob | None = None  # the chunk it plays (None: idle)
    ahead: MatchJob | None = None  # the next chunk of its match, sent
    reserved: Chain = field(default_factory=list)  # its match's later chunks, not sent
    resets: bool | None = None  # whether its bots reset at ``match`` (None: not told yet)
    progress_at: float = 0.0  # when it was last heard of
    played: set[tuple[str, str, int]] = field(default_factory=set)  # its chunk's games told

    def games_left(self) -> int:
        """Games of the chunks sent to it that it has yet to report."""
        sent = [job for job in (self.job, self.ahead) if job is not None]
        return sum(job.owed for job in sent) - len(self.played)

    def give(self, chain: Chain) -> None:
        """Record that it was given the match ``chain``."""
        self.job, self.ahead, self.reserved = chain[0], None, chain[1:]
        self.played, self.resets = set(), None
        self.progress_at = time.monotonic()

    def unsent(self) -> Chain:
        """Take the chunks it was to play after its own."""
        rest = ([self.ahead] if self.ahead is not None else []) + self.reserved
        self.job, self.ahead, self.reserved = None, None, []
        return rest

    def send(self, message: ToWorker) -> None:
        """Send ``message`` to the worker (``OSError`` when it is gone)."""
        self.conn.send_bytes(pickle.dumps(message, pickle.HIGHEST_PROTOCOL))

    def remove_scratch(self) -> None:
        reaper.remove_scratch(self.scratch)  # with the bots' tmpfs mounted in it


class LocalPoolExecutor:
    """Chunks in ``workers`` local processes, one match per worker at a time, each pinned to its
    core from ``cores`` (None: it floats). A worker that dies, or is heard of no more for longer
    than the slowest possible game, is killed with its bots and replaced; its chunk fails."""

    def __init__(
        self,
        workers: int,
        settings: MatchSettings,
        cores: Sequence[int | None] | None = None,
        sink_factory: Callable[[], GameSink] | None = None,
        stall_seconds: float | None = None,
        winding_down: Callable[[], None] | None = None,
    ) -> None:
        """``sink_factory``: makes each worker's own sink (None: the caller records the games).
        ``stall_seconds``: silence after which a busy worker is killed (default:
        ``slowest_game_seconds``). ``winding_down``: ``ExecutorSetup.winding_down``."""
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
        """Run the chunks; then the workers' kept bots quit (a caller that stops iterating
        leaves them to ``close``, which stops the workers at once)."""
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
            # A worker that has finished gets its next chunk before the caller stores and tells
            # what it sent (the yield below): it never waits for the parent's bookkeeping.
            self._hand_out(batch)
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
        """Give each idle worker a match (``_next_match``), and each busy one the next chunk of
        its match ahead (a worker found dead is replaced, and its chunk fails into ``batch``)."""
        for worker in list(self._workers):
            if worker.job is None:  # its match's next chunk, if it ended one before it was sent
                chain = worker.reserved or self._next_match(worker)
                if not chain:
                    continue
                # Busy on record before the chunk is sent: a stop signal landing just after the
                # send must not leave a playing worker on record as idle, which ``close`` would
                # ask to exit between chunks instead of stopping it.
                worker.give(chain)
                try:
                    worker.send(PlayChunk(chain[0], not worker.reserved))
                except OSError:  # the worker died while idle (killed from outside)
                    self._replace(worker)  # joins the old process: its exit code is known
                    died = f"worker process died (exit code {worker.process.exitcode})"
                    self._fail(worker, JobFailed(chain[0].key, died), batch)
                    continue
            if worker.ahead is None and worker.reserved:
                worker.ahead = worker.reserved.pop(0)
                with contextlib.suppress(OSError):  # it died: ``_collect`` finds out
                    worker.send(PlayChunk(worker.ahead, not worker.reserved))

    def _next_match(self, worker: _Worker) -> Chain:
        """The match an idle worker plays next: the queue's, else the later chunks of the match
        with the most games left among those whose bots reset at ``match``, else none."""
        if self._placement.queue:
            return self._placement.take(worker.number)
        chain = take_from_longest(
            (w.reserved, w.games_left()) for w in self._workers if w.resets and w.reserved
        )
        if chain:
            self._placement.ran(worker.number, chain[0])
        elif self.winding_down is not None and not any(
            w.job is not None and w.resets is None and w.reserved for w in self._workers
        ):
            self.winding_down()
            self.winding_down = None
        return chain

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
                if isinstance(event, JobFailed):
                    self._fail(worker, event, batch)
                    continue
                if isinstance(event, JobDone):
                    worker.job, worker.ahead, worker.played = worker.ahead, None, set()
                elif isinstance(event, GameDone) and worker.job is not None:
                    worker.played.add(worker.job.slot_key(event.slot))
                    worker.resets = event.resets
                    self._placement.observe(event.record)
                batch.append(event)
            worker.progress_at = time.monotonic()
        if worker.job is not None and not worker.process.is_alive():
            key, code = worker.job.key, worker.process.exitcode
            self._replace(worker)
            self._fail(worker, JobFailed(key, f"worker process died (exit code {code})"), batch)

    def _fail(self, worker: _Worker, failure: JobFailed, batch: list[Event]) -> None:
        """The harness failed the worker's chunk: queue it again with the rest of its match (a
        worker that lives on drops the chunk it had ahead, ``_serve``)."""
        job, played = worker.job, worker.played
        rest = worker.unsent()
        if job is not None:
            self._placement.failed(job, played, rest)
        batch.append(failure)

    def _kill_stalled(self, worker: _Worker, batch: list[Event], silent_s: float) -> None:
        """Kill a worker that made no progress (its bots first: they may be stopped with it)."""
        assert worker.job is not None
        key = worker.job.key
        pid = worker.process.pid
        if pid is not None:
            for child in procfs.all_children(pid):
                with contextlib.suppress(OSError):
                    os.killpg(child, signal.SIGKILL)  # a bot leads its own process group
                with contextlib.suppress(OSError):
                    os.kill(child, signal.SIGKILL)
        worker.process.kill()  # SIGKILL ends a stopped process too
        self._replace(worker)
        self._fail(
            worker,
            JobFailed(
                key,
                f"worker made no progress for {silent_s:.0f} s (a game takes at most"
                f" {self.stall_seconds:.0f} s): killed; its chunk is replayed",
            ),
            batch,
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
