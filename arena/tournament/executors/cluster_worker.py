"""What runs on a Dask worker: the bots' packs unpacked on arrival, and one chunk per task.

A worker process holds a match open between its chunks (``_HELD``). It keeps a run's bots between
the run's matches (``keep_bots``; a keeper per run: a worker may serve several drivers): they quit
when the driver releases the run (``release_run``), are killed when it stops it (``stop_run``),
and quit once the run has had no match here for its idle limit (a driver killed outright).
It needs ``distributed`` at import: the cluster executor imports it only when it is made.
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

from arena.errors import ArenaError
from arena.limits import SandboxMode
from arena.referee import Match, MatchSettings
from arena.tournament.executors.base import (
    KEPT_IDLE_S,
    ChunkPlayer,
    Event,
    GameDone,
    JobFailed,
    close_keeper,
    kept_processes,
)
from arena.tournament.executors.botpack import default_cache_root, unpack
from arena.tournament.executors.worker import prepare_worker
from arena.tournament.schedule import MatchJob

_PREPARED: dict[SandboxMode, SandboxMode] = {}
"""The sandbox mode asked for -> the mode this worker process runs its bots in, once prepared."""


def _ensure_prepared(
    sandbox: SandboxMode | str = SandboxMode.AUTO, worker: Any = None
) -> SandboxMode:
    """Prepare this worker process once (``worker.prepare_worker``): the bots' scratch folders go
    in the Dask worker's folder (removed with it; outside a worker, ``arena-scratch-<pid>`` in the
    temp folder), the sandbox mode resolved here. ``worker``: the Dask worker, where
    ``get_worker`` does not know it (a plugin's ``setup``)."""
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
    """Makes a local cluster's worker write its games in progress to the run's live folder
    (``arena.tournament.live``), as a local pool's workers do."""

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
_LOCK = threading.Condition()
"""Guards the tables here; notified when a chunk ends (its match may now be taken on)."""
_HELD: dict[tuple[str, str], ChunkPlayer] = {}
"""(Run, chunk) -> the match that played the chunk, open for the chunk that follows it."""
_OPEN: set[tuple[str, str]] = set()
"""(Run, chunk) of the chunks being played in this worker process now."""
_SEEN: dict[str, tuple[float, float]] = {}
"""Run -> (when a match of it last started or ended here, its idle limit): the runs whose kept
bots quit once they have had no match here for that long."""
_WATCHER: list[threading.Thread] = []
"""The thread that releases idle runs (started by the first run that keeps bots here)."""


class _RunStopped(Exception):
    """The driver stopped the run: the match ends (its bots are stopped by ``Match.__exit__``)."""


def stop_run(run: str) -> int:
    """Kill run ``run``'s bots in this worker process now, and start no game of it here after
    (the driver stops: a cancelled task cannot be interrupted); how many bot processes."""
    with _LOCK:
        _STOPPED_RUNS.add(run)
        matches = list(_PLAYING.get(run, ()))
        _SEEN.pop(run, None)
    held = _end_held(run, keep=False)
    killed = len(kept_processes(run))
    close_keeper(run, graceful=False)  # its kept bots too: no match of the run comes any more
    return killed + held + _kill_bots(matches)


def _end_held(run: str, keep: bool = True) -> int:
    """End the matches held open for run ``run`` (their bots to the keeper when ``keep``, else
    they quit); how many bot processes they had."""
    with _LOCK:
        players = [_HELD.pop(key) for key in list(_HELD) if key[0] == run]
    ended = 0
    for player in players:
        ended += 0 if player.match is None else len(player.match.bots)
        with contextlib.suppress(Exception):
            player.end(keep)
    return ended


def release_run(run: str) -> int:
    """Stop the bots kept here for run ``run``, its chunks all done; how many bot processes."""
    with _LOCK:
        _SEEN.pop(run, None)
    _end_held(run)
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
        _end_held(run)
        close_keeper(run)
    return idle


def kept_bots(run: str | None = None) -> int:
    """How many bot processes this worker process keeps for ``run`` (None: for every run),
    in its keeper or in a match held open."""
    with _LOCK:
        held = [p.match for key, p in _HELD.items() if run in (None, key[0])]
    return len(kept_processes(run)) + sum(len(m.bots) for m in held if m is not None)


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
    """Kill the bots of Dask task ``task``'s match here, which the driver cancelled (that does
    not stop a running task); how many bot processes."""
    with _LOCK:
        _STOPPED_TASKS.add(task)
        matches = list(_PLAYING.get(task, ()))
    return _kill_bots(matches)


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
    """Sends a chunk's games to the driver as they come, through a Dask queue, at most every
    ``EVERY_S`` seconds (the first at once), with this worker's address (where the driver sends
    the match's next chunk). Best effort: the task's result carries every game again."""

    EVERY_S = 0.5

    def __init__(self, name: str) -> None:
        self.name = name
        self.address: str | None = None  # this worker's
        with contextlib.suppress(ValueError):  # not in a worker
            self.address = get_worker().address
        self.queue: Any = None
        self.pending: list[GameDone] = []
        self.last = 0.0

    def add(self, event: GameDone) -> None:
        self.pending.append(event)
        if time.monotonic() - self.last >= self.EVERY_S:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        try:
            if self.queue is None:
                queue: Any = Queue  # untyped in distributed
                self.queue = queue(self.name)
            self.queue.put(pickle.dumps((self.address, self.pending), pickle.HIGHEST_PROTOCOL))
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
    ends_match: bool = True,
) -> list[Event]:
    """Play chunk ``job`` here; its events (a ``JobFailed`` last when the harness failed).
    ``folders``: bot name -> its pack's digest (its folder in the cache). ``run``, ``task``: what
    ``stop_run``, ``stop_task`` stop. ``stream``: the Dask queue for the games (None: the result
    alone). ``kept_idle_s``: how long the run's kept bots outlive its last match here.
    ``ends_match``: no chunk follows it here (else its match is held open for the next)."""
    streamer = _Streamer(stream) if stream is not None else None
    remote = _RemoteMatch(run, task, kept_idle_s, streamer)
    settings = dataclasses.replace(settings, sandbox=_ensure_prepared(settings.sandbox))
    try:
        job = _bots_here(job, folders, cache_root)
        player = _player_for(job, settings, remote)
        try:
            player.play(job, remote.emit, ends_match=ends_match)
        finally:
            _chunk_ended(run, job.key, player)
    except _RunStopped:
        remote.events.append(JobFailed(job.key, "its run or match was stopped by the driver"))
    except Exception as error:
        remote.events.append(JobFailed.of(job.key, error))
    finally:
        remote.end()
    return remote.events


def _player_for(job: MatchJob, settings: MatchSettings, remote: _RemoteMatch) -> ChunkPlayer:
    """The player of ``job``: the match held open for the chunk it follows (waiting while that
    one plays here), else a new one; ``ArenaError`` if that match is not open here."""
    run = remote.run
    with _LOCK:
        if job.follows is not None:
            _LOCK.wait_for(lambda: (run, job.follows) not in _OPEN)
            player = _HELD.pop((run, job.follows), None)
            if player is None or player.match is None:
                raise ArenaError(f"the match of {job.follows} is not open on this worker")
        else:
            player = ChunkPlayer(settings, scope=run)
        _OPEN.add((run, job.key))
    player.started = remote.started
    if player.match is not None:
        remote.started(player.match)
    return player


def _chunk_ended(run: str, key: str, player: ChunkPlayer) -> None:
    """Chunk ``key`` is over here: its match, still open, is held for the chunk after it."""
    with _LOCK:
        _OPEN.discard((run, key))
        if player.match is not None and run not in _STOPPED_RUNS:
            _HELD[(run, key)] = player
        _LOCK.notify_all()
    if player.match is not None and run in _STOPPED_RUNS:
        player.end(keep=False)


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
    """A task's match here: listed under its run and its task (the driver may stop either), its
    events gathered for the result and streamed as they come."""

    def __init__(self, run: str, task: str, kept_idle_s: float, streamer: _Streamer | None) -> None:
        self.run, self.task, self.kept_idle_s, self.streamer = run, task, kept_idle_s, streamer
        self.holders = [run, task] if task else [run]
        self.matches: list[Match] = []
        self.events: list[Event] = []

    def stopped(self) -> bool:
        return self.run in _STOPPED_RUNS or self.task in _STOPPED_TASKS

    def started(self, match: Match) -> None:
        """``ChunkPlayer``'s ``started``: list the match, unless its run or task was stopped."""
        with _LOCK:
            if self.stopped():
                raise _RunStopped
            for holder in self.holders:
                _PLAYING.setdefault(holder, []).append(match)
            self.matches.append(match)
            if match.keeper is not None:
                _seen(self.run, self.kept_idle_s)

    def emit(self, event: Event) -> None:
        """``ChunkPlayer.play``'s ``emit``: a stopped match's bots were killed, and what it ends
        with is not a game to record."""
        if self.stopped():
            raise _RunStopped
        self.events.append(event)
        if self.streamer is not None and isinstance(event, GameDone):
            self.streamer.add(event)

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
            if self.run in _SEEN:
                _seen(self.run, self.kept_idle_s)
        if self.run in _STOPPED_RUNS:  # a keeper made, or a bot given back, after the stop
            close_keeper(self.run, graceful=False)
