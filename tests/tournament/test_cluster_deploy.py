"""A cluster in the shape of a real deployment (slow: ``pytest -m slow``).

As docs/scaling.md tells users: ``dask scheduler`` and two ``dask worker`` processes started as
separate commands on 127.0.0.1, each worker in a folder of its own with a bot cache of its own
(they never see the bots' folder: the bots come with the run), and ``arena tournament
--cluster tcp://127.0.0.1:PORT`` run against them. Mid-run one worker process is SIGKILLed (its
nanny starts another), then the driver is interrupted (SIGINT) and the same command resumes
it; later the scheduler itself is SIGKILLed: the driver stops with one line, and once a
scheduler is back the same command finishes the run. Every owed game is stored exactly once,
none charged to a bot. Every wait is bounded; every process started here is killed at the end.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from conftest import TEST_BOTS_DIR, leftover_processes, wait_for_no_leftovers, wait_until

from arena.launch import procfs
from arena.store.database import Store

pytest.importorskip("distributed")

pytestmark = pytest.mark.slow

DASK = Path(sys.executable).with_name("dask")
BOTS = ("alpha", "beta", "gamma", "delta", "epsilon")
GAMES_PER_PAIRING = 6
TOTAL = 2 * GAMES_PER_PAIRING * 10  # 10 pairings (10 matches of seconds each), both roles
WAIT_S = 90.0
"""Bound on every wait for something the cluster or the driver must do."""
T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def waited(
    what: str,
    check: Callable[[], T],
    timeout: float = WAIT_S,
    context: Callable[[], str] = str,
) -> T:
    """``check``'s value once it is true (conftest's ``wait_until``, polled every 0.1 s); fails
    the test with ``what`` (and ``context()``, e.g. the driver's output) if it never is."""
    value = wait_until(check, timeout, interval=0.1)
    if not value:
        pytest.fail(f"waited {timeout:.0f} s for {what}\n{context()}")
    return value


def accepts(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


class Deployment:
    """The processes of the test, each in a session of its own (killed as a group at the end)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.processes: list[subprocess.Popen[bytes]] = []
        self.scheduler: subprocess.Popen[bytes] | None = None
        self.workers: list[subprocess.Popen[bytes]] = []

    def start(self, argv: list[str], name: str, cwd: Path, **env: str) -> subprocess.Popen[bytes]:
        cwd.mkdir(parents=True, exist_ok=True)
        log = (self.root / f"{name}.log").open("ab")
        process = subprocess.Popen(
            argv, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={**os.environ, **env}, start_new_session=True,
        )  # fmt: skip
        log.close()
        self.processes.append(process)
        return process

    def start_scheduler(self) -> None:
        self.scheduler = self.start(
            [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(self.port),
             "--no-dashboard"],
            "scheduler", self.root / "scheduler",
        )  # fmt: skip
        waited("the scheduler to listen", lambda: accepts(self.port))

    def start_worker(self, index: int) -> None:
        self.workers.append(
            self.start(
                [
                    str(DASK),
                    "worker",
                    self.address,
                    "--nworkers",
                    "1",
                    "--nthreads",
                    "1",
                    "--no-dashboard",
                ],
                f"worker{index}",
                self.root / f"worker{index}",
                ARENA_BOT_CACHE=str(self.root / f"cache{index}"),
            )  # fmt: skip
        )

    def worker_processes(self) -> list[int]:
        """The Dask worker processes (each a child of its ``dask worker`` nanny)."""
        found = []
        for nanny in self.workers:
            for pid in procfs.all_children(nanny.pid):
                with contextlib.suppress(OSError):
                    if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                        found.append(pid)
        return found

    def busy_worker(self) -> int | None:
        """A worker process running bots now (a match), if any: one with a descendant started
        from a bot cache of this test."""
        bots = {pid for pid, _cmdline in leftover_processes([str(self.root / "cache")])}
        for pid in self.worker_processes():
            if bots.intersection(procfs.descendants(pid)):
                return pid
        return None

    def kill_all(self) -> None:
        for process in self.processes:
            with contextlib.suppress(OSError):
                os.killpg(process.pid, signal.SIGKILL)
        for process in self.processes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)


@pytest.fixture
def deployment(tmp_path: Path) -> Iterator[Deployment]:
    if not DASK.exists():
        pytest.skip(f"no dask command beside this Python ({DASK})")
    deployment = Deployment(tmp_path)
    try:
        yield deployment
    finally:
        deployment.kill_all()
    left = wait_for_no_leftovers([str(tmp_path)], timeout=10)
    assert not left, f"processes outlived the test: {left}"
    alive = [p.pid for p in deployment.processes if p.poll() is None]
    assert not alive, f"dask processes outlived the test: {alive}"


def write_tournament(root: Path) -> Path:
    """Three paced folder bots (seconds a match) in ``root/bots``, and the config naming them."""
    for name in BOTS:
        folder = root / "bots" / name
        folder.mkdir(parents=True)
        source = (TEST_BOTS_DIR / "paced.py").read_text().replace("else 20", "else 40")
        (folder / "main.py").write_text(source)
    config = root / "t.yaml"
    config.write_text(
        "name: deploy\n"
        "bots:\n" + "".join(f"  - {{name: {n}, path: bots/{n}}}\n" for n in BOTS) + ""
        f"games_per_pairing: {GAMES_PER_PAIRING}\n"
        "time_control: {move_ms: 500, startup_ms: 5000}\n"
    )
    return config


class Driver:
    """``arena tournament CONFIG --cluster ADDRESS`` in a subprocess, its output in a file."""

    def __init__(self, deployment: Deployment, config: Path, name: str) -> None:
        self.out = deployment.root / f"{name}.out"
        self.process = deployment.start(
            [sys.executable, "-m", "arena", "tournament", str(config), "--cluster",
             deployment.address],
            name, config.parent,
        )  # fmt: skip
        self.log = deployment.root / f"{name}.log"

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def finish(self) -> int:
        try:
            return self.process.wait(timeout=WAIT_S * 2)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the driver did not finish:\n{self.output()}")


def stored(db: Path) -> tuple[Counter[tuple[str, str, int]], int]:
    with Store.open(db) as store:
        return Counter(store.completed_slots()), sum(r.reason.is_fault for r in store.games())


def test_a_deployed_cluster_survives_a_killed_worker_and_an_interrupted_driver(
    deployment: Deployment,
) -> None:
    config = write_tournament(deployment.root)
    db = deployment.root / "results" / "deploy.sqlite"
    deployment.start_scheduler()
    deployment.start_worker(1)
    deployment.start_worker(2)
    waited("two worker processes", lambda: len(deployment.worker_processes()) == 2)

    driver = Driver(deployment, config, "run1")
    victim = waited("a worker to run a match", deployment.busy_worker)
    assert isinstance(victim, int)
    os.kill(victim, signal.SIGKILL)  # as the OOM killer would: no goodbye
    # The nanny starts a new worker process.
    waited("a new worker process", lambda: victim not in deployment.worker_processes()
               and len(deployment.worker_processes()) == 2)  # fmt: skip
    # Dask resubmits its task (the driver says so when it had seen the task on that worker).
    waited("a match running again", deployment.busy_worker, context=driver.output)
    driver.process.send_signal(signal.SIGINT)  # Ctrl-C
    code = driver.finish()
    assert code == 130, driver.output()
    assert "Resume with:" in driver.output()
    # The driver's matches stopped on the workers too: no bot plays on for nobody.
    left = wait_for_no_leftovers([str(deployment.root / "cache1"),
                                  str(deployment.root / "cache2")], timeout=15)  # fmt: skip
    assert not left, f"bots played on after the driver stopped: {left}"

    rerun = Driver(deployment, config, "run2")
    assert rerun.finish() == 0, rerun.output()
    slots, faults = stored(db)
    assert sum(slots.values()) == TOTAL and set(slots.values()) == {1}
    assert faults == 0  # the killed worker and the interruption charged nobody
    # The bots ran from the workers' caches (the only place they were given them).
    assert any((deployment.root / f"cache{i}").is_dir() for i in (1, 2))

    # Losing the scheduler: the driver stops with one clear line, resumably.
    with Store.open(db) as store:
        store.reset()
    lost = Driver(deployment, config, "run3")
    waited("a match running", deployment.busy_worker, context=lost.output)
    assert deployment.scheduler is not None
    os.killpg(deployment.scheduler.pid, signal.SIGKILL)
    code = lost.finish()
    output = lost.output()
    assert code == 2, output
    errors = [line for line in output.splitlines() if line.startswith("arena: error:")]
    assert errors and "lost the Dask scheduler" in errors[0], output
    assert "Traceback" not in output, output
    # Dask workers close when they lose their scheduler (their nannies exit too): bring back a
    # scheduler at the same address and workers, as an operator would; the run resumes.
    old = list(deployment.workers)
    waited("the workers to exit with their scheduler", lambda: all(
        w.poll() is not None for w in old), context=lambda: (
        deployment.root / "worker1.log").read_text(errors="replace")[-3000:])  # fmt: skip
    deployment.start_scheduler()
    deployment.start_worker(1)
    deployment.start_worker(2)
    resumed = Driver(deployment, config, "run4")
    assert resumed.finish() == 0, resumed.output()
    slots, faults = stored(db)
    assert sum(slots.values()) == TOTAL and set(slots.values()) == {1}
    assert faults == 0
    assert not leftover_processes([str(deployment.root / "bots")])
