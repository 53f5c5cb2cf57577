"""What runs on a Dask worker: the bots' packs unpacked on arrival, and one match per task.

A worker keeps the bots of a run between that run's matches (``keep_bots``; a keeper per run, as
the worker outlives runs and may serve several drivers): they quit when the driver releases the
run (``release_run``, at its end), are killed when it stops it (``stop_run``), and quit by
themselves once the run has had no match here for its idle limit (a driver killed outright).

Imported by the workers (and by the driver when it registers the plugin); it needs ``distributed``
at import, which is why ``arena.tournament.executors.cluster`` imports it only when a cluster
executor is made.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pickle
import signal
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from distributed import Queue, WorkerPlugin, get_worker

from arena.limits import SandboxMode
from arena.referee import Match, MatchSettings
from arena.tournament.executors.base import (
    KEPT_IDLE_S,
    Asked,
    ChunksShared,
    Event,
    GameDone,
    JobFailed,
    close_keeper,
    kept_processes,
    play_job,
)
from arena.tournament.executors.botpack import default_cache_root, unpack
from arena.tournament.executors.worker import prepare_worker
from arena.tournament.schedule import MatchJob

_PREPARED: dict[SandboxMode, SandboxMode] = {}
"""The sandbox mode asked for -> the mode this worker process runs its bots in, once prepared."""


def _ensure_prepared(
    sandbox: SandboxMode | str = SandboxMode.AUTO, worker: Any = None
) -> SandboxMode:
    """Prepare this worker process once (``arena.tournament.executors.worker.prepare_worker``, as
    the local pool's workers are): the bots' scratch folders go inside the Dask worker's own folder,
    which Dask removes with the worker (and which a later worker purges when this one was killed),
    and the sandbox mode is resolved here, on the machine that starts the bots. ``worker``: the Dask
    worker, where ``get_worker`` does not know it (a plugin's ``setup`` runs outside any task).
    Outside a worker the folder is ``arena-scratch-<pid>`` in the temp folder, which a later harness
    sweeps once this process is gone (``arena.launch.reaper``)."""
    key = SandboxMode(sandbox)
    if key not in _PREPARED:
        try:
            base = Path((worker or get_worker()).local_directory)
        except ValueError:  # not in a worker (called directly, e.g. by a test)
            base = Path(tempfile.gettempdir())
        scratch = base / f"arena-scratch-{os.getpid()}"
        scratch.mkdir(parents=True, exist_ok=True)
        _PREPARED[key] = prepare_worker(sandbox, scratch=str(scratch))
    return _PREPARED[key]


def sandbox_problem(mode: str, dask_worker: Any = None) -> str:
    """Why this worker cannot run bots in sandbox ``mode`` (empty: it can), for the driver's
    check at connection (``Client.run``, which passes ``dask_worker``: plain data both ways)."""
    try:
        _ensure_prepared(mode, dask_worker)
    except Exception as exc:  # SandboxError, or a mode this version does not know
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return ""


class BotPackPlugin(WorkerPlugin):
    """Unpacks the run's bots into the worker's cache when the worker joins (or is restarted)."""

    def __init__(self, packs: dict[str, bytes], cache_root: str | None) -> None:
        self.packs = packs
        """Digest -> the pack's bytes (``arena.tournament.executors.botpack``)."""
        self.cache_root = cache_root
        """The cache folder on the workers (None: ``botpack.default_cache_root`` there)."""

    def setup(self, worker: Any) -> None:
        _ensure_prepared(worker=worker)
        root = None if self.cache_root is None else Path(self.cache_root)
        for digest, data in self.packs.items():
            unpack(data, digest, root)


class LiveFeedPlugin(WorkerPlugin):
    """Makes a worker of a local cluster write its games in progress to the run's live folder
    (``arena.tournament.live``), as a local pool's workers do; the thread ends with the worker,
    and the run removes the folder at its end."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def setup(self, worker: Any) -> None:
        from arena.tournament.live import LiveFeed

        LiveFeed(Path(self.folder)).start()


_STOPPED_RUNS: set[str] = set()
"""The runs whose drivers stopped them (``stop_run``): their matches here end at once."""
_STOPPED_TASKS: set[str] = set()
"""The tasks the driver gave up on (``stop_task``): their matches here end at once."""
_PLAYING: dict[str, list[Match]] = {}
"""Run, or task key -> its matches being played in this worker process now."""
_SHARE_ASKED: set[str] = set()
"""The tasks asked to give back their later chunks (``share_task``), until they answer."""
_LOCK = threading.Lock()
_SEEN: dict[str, tuple[float, float]] = {}
"""Run -> (when a match of it last started or ended here, its idle limit): the runs whose kept
bots quit once they have had no match here for that long."""
_WATCHER: list[threading.Thread] = []
"""The thread that releases idle runs (started by the first run that keeps bots here)."""


class _RunStopped(Exception):
    """The driver stopped the run: the match ends (its bots are stopped by ``Match.__exit__``)."""


def stop_run(run: str) -> int:
    """Stop run ``run``'s matches in this worker process (called by the driver through
    ``Client.run`` when it stops: Ctrl-C, SIGTERM, an error): their bots are killed now, and no
    game of the run starts here after this. Returns how many bot processes were killed.

    A cancelled Dask task cannot be interrupted (it runs in a worker thread); without this,
    a match would play on, its bots running, for a driver that is gone."""
    with _LOCK:
        _STOPPED_RUNS.add(run)
        matches = list(_PLAYING.get(run, ()))
        _SEEN.pop(run, None)
    killed = len(kept_processes(run))
    close_keeper(run, graceful=False)  # its kept bots too: no match of the run comes any more
    return killed + _kill_bots(matches)


def release_run(run: str) -> int:
    """Stop the bots this worker process keeps for run ``run`` (``quit``, then reaped): called
    by the driver through ``Client.run`` when the run's matches are all done. Returns how many
    bot processes it stopped."""
    with _LOCK:
        _SEEN.pop(run, None)
    released = len(kept_processes(run))
    close_keeper(run)
    return released


def release_idle() -> list[str]:
    """Release the runs that had no match here for longer than their idle limit (their driver
    was killed, or forgot them); the runs released."""
    now = time.monotonic()
    with _LOCK:
        idle = [
            run
            for run, (seen, limit) in _SEEN.items()
            if run not in _PLAYING and now - seen > limit
        ]
        for run in idle:
            del _SEEN[run]
    for run in idle:
        close_keeper(run)
    return idle


def kept_bots(run: str | None = None) -> int:
    """How many bot processes this worker process keeps for ``run`` (None: for every run)."""
    return len(kept_processes(run))


def _seen(run: str, idle_s: float) -> None:
    """Note that run ``run`` plays here now (under ``_LOCK``); start the idle watcher once."""
    _SEEN[run] = (time.monotonic(), idle_s)
    if not _WATCHER:
        watcher = threading.Thread(target=_watch_idle, name="arena-kept-idle", daemon=True)
        _WATCHER.append(watcher)
        watcher.start()


def _watch_idle() -> None:
    """Release idle runs, for as long as this worker process lives (a daemon thread)."""
    while True:
        with _LOCK:
            shortest = min((limit for _seen, limit in _SEEN.values()), default=KEPT_IDLE_S)
        time.sleep(min(5.0, max(0.1, shortest / 4)))
        with contextlib.suppress(Exception):
            release_idle()


def stop_task(task: str) -> int:
    """Stop the match of Dask task ``task`` in this worker process: the driver cancelled it (no
    result by its deadline) and replays its games, and cancelling does not stop a running task.
    Its bots are killed now; returns how many bot processes were killed."""
    with _LOCK:
        _STOPPED_TASKS.add(task)
        matches = list(_PLAYING.get(task, ()))
    return _kill_bots(matches)


def share_task(task: str) -> bool:
    """Ask the match of Dask task ``task``, if it plays in this worker process, to give back its
    later chunks when its current game ends (``play_job``'s ``asked``): a worker of the cluster
    is idle with nothing queued. Whether the task plays here (the driver asks again otherwise)."""
    with _LOCK:
        if task not in _PLAYING:
            return False
        _SHARE_ASKED.add(task)
        return True


def _kill_bots(matches: list[Match]) -> int:
    """SIGKILL the bots of ``matches``; the match then ends with a fault it does not record."""
    killed = 0
    for match in matches:
        for seat in match.seats:
            pid = seat.process.pid if seat.process is not None else -1
            if pid > 0:
                with contextlib.suppress(OSError):
                    os.killpg(pid, signal.SIGKILL)  # a bot leads its own process group
                    killed += 1
    return killed


class _Streamer:
    """Sends a match's finished games to the driver while the match goes on, through a Dask
    queue (held by the scheduler, emptied by the driver), at most every ``EVERY_S`` seconds; and
    the chunks it gives back (``ChunksShared``) at once, for an idle worker to take.

    Best effort: the task's result carries every event again, so a game the queue lost is still
    stored, and the driver ignores those it had (the store would refuse them anyway)."""

    EVERY_S = 0.5

    def __init__(self, name: str) -> None:
        self.name = name
        self.queue: Any = None
        self.pending: list[GameDone | ChunksShared] = []
        self.last = time.monotonic()

    def add(self, event: GameDone | ChunksShared) -> None:
        self.pending.append(event)
        if isinstance(event, ChunksShared) or time.monotonic() - self.last >= self.EVERY_S:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        try:
            if self.queue is None:
                queue: Any = Queue  # untyped in distributed
                self.queue = queue(self.name)
            self.queue.put(pickle.dumps(self.pending, pickle.HIGHEST_PROTOCOL))
        except Exception:  # the scheduler is busy or gone: the task's result will carry them
            pass
        self.pending = []
        self.last = time.monotonic()

    def close(self) -> None:
        """Send what is left and let the scheduler forget this task's hold on the queue (it keeps
        a queue, and what is in it, until every one that opened it released it)."""
        self.flush()
        if self.queue is not None:
            with contextlib.suppress(Exception):
                self.queue.close()
            self.queue = None


def play_remote(
    job: MatchJob,
    settings: MatchSettings,
    folders: dict[str, str],
    cache_root: str | None,
    run: str = "",
    stream: str | None = None,
    task: str = "",
    kept_idle_s: float = KEPT_IDLE_S,
) -> list[Event]:
    """Play ``job`` on this worker; its events (a ``JobFailed`` last when the harness failed).

    ``folders``: bot name -> the digest of its pack, whose folder in the cache becomes the bot's
    folder here. ``run``: the driver's run, which ``stop_run`` may stop. ``stream``: the Dask
    queue that receives the games as they finish (None: only the result carries them).
    ``task``: this task's key, which ``stop_task`` may stop. ``kept_idle_s``: how long the bots
    kept for ``run`` here outlive its last match (``keep_bots``) when the driver never releases
    them."""
    streamer = _Streamer(stream) if stream is not None else None
    remote = _RemoteMatch(run, task, kept_idle_s, streamer)
    settings = dataclasses.replace(settings, sandbox=_ensure_prepared(settings.sandbox))
    try:
        job = _bots_here(job, folders, cache_root)
        asked = remote.asked if task else None
        play_job(job, settings, remote.emit, remote.started, scope=run, asked=asked)
    except _RunStopped:
        remote.events.append(JobFailed(job.key, "its run or match was stopped by the driver"))
    except Exception as error:
        remote.events.append(JobFailed.of(job.key, error))
    finally:
        remote.end()
    return remote.events


def _bots_here(job: MatchJob, folders: dict[str, str], cache_root: str | None) -> MatchJob:
    """``job`` with its bots in their folders in this worker's cache (``folders``: bot name ->
    its pack's digest); ``FileNotFoundError`` for a pack or a named file not here (else the bot
    would fail to start, charged to it)."""
    root = default_cache_root() if cache_root is None else Path(cache_root)
    bots = []
    for bot in (job.bot_a, job.bot_b):
        digest = folders.get(bot.name)
        if digest is not None:
            folder = root / digest
            if not folder.is_dir():
                raise FileNotFoundError(
                    f"bot {bot.name}: its pack {digest[:16]} is not in this worker's cache ({root})"
                )
            bot = bot.relocated(folder)
        for path in bot.named_files():
            if not path.is_file():
                raise FileNotFoundError(
                    f"bot {bot.name}: {path} (named by its command) is not on this worker"
                    " (a file outside the bot's folder must be at the same place on every worker)"
                )
        bots.append(bot)
    return dataclasses.replace(job, bot_a=bots[0], bot_b=bots[1])


class _RemoteMatch:
    """A task's match as this worker process knows it: listed under its run and its task (so
    that the driver can stop either, or ask it to share), its events gathered for the result
    and streamed to the driver as they come."""

    def __init__(self, run: str, task: str, kept_idle_s: float, streamer: _Streamer | None) -> None:
        self.run, self.task, self.kept_idle_s, self.streamer = run, task, kept_idle_s, streamer
        self.holders = [run, task] if task else [run]
        self.matches: list[Match] = []
        self.events: list[Event] = []

    def stopped(self) -> bool:
        return self.run in _STOPPED_RUNS or self.task in _STOPPED_TASKS

    def started(self, match: Match) -> None:
        """``play_job``'s ``started``: list the match, unless its run or task was stopped."""
        with _LOCK:
            if self.stopped():
                raise _RunStopped
            for holder in self.holders:
                _PLAYING.setdefault(holder, []).append(match)
            self.matches.append(match)
            if match.keeper is not None:
                _seen(self.run, self.kept_idle_s)

    def emit(self, event: Event) -> None:
        """``play_job``'s ``emit``: a stopped match's bots were killed, and what it ends with
        is not a game to record."""
        if self.stopped():
            raise _RunStopped
        self.events.append(event)
        if self.streamer is not None and isinstance(event, GameDone | ChunksShared):
            self.streamer.add(event)

    def asked(self) -> Asked:
        """``play_job``'s ``asked``: whether the driver asked the task to share (``share_task``)."""
        with _LOCK:
            if self.task not in _SHARE_ASKED:
                return Asked.NOTHING
            _SHARE_ASKED.discard(self.task)
            return Asked.SHARE

    def end(self) -> None:
        """The match is over: unlisted, its stream closed, its run's idle time counted anew."""
        if self.streamer is not None:
            self.streamer.close()
        with _LOCK:
            for holder in self.holders:
                playing = _PLAYING.get(holder, [])
                for match in self.matches:
                    playing.remove(match)
                if not playing:
                    _PLAYING.pop(holder, None)
            _STOPPED_TASKS.discard(self.task)
            _SHARE_ASKED.discard(self.task)
            if self.run in _SEEN:
                _seen(self.run, self.kept_idle_s)
        if self.run in _STOPPED_RUNS:  # a keeper made, or a bot given back, after the stop
            close_keeper(self.run, graceful=False)
