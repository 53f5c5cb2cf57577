"""Executors: the events they report, workers that die, closing, and choosing one by name.

Real bot processes (copied into ``tmp_path``, so that a scan of ``/proc`` for it finds exactly
what these tests started) and real worker processes.
"""

from __future__ import annotations

import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import (
    TEST_BOTS_DIR,
    child_processes,
    leftover_processes,
    wait_for_no_leftovers,
    wait_until,
)

from arena.botspec import BotSpec
from arena.config import config_from_dict
from arena.errors import ArenaError, HarnessError
from arena.launch.sandbox import bwrap_path
from arena.limits import Measure, SandboxMode, TimeControl
from arena.records import GameRecord
from arena.referee.match import MatchSettings
from arena.rules import Reason, Role
from arena.tournament.executors import (
    Event,
    ExecutorSetup,
    GameDone,
    InlineExecutor,
    JobDone,
    JobFailed,
    LocalPoolExecutor,
    MatchExecutor,
    executor_names,
    local,
    make_executor,
)
from arena.tournament.executors.local import STALL_MARGIN_S, slowest_game_seconds
from arena.tournament.schedule import GameSlot, MatchJob, plan_matches

SETTINGS = MatchSettings(time_control=TimeControl(200, 2000), sandbox=SandboxMode.NONE)


def bot(tmp_path: Path, name: str, *args: str) -> BotSpec:
    """``tests/bots/<name>`` copied into ``tmp_path``, as a bot named after its arguments."""
    target = tmp_path / name
    if not target.exists():
        shutil.copyfile(TEST_BOTS_DIR / name, target)
    return BotSpec.from_command(["python3", str(target), *args], f"{target.stem}{''.join(args)}")


def events_of(executor: MatchExecutor, jobs: list[MatchJob]) -> list[Event]:
    return [event for batch in executor.execute(jobs) for event in batch]


def wait_gone(pid: int, timeout: float = 10.0) -> None:
    """Until ``pid`` is gone or a zombie (a dead worker not yet joined)."""

    def gone() -> bool:
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            return True

    assert wait_until(gone, timeout), f"process {pid} still running after {timeout}s"


@pytest.fixture
def pools() -> Iterator[list[LocalPoolExecutor]]:
    """Pools made by a test, closed after it even when it fails; then nothing may be left."""
    made: list[LocalPoolExecutor] = []
    yield made
    for pool in made:
        pool.close()
    assert child_processes() == []


def check_job_events(events: list[Event], jobs: list[MatchJob]) -> None:
    """Every slot's game once, each job's games before its ``JobDone``, nothing failed."""
    for job in jobs:
        mine = [e for e in events if getattr(e, "key", None) == job.key]
        assert [type(e) for e in mine] == [GameDone] * len(job.slots) + [JobDone]
        assert [e.slot for e in mine if isinstance(e, GameDone)] == list(job.slots)


def played_again(events: list[Event], job: MatchJob) -> None:
    """``job`` failed, then was played again from its start: each of its games told once."""
    mine = [e for e in events if getattr(e, "key", None) == job.key]
    assert isinstance(mine[-1], JobDone)
    assert Counter(e.slot for e in mine if isinstance(e, GameDone)) == Counter(job.slots)


# --- inline -------------------------------------------------------------------------------------


def test_inline_reports_each_game_then_the_end_of_its_job(tmp_path: Path) -> None:
    a, b = bot(tmp_path, "instant.py"), bot(tmp_path, "paced.py", "1")
    jobs = plan_matches([a, b], 2)
    executor = InlineExecutor(SETTINGS)
    events = events_of(executor, jobs)
    executor.close()
    check_job_events(events, jobs)
    assert not any(e.recorded for e in events if isinstance(e, GameDone))  # the caller records
    assert wait_for_no_leftovers([str(tmp_path)]) == []


def test_inline_reports_a_harness_failure_and_goes_on(tmp_path: Path) -> None:
    for name in ("doomed.py", "other.py"):
        shutil.copyfile(TEST_BOTS_DIR / "instant.py", tmp_path / name)
    a = bot(tmp_path, "instant.py")
    doomed = BotSpec.from_path(tmp_path / "doomed.py")
    other = BotSpec.from_path(tmp_path / "other.py")
    jobs = plan_matches([a, doomed, other], 1)
    (tmp_path / "doomed.py").unlink()  # its identity can no longer be read: not a bot's fault
    events = events_of(InlineExecutor(SETTINGS), jobs)
    failed = {e.key: e.error for e in events if isinstance(e, JobFailed)}
    assert sorted(failed) == ["doomed~other#0", "instant~doomed#0"]
    assert all("cannot read" in error for error in failed.values())
    check_job_events(events, [job for job in jobs if job.key not in failed])
    assert wait_for_no_leftovers([str(tmp_path)]) == []


# --- the local pool -------------------------------------------------------------------------------


def test_the_pool_reports_the_same_events(tmp_path: Path, pools: list[LocalPoolExecutor]) -> None:
    bots = [bot(tmp_path, "instant.py"), bot(tmp_path, "paced.py", "1"), bot(tmp_path, "paced.py")]
    jobs = plan_matches(bots, 2)
    pools.append(LocalPoolExecutor(2, SETTINGS))
    check_job_events(events_of(pools[0], jobs), jobs)


def test_a_worker_gets_its_next_job_before_the_caller_handles_its_games(
    tmp_path: Path, pools: list[LocalPoolExecutor]
) -> None:
    """The pool hands a finished worker its next job before it yields the batch that says so:
    the worker plays on while the caller stores and tells the games (it used to wait for it)."""
    first, second = tmp_path / "first", tmp_path / "second"
    jobs = []
    for folder, pace in ((first, "1"), (second, "2")):
        folder.mkdir()
        jobs += plan_matches([bot(folder, "instant.py"), bot(folder, "paced.py", pace)], 1)
    dirs = {job.key: str(folder) for job, folder in zip(jobs, (first, second), strict=True)}
    pool = LocalPoolExecutor(1, SETTINGS)
    pools.append(pool)
    batches = pool.execute(jobs)
    done = next(e for batch in batches for e in batch if isinstance(e, JobDone))
    # The caller holds the batch with that JobDone (the generator is suspended at its yield):
    (other,) = [key for key in dirs if key != done.key]
    assert wait_until(lambda: leftover_processes([dirs[other]]), 10), (
        "the worker was not given its next job before the caller handled the finished one"
    )
    rest = [e for batch in batches for e in batch]
    assert any(isinstance(e, JobDone) and e.key == other for e in rest)
    assert wait_for_no_leftovers([str(tmp_path)]) == []


def test_a_worker_killed_mid_job_fails_its_job_and_is_replaced(
    tmp_path: Path, pools: list[LocalPoolExecutor]
) -> None:
    a, b = bot(tmp_path, "paced.py", "30"), bot(tmp_path, "paced.py", "31")
    c = bot(tmp_path, "instant.py")
    killed, then = plan_matches([a, b], 20)[0], plan_matches([a, c], 1)[0]
    pool = LocalPoolExecutor(1, SETTINGS)
    pools.append(pool)
    (before,) = pool.worker_pids
    batches = pool.execute([killed, then])
    first = next(batches)
    assert isinstance(first[0], GameDone)  # the match is under way
    os.kill(before, signal.SIGKILL)
    rest = [event for batch in batches for event in batch]
    failures = [e for e in rest if isinstance(e, JobFailed)]
    assert [e.key for e in failures] == [killed.key]
    assert "worker process died (exit code -9)" in failures[0].error
    (after,) = pool.worker_pids
    assert after != before
    check_job_events(rest, [then])  # the replacement played the next job
    played_again(first + rest, killed)
    assert wait_for_no_leftovers([str(tmp_path)]) == []  # the dead worker's bots died with it


def test_a_worker_killed_while_idle_is_replaced(
    tmp_path: Path, pools: list[LocalPoolExecutor]
) -> None:
    a, b = bot(tmp_path, "instant.py"), bot(tmp_path, "paced.py", "1")
    jobs = plan_matches([a, b], 2)
    pool = LocalPoolExecutor(1, SETTINGS)
    pools.append(pool)
    (pid,) = pool.worker_pids
    os.kill(pid, signal.SIGKILL)
    wait_gone(pid)
    events = events_of(pool, jobs)
    assert [type(e) for e in events] == [JobFailed]
    assert "worker process died" in events[0].error
    check_job_events(events_of(pool, jobs), jobs)  # the replacement


def test_close_leaves_nothing_running(tmp_path: Path) -> None:
    a, b = bot(tmp_path, "paced.py", "50"), bot(tmp_path, "paced.py", "51")
    pool = LocalPoolExecutor(2, SETTINGS)
    workers = pool.worker_pids
    try:
        batches = pool.execute(plan_matches([a, b], 20))
        assert isinstance(next(batches)[0], GameDone)
        assert len(leftover_processes([str(tmp_path)])) >= 2
    finally:
        started = time.monotonic()
        pool.close()
        assert time.monotonic() - started < 3
    assert wait_for_no_leftovers([str(tmp_path)], timeout=5) == []
    assert child_processes() == []
    assert all(not Path(f"/proc/{pid}").exists() for pid in workers)


class _StoppedAfterSending:
    """A worker's connection where a stop signal lands just after the first message is sent
    (``KeyboardInterrupt`` raised as the send returns, as Python runs a handler)."""

    def __init__(self, conn: object) -> None:
        self.conn = conn
        self.sent = 0

    def send_bytes(self, data: bytes) -> None:
        self.conn.send_bytes(data)  # type: ignore[attr-defined]
        self.sent += 1
        if self.sent == 1:
            raise KeyboardInterrupt

    def __getattr__(self, name: str) -> object:
        return getattr(self.conn, name)


def test_a_stop_just_after_a_job_is_sent_stops_the_worker_playing_it(tmp_path: Path) -> None:
    """The pool records a worker busy before sending it a job: stopped just after the send, it
    closes the worker as a busy one (SIGTERM: its bots killed at once). On record as idle, it
    was asked to exit between jobs, which a worker playing a match never reads: the pool waited
    for it until the join's timeout and killed it (exit code -9)."""
    a, b = bot(tmp_path, "paced.py", "30"), bot(tmp_path, "paced.py", "31")
    pool = LocalPoolExecutor(1, SETTINGS)
    (worker,) = pool._workers
    process = worker.process
    worker.conn = _StoppedAfterSending(worker.conn)  # type: ignore[assignment]
    try:
        with pytest.raises(KeyboardInterrupt):
            next(pool.execute(plan_matches([a, b], 20)))
        assert wait_until(lambda: leftover_processes([str(tmp_path)]), 10), "no match started"
    finally:
        pool.close()
    assert process.exitcode == 1  # ``_terminate``: SIGTERM, bots killed, ``os._exit(1)``
    assert wait_for_no_leftovers([str(tmp_path)], timeout=5) == []
    assert child_processes() == []


def test_a_worker_told_to_exit_in_the_middle_of_a_match_stops_there(tmp_path: Path) -> None:
    """Should a worker be told to quit (``QuitWorker``) while it plays, it stops after the game
    under way, its bots with it (taken for a request to share its match, it would play on, then
    wait for a job that never comes)."""
    a, b = bot(tmp_path, "paced.py", "30"), bot(tmp_path, "paced.py", "31")
    pool = LocalPoolExecutor(1, SETTINGS)
    (pid,) = pool.worker_pids
    try:
        batches = pool.execute(plan_matches([a, b], 20))
        assert isinstance(next(batches)[0], GameDone)  # the match is under way
        pool._workers[0].send(local.QuitWorker())
        wait_gone(pid)  # 19 more games would take about 20 s
        assert wait_for_no_leftovers([str(tmp_path)], timeout=5) == []
    finally:
        pool.close()
    assert child_processes() == []


def test_a_late_answer_to_a_release_is_skipped_with_the_next_run_s_events(
    tmp_path: Path, pools: list[LocalPoolExecutor]
) -> None:
    """A worker's ``BotsReleased`` that comes after the end of a run stopped waiting for it is
    read among the next run's events, and skipped."""
    a, b = bot(tmp_path, "instant.py"), bot(tmp_path, "paced.py", "1")
    jobs = plan_matches([a, b], 2)
    pool = LocalPoolExecutor(1, SETTINGS)
    pools.append(pool)
    (worker,) = pool._workers
    worker.send(local.ReleaseBots())  # its answer left unread, as after a release timed out
    assert wait_until(lambda: worker.conn.poll(), 10), "the worker did not answer"
    check_job_events(events_of(pool, jobs), jobs)
    assert wait_for_no_leftovers([str(tmp_path)]) == []


# --- chosen by name -------------------------------------------------------------------------------


def test_executors_are_made_by_name(pools: list[LocalPoolExecutor]) -> None:
    assert executor_names() == ["cluster", "inline", "local"]
    assert isinstance(make_executor("inline", ExecutorSetup(SETTINGS, workers=4)), InlineExecutor)
    local = make_executor("local", ExecutorSetup(SETTINGS, workers=2))
    assert isinstance(local, LocalPoolExecutor)
    pools.append(local)
    assert len(local.worker_pids) == 2
    known = "'cluster', 'inline', 'local'"
    with pytest.raises(ArenaError, match=f"unknown executor 'dask'; expected one of {known}"):
        make_executor("dask", ExecutorSetup(SETTINGS))


def test_the_config_and_the_command_line_name_the_executor(tmp_path: Path) -> None:
    bots = [{"name": n, "path": str(TEST_BOTS_DIR / "instant.py")} for n in "ab"]
    assert config_from_dict({"bots": bots}).plan().executor == "local"
    config = config_from_dict({"bots": bots, "executor": "inline"}, base_dir=tmp_path)
    assert config.plan().executor == "inline"
    file = tmp_path / "t.yaml"
    file.write_text(
        f"bots: [{{name: a, path: {TEST_BOTS_DIR / 'instant.py'}}}, random]\n"
        "games_per_pairing: 1\nsandbox: none\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", str(file), "--executor", "dask"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == (
        "arena: error: --executor: expected one of 'cluster', 'inline', 'local', got 'dask'\n"
    )
    result = subprocess.run(  # the cluster executor named without saying which cluster
        [sys.executable, "-m", "arena", "tournament", str(file), "--executor", "cluster"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.startswith("arena: error: the cluster executor needs a cluster: ")
    assert result.stderr.count("\n") == 1
    result = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", str(file), "--executor", "inline", "-q"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "results" / "t.sqlite").exists()


# --- the watchdog ---------------------------------------------------------------------------------


def test_the_slowest_game_follows_the_time_control() -> None:
    wall = Measure.WALL
    slow = MatchSettings(time_control=TimeControl(move_ms=1000, startup_ms=5000, measure=wall))
    fast = MatchSettings(time_control=TimeControl(move_ms=10, startup_ms=100, measure=wall))
    assert slowest_game_seconds(slow) == pytest.approx(2 * 5 + 36 * 1 + STALL_MARGIN_S)
    assert slowest_game_seconds(fast) == pytest.approx(0.2 + 0.36 + STALL_MARGIN_S)
    # A clock: both bots' clocks and every increment; a margin on every move.
    clock = TimeControl(
        clock_ms=60000, increment_ms=500, margin_ms=10, startup_ms=100, measure=wall
    )
    seconds = 0.2 + 2 * (60 + 18 * 0.5) + 36 * 0.01 + STALL_MARGIN_S
    assert slowest_game_seconds(MatchSettings(time_control=clock)) == pytest.approx(seconds)
    # measure: cpu: every move and start-up up to its wall-clock cap (3 times its allowance +
    # 500 ms).
    cpu = TimeControl(move_ms=100, startup_ms=100, measure=Measure.CPU)
    seconds = 2 * (3 * 0.1 + 0.5) + 36 * (3 * 0.1 + 0.5) + STALL_MARGIN_S
    assert slowest_game_seconds(MatchSettings(time_control=cpu)) == pytest.approx(seconds)


def test_a_stopped_worker_is_killed_and_its_job_failed(
    tmp_path: Path, pools: list[LocalPoolExecutor]
) -> None:
    a, b = bot(tmp_path, "paced.py", "20"), bot(tmp_path, "paced.py", "21")
    c = bot(tmp_path, "instant.py")
    stopped, then = plan_matches([a, b], 20)[0], plan_matches([a, c], 1)[0]
    pool = LocalPoolExecutor(1, SETTINGS, stall_seconds=1.5)
    pools.append(pool)
    (worker,) = pool.worker_pids
    batches = pool.execute([stopped, then])
    first = next(batches)
    assert isinstance(first[0], GameDone)  # under way
    os.kill(worker, signal.SIGSTOP)
    started = time.monotonic()
    rest = [event for batch in batches for event in batch]
    assert time.monotonic() - started < 1.5 + 8  # noticed and dealt with in bounded time
    failures = [e for e in rest if isinstance(e, JobFailed)]
    assert [e.key for e in failures] == [stopped.key]
    assert re.search(r"worker made no progress for \d+ s", failures[0].error)
    assert "its chunk is replayed" in failures[0].error
    check_job_events([e for e in rest if e.key == then.key], [then])  # the replacement plays
    played_again(first + rest, stopped)
    assert worker not in pool.worker_pids
    assert wait_for_no_leftovers([str(tmp_path)]) == []  # its bots were killed with it


PREPARE = """
import os, sys, tempfile
from arena.launch import reaper
from arena.botspec import BotSpec
from arena.tournament.executors.worker import prepare_worker, stop_bots
from arena.referee.match import Match, MatchSettings

mode = prepare_worker(sys.argv[1], scratch=None, core=None)
assert prepare_worker(sys.argv[1]) is mode  # idempotent
print(mode.value, reaper.is_subreaper(), tempfile.gettempdir(), flush=True)
spec = BotSpec.from_path(sys.argv[2])
match = Match(spec, spec.renamed("other"), MatchSettings(sandbox=mode), 1, expected_games=2)
match.__enter__()
match.play(0)
stop_bots()  # as a signal handler would: no Match.__exit__
print("stopped", flush=True)
"""


@pytest.mark.parametrize("asked", ["auto", "none"])
def test_prepare_worker_resolves_the_mode_there_and_stop_bots_leaves_nothing(
    asked: str, no_leftover_processes: Path
) -> None:
    """``prepare_worker`` (what any executor's worker calls, with plain data): the sandbox mode
    resolved where the bots run, the process a subreaper with its own ``arena-run-*`` scratch
    folder; ``stop_bots`` then kills the bots of a match in play and removes their folders."""
    bot = no_leftover_processes / "instant.py"
    shutil.copy(TEST_BOTS_DIR / "instant.py", bot)
    done = subprocess.run(
        [sys.executable, "-c", PREPARE, asked, str(bot)],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    mode, subreaper, scratch = first.split()
    expected = "none" if asked == "none" or bwrap_path() is None else "bwrap"
    assert (mode, subreaper, second) == (expected, "True", "stopped")
    assert Path(scratch).name.startswith("arena-run-")
    assert not Path(scratch).exists(), "the worker's scratch folder was left behind"


def test_a_job_failed_by_a_foreseen_harness_error_says_it_in_one_line() -> None:
    """A match that ends in an error the harness foresees (a machine too loaded to referee, a
    sandbox that cannot start) is stored and told in that error's own line, as the run says it,
    not as a traceback (issue 25: a busy run's 21 "too loaded" errors were stored as tracebacks
    of the worker); an unforeseen error keeps its traceback, a bug to report."""
    loaded = HarnessError("the machine is too loaded to referee fairly: use fewer workers")
    assert JobFailed.of("a~b#0", loaded) == JobFailed("a~b#0", str(loaded))
    try:
        raise ValueError("a bug")
    except ValueError as error:
        failed = JobFailed.of("a~b#0", error)
    assert failed.error.startswith("Traceback (most recent call last)")
    assert failed.error.rstrip().endswith("ValueError: a bug")


class _FakeConn:
    """What ``_Batcher`` sends, unpickled: one list per message."""

    def __init__(self) -> None:
        self.messages: list[list[Event]] = []

    def send_bytes(self, data: bytes) -> None:
        self.messages.append(pickle.loads(data))


def test_a_worker_batches_games_as_long_as_none_waits_past_the_latency(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Games travel together while one more like the last would still come within
    ``LATENCY_S`` of the first; a slow game, and anything but a game, go at once, and every game
    is recorded before the parent hears of it."""
    clock = [100.0]
    monkeypatch.setattr(local.time, "monotonic", lambda: clock[0])
    conn = _FakeConn()
    sunk: list[int] = []

    def sink(games: list[GameDone]) -> list[bool]:
        sunk.extend(game.slot.index for game in games)
        return [True] * len(games)

    batcher = local._Batcher(conn, sink)  # type: ignore[arg-type]

    def game_after(seconds: float, index: int) -> None:
        clock[0] += seconds
        record = GameRecord(order="a", chaos="b", winner=Role.CHAOS, reason=Reason.FULL)
        batcher(GameDone("a~b#0", GameSlot(0, index), record))

    latency = local._Batcher.LATENCY_S
    game_after(latency * 2, 0)  # the first of a job, after a long pause: sent at once
    assert [[e.slot.index for e in m] for m in conn.messages] == [[0]]  # type: ignore[attr-defined]
    step = latency * 0.3
    for index in range(1, 5):  # held while one more would come within it; the 4th: sent
        game_after(step, index)
    assert [len(m) for m in conn.messages] == [1, 4]
    assert all(isinstance(e, GameDone) and e.recorded for m in conn.messages for e in m)
    assert sunk == [0, 1, 2, 3, 4]
    game_after(step, 5)  # held
    batcher(JobDone("a~b#0"))  # the end of the job takes it along
    assert [len(m) for m in conn.messages] == [1, 4, 2]
    assert isinstance(conn.messages[-1][-1], JobDone)
    game_after(latency * 1.5, 6)  # a slow game: at once
    assert [len(m) for m in conn.messages] == [1, 4, 2, 1]
