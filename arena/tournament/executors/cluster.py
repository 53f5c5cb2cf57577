"""The cluster executor: chunks on the workers of a Dask cluster (``distributed``).

One task per chunk (``play_remote``, a ``ChunkPlayer`` as everywhere): Dask places a match's first
(``tcp://HOST:PORT``, or ``local:N`` here), each next goes to the worker holding the match, the
workers stream the games back, and the driver alone writes the store. Bots travel as packs
(``botpack``) and, unless trusted, run under bubblewrap (no bot reaches the scheduler). A worker's
death or a missing pack is a harness error, never a bot's loss; a lost scheduler a ``ClusterLost``
(the same command resumes). How it works: ``docs/scaling.md``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib
import logging
import pickle
import re
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.botspec import BotSpec
from arena.errors import ArenaError
from arena.limits import KeepBots, SandboxMode
from arena.referee import MatchSettings
from arena.tournament.executors.base import (
    KEPT_IDLE_S,
    Event,
    ExecutorSetup,
    ExecutorStatus,
    GameDone,
    JobDone,
    JobFailed,
)
from arena.tournament.executors.botpack import BotPack, pack_bot
from arena.tournament.executors.local import slowest_game_seconds
from arena.tournament.executors.placement import Chain, Placement, take_from_longest
from arena.tournament.schedule import MatchJob

CLUSTER_FORMS = "tcp://HOST:PORT (a Dask scheduler) or local:N (N worker processes here)"
"""What a cluster address may be, as told in errors."""
MAX_LOCAL_WORKERS = 256
"""The most workers ``local:N`` starts."""
_LOCAL_RE = re.compile(r"local:([0-9]{1,4})")
_TCP_RE = re.compile(r"(tcp|tls)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):([0-9]{1,5})")


UNTRUSTED_NONE = (
    "bots would run without a sandbox (sandbox: none) on the cluster's workers, where they could"
    " reach the Dask scheduler and so run code on every worker as its user: use sandbox: bwrap"
    " or auto (bubblewrap on every worker: no network for bots), or declare the bots trusted"
    " (--trusted-bots, or trusted_bots: true in the config)"
)
"""Why a cluster run of untrusted bots without a sandbox is refused."""


class ClusterLost(ArenaError):
    """The scheduler cannot be reached (any more): the run stops; the same command resumes."""


def parse_cluster(text: object) -> str:
    """``text`` as a cluster address (stripped), or ``ValueError`` saying what was expected."""
    if not isinstance(text, str):
        raise ValueError(f"expected {CLUSTER_FORMS}, got {text!r}")
    value = text.strip()
    local = _LOCAL_RE.fullmatch(value)
    if local is not None:
        count = int(local.group(1))
        if not 1 <= count <= MAX_LOCAL_WORKERS:
            raise ValueError(f"expected local:N with N from 1 to {MAX_LOCAL_WORKERS}, got {text!r}")
        return value
    remote = _TCP_RE.fullmatch(value)
    if remote is None:
        raise ValueError(f"expected {CLUSTER_FORMS}, got {text!r}")
    if not 1 <= int(remote.group(3)) <= 65535:
        raise ValueError(f"expected a port from 1 to 65535, got {text!r}")
    return value


def _cluster_settings(address: str, settings: MatchSettings, trusted: bool) -> MatchSettings:
    """``settings`` as the cluster plays them: untrusted bots under bubblewrap, always."""
    if trusted:
        return settings
    if settings.sandbox is SandboxMode.NONE:
        raise ArenaError(f"--cluster {address}: {UNTRUSTED_NONE}")
    return dataclasses.replace(settings, sandbox=SandboxMode.BWRAP)


def _distributed() -> Any:
    """Dask's ``distributed`` (untyped in part: used through Any), or a one-line error."""
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise ArenaError(
            "a cluster needs Dask's distributed here: pip install -e '.[cluster]' in arena's clone"
        ) from None


def _quiet_dask_logs() -> None:
    """Dask's own logs silenced (a lost scheduler logs each reconnection with its traceback):
    the run says what matters in one line (``ClusterLost``)."""
    for name in ("distributed", "distributed.worker", "distributed.scheduler"):
        logging.getLogger(name).setLevel(logging.ERROR)
    for name in ("distributed.client", "distributed.comm", "distributed.core"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


@dataclass
class _Running:
    """A submitted chunk, and what the driver knows of its match."""

    job: MatchJob
    future: Any  # its ``distributed.Future``
    worker: str | None = None  # where it was last seen running
    holder: str | None = None  # where its games come from: its match is open there
    started: float | None = None  # when it was first seen running: its deadline counts from there
    cancelled: str = ""  # why the driver cancelled it
    reserved: Chain = dataclasses.field(default_factory=list)  # its match's later chunks
    ahead: _Running | None = None  # the next chunk of its match, sent to its worker
    after: _Running | None = None  # the chunk it waits for on their worker
    resets: bool | None = None  # whether its bots reset at ``match`` (None: not told yet)
    dropped: bool = False  # given up: the chunk before it failed, and both are queued again


class ClusterExecutor:
    """Chunks as tasks of a Dask cluster. ``cache_root``: where workers unpack the bots (None:
    ``botpack.default_cache_root``). ``status``: told about once a second which workers are busy.
    ``connect_s``: how long to wait for the scheduler and a first worker. ``kept_idle_s``: how long
    a worker keeps this run's bots after its last match there, should the driver never release
    them."""

    POLL_S = 0.5
    """How often the driver looks at the cluster while waiting for results."""
    STREAM_POLL_S = 0.25
    """How often, at most, the driver asks the scheduler for the games streamed to it."""

    def __init__(
        self,
        address: str,
        settings: MatchSettings,
        *,
        cache_root: str | None = None,
        status: Callable[[ExecutorStatus], None] | None = None,
        connect_s: float = 30.0,
        trusted: bool = False,
        kept_idle_s: float = KEPT_IDLE_S,
    ) -> None:
        address = parse_cluster(address)
        self.address = address
        self.settings = _cluster_settings(address, settings, trusted)
        self.trusted = trusted
        """Whether the bots may run without bubblewrap (and so reach the scheduler)."""
        self.keeps = settings.keep_bots is not KeepBots.OFF
        """Whether workers may keep this run's bots between its matches (``keep_bots``)."""
        self.kept_idle_s = kept_idle_s
        self.cache_root = cache_root
        self.status = status
        self._cluster: Any = None
        self.client: Any = None
        self._plugins: list[str] = []
        self._shipped: dict[str, str] = {}  # bot name -> digest of its pack
        self._packs: dict[str, BotPack] = {}  # digest -> pack
        self._folders: dict[Path, str] = {}  # a bot folder here -> the digest of its pack
        self._running: dict[str, _Running] = {}
        self._streams = 0
        self._stream_name: str | None = None
        self._stream: Any = None
        self._stream_at = 0.0
        self._seen: set[tuple[str, int, int]] = set()
        """(job, seat, index) of the games this ``execute`` call yielded (streamed or not)."""
        self._placement = Placement(self.keeps)
        """The queue, placed by the bots each worker keeps (by its address) and, at the tail,
        longest first, as on the local pool."""
        self._run = uuid.uuid4().hex
        """This executor's run on the cluster (its matches there can be stopped by it)."""
        self._closed = False
        self._status_at = 0.0
        self._connect(connect_s)
        if not trusted:
            self._check_sandboxes()
        self.match_deadline_s = slowest_game_seconds(self.settings)

    def _connect(self, connect_s: float) -> None:
        """Join the cluster (start it, for ``local:N``) and wait for a first worker."""
        dask = _distributed()
        _quiet_dask_logs()
        address = self.address
        try:
            if address.startswith("local:"):
                self._cluster = dask.LocalCluster(
                    n_workers=int(address.split(":")[1]),
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
                self.client = dask.Client(self._cluster, timeout=connect_s)
            else:
                self.client = dask.Client(address, timeout=connect_s)
        except (OSError, TimeoutError) as exc:
            self._close_cluster()
            raise ClusterLost(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        try:
            self.client.wait_for_workers(1, timeout=connect_s)
        except (OSError, TimeoutError):
            self.close()
            raise ClusterLost(
                f"no Dask worker joined the scheduler at {address} within {connect_s:.0f} s"
                " (start some: dask worker ADDRESS --nthreads 1)"
            ) from None

    def _check_sandboxes(self) -> None:
        """Refuse the run (one line) when a worker connected now cannot run bots under
        bubblewrap: untrusted bots must not reach the scheduler from any worker. (A worker that
        joins later without it fails its matches as harness errors, charged to no bot.)"""
        from arena.tournament.executors.cluster_worker import sandbox_problem

        try:
            replies: dict[str, str] = self.client.run(sandbox_problem, SandboxMode.BWRAP.value)
        except (OSError, TimeoutError) as exc:
            self.close()
            raise ClusterLost(f"lost the Dask scheduler at {self.address}: {exc}") from None
        problems = {worker: why for worker, why in replies.items() if why}
        if problems:
            self.close()
            worker, why = sorted(problems.items())[0]
            raise ArenaError(
                f"--cluster {self.address}: worker {worker} cannot run bots under bubblewrap"
                f" ({why}); untrusted bots must run without network on every worker: install"
                " bubblewrap there, or declare the bots trusted (--trusted-bots, or"
                " trusted_bots: true in the config)"
            )

    # --- shipping the bots --------------------------------------------------------------------
    def ship(self, bots: Sequence[BotSpec]) -> None:
        """Pack the bots not shipped yet and give them to every worker (and to later ones)."""
        new = [bot for bot in bots if bot.name not in self._shipped]
        if not new:
            return
        packs: dict[str, BotPack] = {}
        folders = dict(self._folders)
        shipped = {}
        for bot in new:  # all packed before any is shipped: a refused pack ships none
            digest = folders.get(bot.dir)
            if digest is None:  # bots sharing a folder share its pack: read once
                pack = pack_bot(bot, self.settings.hidden)
                digest = folders[bot.dir] = pack.digest
                if digest not in self._packs:
                    packs[digest] = pack
            shipped[bot.name] = digest
        if packs:
            self._register(packs)
        self._packs.update(packs)
        self._folders, self._shipped = folders, {**self._shipped, **shipped}

    def _register(self, packs: dict[str, BotPack]) -> None:
        """Give ``packs`` to every worker, and to those that join later (a worker plugin)."""
        from arena.tournament.executors.cluster_worker import BotPackPlugin

        name = "arena-bots-" + hashlib.sha256("".join(sorted(packs)).encode()).hexdigest()[:16]
        plugin = BotPackPlugin({d: p.data for d, p in packs.items()}, self.cache_root)
        try:
            replies = self.client.register_plugin(plugin, name=name)
        except (OSError, TimeoutError) as exc:
            raise ClusterLost(f"lost the Dask scheduler at {self.address}: {exc}") from None
        self._plugins.append(name)
        failed = {
            worker: reply
            for worker, reply in (replies or {}).items()
            if isinstance(reply, dict) and reply.get("status") == "error"
        }
        if failed:
            worker, reply = next(iter(failed.items()))
            raise ArenaError(
                f"worker {worker} could not unpack the bots: {reply.get('exception')!s}"
                " (every worker needs the harness installed: pip install -e '.[cluster]')"
            )

    @property
    def packs(self) -> dict[str, BotPack]:
        """The packs shipped so far, by digest."""
        return dict(self._packs)

    # --- running ------------------------------------------------------------------------------
    def _threads(self) -> int:
        try:
            threads: dict[str, int] = self.client.nthreads()
            return max(1, sum(threads.values()))
        except Exception:
            return 1

    def _submit(
        self, job: MatchJob, worker: str | None = None, reserved: Chain | None = None
    ) -> _Running:
        """Submit ``job`` (its match's later chunks ``reserved`` to it) to ``worker`` when given:
        only there if it follows a chunk (its match is open there), else there first."""
        key = f"arena-{job.key}-{uuid.uuid4().hex[:8]}"
        folders = {
            bot.name: self._shipped[bot.name]
            for bot in (job.bot_a, job.bot_b)
            if bot.name in self._shipped
        }
        from arena.tournament.executors.cluster_worker import play_remote

        placed: dict[str, object] = {}
        if worker is not None:
            placed = {"workers": [worker], "allow_other_workers": job.follows is None}
        future = self.client.submit(
            play_remote, job, self.settings, folders, self.cache_root, self._run,
            self._stream_name, key, kept_idle_s=self.kept_idle_s, ends_match=not reserved,
            key=key, pure=False, priority=int(job.follows is not None), **placed,
        )  # fmt: skip
        restricted = worker if job.follows is not None else None  # seen leaving by ``_watch``
        running = _Running(job, future, restricted, restricted, reserved=list(reserved or ()))
        self._running[key] = running
        return running

    def execute(self, jobs: Sequence[MatchJob]) -> Iterator[list[Event]]:
        self.ship([bot for job in jobs for bot in (job.bot_a, job.bot_b)])
        dask = _distributed()
        # The games stream back through a queue of this call's own (a late game of an earlier
        # call's task must not pass for one of this call's), as their chunks go on.
        self._streams += 1
        self._stream_name = f"arena-games-{self._run}-{self._streams}"
        self._seen = set()
        try:
            self._stream = dask.Queue(self._stream_name, client=self.client)
        except (OSError, TimeoutError) as exc:
            raise ClusterLost(f"lost the Dask scheduler at {self.address}: {exc}") from None
        wait = dask.wait
        # wait() raises this when a task was cancelled (by stop_matches, or a lost scheduler):
        # the task is then done, and ``_outcome`` says what became of it.
        cancelled = getattr(dask.client, "FuturesCancelledError", TimeoutError)
        placement = self._placement
        placement.fill(jobs)
        pending: dict[str, _Running] = {}
        freed: list[str] = []  # workers that finished a match since the last submissions
        placement.workers = self._threads()
        limit = 2 * placement.workers
        try:
            while placement.queue or pending:
                self._submit_matches(pending, freed, limit)
                with contextlib.suppress(TimeoutError, cancelled):
                    futures = [r.future for r in pending.values()]
                    wait(futures, timeout=self.POLL_S, return_when="FIRST_COMPLETED")
                batch: list[Event] = self._streamed(pending)
                for key, running in list(pending.items()):
                    if running.future.done():
                        del pending[key]
                        self._running.pop(key, None)
                        batch.extend(self._finished(running, pending, freed))
                self._watch(pending)
                self._submit_ahead(pending)
                if time.monotonic() - self._status_at >= 1.0:
                    limit = 2 * self._threads()
                if batch:
                    yield batch
            if self.keeps:  # done: the bots the workers keep for this run quit now
                self._release_kept()
                placement.forget()
        finally:
            self._release_stream()

    def _submit_matches(self, pending: dict[str, _Running], freed: list[str], limit: int) -> None:
        """Submit queued matches while fewer than ``limit`` run; with none queued and a thread
        idle, the later chunks of a running match whose bots reset at ``match``."""
        playing = [r for r in pending.values() if r.after is None]
        while len(playing) < limit:
            if self._placement.queue:
                worker = freed.pop(0) if freed else None
                chain = self._placement.take(worker)
            elif len(playing) < limit // 2:
                worker, chain = None, self._take_later(playing)
            else:
                return
            if not chain:
                return
            running = self._submit(chain[0], worker, chain[1:])
            pending[running.future.key] = running
            playing.append(running)

    def _take_later(self, playing: list[_Running]) -> Chain:
        """The later chunks of the running match with the most games left, among those whose
        bots reset at ``match`` (none if there is no such match)."""
        last = {id(r): r.ahead or r for r in playing}  # the chunk its reserved ones follow
        sent = {id(r): self._games_left(r) + (r.ahead.job.owed if r.ahead else 0) for r in playing}
        return take_from_longest(
            (last[id(r)].reserved, sent[id(r)])
            for r in playing
            if r.resets and last[id(r)].reserved
        )

    def _submit_ahead(self, pending: dict[str, _Running]) -> None:
        """Submit the next chunk of each running match whose worker is known, to that worker
        only (its match is open there): it starts there the moment the one before ends."""
        for running in list(pending.values()):
            if running.holder and running.reserved and not (running.ahead or running.after):
                running.ahead = self._send_next(running, running.holder, pending)
                running.ahead.after = running

    def _send_next(self, running: _Running, worker: str, pending: dict[str, _Running]) -> _Running:
        """Submit to ``worker`` the chunk after ``running``; the rest of its match goes with it."""
        job, rest, running.reserved = running.reserved[0], running.reserved[1:], []
        following = self._submit(job, worker, rest)
        following.resets, pending[following.future.key] = running.resets, following
        return following

    def _finished(
        self, running: _Running, pending: dict[str, _Running], freed: list[str]
    ) -> list[Event]:
        """The events of a finished task; its match goes on in the chunk after it, or is queued
        again from the failed chunk (played again from its start, in new processes)."""
        events, ahead = self._outcome(running), running.ahead
        if running.dropped:  # queued again with the chunk before it
            return [e for e in events if isinstance(e, GameDone)]
        if any(isinstance(e, JobDone) for e in events):
            worker = self._ran_on(running)
            if ahead is not None:
                ahead.after = None
            elif running.reserved and worker is None:  # its match is lost
                self._placement.put_back(running.reserved)
            elif running.reserved and worker is not None:
                self._send_next(running, worker, pending)
            elif self.keeps and worker is not None:
                self._placement.ran(worker, running.job)
                freed.append(worker)
            return events
        rest = [ahead.job, *ahead.reserved] if ahead else running.reserved
        if ahead is not None:
            ahead.dropped, ahead.reserved = True, []
            with contextlib.suppress(Exception):
                ahead.future.cancel()
        job, seen = running.job, self._seen
        played = {job.slot_key(s) for s in job.slots if (job.key, s.order_seat, s.index) in seen}
        self._placement.failed(job, played, rest)
        if not any(isinstance(e, JobFailed) for e in events):
            events.append(JobFailed(job.key, "its task ended before its chunk did"))
        return events

    def _games_left(self, running: _Running) -> int:
        job = running.job
        return sum(
            (job.key, s.order_seat, s.index) not in self._seen for s in job.slots if not s.replay
        )

    def _ran_on(self, running: _Running) -> str | None:
        """The worker that played a finished match (None if unknown, e.g. it failed there)."""
        if running.future.status != "finished":
            return None
        try:
            where: dict[str, Any] = self.client.who_has(running.future)
        except Exception:
            return running.worker
        workers = where.get(running.future.key) or ()
        return next(iter(workers), running.worker)

    def _release_kept(self) -> None:
        """Ask every worker to stop the bots it keeps for this run (and wait until it has)."""
        from arena.tournament.executors.cluster_worker import release_run

        with contextlib.suppress(Exception):
            if self.client.status == "running":
                self.client.run(release_run, self._run, on_error="ignore")

    def _release_stream(self) -> None:
        """Let the scheduler drop this call's queue (it keeps one until every holder released
        it: a long-lived scheduler would gather one per run)."""
        if self._stream is not None and self.client is not None:
            with contextlib.suppress(Exception):
                if self.client.status == "running":
                    self._stream.close()
        self._stream = None

    def _outcome(self, running: _Running) -> list[Event]:
        """The events of a finished task (a ``JobFailed`` if it failed; ``ClusterLost`` if the
        scheduler went away)."""
        future = running.future
        if future.status == "finished":
            events: list[Event] = future.result()
            return [e for e in events if not isinstance(e, GameDone) or self._new(e)]
        if future.status != "error":  # cancelled or lost
            if self.client.status != "running":
                raise ClusterLost(
                    f"lost the Dask scheduler at {self.address} (the client is"
                    f" {self.client.status}): stopping; run the same command again to resume"
                )
            why = running.cancelled or f"its task was {future.status} in the cluster"
            return [JobFailed(running.job.key, why)]
        error = future.exception()
        name = type(error).__name__
        if name == "KilledWorker":
            message = f"the workers running this match died repeatedly ({error})"
            return [JobFailed(running.job.key, message)]
        return [JobFailed.of(running.job.key, error)]

    def _new(self, event: GameDone) -> bool:
        """Whether this call has not yielded ``event``'s game yet (and now has: it is counted
        into the matches' expected lengths once)."""
        game = (event.key, event.slot.order_seat, event.slot.index)
        if game in self._seen:
            return False
        self._seen.add(game)
        self._placement.observe(event.record)
        return True

    def _streamed(self, pending: dict[str, _Running]) -> list[Event]:
        """The games that the workers' running chunks sent since the last look (new ones); each
        chunk learns from them where it runs and whether its bots reset at ``match``."""
        now = time.monotonic()
        if self._stream is None or self.client.status != "running" or now < self._stream_at:
            return []
        self._stream_at = now + self.STREAM_POLL_S  # a round trip to the scheduler each time
        try:
            items = self._stream.get(batch=True)
        except Exception:  # a busy or lost scheduler: the tasks' results carry every game
            return []
        running = {r.job.key: r for r in pending.values() if not r.dropped}
        games: list[Event] = []
        for item in items:
            address: str | None
            events: list[GameDone]
            address, events = pickle.loads(item)
            for event in events:
                chunk = running.get(event.key)
                if chunk is not None:
                    chunk.worker = chunk.holder = address or chunk.worker
                    chunk.resets = event.resets
            games.extend(e for e in events if self._new(e))
        return games

    def _watch(self, pending: dict[str, _Running]) -> None:
        """About once a second: which workers run which chunk, the status; a chunk whose worker
        left, or past its deadline, is cancelled (``_finished`` queues it again)."""
        now = time.monotonic()
        if now - self._status_at < 1.0:
            return
        self._status_at = now
        if self.client.status != "running":
            return  # a future will be cancelled, or the client reconnects
        try:
            workers = set(self.client.scheduler_info(n_workers=-1)["workers"])
            processing = self.client.processing()
        except TypeError:  # an older client without n_workers
            workers = set(self.client.scheduler_info()["workers"])
            processing = self.client.processing()
        except Exception:
            return
        where = {key: worker for worker, keys in processing.items() for key in keys}
        busy: set[str] = set()
        for key, running in pending.items():
            if running.dropped or running.cancelled:
                continue
            worker = where.get(key)
            if running.worker is not None and running.worker not in workers:
                running.cancelled = (
                    f"worker {running.worker} left the cluster during the match (died?):"
                    " its chunk is played again; its games are replayed, none charged"
                )
                running.future.cancel()
                continue
            if worker is not None:
                running.worker = worker
                busy.add(worker)
                if running.started is None:
                    running.started = now
            waited = running.after.job.slots if running.after is not None else ()
            deadline = self.match_deadline_s * max(1, len(running.job.slots) + len(waited))
            if running.started is not None and now - running.started > deadline:
                running.cancelled = (
                    f"no result after {now - running.started:.0f} s (its games take at most"
                    f" {deadline:.0f} s): cancelled; its games are replayed, none charged"
                )
                running.future.cancel()
                self._stop_task(running)
        if self.status is not None:
            self.status(ExecutorStatus(workers=len(workers), busy=tuple(sorted(busy))))

    def _stop_task(self, running: _Running) -> None:
        """Stop a cancelled task's match on its worker (its bots killed now): Dask cannot
        interrupt a running task, which would otherwise play on for nobody, holding a core."""
        from arena.tournament.executors.cluster_worker import stop_task

        workers = [running.worker] if running.worker is not None else None
        with contextlib.suppress(Exception):
            self.client.run(stop_task, running.future.key, workers=workers, on_error="ignore")

    def stop_matches(self) -> None:
        """Stop this run's matches on every worker now (their bots and those kept for the run
        killed: Dask cannot interrupt a running task) and cancel its tasks."""
        client = self.client
        if client is None or client.status != "running":
            return
        from arena.tournament.executors.cluster_worker import stop_run

        with contextlib.suppress(Exception):
            client.run(stop_run, self._run, on_error="ignore")
        with contextlib.suppress(Exception):
            client.cancel([r.future for r in self._running.values()])
        self._running.clear()

    def close(self) -> None:
        """Stop this run's matches on the workers, forget its plugins, and leave the cluster
        (stopping a ``local:N`` one). Never waits long for a scheduler that is gone."""
        if self._closed:
            return
        self._closed = True
        client = getattr(self, "client", None)
        if client is not None:
            self.stop_matches()
            if client.status == "running":
                for name in self._plugins:
                    with contextlib.suppress(Exception):
                        client.unregister_worker_plugin(name)
            with contextlib.suppress(Exception):
                client.close(timeout=5)
        self._close_cluster()

    def _close_cluster(self) -> None:
        if self._cluster is not None:
            with contextlib.suppress(Exception):
                self._cluster.close(timeout=10)
            self._cluster = None


def make_cluster(setup: ExecutorSetup) -> ClusterExecutor:
    """The registry's factory: the cluster at ``setup.cluster``."""
    if setup.cluster is None:
        raise ArenaError(f"the cluster executor needs a cluster: {CLUSTER_FORMS}")
    executor = ClusterExecutor(
        setup.cluster, setup.settings, status=setup.status, trusted=setup.trusted_bots
    )
    # Only a local cluster's workers share this machine's files (and process ids).
    if setup.live is not None and executor.address.startswith("local:"):
        from arena.tournament.executors.cluster_worker import LiveFeedPlugin

        try:
            executor.client.register_plugin(LiveFeedPlugin(str(setup.live)), name="arena-live")
        except (OSError, TimeoutError) as exc:
            executor.close()
            raise ClusterLost(f"lost the Dask scheduler at {executor.address}: {exc}") from None
    return executor
