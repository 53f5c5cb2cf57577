"""Benchmark: what a live page costs a run (``arena tournament CONFIG --serve``).

Run it from the repository with the venv's Python::

    python benchmarks/live_overhead.py                        # a small tournament, 5 rounds
    python benchmarks/live_overhead.py --config tournaments/ladder.yaml --rounds 3

The same seeded tournament is played in turn, ``--rounds`` times each: without a page, and with
``--serve 127.0.0.1:0`` while ten clients poll ``/standings.json`` once a second and one event
stream is read (as an open page does). The two kinds alternate A B, B A, ... so that a machine
that gets busier or quieter weighs on both alike; each round gives a ratio of the two, and the
figure is the median of those ratios. Each run is ``arena tournament CONFIG --fresh --quiet``.

Two figures per run, because a shared machine makes the first noisy:

- games/s: the stored games over the span from the first game's start to the last one's end;
- CPU per game: the CPU time of the whole command (its workers, bots and the page's server:
  every process it waited for) over its games. The bundled bots stop on a work budget, so on a
  machine fast enough for it a seeded run plays the same games with the same work; on a busy
  one they stop at a deadline instead, and this varies too.

The page's server and its worker (the process that computes the tables and charts) are
sampled from ``/proc`` while they run: their CPU over the run's span is the most of a core the
page can take from the run. That CPU is the figure to compare on a shared machine, where the
games per second swing far more than the page costs. The event stream reads ``/sections.json``
whenever the state says the sections changed, as an open page does (so the charts are drawn).
The clients' CPU (threads of this process) is counted apart: they stand for browsers elsewhere.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import resource
import select
import socket
import sqlite3
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import yaml
from support import (
    ROOT,
    arena_command,
    children,
    copy_config,
    percentile,
    say,
    section,
    store_of,
    table,
)

CLIENTS = 10
POLL_S = 1.0
KINDS = ("no page", f"page + {CLIENTS} polling + 1 stream")
TICKS = os.sysconf("SC_CLK_TCK")

DEFAULT = {
    "name": "live-overhead",
    "bots": ["greedy", "heuristic", "alphabeta", "mcts"],
    "games_per_pairing": 40,
    "time_control": {"move_ms": 20, "startup_ms": 5000},
    "workers": 2,
    "seed": 1,
}


@dataclass
class Measured:
    games: int
    run_rate: float
    """Games per second from the first game's start to the last one's end."""
    cpu: float
    """CPU seconds of the command and every process it waited for."""
    server_cpu: float
    """CPU seconds of the page's server (0 without a page)."""
    worker_cpu: float
    """CPU seconds of the server's worker, which computes the tables and charts."""
    client_cpu: float
    """CPU seconds of this process's clients meanwhile."""
    replayed: int
    faults: int
    """Games lost by a fault (a bot that cannot start makes every game quick: not a run)."""
    lags: list[float]
    """Seconds from each game's end to the page's update that counted it (with a page)."""

    @property
    def cpu_per_game(self) -> float:
        return self.cpu / self.games

    @property
    def page_cpu(self) -> float:
        """CPU seconds of the page: its server and the server's worker."""
        return self.server_cpu + self.worker_cpu

    @property
    def server_share(self) -> float:
        """The page's CPU over the run's span: the most of a core it took."""
        return self.page_cpu * self.run_rate / self.games


def _clients(
    host: str, port: int, stop: threading.Event, seen: list[tuple[float, int]]
) -> list[threading.Thread]:
    """Ten pollers of /standings.json and one event stream, read as it comes (``seen``: when
    each of its updates came, and the games it counted)."""

    def poll() -> None:
        while not stop.wait(POLL_S) and _get(host, port, "/standings.json"):
            pass

    def stream() -> None:
        try:
            sock = socket.create_connection((host, port), timeout=1)
        except OSError:
            return
        buffer = b""
        sections = None
        with sock:
            sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            while not stop.is_set():
                try:
                    data = sock.recv(65536)
                except TimeoutError:
                    continue
                except OSError:
                    return
                if not data:
                    return
                *events, buffer = (buffer + data).split(b"\n\n")
                for event in events:
                    data = event.partition(b"\ndata: ")[2]
                    if data:
                        state = json.loads(data)
                        seen.append((time.time(), state["games"]))
                        sections = _follow_sections(host, port, state, sections)

    threads = [threading.Thread(target=poll) for _ in range(CLIENTS)]
    threads.append(threading.Thread(target=stream))
    for thread in threads:
        thread.start()
    return threads


def _follow_sections(host: str, port: int, state: dict[str, object], version: object) -> object:
    """``/sections.json`` read when the state says the sections changed, as the page does;
    the sections' version read."""
    if state.get("sections_version") != version:
        _get(host, port, "/sections.json")
    return state.get("sections_version")


def _get(host: str, port: int, path: str) -> bool:
    """``GET path``, read whole; whether it was answered (not once the run and its server
    ended)."""
    try:
        conn = http.client.HTTPConnection(host, port, timeout=5)
        conn.request("GET", path)
        conn.getresponse().read()
        conn.close()
    except (OSError, http.client.HTTPException):
        return False
    return True


def _address(process: subprocess.Popen[str]) -> tuple[str, int]:
    assert process.stderr is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stderr], [], [], deadline - time.monotonic())
        line = process.stderr.readline() if ready else ""
        found = re.search(r"live page: http://([\d.]+):(\d+)/", line)
        if found:
            return found.group(1), int(found.group(2))
        if not line:
            break
    raise SystemExit("bench: the run never said where its page is")


def _cpu_of(pid: int) -> float:
    """CPU seconds of a running process (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def _server_sampler(parent: int, stop: threading.Event) -> dict[str, float]:
    """The CPU seconds of the page's server and of its worker, last seen (``server`` and
    ``worker``), filled by a thread until ``stop`` (sampled every 0.2 s: at most that much of
    their last moment is missed; a worker started again counts with the one before)."""
    seen: dict[int, tuple[str, float]] = {}
    totals = {"server": 0.0, "worker": 0.0}

    def sample() -> None:
        while not stop.wait(0.2):
            for pid in _page_processes(parent):
                kind = seen.get(pid, (_kind(pid), 0.0))[0]
                if kind:
                    seen[pid] = (kind, max(seen.get(pid, (kind, 0.0))[1], _cpu_of(pid)))
            for kind in totals:
                totals[kind] = sum(cpu for k, cpu in seen.values() if k == kind)

    threading.Thread(target=sample, daemon=True).start()
    return totals


def _page_processes(parent: int) -> list[int]:
    """The run's children and their children: the server among them, and its worker (which
    one of the server's threads starts)."""
    pids = children(parent)
    return pids + [grandchild for pid in pids for grandchild in _children_of_any_thread(pid)]


def _children_of_any_thread(pid: int) -> list[int]:
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(child) for child in f.read().split()]
    except OSError:  # gone meanwhile
        pass
    return found


def _kind(pid: int) -> str:
    """``server`` or ``worker`` for the page's processes, else empty."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read()
    except OSError:
        return ""
    if b"arena.report.server" in cmdline:
        return "server"
    return "worker" if b"arena.report.livework" in cmdline else ""


def one_run(arena: str, config: Path, served: bool, extra: list[str]) -> Measured:
    argv = [arena, "tournament", str(config), "--fresh", "--quiet", *extra]
    if served:
        argv += ["--serve", "127.0.0.1:0"]
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    mine = resource.getrusage(resource.RUSAGE_SELF)
    stop = threading.Event()
    page_cpu = _server_sampler(process.pid, stop) if served else {"server": 0.0, "worker": 0.0}
    seen: list[tuple[float, int]] = []
    threads = _clients(*_address(process), stop, seen) if served else []
    assert process.stderr is not None
    process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    stop.set()
    for thread in threads:
        thread.join(timeout=10)
    after = resource.getrusage(resource.RUSAGE_SELF)
    if process.returncode != 0:
        raise SystemExit(f"bench: {' '.join(argv)} failed ({process.returncode})")
    with sqlite3.connect(f"file:{store_of(config)}?mode=ro", uri=True) as conn:
        games, first, last, replayed, faults = conn.execute(
            "SELECT COUNT(*), MIN(started_at), MAX(finished_at),"
            " SUM(detail LIKE '%replayed: %'), SUM(reason NOT IN ('five', 'full')) FROM games"
        ).fetchone()
        ends = [row[0] for row in conn.execute("SELECT finished_at FROM games ORDER BY 1")]
    if faults == games:
        raise SystemExit(f"bench: every game of {' '.join(argv)} was lost by a fault (no bot"
                         " started: try --sandbox none)")  # fmt: skip
    clients = after.ru_utime + after.ru_stime - mine.ru_utime - mine.ru_stime
    cpu = usage.ru_utime + usage.ru_stime
    lags = _lags(ends, seen) if seen else []
    rate = games / (last - first)
    server, worker = page_cpu["server"], page_cpu["worker"]
    return Measured(games, rate, cpu, server, worker, clients, replayed, faults, lags)


def _lags(ends: list[float], seen: list[tuple[float, int]]) -> list[float]:
    """For each game (by its end), how long until an update counted it. Left out: the games
    that ended before the page's first update (the server was starting), and those it never
    counted (at the run's end)."""
    lags: list[float] = []
    updates = iter(seen)
    when, count = next(updates, (0.0, 0))
    for number, end in enumerate(ends, 1):
        if end < seen[0][0]:
            continue
        while count < number:
            update = next(updates, None)
            if update is None:
                return lags
            when, count = update
        lags.append(max(when - end, 0.0))
    return lags


def _report(runs: dict[int, list[Measured]]) -> None:
    rows = [
        [
            KINDS[kind],
            f"{statistics.median(m.run_rate for m in measured):.2f}",
            f"{statistics.median(m.cpu_per_game for m in measured) * 1000:.1f}",
            f"{statistics.median(m.server_cpu for m in measured):.2f}",
            f"{statistics.median(m.worker_cpu for m in measured):.2f}",
            f"{100 * statistics.median(m.server_share for m in measured):.1f}",
            f"{statistics.median(m.client_cpu for m in measured):.2f}",
            str(sum(m.replayed for m in measured)),
            str(sum(m.faults for m in measured)),
        ]
        for kind, measured in runs.items()
    ]
    header = ["", "games/s", "CPU ms/game", "server CPU s", "worker CPU s", "% of a core"]
    header += ["clients CPU s"]
    header += ["replayed", "faults"]
    say(table(rows, ["(medians)", *header[1:]]))
    pairs = list(zip(runs[0], runs[1], strict=True))
    rate = [served.run_rate / bare.run_rate for bare, served in pairs]
    cpu = [bare.cpu_per_game / served.cpu_per_game for bare, served in pairs]
    say(
        f"with the page / without, median of {len(pairs)} rounds:"
        f" games/s {statistics.median(rate):.3f} (rounds {_spread(rate)});"
        f" games per CPU second {statistics.median(cpu):.3f} (rounds {_spread(cpu)})"
    )
    lags = [lag for m in runs[1] for lag in m.lags]
    if lags:
        say(
            f"a game's end to the page's update that counts it ({len(lags)} games): median"
            f" {percentile(lags, 50):.2f} s, 95% {percentile(lags, 95):.2f} s,"
            f" max {max(lags):.2f} s"
        )


def _load() -> str:
    """The load average now (1, 5 and 15 minutes): how busy the machine was meanwhile."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


def _spread(ratios: list[float]) -> str:
    return f"{min(ratios):.3f} to {max(ratios):.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, help="a tournament YAML (default: a small one)")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each kind (default 5)")
    parser.add_argument("--sandbox", help="the runs' --sandbox (default: the config's)")
    args = parser.parse_args()
    arena = arena_command()
    with tempfile.TemporaryDirectory(prefix="arena-live-bench-") as tmp:
        folder = Path(tmp)
        if args.config is None:
            source = folder / "source" / "live-overhead.yaml"
            source.parent.mkdir()
            source.write_text(yaml.safe_dump(DEFAULT, sort_keys=False))
        else:
            source = (ROOT / args.config).resolve()
        config = copy_config(source, folder)
        section(f"live page overhead: {source.name}, {args.rounds} rounds, A B / B A in turn")
        runs: dict[int, list[Measured]] = {0: [], 1: []}
        extra = [] if args.sandbox is None else ["--sandbox", args.sandbox]
        say(f"  each run: {arena} tournament {config.name} --fresh --quiet {' '.join(extra)}"
            f" [--serve 127.0.0.1:0]; {os.cpu_count()} cores; {_load()}")  # fmt: skip
        for round_ in range(args.rounds):
            for kind in (0, 1) if round_ % 2 == 0 else (1, 0):
                m = one_run(arena, config, bool(kind), extra)
                runs[kind].append(m)
                say(f"  {KINDS[kind]}: {m.games} games ({m.faults} faults), {m.run_rate:.2f}"
                    f" games/s, CPU {m.cpu:.1f} s ({m.cpu_per_game * 1000:.1f} ms/game),"
                    f" server {m.server_cpu:.2f} s + worker {m.worker_cpu:.2f} s,"
                    f" clients {m.client_cpu:.2f} s; {_load()}")  # fmt: skip
        _report(runs)


if __name__ == "__main__":
    main()
