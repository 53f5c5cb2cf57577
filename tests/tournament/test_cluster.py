"""The cluster executor on a real Dask ``LocalCluster`` (2 worker processes bound to 127.0.0.1).

Real bot processes on the cluster's workers, real SQLite on the driver. Each test gives the
workers a bot cache of its own in ``tmp_path`` (``cache_root``), writes its bots into
``tmp_path`` (so that a scan of ``/proc`` for ``tmp_path`` finds exactly the bots it started),
and checks at the end that no bot and no Dask process (the workers are this process's children)
is left.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    TEST_BOTS_DIR,
    child_processes,
    leftover_processes,
    run_arena,
    wait_for_no_leftovers,
    wait_until,
)
from factories import games_of, log_of, logged_bots

pytest.importorskip("distributed")

from arena.botspec import BotSpec  # noqa: E402
from arena.errors import ArenaError  # noqa: E402
from arena.launch.sandbox import bwrap_path  # noqa: E402
from arena.limits import KeepBots, SandboxMode, TimeControl  # noqa: E402
from arena.records import GameRecord  # noqa: E402
from arena.referee import MatchSettings  # noqa: E402
from arena.store import Store  # noqa: E402
from arena.tournament import TournamentPlan, TournamentResult, run_tournament  # noqa: E402
from arena.tournament.executors import (  # noqa: E402
    ExecutorSetup,
    ExecutorStatus,
    GameDone,
    JobDone,
    JobFailed,
)
from arena.tournament.executors.base import MAX_ATTEMPTS  # noqa: E402
from arena.tournament.executors.botpack import UnsafePackError  # noqa: E402
from arena.tournament.executors.cluster import ClusterExecutor  # noqa: E402
from arena.tournament.executors.cluster_worker import kept_bots  # noqa: E402
from arena.tournament.schedule import MatchJob, plan_matches  # noqa: E402

SETTINGS = MatchSettings(TimeControl(move_ms=500, startup_ms=5000), sandbox=SandboxMode.NONE)
CHILDREN_WAIT_S = 20.0
"""Bound on the wait for the cluster's worker processes to be gone after it closed."""

# A Dask LocalCluster starts multiprocessing's resource tracker in this process.
pytestmark = pytest.mark.usefixtures("no_resource_tracker_left")


def folder_bot(folder: Path, pause_ms: int = 0, log: Path | None = None) -> BotSpec:
    """A folder bot: ``tests/bots/paced.py`` with its pause built in; with ``log``, it first
    appends the path of its own program file there (where it really ran from)."""
    folder.mkdir(parents=True)
    source = (TEST_BOTS_DIR / "paced.py").read_text()
    source = source.replace("else 20", f"else {pause_ms}")
    if log is not None:
        source = source.replace(
            "def main() -> None:",
            f"with open({str(log)!r}, 'a') as _log:\n"
            "    _log.write(os.path.abspath(__file__) + '\\n')\n\n\n"
            "def main() -> None:",
        )
    (folder / "main.py").write_text(source)
    return BotSpec.from_path(folder)


def cluster_children() -> list[tuple[int, str]]:
    """The children of this process (pid, command line) but multiprocessing's resource tracker,
    a helper that Python starts once per process for spawned children and keeps until exit."""
    found = []
    for pid, _state in child_processes():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "resource_tracker" not in cmdline:
            found.append((pid, cmdline))
    return found


def wait_for_no_children() -> list[tuple[int, str]]:
    """The children of this process still there after a bounded wait (the cluster's workers)."""
    wait_until(lambda: not cluster_children(), CHILDREN_WAIT_S, interval=0.05)
    return cluster_children()


@pytest.fixture
def clean(tmp_path: Path) -> Iterator[Path]:
    """``tmp_path``; afterwards no bot of it, and no worker process of a cluster, is left."""
    yield tmp_path
    left = wait_for_no_leftovers([str(tmp_path)], timeout=10)
    assert not left, f"bot processes outlived the test: {left}"
    children = wait_for_no_children()
    assert not children, f"cluster processes outlived the test: {children}"


class Quiet:
    """An observer that notes nothing (tests override what they watch)."""

    def started(self, total: int, already: int, jobs: int) -> None:
        pass

    def game(self, record: GameRecord) -> None:
        pass

    def harness_error(self, job: str, error: str) -> None:
        pass


def plan_for(bots: list[BotSpec], games: int, **changes: object) -> TournamentPlan:
    return TournamentPlan(
        name="cluster-test",
        bots=tuple(bots),
        games_per_pairing=games,
        workers=2,
        settings=SETTINGS,
        **changes,  # type: ignore[arg-type]
    )


def stored(db: Path) -> tuple[Counter[tuple[str, str, int]], list[GameRecord]]:
    """Each stored game's (order, chaos, slot), counted, and the games themselves."""
    with Store.open(db) as store:
        numbered = list(store.numbered_games())
        slots = Counter(store.completed_slots())
    return slots, [record for _id, record in numbered]


def test_a_tournament_on_the_cluster_stores_the_same_games_as_a_local_run(clean: Path) -> None:
    bots = [folder_bot(clean / "bots" / name) for name in ("alpha", "beta", "gamma")]
    results: dict[str, TournamentResult] = {}
    statuses: list[ExecutorStatus] = []
    for executor in ("local", "cluster"):
        plan = plan_for(bots, 3, executor=executor)

        class Observer(Quiet):
            def executor_status(self, status: ExecutorStatus) -> None:
                statuses.append(status)

        def factory(setup: ExecutorSetup, kind: str = executor) -> object:
            if kind == "local":
                from arena.tournament.executors.local import make_local

                return make_local(setup)
            return ClusterExecutor(
                "local:2",
                setup.settings,
                cache_root=str(clean / "cache"),
                status=setup.status,
                trusted=True,
            )

        with Store.open(clean / f"{executor}.sqlite") as store:
            results[executor] = run_tournament(plan, store, Observer(), factory)  # type: ignore[arg-type]
    local_slots, local_games = stored(clean / "local.sqlite")
    cluster_slots, cluster_games = stored(clean / "cluster.sqlite")
    assert results["cluster"].complete and results["cluster"].harness_errors == []
    assert len(cluster_games) == len(local_games) == results["local"].total == 18
    assert cluster_slots == local_slots  # the same pairings, roles and slots
    assert set(cluster_slots.values()) == {1}  # each once
    # Deterministic bots: the same games, move for move.
    key = lambda r: (r.order, r.chaos, r.moves)  # noqa: E731
    assert sorted(map(key, cluster_games)) == sorted(map(key, local_games))
    assert not any(r.reason.is_fault for r in cluster_games)
    # The executor told where the matches ran: 2 workers, busy ones named by address.
    assert statuses and all(s.workers == 2 for s in statuses)
    assert any(s.busy for s in statuses)
    assert all(b.startswith("tcp://127.0.0.1:") for s in statuses for b in s.busy)


def test_a_worker_killed_mid_match_costs_no_bot_a_game(clean: Path) -> None:
    # Paced bots: each match (both roles of a pairing, 6 games a side) takes seconds, so that
    # the kill lands inside one.
    bots = [folder_bot(clean / "bots" / name, pause_ms=40) for name in ("alpha", "beta", "gamma")]
    plan = plan_for(bots, 6, executor="cluster")
    killed: list[tuple[str, int]] = []
    executors: list[ClusterExecutor] = []

    class Killer(Quiet):
        """Once a game is stored and a worker is busy with a match: SIGKILL that worker."""

        games = 0

        def game(self, record: GameRecord) -> None:
            self.games += 1

        def executor_status(self, status: ExecutorStatus) -> None:
            if killed or not self.games or not status.busy:
                return
            worker = status.busy[0]
            pids: dict[str, int] = executors[0].client.run(os.getpid, workers=[worker])
            os.kill(pids[worker], signal.SIGKILL)
            killed.append((worker, pids[worker]))

    def factory(setup: ExecutorSetup) -> ClusterExecutor:
        executor = ClusterExecutor(
            "local:2",
            setup.settings,
            cache_root=str(clean / "cache"),
            status=setup.status,
            trusted=True,
        )
        executors.append(executor)
        return executor

    with Store.open(clean / "t.sqlite") as store:
        result = run_tournament(plan, store, Killer(), factory)  # type: ignore[arg-type]
    assert killed, "no worker was ever seen busy: the test killed nothing"
    slots, games = stored(clean / "t.sqlite")
    assert result.complete, result.harness_errors
    assert len(games) == result.total == 36
    assert set(slots.values()) == {1}  # every owed game stored exactly once
    assert not any(r.reason.is_fault for r in games)  # none charged to a bot
    worker, pid = killed[0]
    # The driver saw its match's worker leave and said so (the match was replayed).
    assert any(worker in error for error in result.harness_errors), result.harness_errors
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text()


def test_games_stream_back_while_their_match_goes_on(clean: Path) -> None:
    """A match's games reach the driver as they finish (progress, and less to replay when a
    worker dies), each once though the task's result carries them all again."""
    bots = [folder_bot(clean / "bots" / name, pause_ms=30) for name in ("alpha", "beta")]
    executor = ClusterExecutor("local:1", SETTINGS, cache_root=str(clean / "cache"), trusted=True)
    try:
        jobs = plan_matches(bots, 8, seed=1, chunk=16)  # one chunk: one match
        assert len(jobs) == 1 and len(jobs[0].slots) == 16
        batches = list(executor.execute(jobs))
        # The scheduler keeps no queue of the run once it ended (the workers' release messages
        # travel apart from their results: waited for, bounded).
        wait_until(lambda: not scheduler_queues(executor), 10, interval=0.05)
        assert scheduler_queues(executor) == []
    finally:
        executor.close()
    first = next(b for b in batches if any(isinstance(e, GameDone) for e in b))
    assert not any(isinstance(e, JobDone) for e in first)  # before the match ended
    assert sum(isinstance(e, GameDone) for e in first) < 16
    games = [e for b in batches for e in b if isinstance(e, GameDone)]
    assert sorted((g.slot.order_seat, g.slot.index) for g in games) == sorted(
        (s.order_seat, s.index) for s in jobs[0].slots
    )


def test_the_driver_learns_each_match_s_length_from_its_games(clean: Path) -> None:
    """As the local pool does, the driver counts each game it receives into what a match of its
    bots will take (``Placement.seconds``), which orders the run's last matches longest first
    (``Placement.take``, tested there): a pair it has seen play is known, a pair with a bot
    it has not seen counts as longest."""
    slow, quick, other = (
        folder_bot(clean / "bots" / name, pause_ms=pause)
        for name, pause in (("slow", 30), ("quick", 0), ("other", 0))
    )
    executor = ClusterExecutor("local:1", SETTINGS, cache_root=str(clean / "cache"), trusted=True)
    try:
        (job,) = plan_matches([slow, quick], 2, seed=1)
        events = [e for batch in executor.execute([job]) for e in batch]
    finally:
        executor.close()
    assert sum(isinstance(e, GameDone) for e in events) == 4
    (unseen,) = plan_matches([quick, other], 2, seed=1)
    assert executor._placement.seconds([unseen]) == float("inf")
    expected = executor._placement.seconds([job])
    moves = sum(len(e.record.moves) for e in events if isinstance(e, GameDone))
    assert 0.03 * (moves - 4) / 2 < expected < float("inf")  # slow: half the moves, 30 ms each


def test_bots_are_shipped_to_workers_that_cannot_see_their_folder(clean: Path) -> None:
    """The bot's folder is gone from where it was packed before any match starts: the only
    copy the workers have is the one they unpacked into their cache, and the bot says it ran
    from there."""
    log = clean / "ran-from.txt"
    home = clean / "driver-only"
    bots = [folder_bot(home / name, pause, log) for name, pause in (("alpha", 0), ("beta", 1))]
    cache = clean / "cache"
    executor = ClusterExecutor("local:2", SETTINGS, cache_root=str(cache), trusted=True)
    try:
        executor.ship(bots)
        moved = clean / "moved-away"
        home.rename(moved)  # the folder the specs name exists nowhere now
        assert not bots[0].dir.exists()
        jobs = plan_matches(bots, 2, seed=3)
        events = [event for batch in executor.execute(jobs) for event in batch]
    finally:
        executor.close()
    games = [e for e in events if isinstance(e, GameDone)]
    assert len(games) == 4 and sum(isinstance(e, JobDone) for e in events) == len(jobs)
    assert not any(e.record.reason.is_fault for e in games)
    digests = {pack.digest for pack in executor.packs.values()}
    assert len(digests) == 2
    ran_from = set(log.read_text().splitlines())
    assert ran_from == {str(cache / digest / "main.py") for digest in digests}
    assert sorted(p.name for p in cache.iterdir()) == sorted(digests)


def test_hostile_bots_get_the_same_verdicts_on_workers_as_here(clean: Path) -> None:
    """The same verdicts as locally for the hostile fixtures (crash at start, hang, a stderr
    flood, a child left holding the pipes): the same winners and reasons, game for game."""
    good = folder_bot(clean / "bots" / "good")
    hostile = []
    for name, fixture in (
        ("crash", "crash_at_start.py"),
        ("hang", "hang_midgame.py"),
        ("flood", "flood_stderr.py"),
        ("fork", "fork_and_exit.py"),
    ):
        folder = clean / "bots" / name
        folder.mkdir()
        (folder / "main.py").write_text((TEST_BOTS_DIR / fixture).read_text())
        hostile.append(BotSpec.from_path(folder))
    bots = [good, *hostile]
    settings = MatchSettings(TimeControl(move_ms=200, startup_ms=2000), sandbox=SandboxMode.NONE)
    verdicts = {}
    for executor in ("local", "cluster"):
        plan = TournamentPlan(
            name="verdicts", bots=tuple(bots), games_per_pairing=1, settings=settings,
            executor=executor, cluster="local:2" if executor == "cluster" else None, workers=2,
        )  # fmt: skip
        with Store.open(clean / f"{executor}.sqlite") as store:
            if executor == "cluster":
                factory = lambda setup: ClusterExecutor(  # noqa: E731
                    "local:2", setup.settings, cache_root=str(clean / "cache"), trusted=True
                )
                result = run_tournament(plan, store, None, factory)
            else:
                result = run_tournament(plan, store)
            assert result.complete
            verdicts[executor] = sorted(
                (r.order, r.chaos, r.winner.value, r.reason.value) for r in store.games()
            )
    assert verdicts["cluster"] == verdicts["local"]
    reasons = {reason for *_, reason in verdicts["cluster"]}
    assert {"startup", "crash"} <= reasons  # the faults were met, not dodged


def test_a_stopped_driver_stops_the_matches_on_the_workers_at_once(clean: Path) -> None:
    """A driver stopped mid-run (Ctrl-C and SIGTERM unwind into ``close``, which calls
    ``stop_matches``): the matches running on the workers end now, their bots killed, while the
    workers live on (as a shared cluster's do), rather than playing on for nobody."""
    bots = [folder_bot(clean / "bots" / name, pause_ms=100) for name in ("alpha", "beta")]
    executor = ClusterExecutor("local:2", SETTINGS, cache_root=str(clean / "cache"), trusted=True)
    events: list[object] = []
    try:
        jobs = plan_matches(bots, 20, seed=1)  # 4 matches of 10 games, 2 at a time: a minute
        # The driver's loop in a thread of its own, as it would wait for results.
        driver = threading.Thread(
            target=lambda: events.extend(e for b in executor.execute(jobs) for e in b)
        )
        driver.start()
        cache = clean / "cache"
        assert bots_running(cache), "no bot ran on the workers"
        workers: dict[str, int] = executor.client.run(os.getpid)
        stopped = time.monotonic()
        executor.stop_matches()
        left = wait_for_no_leftovers([str(cache)], timeout=10)
        assert not left, f"bots played on after the driver stopped: {left}"
        driver.join(timeout=30)
        assert not driver.is_alive()
        # Far sooner than the matches would have taken; the workers are still there (not
        # killed to stop the bots) and idle.
        assert time.monotonic() - stopped < 30
        assert executor.client.run(os.getpid) == workers
        assert wait_for_idle(executor), "a worker still runs a task of the stopped run"
        assert not any(isinstance(e, JobDone) for e in events)
    finally:
        executor.close()


def test_a_match_past_its_deadline_is_stopped_on_its_worker(clean: Path) -> None:
    """A chunk with no result by its deadline is cancelled and played again (``MAX_ATTEMPTS``
    times at most); Dask cannot interrupt a running task, so its bots are killed on the worker
    at once, and the worker is free again rather than playing on for nobody."""
    bots = [folder_bot(clean / "bots" / name, pause_ms=100) for name in ("alpha", "beta")]
    executor = ClusterExecutor("local:1", SETTINGS, cache_root=str(clean / "cache"), trusted=True)
    executor.match_deadline_s = 0.05  # a second or two, where the games take a minute
    try:
        jobs = plan_matches(bots, 20, seed=1)  # 4 chunks; unstopped, 10 s of games
        began = time.monotonic()
        events = [e for batch in executor.execute(jobs) for e in batch]
        failed = [e for e in events if isinstance(e, JobFailed)]
        assert Counter(e.key for e in failed) == {job.key: MAX_ATTEMPTS for job in jobs}
        assert all("cancelled; its games are replayed" in e.error for e in failed), failed
        assert not any(isinstance(e, JobDone) for e in events)
        # Dask forgets a cancelled task at once (the worker looks idle) while its thread plays on:
        # only its bots show whether the match goes on.
        left = wait_for_no_leftovers([str(clean / "cache")], timeout=5)
        assert not left, f"the cancelled match plays on: {left}"
        assert time.monotonic() - began < 20
    finally:
        executor.close()


# --- bots never reach the scheduler, and read on a worker what they read here ------------------


def test_untrusted_bots_without_a_sandbox_are_refused_in_one_line_before_connecting(
    clean: Path,
) -> None:
    """A Dask scheduler runs the code of whoever connects, on every worker, as its user: bots
    without bubblewrap (the network theirs) could. The run is refused before any cluster starts
    (nothing to connect to here), unless the bots are declared trusted."""
    for address in ("local:2", "tcp://127.0.0.1:9"):
        with pytest.raises(ArenaError) as caught:
            ClusterExecutor(address, SETTINGS, cache_root=str(clean / "cache"))
        message = str(caught.value)
        assert "\n" not in message
        assert "sandbox: none" in message and "--trusted-bots" in message
    assert not cluster_children()  # no cluster was started
    config = clean / "t.yaml"
    folder_bot(clean / "bots" / "alpha")
    folder_bot(clean / "bots" / "beta")
    config.write_text(
        "name: t\nbots:\n  - {name: alpha, path: bots/alpha}\n  - {name: beta, path: bots/beta}\n"
        "games_per_pairing: 1\n"
        "sandbox: none\ncluster: local:2\n"
    )
    result = run_arena("tournament", config, "--quiet", timeout=60)
    assert result.returncode != 0
    assert result.stderr.startswith("arena: error: --cluster local:2: bots would run without")
    assert len(result.stderr.splitlines()) == 1, result.stderr
    config.write_text(config.read_text() + "trusted_bots: maybe\n")
    result = run_arena("tournament", config, "--quiet", timeout=60)
    assert "trusted_bots" in result.stderr and "expected true or false" in result.stderr


SCHEDULER_PROBE = """import socket
try:
    socket.create_connection(({host!r}, {port}), timeout=2).close()
except OSError:
    pass
else:
    sys.exit(3)  # it reached the scheduler: a startup crash the test sees
"""


@pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not usable here")
def test_untrusted_bots_on_a_cluster_run_without_network_and_cannot_reach_the_scheduler(
    clean: Path,
) -> None:
    """``sandbox: auto`` on a cluster: bots run under bubblewrap (no network) on every worker,
    so a bot that would connect to the scheduler cannot; trusted, without a sandbox, it can
    (what the refusal guards against)."""
    settings = dataclasses.replace(SETTINGS, sandbox=SandboxMode.AUTO)
    outcomes = {}
    for trusted in (False, True):
        executor = ClusterExecutor(
            "local:1",
            settings if not trusted else SETTINGS,
            cache_root=str(clean / f"cache-{trusted}"),
            trusted=trusted,
        )
        try:
            host, port = executor.client.scheduler.address.removeprefix("tcp://").rsplit(":", 1)
            bots = []
            for name in ("alpha", "beta"):
                bot = folder_bot(clean / f"bots-{trusted}" / name)
                source = (bot.dir / "main.py").read_text()
                probe = SCHEDULER_PROBE.format(host=host, port=int(port))
                (bot.dir / "main.py").write_text(
                    source.replace("def main() -> None:", probe + "\n\ndef main() -> None:")
                )
                bots.append(BotSpec.from_path(bot.dir))
            assert executor.settings.sandbox is (SandboxMode.NONE if trusted else SandboxMode.BWRAP)
            jobs = plan_matches(bots, 1, seed=1)
            events = [e for batch in executor.execute(jobs) for e in batch]
        finally:
            executor.close()
        games = [e.record for e in events if isinstance(e, GameDone)]
        assert len(games) == 2, events
        outcomes[trusted] = {r.reason.value for r in games}
    assert "startup" not in outcomes[False], outcomes
    assert outcomes[True] == {"startup"}, outcomes


def test_bots_sharing_a_folder_play_the_same_games_on_a_cluster_as_here(clean: Path) -> None:
    """``mybots/a.py`` and ``mybots/b.py`` import ``mybots/common.py``: on the workers they
    read their folder (one pack for both), as here: the same clean games."""
    mybots = clean / "mybots"
    mybots.mkdir()
    source = (TEST_BOTS_DIR / "paced.py").read_text()
    (mybots / "common.py").write_text(source.replace("else 20", "else 0"))
    for name in ("a", "b"):
        (mybots / f"{name}.py").write_text("from common import main\n\nmain()\n")
    bots = [BotSpec.from_path(mybots / f"{name}.py") for name in ("a", "b")]
    verdicts = {}
    for executor in ("local", "cluster"):
        plan = plan_for(bots, 2, executor=executor)
        factory = lambda setup: ClusterExecutor(  # noqa: E731
            "local:2", setup.settings, cache_root=str(clean / "cache"), trusted=True
        )
        with Store.open(clean / f"{executor}.sqlite") as store:
            if executor == "cluster":
                result = run_tournament(plan, store, None, factory)
            else:
                result = run_tournament(plan, store)
            assert result.complete and result.harness_errors == []
            verdicts[executor] = sorted(
                (r.order, r.chaos, r.reason.value, r.moves) for r in store.games()
            )
    assert len(verdicts["local"]) == 4
    assert not any(reason == "startup" for _o, _c, reason, _m in verdicts["cluster"])
    assert verdicts["cluster"] == verdicts["local"]
    assert len(list((clean / "cache").iterdir())) == 1  # one pack for the shared folder


def test_a_bot_that_cannot_start_on_a_worker_for_the_harness_is_no_loss_of_its(
    clean: Path,
) -> None:
    """A file its command names outside its folder, missing on the worker: a harness error,
    no game charged. A folder linking out (a rival's program, a secret, the driver's
    environment): refused before anything is shipped, in one line."""
    outside = clean / "outside"
    outside.mkdir()
    program = outside / "prog.py"
    program.write_text((TEST_BOTS_DIR / "paced.py").read_text())
    home = clean / "home"
    home.mkdir()
    remote = BotSpec.from_command(["python3", str(program)], "remote", dir=home)
    good = folder_bot(clean / "bots" / "good")
    evil = folder_bot(clean / "bots" / "evil")
    secret = clean / "shadow"
    secret.write_text("root:SECRET_HASH:19000\n")
    (evil.dir / "rival.py").symlink_to(good.dir / "main.py")
    (evil.dir / "shadow").symlink_to(secret)
    (evil.dir / "environ").symlink_to("/proc/self/environ")
    cache = clean / "cache"
    executor = ClusterExecutor("local:1", SETTINGS, cache_root=str(cache), trusted=True)
    try:
        with pytest.raises(UnsafePackError, match="a link leading out of its folder") as caught:
            executor.ship([good, evil])
        assert "\n" not in str(caught.value)
        assert not cache.exists() or not any(cache.iterdir())  # nothing shipped
        executor.ship([good, remote])
        program.unlink()  # gone from where the worker would find it
        events = [e for b in executor.execute(plan_matches([good, remote], 1, seed=1)) for e in b]
    finally:
        executor.close()
    assert not any(isinstance(e, GameDone) for e in events), events
    failed = [e for e in events if isinstance(e, JobFailed)]
    assert failed and all("is not on this worker" in e.error for e in failed), failed


def scheduler_queues(executor: ClusterExecutor) -> list[str]:
    """The names of the Dask queues the scheduler still keeps."""

    def names(dask_scheduler: Any) -> list[str]:
        return sorted(dask_scheduler.extensions["queues"].queues)

    found: list[str] = executor.client.run_on_scheduler(names)
    return found


def bots_running(folder: Path) -> bool:
    """Whether a bot of ``folder`` runs now (polled briefly: between games none may)."""
    return bool(wait_until(lambda: leftover_processes([str(folder)]), 10))


def wait_for_idle(executor: ClusterExecutor, timeout: float = 10) -> bool:
    """Whether every worker of the executor's cluster is idle within ``timeout``."""
    return wait_until(
        lambda: not any(executor.client.processing().values()), timeout, interval=0.05
    )


# --- bots kept between matches (keep_bots) --------------------------------------------------


@contextlib.contextmanager
def outside_cluster(workers: int = 1, threads: int = 1) -> Iterator[tuple[str, Any]]:
    """A Dask ``LocalCluster`` of this process's own (its address, and a client of it), which
    outlives the executors and drivers connected to it, as a shared cluster does."""
    import distributed

    cluster = distributed.LocalCluster(
        n_workers=workers, threads_per_worker=threads, processes=True, host="127.0.0.1",
        dashboard_address=None,
    )  # fmt: skip
    try:
        with distributed.Client(cluster) as client:
            yield cluster.scheduler_address, client
    finally:
        cluster.close()


@pytest.mark.parametrize(
    ("workers", "threads"), [(1, 1), (2, 1), (1, 2)], ids=["1-worker", "2-workers", "2-threads"]
)
def test_kept_bots_on_a_cluster_start_fewer_times_and_play_the_same_games(
    clean: Path, workers: int, threads: int
) -> None:
    """Bots that ask for ``match``, kept by the workers between matches of the run: fewer starts
    than two a match, each match told the seed a fresh start would have had, the same games (and
    so the same stored records) as with ``keep_bots: false``; none kept once the run ended. Two
    threads of a worker share its keeper: a process is never in two matches at once (their
    games would break)."""
    games: dict[KeepBots, list[tuple[str, str, str, str, str]]] = {}
    told: dict[KeepBots, dict[str, list[int]]] = {}
    for keep in (KeepBots.OFF, KeepBots.AUTO):
        folder = clean / keep.name
        bots = logged_bots(folder, 4)  # 6 matches (12 starts without reuse), 2 games each
        with outside_cluster(workers, threads) as (address, client):
            executor = ClusterExecutor(
                address,
                dataclasses.replace(SETTINGS, keep_bots=keep),
                cache_root=str(clean / "cache"),
                trusted=True,
            )
            try:
                events = [e for b in executor.execute(plan_matches(bots, 1, seed=1)) for e in b]
                kept: dict[str, int] = client.run(kept_bots)
                assert list(kept.values()) == [0] * workers  # released at the end of the run
            finally:
                executor.close()
        records = [e.record for e in events if isinstance(e, GameDone)]
        assert not any(isinstance(e, JobFailed) for e in events), events
        assert not any(r.reason.is_fault for r in records), [r.detail for r in records]
        games[keep] = sorted(
            (r.order, r.chaos, r.moves, r.winner.value, r.reason.value) for r in records
        )
        starts = sum(
            kind == "start" for bot in bots for kind, _pid, _seed in log_of(folder, bot.name)
        )
        if keep is KeepBots.OFF:
            assert starts == 12
        else:
            assert starts <= 4 * workers * threads < 12, starts  # at most once a worker thread
        told[keep] = {
            bot.name: sorted(seed for kind, _p, seed in log_of(folder, bot.name) if kind == "match")
            for bot in bots
        }
    assert len(games[KeepBots.AUTO]) == 12
    assert games[KeepBots.AUTO] == games[KeepBots.OFF]
    assert told[KeepBots.AUTO] == told[KeepBots.OFF]


DRIVER = """
import sys
from pathlib import Path

from arena.botspec import BotSpec
from arena.commands.stopping import stopped_like_ctrl_c
from arena.limits import KeepBots, SandboxMode, TimeControl
from arena.referee import MatchSettings
from arena.tournament.executors.cluster import ClusterExecutor
from arena.tournament.schedule import plan_matches

address, cache, idle, *folders = sys.argv[1:]
settings = MatchSettings(
    TimeControl(move_ms=500, startup_ms=5000), sandbox=SandboxMode.NONE, keep_bots=KeepBots.ALL
)
bots = [BotSpec.from_path(Path(folder)) for folder in folders]
with stopped_like_ctrl_c():
    executor = ClusterExecutor(
        address, settings, cache_root=cache, trusted=True, kept_idle_s=float(idle)
    )
    try:
        for batch in executor.execute(plan_matches(bots, 4, seed=1)):
            print(len(batch), flush=True)
    finally:
        executor.close()
"""


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_bots_kept_on_a_cluster_do_not_outlive_a_stopped_or_killed_driver(
    clean: Path, stop: signal.Signals
) -> None:
    """A driver (a process of its own, the cluster outliving it as a shared one does) stopped
    while its bots are kept on a worker: SIGTERM kills them at once (``stop_run``); SIGKILL
    leaves nobody to release them, and they quit once the run was idle there for its limit."""
    bots = [folder_bot(clean / "bots" / name, pause_ms=10) for name in ("alpha", "beta", "gamma")]
    driver = None
    with outside_cluster() as (address, client):
        try:
            (worker,) = client.run(os.getpid).values()
            # The idle limit: far beyond the test's waits under SIGTERM (only ``stop_run`` can
            # stop the kept bots in time), 2 s under SIGKILL.
            idle = "2" if stop is signal.SIGKILL else "600"
            argv = [address, str(clean / "cache"), idle, *(str(b.dir) for b in bots)]
            driver = subprocess.Popen(
                [sys.executable, "-c", DRIVER, *argv], stdout=subprocess.DEVNULL
            )

            def kept() -> int:
                return sum(client.run(kept_bots).values())

            # 3 matches on 1 worker: after the first, one of its bots waits, kept, for the third.
            assert wait_until(kept, 60, interval=0.1), "no bot was ever kept on the worker"
            driver.send_signal(stop)
            driver.wait(timeout=30)
            left = wait_for_no_leftovers([str(clean / "cache")], timeout=30)
            assert not left, f"bots outlived the driver: {left}"
            assert kept() == 0
            assert list(client.run(os.getpid).values()) == [worker]  # the worker lives on
        finally:
            if driver is not None and driver.poll() is None:
                driver.kill()
                driver.wait(timeout=10)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))


def test_an_idle_worker_of_the_cluster_takes_the_later_chunks_of_a_match(clean: Path) -> None:
    """One match of 5 chunks on two workers, as on the local pool (``test_sharing.py``): the
    idle worker is given the later chunks of the match, and starts the pair for them; each game
    is played under its chunk's seed, and the bots are told the same seeds, as when one worker
    plays the match whole."""
    settings = dataclasses.replace(SETTINGS, keep_bots=KeepBots.AUTO)
    runs = {}
    for workers in (1, 2):
        folder = clean / f"w{workers}"
        bots = logged_bots(folder, 2, "--pause-ms", "40")  # 10 games of 5 plies: 2 s
        jobs = plan_matches(bots, 20, seed=5, chunk=2)[:5]  # a match of 5 chunks of 2 games
        assert [job.follows for job in jobs] == [None, *(job.key for job in jobs[:4])]
        with outside_cluster(workers) as (address, _client):
            executor = ClusterExecutor(
                address, settings, cache_root=str(clean / "cache"), trusted=True
            )
            try:
                events = [e for batch in executor.execute(jobs) for e in batch]
            finally:
                executor.close()
        assert not any(isinstance(e, JobFailed) for e in events), events
        games = {jobs[0].slot_key(e.slot): e.record for e in events if isinstance(e, GameDone)}
        assert len(games) == 10 and not any(r.reason.is_fault for r in games.values())
        logs = [entry for bot in bots for entry in log_of(folder, bot.name)]
        runs[workers] = (
            {key: (record.seed, record.moves) for key, record in games.items()},
            sorted(seed for kind, _pid, seed in logs if kind == "match"),
            sum(kind == "start" for kind, _pid, _seed in logs),
        )
    assert runs[2][0] == runs[1][0]  # the same games, each under its chunk's seed
    assert runs[2][1] == runs[1][1]  # the bots were told the same seeds
    assert runs[1][2] == 2 and runs[2][2] == 4  # the idle worker started the pair for its chunks


def test_the_cluster_hands_out_the_rounds_in_order_and_stores_the_local_pool_s_games(
    clean: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Six bots with random moves from their seeds: the driver submits the five rounds' matches
    round after round, and the games are those the local pool plays, move for move."""
    bots = []
    for i in range(6):
        folder = clean / "bots" / f"s{i}"
        folder.mkdir(parents=True)
        (folder / "main.py").write_text((TEST_BOTS_DIR / "seeded.py").read_text())
        bots.append(BotSpec.from_path(folder))
    submitted: list[int] = []
    submit = ClusterExecutor._submit

    def spy(self: ClusterExecutor, job: MatchJob, *args: Any) -> Any:
        submitted.append(job.round)
        return submit(self, job, *args)

    monkeypatch.setattr(ClusterExecutor, "_submit", spy)
    for executor in ("local", "cluster"):

        def factory(setup: ExecutorSetup, kind: str = executor) -> object:
            if kind == "local":
                from arena.tournament.executors.local import make_local

                return make_local(setup)
            return ClusterExecutor(
                "local:2", setup.settings, cache_root=str(clean / "cache"), trusted=True
            )

        with Store.open(clean / f"{executor}.sqlite") as store:
            result = run_tournament(plan_for(bots, 2, executor=executor), store, Quiet(), factory)  # type: ignore[arg-type]
            assert result.complete and result.harness_errors == []
    assert submitted == [r for r in range(5) for _ in range(3)]
    games = games_of(clean / "cluster.sqlite")
    assert len(games) == 60 and games == games_of(clean / "local.sqlite")
