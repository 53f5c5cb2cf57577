"""The live page's costly parts, computed in a process of its own at the lowest CPU priority.

The server (through ``Worker``, which starts the process) asks for a part with a line of JSON on
the process's stdin (``{"part": "tables"}``, ``"charts"``, or ``"bot"`` with the bot's ``name``
and its ``standing`` line) and gets it back as a line of JSON on its stdout: the request, the
highest game number the part takes in, the CPU it used, and its value. A process rather than
threads of the server: the server answers requests at normal priority, and a thread of its own
at nice 19 holding the interpreter's lock would make every request wait for the CPU a busy
machine leaves that thread. Each part has a thread here, so that the tables go on while the
charts are drawn. The process ends when its stdin closes (the server stopped, or died).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.report.data import ReportData
    from arena.store.database import Store

STOP_S = 2.0
"""How long stopping waits for the killed worker's end."""
NICENESS = 19
"""The worker's CPU priority, the lowest: what it takes from a run is what the run leaves."""


def start_worker(db: Path) -> subprocess.Popen[bytes]:
    """The worker of the store at ``db`` (it inherits no blocked signal: the server blocks
    those it waits for)."""
    return subprocess.Popen(
        [sys.executable, "-m", "arena.report.livework", str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_SETMASK, set()),
    )


class Worker:
    """The server's end of a worker: started when first asked for something (a run served to
    nobody needs none), and again after one died. Each reply is handed to ``took`` (by a
    thread of its own); ``died`` is called when a worker ends with what it was asked under way
    (the caller asks again)."""

    def __init__(
        self, db: Path, took: Callable[[dict[str, Any]], None], died: Callable[[], None]
    ) -> None:
        self.db = db
        self.took = took
        self.died = died
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._stopped = False

    def ask(self, request: dict[str, Any]) -> bool:
        """Send ``request``; whether it was sent (not once stopped, nor to a worker that
        could not start or died)."""
        with self._lock:
            if self._stopped:
                return False
            try:
                if self._process is None:
                    self._process = start_worker(self.db)
                    receive = threading.Thread(target=self._receive, args=(self._process,))
                    receive.daemon = True
                    receive.start()
                assert self._process.stdin is not None
                self._process.stdin.write(json.dumps(request).encode() + b"\n")
                self._process.stdin.flush()
            except (OSError, ValueError):
                return False
            return True

    def stop(self, wait: bool) -> None:
        """Kill the worker (it only reads) and start none again; with ``wait``, reap it."""
        with self._lock:
            self._stopped = True
            process = self._process
        if process is not None:
            process.kill()
            if wait:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=STOP_S)

    def _receive(self, process: subprocess.Popen[bytes]) -> None:
        """The thread of ``process``: its replies, until it ends."""
        assert process.stdout is not None and process.stdin is not None
        with process.stdout, process.stdin:
            for line in process.stdout:
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    self.took(json.loads(line))
        process.wait()
        with self._lock:
            if self._process is process:
                self._process = None
        self.died()


def _import_tables_code() -> None:
    """What the tables are computed with, imported at normal priority: a fixed cost, small
    beside a run's start, that would otherwise keep the first standings waiting for many
    seconds on a busy machine (the first request for them waits)."""
    import arena.commands.ratings
    import arena.ratings.elo
    import arena.ratings.mle
    import arena.report.data
    import arena.report.page
    import arena.tournament.owed  # noqa: F401 (imported for later)


def compute_tables(store: Store, title: str) -> tuple[dict[str, Any], ReportData]:
    """The standings (what ``arena ratings DB --json`` prints) and the page's sections from
    the store as it is now, and the data the charts are drawn from: one fit for all."""
    from arena.commands.display.standings import load_standings
    from arena.commands.ratings import ratings_json
    from arena.report.data import collect
    from arena.report.page import live_sections

    title = store.get_meta("name") or title
    fitted = load_standings(store)
    standings = ratings_json(store, fitted)
    data = collect(store.numbered_games(), title=title, max_viewer_games=0, standings=fitted)
    tables = {
        "title": title,
        "standings": json.loads(json.dumps(standings, allow_nan=False)),
        "sections": live_sections(data),
    }
    return tables, data


class _Worker:
    """The parts of the store at ``db``, each computed by its thread as asked, in turn."""

    def __init__(self, db: Path, out: IO[bytes]) -> None:
        self.db = db
        self.out = out
        self.out_lock = threading.Lock()
        self.latest: tuple[ReportData, int] | None = None
        """What the tables were last computed from, and its highest game number: the charts
        are drawn from it."""
        self.jobs: dict[str, Callable[[dict[str, Any]], tuple[int, Any]]] = {
            "tables": self._tables,
            "charts": self._charts,
            "bot": self._bot_page,
        }
        self.asked: dict[str, queue.SimpleQueue[dict[str, Any]]] = {
            part: queue.SimpleQueue() for part in self.jobs
        }

    def start(self) -> None:
        for part in self.jobs:
            threading.Thread(target=self._serve, args=(part,), daemon=True).start()

    def _serve(self, part: str) -> None:
        """Compute ``part`` each time it is asked for, and send it (its value None when it
        failed: a store that changed under it, or no matplotlib for the charts)."""
        while True:
            request = self.asked[part].get()
            started = time.thread_time()
            reply: dict[str, Any] = {**request, "stored": -1, "value": None}
            try:
                reply["stored"], reply["value"] = self.jobs[part](request)
            except ImportError:  # no matplotlib: the page goes without its charts
                reply["unavailable"] = True
            except Exception:  # a store that changed under it: next time
                pass
            reply["cpu"] = time.thread_time() - started
            line = json.dumps(reply, allow_nan=False).encode() + b"\n"
            with self.out_lock, contextlib.suppress(OSError):  # the server gone: so is stdin
                self.out.write(line)
                self.out.flush()

    def _tables(self, request: dict[str, Any]) -> tuple[int, Any]:
        from arena.store.database import Store

        with Store.open(self.db, readonly=True) as store:
            stored = store.game_numbers()[1] or 0
            tables, data = compute_tables(store, self.db.stem)
        self.latest = (data, stored)
        return stored, tables

    def _charts(self, request: dict[str, Any]) -> tuple[int, Any]:
        from arena.report.page import live_charts

        if self.latest is None:  # asked before any tables (a worker started again)
            raise LookupError("no tables computed yet")
        data, stored = self.latest
        return stored, live_charts(data)

    def _bot_page(self, request: dict[str, Any]) -> tuple[int, Any]:
        """A bot's page: ``request`` names it and gives its standings line (escaped)."""
        from arena.report.livepage import bot_page
        from arena.store.database import Store

        with Store.open(self.db, readonly=True) as store:
            stored = store.game_numbers()[1] or 0
            page = bot_page(str(request["name"]), store.numbered_games(), request["standing"])
        return stored, page


def _lowest_priority() -> None:
    """Every thread of this process at the lowest CPU priority: Linux sets it per thread, and
    the imports may have started some (numpy's BLAS pool); threads started later inherit it."""
    try:
        tasks = [int(task) for task in os.listdir("/proc/self/task")]
    except OSError:  # no /proc: the calling thread (the imports started none elsewhere)
        tasks = [0]
    for task in tasks:
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, task, NICENESS)


def main(argv: list[str]) -> None:
    """``python -m arena.report.livework DB``: compute what stdin asks for until it closes,
    at the lowest CPU priority once the code is imported."""
    _import_tables_code()
    _lowest_priority()
    worker = _Worker(Path(argv[0]), sys.stdout.buffer)
    worker.start()
    for line in sys.stdin.buffer:
        with contextlib.suppress(ValueError, KeyError, TypeError):
            request = json.loads(line)
            worker.asked[request["part"]].put(request)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt, BrokenPipeError):
        main(sys.argv[1:])
