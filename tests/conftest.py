"""Shared test helpers: where the bots are, and a check that no bot process outlives a test.

``FIXTURE_BOTS`` lists the fixture bots of ``tests/bots`` by globbing the folder, so that a new
fixture is checked (documented, standard library only) without editing a list.

Every test is checked for leftovers (``_nothing_left_behind``, automatic): no bot process (one
whose command line names ``tests/bots``, ``bots`` or the session's temporary folders) and no
``arena-*`` folder in the temporary folder may outlive it. For the second check the suite runs
with a temporary folder of its own (``TMPDIR``, inherited by every ``arena`` it starts), so that
other programs' ``arena-*`` folders in ``/tmp`` do not count.

``leftover_processes`` scans ``/proc`` for processes whose command line mentions a marker (by
default the ``tests/bots`` and ``bots`` folders; tests that copy their bots to a fresh temporary
folder pass that folder, which no other test run can share). ``child_processes`` lists the
children of the test process itself (a zombie among them is a child nobody reaped).

``run_arena`` runs the ``arena`` command in a subprocess (bounded), ``start_arena`` starts it
(for a test that stops it midway); ``bundled_program`` names a
bundled bot's program (``bots/<name>/main.py``).

``wait_until`` is the suite's one way to wait for something: it polls a condition until it holds
or a bound passes, so that no test sleeps for luck and none can hang.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TypeVar

import pytest

from arena.launch import reaper
from arena.launch.sandbox import bwrap_path

TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parent
"""The repository: the checkout's root, with README.md, bots/, tournaments/ and arena/."""
TEST_BOTS_DIR = TESTS_DIR / "bots"
BUNDLED_BOTS_DIR = TESTS_DIR.parent / "bots"
DEFAULT_MARKERS = (f"{TEST_BOTS_DIR}{os.sep}", f"{BUNDLED_BOTS_DIR}{os.sep}")
FIXTURE_BOTS = sorted(TEST_BOTS_DIR.glob("*.py"))
"""Every fixture bot (a Python script in ``tests/bots``)."""
SANDBOX_MODES = [
    pytest.param("none", id="none"),
    pytest.param(
        "bwrap",
        id="bwrap",
        marks=[
            pytest.mark.sandbox,
            pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not usable here"),
        ],
    ),
]
"""The sandbox modes a test of bot processes runs in: ``bwrap`` only where bubblewrap works."""
LEFTOVER_WAIT_S = 10.0
"""How long a killed bot may take to leave ``/proc``: a bwrap sandbox torn down on a busy machine
takes seconds (waited for, not slept: the wait ends as soon as none is left)."""
if os.geteuid() == 0:
    # As root, bots without bubblewrap run as an unprivileged user, who cannot reach pytest's
    # private temporary folders (0700) where the tests copy their bots: the suite runs them as
    # root, except the tests of that user (test_botuser.py), which unset this.
    os.environ.setdefault("ARENA_BOTS_AS_ROOT", "1")

SESSION_TMP = Path(tempfile.mkdtemp(prefix="pytest-arena-tmp-"))
"""The suite's own temporary folder: where every ``arena-*`` folder of its runs goes."""
SESSION_TMP.chmod(0o711)  # as /tmp lets a bot's own user reach its own folder in there
os.environ["TMPDIR"] = str(SESSION_TMP)
tempfile.tempdir = None  # taken from TMPDIR again at the next use
atexit.register(reaper.remove_scratch, str(SESSION_TMP))

# A shell that starts a job in the background (``cmd &``, as some CI runners and job tools do) sets
# SIGINT to "ignore", and an ignored signal stays ignored across exec: every arena command a test
# started would then ignore the Ctrl-C the interrupt tests send it, as a background job should. The
# tests stand for a person at a terminal, so they give their children the default disposition.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


T = TypeVar("T")


def wait_until(predicate: Callable[[], T], timeout: float, interval: float = 0.02) -> T:
    """Poll ``predicate`` every ``interval`` seconds until it returns something true or
    ``timeout`` seconds pass; its last value (true: it held in time; false: it never did).

    It returns rather than raises: the caller knows what was awaited and what to show when it
    never came (``assert wait_until(...), context``), and some callers go on either way (they
    clean up, or a false answer is the answer). The value is the predicate's own, so that a
    wait for something (a pid, a list) hands it over. The predicate is asked once more at the
    bound, so a condition met during the last sleep still counts.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        left = deadline - time.monotonic()
        if value or left <= 0:
            return value
        time.sleep(min(interval, left))


def bundled_program(name: str) -> Path:
    """The program of bundled bot ``name``: ``bots/<name>/main.py`` (every bundled bot is a folder,
    so that one holding data keeps it beside its code). Tests that copy a bundled bot copy this
    file, as ``<name>_bot.py``, to a folder of their own."""
    return BUNDLED_BOTS_DIR / name / "main.py"


def run_arena(
    *args: object,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """``python -m arena ARGS`` in a subprocess, its output captured as text (bounded by
    ``timeout``; ``env`` replaces the environment; each argument as ``str``). Its stdin is
    closed (``/dev/null``): a command that would ask something ends instead of hanging a test."""
    return subprocess.run(
        [sys.executable, "-m", "arena", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        env=None if env is None else dict(env),
        check=False,
    )


def start_arena(*args: object, cwd: str | os.PathLike[str] | None = None) -> subprocess.Popen[str]:
    """``python -m arena ARGS`` started, not awaited (a test that stops it midway): its output
    piped as text, stdin closed, in a session of its own (so that the test can kill its whole
    group if it does not stop)."""
    return subprocess.Popen(
        [sys.executable, "-m", "arena", *map(str, args)],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def interrupted_when(
    process: subprocess.Popen[str], ready: Callable[[], object], timeout: float, what: str
) -> str:
    """Ctrl-C (SIGINT to its group) for ``process`` once ``ready`` holds (or it ended), within
    ``timeout`` seconds (else the test fails, saying ``what`` was awaited); its output. Killed
    if it does not stop."""
    try:
        done = wait_until(lambda: ready() or process.poll() is not None, timeout, 0.05)
        assert done, f"{what} not in time"
        os.killpg(process.pid, signal.SIGINT)
        return "".join(process.communicate(timeout=30))
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def stored_game_count(db: Path) -> int:
    """Games stored so far, read (read-only) while an arena command writes them: 0 before the
    store or its schema exists. Tests that stop a run mid-way wait on it."""
    try:
        conn = sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True, timeout=1)
    except sqlite3.Error:
        return 0
    try:
        return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return 0
    finally:
        conn.close()


@pytest.fixture
def test_bots_dir() -> Path:
    """``tests/bots``: the fault fixtures and small correct bots."""
    return TEST_BOTS_DIR


@pytest.fixture
def bundled_bots_dir() -> Path:
    """``bots/``: the bundled example bots."""
    return BUNDLED_BOTS_DIR


def leftover_processes(markers: Iterable[str] = DEFAULT_MARKERS) -> list[tuple[int, str]]:
    """``(pid, command line)`` of every other process whose command line contains a marker."""
    wanted = [m.encode() for m in markers]
    me = os.getpid()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if any(m in cmdline for m in wanted):
            found.append((int(entry.name), cmdline.replace(b"\0", b" ").decode(errors="replace")))
    return found


def wait_for_no_leftovers(
    markers: Iterable[str] = DEFAULT_MARKERS, timeout: float = LEFTOVER_WAIT_S
) -> list[tuple[int, str]]:
    """Poll ``leftover_processes`` until there are none or ``timeout`` passes; the survivors.

    A killed process can take a moment to vanish from ``/proc`` (the kernel tears it down
    asynchronously), so one scan right after a match is not enough, and a sleep would be luck.
    """
    markers = tuple(markers)
    wait_until(lambda: not leftover_processes(markers), timeout)
    return leftover_processes(markers)


@contextlib.contextmanager
def open_bot_folder(prefix: str, bots: Mapping[str, str]) -> Iterator[Path]:
    """A folder under /tmp that anyone may enter, holding ``bots`` (its name -> a fixture of
    ``tests/bots``), executable: a bot of a uid of its own must reach them, which pytest's own
    temporary folders do not allow. After the block: none of their processes left, then gone."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    folder.chmod(0o755)
    for name, fixture in bots.items():
        shutil.copy(TEST_BOTS_DIR / fixture, folder / name)
        (folder / name).chmod(0o755)
    try:
        yield folder
        assert wait_for_no_leftovers([str(folder)]) == []
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def process_states(marker: str) -> list[str]:
    """The scheduler states (R, S, T, ...) of the processes whose command line has ``marker``."""
    states = []
    for pid, _cmdline in leftover_processes([marker]):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:  # gone meanwhile
            continue
        states.append(stat.rsplit(")", 1)[1].split()[0])
    return states


def child_processes() -> list[tuple[int, str]]:
    """``(pid, state)`` of each child of this process (state ``Z``: a zombie nobody reaped)."""
    children = []
    for task in Path("/proc/self/task").iterdir():
        try:
            pids = (task / "children").read_text().split()
        except OSError:
            continue
        for pid in pids:
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                continue
            children.append((int(pid), stat.rsplit(")", 1)[1].split()[0]))
    return children


@pytest.fixture
def no_leftover_processes(tmp_path: Path) -> Iterator[Path]:
    """After the test: no process mentions ``tmp_path`` (copy bots there), and no child is left.

    Yields ``tmp_path``. Only the test's own temporary folder is a marker, so that bots run by
    someone else's tests from ``tests/bots`` at the same time cannot make this test fail.
    """
    yield tmp_path
    left = wait_for_no_leftovers([str(tmp_path)])
    assert not left, f"bot processes outlived the test: {left}"
    children = child_processes()
    assert not children, f"the test process has children left (Z: unreaped zombies): {children}"


def arena_folders(folder: Path = SESSION_TMP) -> list[str]:
    """The ``arena-*`` entries of ``folder`` (the suite's temporary folder by default)."""
    try:
        return sorted(entry.name for entry in os.scandir(folder) if entry.name.startswith("arena-"))
    except FileNotFoundError:
        return []


@pytest.fixture(autouse=True)
def _nothing_left_behind(request: pytest.FixtureRequest) -> Iterator[None]:
    """After every test: no bot process left, and no ``arena-*`` folder in the temporary folder.

    Waits (bounded) for both: a killed process takes a moment to leave ``/proc``, and a guardian
    removes a killed harness's folder a moment after it died. What is found is removed, so that
    the next test starts clean and only this one fails.
    """
    yield
    markers = [*DEFAULT_MARKERS, str(SESSION_TMP)]
    left = wait_for_no_leftovers(markers)
    wait_until(lambda: not arena_folders(), LEFTOVER_WAIT_S)
    folders = arena_folders()
    for name in folders:  # as root a bot's /tmp is a mount in there: remove_scratch unmounts it
        reaper.remove_scratch(str(SESSION_TMP / name))
    assert not left, f"bot processes outlived the test: {left}"
    assert not folders, f"arena-* folders outlived the test in {SESSION_TMP}: {folders}"


@pytest.fixture(autouse=True, scope="session")
def _no_dead_harness_left_at_the_end() -> Iterator[None]:
    """At the end of the suite: nothing of a harness that is gone (its ``arena-<pid>-*`` cgroup,
    its ``arena-*-<pid>`` folders), swept as any run sweeps them; what remains is a failure."""
    yield
    from arena.launch import cgroups

    reaper.sweep_dead(str(SESSION_TMP))
    root = cgroups.pids_root()
    left = [
        entry.name
        for entry in (os.scandir(root) if root is not None and root.is_dir() else ())
        if entry.name.startswith("arena-")
        and entry.name.split("-")[1].isdigit()
        and cgroups.process_gone(int(entry.name.split("-")[1]))
    ]
    assert not left, f"cgroups of dead harnesses outlived the suite in {root}: {left}"


@contextlib.contextmanager
def hogs(count: int, core: int | None, nice: int = 0) -> Iterator[None]:
    """``count`` processes that compute without end (pinned to ``core`` when given), stopped at
    the end whatever happens. Each has a session of its own, as another user's work would: with
    the kernel's autogroups, hogs sharing the test's session would share one CPU share. Yields
    once every hog has said it is pinned and computing: a bot started before a hog is ready
    would have the core to itself for a while, and the load the test means to make would not be
    there (bounded: a hog that does not say so in 10 s fails the test). ``nice``: added to the
    hogs' nice value (a negative one needs root)."""
    pin = f"os.sched_setaffinity(0, {{{core}}})\n" if core is not None else ""
    if nice:  # above the bots' priority for a negative value (root only); with autogroups, the
        # session's weight is its autogroup's nice value
        pin += f"os.nice({nice})\nopen('/proc/self/autogroup', 'w').write('{nice}')\n"
    code = f"import os\n{pin}os.write(1, b'computing\\n')\nwhile True:\n    pass"
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(count):
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-c", code], stdout=subprocess.PIPE, start_new_session=True
                )
            )
        for proc in procs:
            assert proc.stdout is not None
            ready, _, _ = select.select([proc.stdout], [], [], 10)
            assert ready and proc.stdout.readline() == b"computing\n", "a hog did not start"
        yield
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait(timeout=10)
            if proc.stdout is not None:
                proc.stdout.close()


@pytest.fixture(scope="module")
def no_resource_tracker_left() -> Iterator[None]:
    """After the module: multiprocessing's resource tracker, which a Dask LocalCluster's spawned
    workers start in this process, is stopped, so that the other modules' tests, which check that
    this process has no child, find none (it holds no resource once the clusters closed)."""
    yield
    from multiprocessing import resource_tracker

    stop = getattr(resource_tracker._resource_tracker, "_stop", None)
    if stop is not None:
        stop()
