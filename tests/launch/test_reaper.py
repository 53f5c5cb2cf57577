"""Every process a bot starts dies with the match, whatever it does and however arena is stopped.

The fixture ``tests/bots/scatter.py`` hides 20 children at start-up (new sessions, new process
groups, double forks, all with an empty environment). ``arena match`` runs for real in a
subprocess; the checks read ``/proc`` (command lines that mention the test's own folder) and the
temporary folder given to arena as ``TMPDIR``, with bounded waits.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import (
    SANDBOX_MODES,
    TEST_BOTS_DIR,
    arena_folders,
    leftover_processes,
    wait_for_no_leftovers,
    wait_until,
)

from arena.launch import cgroups, procfs, reaper

CGROUPS = [
    pytest.param(
        "1",
        id="cgroups",
        marks=pytest.mark.skipif(cgroups.pids_root() is None, reason="no usable pids cgroup"),
    ),
    pytest.param("0", id="no-cgroups"),
]
HIDDEN = 20
TIMEOUT_S = 60


def hidden_children(folder: Path) -> list[int]:
    """The pids of the scatter bot's hidden children (their command line ends in --hidden)."""
    return [
        pid for pid, cmd in leftover_processes([str(folder)]) if cmd.rstrip().endswith("--hidden")
    ]


def arena_env(tmpdir: Path, use_cgroups: str = "1") -> dict[str, str]:
    """The environment of an ``arena`` subprocess whose temporary folders go to ``tmpdir``."""
    tmpdir.mkdir(exist_ok=True)
    return {**os.environ, "TMPDIR": str(tmpdir), "ARENA_CGROUPS": use_cgroups}


def scatter_match(folder: Path, mode: str, games: int) -> list[str]:
    bots = folder / "bots"
    bots.mkdir()
    scatter = bots / "scatter.py"
    instant = bots / "instant.py"
    shutil.copy(TEST_BOTS_DIR / "scatter.py", scatter)
    shutil.copy(TEST_BOTS_DIR / "instant.py", instant)
    return [
        sys.executable, "-X", "faulthandler", "-m", "arena", "match", str(scatter), str(instant),
        "--games", str(games), "--sandbox", mode, "--quiet",
    ]  # fmt: skip


def finish(proc: subprocess.Popen[str], timeout: float = TIMEOUT_S) -> tuple[str, str]:
    """Wait for a stopped arena command; if it hangs, fail with its Python stacks (faulthandler
    prints them on SIGABRT) and its process tree, rather than a bare timeout."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        tree = subprocess.run(
            ["ps", "-eo", "pid,ppid,stat,wchan:20,cmd", "--forest"],
            capture_output=True, text=True, timeout=10,
        ).stdout  # fmt: skip
        proc.send_signal(signal.SIGABRT)
        try:
            _out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            err = "(no answer to SIGABRT)"
        pytest.fail(f"arena did not stop within {timeout} s\n{err[-6000:]}\n{tree[-6000:]}")


@pytest.mark.parametrize("use_cgroups", CGROUPS)
@pytest.mark.parametrize("mode", SANDBOX_MODES)
def test_hidden_children_die_with_their_bot(
    mode: str, use_cgroups: str, no_leftover_processes: Path
) -> None:
    tmpdir = no_leftover_processes / "tmp"
    argv = scatter_match(no_leftover_processes, mode, games=2)
    result = subprocess.run(
        argv, env=arena_env(tmpdir, use_cgroups), capture_output=True, text=True, timeout=TIMEOUT_S,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert wait_for_no_leftovers([str(no_leftover_processes)]) == []
    assert arena_folders(tmpdir) == []


@pytest.mark.parametrize("use_cgroups", CGROUPS)
@pytest.mark.parametrize("mode", SANDBOX_MODES)
@pytest.mark.parametrize(
    "signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL], ids=lambda s: s.name
)
def test_a_signal_to_arena_match_leaves_nothing_behind(
    mode: str, use_cgroups: str, signum: signal.Signals, no_leftover_processes: Path
) -> None:
    if (signum, mode, use_cgroups) == (signal.SIGKILL, "none", "0"):
        pytest.skip(
            "not guaranteed: a killed harness without cgroup nor PID namespace (docs/sandbox.md)"
        )
    folder = no_leftover_processes
    tmpdir = folder / "tmp"
    argv = scatter_match(folder, mode, games=100_000)
    with subprocess.Popen(
        argv, env=arena_env(tmpdir, use_cgroups), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    ) as proc:  # fmt: skip
        try:
            assert wait_until(lambda: len(hidden_children(folder)) >= HIDDEN, 20), (
                f"the bot did not hide its children: {leftover_processes([str(folder)])}"
            )
            proc.send_signal(signum)
            _out, err = finish(proc)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
    if signum is not signal.SIGKILL:
        assert proc.returncode == 128 + signum, err
        assert "interrupted after" in err
    assert wait_for_no_leftovers([str(folder)], timeout=5) == []
    assert wait_until(lambda: arena_folders(tmpdir) == [], 5), arena_folders(tmpdir)


def scatter_tournament(folder: Path, mode: str) -> list[str]:
    """The command of a long tournament between the scatter bot and an instant one."""
    import json

    scatter_match(folder, mode, games=1)  # copies the bots
    config = folder / "t.yaml"
    config.write_text(
        json.dumps(
            {
                "name": "t",
                "bots": [
                    {"name": "scatter", "path": str(folder / "bots" / "scatter.py")},
                    {"name": "instant", "path": str(folder / "bots" / "instant.py")},
                ],
                "games_per_pairing": 5000,
                "time_control": {"move_ms": 200, "startup_ms": 5000},
                "workers": 2,
                "sandbox": mode,
                "db": str(folder / "t.sqlite"),
            }
        )
    )
    return [
        sys.executable,
        "-X",
        "faulthandler",
        "-m",
        "arena",
        "tournament",
        str(config),
        "--quiet",
    ]


@pytest.mark.parametrize("mode", SANDBOX_MODES)
@pytest.mark.parametrize(
    "signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL], ids=lambda s: s.name
)
def test_a_signal_to_arena_tournament_leaves_nothing_behind(
    mode: str, signum: signal.Signals, no_leftover_processes: Path
) -> None:
    """Workers are harnesses too: their bots' hidden children die when the run is stopped."""
    folder = no_leftover_processes
    tmpdir = folder / "tmp"
    argv = scatter_tournament(folder, mode)
    with subprocess.Popen(
        argv, env=arena_env(tmpdir), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    ) as proc:  # fmt: skip
        try:
            assert wait_until(lambda: len(hidden_children(folder)) >= 2 * HIDDEN, 30), (
                f"the bots did not hide their children: {leftover_processes([str(folder)])}"
            )
            proc.send_signal(signum)
            out, err = finish(proc)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
    if signum is not signal.SIGKILL:  # killed, its workers stop their bots (parent-death signal)
        assert proc.returncode == 128 + signum, out + err
    assert wait_for_no_leftovers([str(folder)], timeout=5) == []
    assert wait_until(lambda: arena_folders(tmpdir) == [], 5), arena_folders(tmpdir)


def test_a_harness_in_process_cleans_up_and_restores_what_it_changed(
    no_leftover_processes: Path,
) -> None:
    """install_harness / close_harness in this very process (as a library user would)."""
    import tempfile

    from arena.botspec import BotSpec
    from arena.launch import reaper
    from arena.limits import TimeControl
    from arena.referee.match import MatchSettings, play_match

    folder = no_leftover_processes
    scatter_match(folder, "none", games=1)
    before = tempfile.tempdir
    reaper.install_harness()
    try:
        root = reaper.scratch_root()
        assert root is not None and tempfile.gettempdir() == root
        assert reaper.is_subreaper()
        spec = BotSpec.from_path(folder / "bots" / "scatter.py")
        instant = BotSpec.from_path(folder / "bots" / "instant.py")
        for _ in range(2):  # a second match in the same process still has its scratch folder
            settings = MatchSettings(time_control=TimeControl(move_ms=2000), sandbox="none")
            records = play_match(spec, instant, 1, settings)  # no timeout under load
            assert not records[0].reason.is_fault, records[0]
            assert wait_for_no_leftovers([str(folder)]) == []
    finally:
        reaper.close_harness()
    assert tempfile.tempdir == before
    assert not Path(root).exists()
    assert not reaper.is_subreaper()
    if cgroups.pids_root() is not None:  # a bot started later still gets a cgroup
        later = cgroups.BotCgroup.create(8)
        assert later is not None
        later.kill()


def cgroup_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cgroup").read_text()
    except OSError:
        return ""


@pytest.mark.skipif(cgroups.pids_root() is None, reason="no usable pids cgroup")
@pytest.mark.parametrize("mode", SANDBOX_MODES)
def test_a_killed_worker_leaves_nothing_behind(mode: str, no_leftover_processes: Path) -> None:
    """SIGKILL of one tournament worker: its guardian kills what its bots hid (cgroups)."""
    from arena.launch import procfs

    folder = no_leftover_processes
    argv = scatter_tournament(folder, mode)
    with subprocess.Popen(
        argv, env=arena_env(folder / "tmp"), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    ) as proc:  # fmt: skip
        try:
            assert wait_until(lambda: len(hidden_children(folder)) >= 2 * HIDDEN, 30)
            worker = (procfs.children(proc.pid) or [])[0]

            def mine() -> list[int]:
                return [p for p in hidden_children(folder) if f"/arena-{worker}-" in cgroup_of(p)]

            # The two workers' bots hide their children at their own pace: the total may be
            # reached while this worker's bot is still forking (16 of 20 was seen).
            assert wait_until(lambda: len(mine()) >= HIDDEN, 30), (
                "the first worker's bots hid nothing"
            )
            alive = set(mine())
            os.kill(worker, signal.SIGKILL)
            assert wait_until(lambda: not (alive & set(hidden_children(folder))), 5), (
                f"survived their worker: {alive & set(hidden_children(folder))}"
            )
            proc.send_signal(signal.SIGTERM)
            finish(proc)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
    assert wait_for_no_leftovers([str(folder)], timeout=5) == []


# --- a stop signal that arrives while the pool forks a worker -------------------------------------
FORK_STOP_DRIVER = """
import os, signal, sys

fired = []


def hook():
    # In the parent, just after fork, as logging's at-fork hook runs: a SIGTERM that lands here
    # raises in a hook whose exceptions Python ignores ("Exception ignored in: ...").
    if not fired and signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None):
        fired.append(1)
        os.kill(os.getpid(), signal.SIGTERM)
        sum(range(1000))  # bytecode: where the Python handler runs


os.register_at_fork(after_in_parent=hook)
from arena.cli import main

sys.argv = ["arena", "tournament", sys.argv[1], "--quiet"]
main()
"""


def test_a_stop_signal_during_a_worker_fork_is_not_lost(no_leftover_processes: Path) -> None:
    """SIGTERM arrives while the local pool forks a worker (seen once in the suite: the handler's
    exception raised inside logging's at-fork hook was ignored, and the run went on as if no
    signal had come). The pool holds the stop signals while it forks: the run stops as told."""
    folder = no_leftover_processes
    instant = folder / "instant.py"
    shutil.copy(TEST_BOTS_DIR / "instant.py", instant)
    bots = "".join(f"  - {{name: {n}, path: {instant}}}\n" for n in "abc")
    config = folder / "t.yaml"
    config.write_text(
        f"bots:\n{bots}games_per_pairing: 400\nworkers: 2\nexecutor: local\nsandbox: none\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", FORK_STOP_DRIVER, str(config)],
        env=arena_env(folder / "tmp"), stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=TIMEOUT_S,
    )  # fmt: skip
    assert result.returncode == 128 + signal.SIGTERM, (result.returncode, result.stderr[-2000:])
    assert "interrupted (SIGTERM)" in result.stderr + result.stdout, result.stderr[-2000:]
    assert "Exception ignored" not in result.stderr, result.stderr[-2000:]


HARNESS_SCRIPT = """import os, sys, tempfile, time
from arena.launch import cgroups, reaper
from arena.launch import reaper
scratch = None
if sys.argv[1:] == ["worker"]:  # as a Dask worker outside a task: arena-scratch-<pid>
    scratch = os.path.join(tempfile.gettempdir(), f"arena-scratch-{os.getpid()}")
    os.mkdir(scratch)
reaper.install_harness(scratch)
harness = reaper._harness
assert harness is not None
print(os.getpid(), harness.guardian, cgroups.harness_cgroup() or "", flush=True)
time.sleep(600)
"""


def start_harness(env: dict[str, str], *kind: str) -> tuple[subprocess.Popen[str], int, str]:
    """A harness in a subprocess (its guardian, cgroup and scratch folder made; ``worker``: a
    cluster worker's): the process, its guardian's pid and its cgroup folder ('' without)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HARNESS_SCRIPT, *kind],
        stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert proc.stdout is not None
    line = proc.stdout.readline().split()  # bounded: it prints at once, or dies (end of file)
    if len(line) < 2:
        proc.kill()
        proc.wait(timeout=10)
        pytest.fail("the harness did not start")
    return proc, int(line[1]), line[2] if len(line) > 2 else ""


def test_a_run_sweeps_what_dead_harnesses_left_and_keeps_what_live_ones_hold(
    no_leftover_processes: Path,
) -> None:
    """Harnesses killed with their guardians (as a crash of the machine's tests or a killed
    container would) leave their cgroup and scratch folder; a cluster worker's scratch folder
    is ``arena-scratch-<pid>``. The next run removes those whose process is gone, and only
    those: a live harness keeps its own."""
    folder = no_leftover_processes
    tmpdir = folder / "tmp"
    env = arena_env(tmpdir)
    dead, dead_guardian, dead_cgroup = start_harness(env)
    worker, worker_guardian, worker_cgroup = start_harness(env, "worker")
    live, _live_guardian, live_cgroup = start_harness(env)
    try:
        for proc, guardian in ((dead, dead_guardian), (worker, worker_guardian)):
            os.kill(guardian, signal.SIGKILL)  # the guardian first: nobody cleans up after it
            proc.kill()
            proc.wait(timeout=10)
        left = arena_folders(tmpdir)
        assert len([n for n in left if n.startswith(f"arena-run-{dead.pid}-")]) == 1, left
        assert f"arena-scratch-{worker.pid}" in left
        for cgroup in (dead_cgroup, worker_cgroup):
            assert not cgroup or Path(cgroup).is_dir()
        bots = folder / "bots"
        bots.mkdir()
        shutil.copy(TEST_BOTS_DIR / "instant.py", bots / "instant.py")
        result = subprocess.run(
            [sys.executable, "-m", "arena", "match", str(bots / "instant.py"),
             str(bots / "instant.py"), "--games", "1", "--sandbox", "none", "--quiet"],
            capture_output=True, text=True, env=env, timeout=TIMEOUT_S,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        left = arena_folders(tmpdir)
        assert not [n for n in left if str(dead.pid) in n or str(worker.pid) in n], left
        assert [n for n in left if n.startswith(f"arena-run-{live.pid}-")], left
        for cgroup in (dead_cgroup, worker_cgroup):
            assert not cgroup or not Path(cgroup).exists(), cgroup
        assert not live_cgroup or Path(live_cgroup).is_dir()
    finally:
        for proc in (dead, worker, live):
            proc.kill()
            proc.wait(timeout=10)
    # The live one's guardian cleans up after it, as ever.
    assert wait_until(lambda: arena_folders(tmpdir) == [], 10), arena_folders(tmpdir)
    assert not live_cgroup or wait_until(lambda: not Path(live_cgroup).exists(), 10)


def test_a_harness_raises_its_soft_bound_on_open_files() -> None:
    """A worker keeps the pipes and cgroup files of up to ``MAX_KEPT`` bots: a harness (a local
    or a cluster worker alike) started under the usual soft bound of 1,024 (here 256) raises it
    to its hard bound (at most 65,536)."""
    import resource

    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard <= 256:
        pytest.skip("the hard bound on open files leaves nothing to raise")
    code = (
        "import resource\nfrom arena.launch import reaper\nreaper.install_harness()\n"
        "print(resource.getrlimit(resource.RLIMIT_NOFILE)[0])\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", code],
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard)),
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    wanted = reaper.OPEN_FILES
    expected = wanted if hard == resource.RLIM_INFINITY else min(hard, wanted)
    assert int(shown.stdout) == expected


FROZEN_BOT_SCRIPT = """import os, sys, time
from arena.launch import cgroups, reaper
reaper.install_harness()
harness = reaper._harness
assert harness is not None
bot = cgroups.BotCgroup.create(16)
assert bot is not None
pid = os.fork()
if pid == 0:
    bot.join()
    os.execvp(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", sys.argv[1]])
deadline = time.monotonic() + 30
while pid not in bot.members():  # bounded: the test reads nothing but this script's line
    assert time.monotonic() < deadline, "the bot never joined its cgroup"
    time.sleep(0.01)
assert bot.freeze(True)
print(os.getpid(), harness.guardian, pid, flush=True)
time.sleep(600)
"""


@pytest.mark.skipif(
    cgroups.pids_root() is None or cgroups.controller_root("freezer") is None,
    reason="no usable pids and freezer cgroups",
)
def test_a_frozen_bot_of_a_dead_harness_is_killed_at_once(
    no_leftover_processes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker killed while its idle bot was frozen leaves that bot in every hierarchy's
    folder. The sweep (which the worker replacing it runs as it starts) thaws before it kills:
    killing in the other hierarchies' folders first would wait out the whole bound."""
    folder = no_leftover_processes
    proc = subprocess.Popen(
        [sys.executable, "-c", FROZEN_BOT_SCRIPT, str(folder)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().split()  # bounded: it prints at once, or dies (end of file)
    try:
        assert len(line) == 3, "the harness did not start"
        _harness, guardian, bot = map(int, line)
        assert procfs.read_file(f"/proc/{bot}/stat") is not None
        os.kill(guardian, signal.SIGKILL)  # nobody cleans up but the sweep
    finally:
        proc.kill()
        proc.wait(timeout=10)
    monkeypatch.setattr(cgroups, "_KILL_PASSES_S", 120.0)
    started = time.monotonic()
    swept = reaper.sweep_dead()
    assert time.monotonic() - started < 30, "the sweep waited for a frozen bot to die"
    assert swept and not any(Path(path).exists() for path in swept), swept
    assert wait_until(lambda: leftover_processes([str(folder)]) == [], 10)
