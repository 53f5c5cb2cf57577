"""Benchmark: what a live page costs a run (``arena tournament CONFIG --serve``).

Run it from the repository with the venv's Python, on a quiet machine for the throughput::

    python benchmarks/live_overhead.py                        # a small tournament, 5 pairs
    python benchmarks/live_overhead.py --config tournaments/ladder.yaml --minutes 25

The same seeded tournament is played in pairs of runs: one without a page, one with
``--serve 127.0.0.1:0`` while ten clients poll ``/standings.json`` once a second and one event
stream is read (as an open page does). A pair's order alternates (A B, then B A, ...) so that a
machine getting busier or quieter weighs on both alike, and each pair gives a ratio of its two
runs' games per second. The figure is the median of those ratios with a bootstrap 95% interval
(and their geometric mean with its standard error): runs of the same tournament vary by several
per cent, so resolving 2% takes many pairs, which ``--minutes`` fits in its time (``--pairs`` at
least). ``--games-per-pairing`` plays that many games a pairing instead of the config's (fewer: more
pairs in the time; more: a longer run, where the page's start weighs less).
Each run is ``arena tournament CONFIG --fresh --quiet``.

A run's games per second is the product of two factors, each measured over its games (from the
first game's start to the last one's end); the host's noise lies in the second only:

- the cores the run had: the machine's busy CPU (``/proc/stat``) less the page's and this
  process's (its clients and its sampler, which runs beside every run alike), over the span;
- its games per second of that CPU. The bundled bots stop on a work budget, so a seeded run plays
  the same games with the same work; yet the same games take a few per cent more or less CPU from
  one run to the next when the host is busy (under one per cent when it is quiet).

The page can take the run's throughput only through these: by taking CPU from it (the first,
which the host's speed does not move, so a few pairs measure it to a tenth of a per cent) or by
making the run's CPU do less (the second: caches, the live feed's writes in the run's processes).
``--clients`` sets how many clients poll (100 shows how the cost grows with them). The page's
server and its worker (the process that computes the tables and charts) are sampled from
``/proc`` while they run: their CPU as a share of the run's own, in all and during the games (up
to the last game's end: what comes after, the final standings and charts, takes nothing from the
games). The event stream reads ``/sections.json`` whenever the state says the sections changed,
as an open page does (so the charts are drawn). The clients' CPU (threads of this process) is
given apart: they stand for browsers, which may be elsewhere.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import random
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
"""Clients polling /standings.json by default (``--clients``)."""
POLL_S = 1.0
TICKS = os.sysconf("SC_CLK_TCK")
BULK = 0.9
TARGET = 0.02
"""The page may cost the run's throughput this share at most."""
BOOTSTRAP_DRAWS = 4000

DEFAULT = {
    "name": "live-overhead",
    "bots": ["greedy", "heuristic", "alphabeta", "mcts"],
    "games_per_pairing": 40,
    "time_control": {"move_ms": 20, "startup_ms": 5000},
    "workers": 2,
    "seed": 1,
}


@dataclass
class PageCpu:
    """CPU seconds of the page's server and of its worker."""

    server: float = 0.0
    worker: float = 0.0

    @property
    def total(self) -> float:
        return self.server + self.worker


@dataclass
class Measured:
    games: int
    run_rate: float
    """Games per second from the first game's start to the last one's end."""
    bulk_rate: float
    """The same up to the end of the first ``BULK`` of the games: without the run's tail, where
    a worker may wait for the others' last games (noise that says nothing of the page)."""
    cpu: float
    """CPU seconds of the command and every process it waited for."""
    page: PageCpu
    """The page's CPU in all (nothing without a page)."""
    page_in_games: PageCpu
    """The page's CPU up to the last game's end."""
    client_cpu: float
    """CPU seconds of this process's clients meanwhile."""
    replayed: int
    faults: int
    """Games lost by a fault (a bot that cannot start makes every game quick: not a run)."""
    lags: list[float]
    """Seconds from each game's end to the page's update that counted it (with a page)."""
    cores: float
    """How many cores the run had during its games (the machine's busy CPU less the page's and
    this process's): what the page can take from it."""

    @property
    def speed(self) -> float:
        """Games per second of the run's CPU during its games: how fast the machine did the
        run's work, which varies from run to run with the host's load."""
        return self.run_rate / self.cores

    @property
    def cpu_per_game(self) -> float:
        return self.cpu / self.games

    @property
    def own_cpu(self) -> float:
        """The run's CPU without its page's (its server is one of the processes it waited for;
        its worker may be too)."""
        return self.cpu - self.page.server


def _clients(
    host: str, port: int, clients: int, stop: threading.Event, seen: list[tuple[float, int]]
) -> list[threading.Thread]:
    """``clients`` pollers of /standings.json and one event stream, read as it comes
    (``seen``: when each of its updates came, and the games it counted)."""

    def poll() -> None:
        while not stop.wait(POLL_S) and _get(host, port, "/standings.json"):
            pass

    threads = [threading.Thread(target=poll) for _ in range(clients)]
    threads.append(threading.Thread(target=_stream, args=(host, port, stop, seen)))
    for thread in threads:
        thread.start()
    return threads


def _stream(host: str, port: int, stop: threading.Event, seen: list[tuple[float, int]]) -> None:
    """The event stream, read as it comes, and the sections whenever they change."""
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


@dataclass
class Sample:
    """What the sampler saw at one moment."""

    when: float
    """Unix time."""
    page: PageCpu
    """The page's CPU seconds by then."""
    busy: float
    """The machine's busy CPU seconds by then (all cores, ``/proc/stat``)."""
    mine: float
    """This process's CPU seconds by then (its clients and this sampler)."""


def _busy() -> float:
    """The machine's busy CPU seconds since boot: user, nice, system, interrupts (not idle, not
    waiting for a disk, not stolen by the host)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:8]]
    user, nice, system, _idle, _iowait, irq, softirq = fields
    return (user + nice + system + irq + softirq) / TICKS


def _sampler(parent: int, stop: threading.Event) -> list[Sample]:
    """The machine's busy CPU, this process's, and the page's server's and worker's, sampled
    every 0.2 s by a thread until ``stop`` (at most that much of the page's last moment is
    missed; a worker started again counts with the one before). It runs beside every run, with
    a page or not, so that its own cost weighs on both alike."""
    seen: dict[int, tuple[str, float]] = {}
    samples: list[Sample] = []

    def sample() -> None:
        while True:
            for pid in _page_processes(parent):
                # Read again each time: the worker is forked from the server, and is the
                # server's copy until it runs the worker's program.
                kind = _kind(pid)
                if kind:
                    seen[pid] = (kind, max(seen.get(pid, (kind, 0.0))[1], _cpu_of(pid)))
            totals = {kind: sum(c for k, c in seen.values() if k == kind) for kind in KIND_NAMES}
            usage = resource.getrusage(resource.RUSAGE_SELF)
            mine = usage.ru_utime + usage.ru_stime
            samples.append(Sample(time.time(), PageCpu(**totals), _busy(), mine))
            if stop.wait(0.2):
                return

    threading.Thread(target=sample, daemon=True).start()
    return samples


KIND_NAMES = ("server", "worker")


def _at(samples: list[Sample], when: float) -> PageCpu:
    """The page's CPU at ``when`` (its last sample before then)."""
    before = [sample.page for sample in samples if sample.when <= when]
    return before[-1] if before else PageCpu()


def _run_cores(samples: list[Sample], first: float, last: float) -> float:
    """How many of the machine's cores the run had from ``first`` to ``last``: the machine's
    busy CPU over that span, less the page's and this process's, over its length (each read
    between the samples either side, linearly)."""

    def others(sample: Sample) -> float:
        return sample.busy - sample.page.total - sample.mine

    def at(when: float) -> float:
        before = max((s for s in samples if s.when <= when), key=lambda s: s.when)
        after = min((s for s in samples if s.when >= when), default=before, key=lambda s: s.when)
        if after.when == before.when:
            return others(before)
        share = (when - before.when) / (after.when - before.when)
        return others(before) + share * (others(after) - others(before))

    return (at(last) - at(first)) / (last - first)


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


def one_run(arena: str, config: Path, clients: int | None, extra: list[str]) -> Measured:
    """One run of ``config``: without a page if ``clients`` is None, else with one and that
    many polling clients."""
    served = clients is not None
    argv = [arena, "tournament", str(config), "--fresh", "--quiet", *extra]
    if served:
        argv += ["--serve", "127.0.0.1:0"]
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    mine = resource.getrusage(resource.RUSAGE_SELF)
    stop = threading.Event()
    samples = _sampler(process.pid, stop)
    seen: list[tuple[float, int]] = []
    threads = _clients(*_address(process), clients, stop, seen) if clients is not None else []
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
    games, first, last, replayed, faults, ends = _stored(config)
    if faults == games:
        raise SystemExit(f"bench: every game of {' '.join(argv)} was lost by a fault (no bot"
                         " started: try --sandbox none)")  # fmt: skip
    client_cpu = after.ru_utime + after.ru_stime - mine.ru_utime - mine.ru_stime
    page = _at(samples, math.inf)
    in_games = _at(samples, last)
    lags = _lags(ends, seen) if seen else []
    cpu = usage.ru_utime + usage.ru_stime
    rate = games / (last - first)
    bulk = math.ceil(BULK * games)
    bulk_rate = bulk / (ends[bulk - 1] - first)
    cores = _run_cores(samples, first, last)
    return Measured(
        games, rate, bulk_rate, cpu, page, in_games, client_cpu, replayed, faults, lags, cores
    )


def _stored(config: Path) -> tuple[int, float, float, int, int, list[float]]:
    """The run's games, its first start and last end, its replays and faults, and each game's
    end in order."""
    with sqlite3.connect(f"file:{store_of(config)}?mode=ro", uri=True) as conn:
        games, first, last, replayed, faults = conn.execute(
            "SELECT COUNT(*), MIN(started_at), MAX(finished_at),"
            " SUM(detail LIKE '%replayed: %'), SUM(reason NOT IN ('five', 'full')) FROM games"
        ).fetchone()
        ends = [row[0] for row in conn.execute("SELECT finished_at FROM games ORDER BY 1")]
    conn.close()
    return games, first, last, replayed, faults, ends


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


def bootstrap_median(values: list[float], draws: int = BOOTSTRAP_DRAWS) -> tuple[float, float]:
    """A 95% interval of the median of ``values`` (resampled with replacement, seeded)."""
    rng = random.Random(1)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(draws))
    return percentile(medians, 2.5), percentile(medians, 97.5)


def geometric_mean(ratios: list[float]) -> tuple[float, float]:
    """The geometric mean of ``ratios`` and its standard error (from their logarithms)."""
    logs = [math.log(r) for r in ratios]
    mean = statistics.fmean(logs)
    error = statistics.stdev(logs) / math.sqrt(len(logs)) if len(logs) > 1 else math.nan
    return math.exp(mean), math.exp(mean) * error


def _ratio_line(name: str, ratios: list[float]) -> str:
    low, high = bootstrap_median(ratios)
    mean, error = geometric_mean(ratios)
    return (
        f"{name}: median {statistics.median(ratios):.3f} (95% interval {low:.3f} to {high:.3f});"
        f" geometric mean {mean:.3f} ± {error:.3f} (standard error); pairs {_spread(ratios)}"
    )


def _shares(served: list[Measured]) -> str:
    """The page's CPU as a share of the run's own, in all and during the games (medians)."""

    def share(part: str, of: str) -> float:
        return statistics.median(float(getattr(getattr(m, of), part)) / m.own_cpu for m in served)

    parts = []
    for of, when in (("page", "in all"), ("page_in_games", "during the games")):
        parts.append(
            f"{when} {100 * share('total', of):.2f}% (server {100 * share('server', of):.2f}%,"
            f" worker {100 * share('worker', of):.2f}%)"
        )
    clients = statistics.median(m.client_cpu / m.own_cpu for m in served)
    return (
        f"the page's CPU as a share of the run's own CPU (median of {len(served)}): "
        + "; ".join(parts)
        + f"; the clients' {100 * clients:.2f}% (counted apart)"
    )


def _table(runs: dict[int, list[Measured]], names: tuple[str, str]) -> str:
    rows = [
        [
            names[kind],
            f"{statistics.median(m.run_rate for m in measured):.2f}",
            f"{statistics.median(m.cpu_per_game for m in measured) * 1000:.1f}",
            f"{statistics.median(m.own_cpu for m in measured):.1f}",
            f"{statistics.median(m.page.server for m in measured):.2f}",
            f"{statistics.median(m.page.worker for m in measured):.2f}",
            f"{statistics.median(m.client_cpu for m in measured):.2f}",
            f"{statistics.median(m.cores for m in measured):.3f}",
            str(sum(m.replayed for m in measured)),
            str(sum(m.faults for m in measured)),
        ]
        for kind, measured in runs.items()
    ]
    header = ["(medians)", "games/s", "CPU ms/game", "run CPU s", "server CPU s"]
    header += ["worker CPU s", "clients CPU s", "run's cores", "replayed", "faults"]
    return table(rows, header)


def _report(runs: dict[int, list[Measured]], names: tuple[str, str]) -> None:
    say(_table(runs, names))
    pairs = list(zip(runs[0], runs[1], strict=True))
    rate = [served.run_rate / bare.run_rate for bare, served in pairs]
    bulk = [served.bulk_rate / bare.bulk_rate for bare, served in pairs]
    cpu = [bare.cpu_per_game / served.cpu_per_game for bare, served in pairs]
    cores = [served.cores / bare.cores for bare, served in pairs]
    speed = [served.speed / bare.speed for bare, served in pairs]
    say(f"with the page / without, {len(pairs)} pairs:")
    say("  " + _ratio_line("games/s", rate))
    say("  " + _ratio_line(f"games/s up to the end of the first {BULK:.0%} of the games", bulk))
    say("  " + _ratio_line("games per CPU second", cpu))
    say("  games/s = the run's cores during its games × its games per second of that CPU:")
    say("    " + _ratio_line("the run's cores", cores))
    say("    " + _ratio_line("games per second of the run's CPU", speed))
    say(_shares(runs[1]))
    lags = [lag for m in runs[1] for lag in m.lags]
    if lags:
        say(
            f"a game's end to the page's update that counts it ({len(lags)} games): median"
            f" {percentile(lags, 50):.2f} s, 95% {percentile(lags, 95):.2f} s,"
            f" max {max(lags):.2f} s"
        )
    say(_verdict(rate, "games per second"))
    say(_verdict(bulk, f"games per second up to {BULK:.0%} of the games"))
    say(_verdict(cores, "run's cores during its games"))


def _verdict(rate: list[float], what: str) -> str:
    """Whether the throughput (``what``) is within ``TARGET``, as far as the pairs tell."""
    low, high = bootstrap_median(rate)
    cost = (
        f"the page costs {1 - statistics.median(rate):.1%} of the {what}"
        f" (95% interval {1 - high:.1%} to {1 - low:.1%})"
    )
    if low >= 1 - TARGET:
        return f"target of {TARGET:.0%} met: {cost}"
    if high < 1 - TARGET:
        return f"target of {TARGET:.0%} missed: {cost}"
    return f"target of {TARGET:.0%} not resolved by these pairs: {cost}"


def _load() -> str:
    """The load average now (1, 5 and 15 minutes): how busy the machine was meanwhile."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


def _spread(ratios: list[float]) -> str:
    return f"{min(ratios):.3f} to {max(ratios):.3f}"


def _line(name: str, m: Measured) -> str:
    page = ""
    if m.lags or m.page.total:
        page = (
            f", page CPU: server {m.page.server:.2f} s + worker {m.page.worker:.2f} s"
            f" (during the games {m.page_in_games.server:.2f} + {m.page_in_games.worker:.2f}),"
            f" clients {m.client_cpu:.2f} s"
        )
    return (
        f"    {name}: {m.games} games ({m.faults} faults), {m.run_rate:.2f} games/s"
        f" ({m.bulk_rate:.2f} up to {BULK:.0%}),"
        f" CPU {m.cpu:.1f} s ({m.cpu_per_game * 1000:.1f} ms/game), the run's cores"
        f" {m.cores:.3f}{page}; {_load()}"
    )


def _config(args: argparse.Namespace, folder: Path) -> tuple[Path, Path]:
    """The source config and its copy in ``folder`` (a shorter part of it when asked)."""
    if args.config is None:
        source = folder / "source" / "live-overhead.yaml"
        source.parent.mkdir()
        source.write_text(yaml.safe_dump(DEFAULT, sort_keys=False))
    else:
        source = (ROOT / args.config).resolve()
    overrides = {}
    if args.games_per_pairing is not None:
        overrides["games_per_pairing"] = args.games_per_pairing
    return source, copy_config(source, folder, **overrides)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, help="a tournament YAML (default: a small one)")
    parser.add_argument("--pairs", type=int, default=5, help="pairs of runs at least (default 5)")
    parser.add_argument("--minutes", type=float, default=0.0,
                        help="go on with more pairs while they fit in this time")  # fmt: skip
    parser.add_argument("--games-per-pairing", type=int,
                        help="games a pairing instead of the config's")  # fmt: skip
    parser.add_argument("--clients", type=int, default=CLIENTS,
                        help=f"clients polling the page (default {CLIENTS})")  # fmt: skip
    parser.add_argument("--sandbox", help="the runs' --sandbox (default: the config's)")
    return parser.parse_args()


def main() -> None:
    args = _arguments()
    arena = arena_command()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="arena-live-bench-") as tmp:
        source, config = _config(args, Path(tmp))
        part = "" if args.games_per_pairing is None else f" ({args.games_per_pairing} a pairing)"
        section(f"live page overhead: {source.name}{part}, pairs of runs A B / B A in turn")
        runs: dict[int, list[Measured]] = {0: [], 1: []}
        names = ("no page", f"page + {args.clients} polling + 1 stream")
        extra = [] if args.sandbox is None else ["--sandbox", args.sandbox]
        say(f"  each run: {arena} tournament {config.name} --fresh --quiet {' '.join(extra)}"
            f" [--serve 127.0.0.1:0]; {os.cpu_count()} cores; before: {_load()}")  # fmt: skip
        pair = 0
        while pair < args.pairs or _fits(started, args.minutes, pair):
            say(f"  pair {pair + 1}:")
            for kind in (0, 1) if pair % 2 == 0 else (1, 0):
                runs[kind].append(one_run(arena, config, args.clients if kind else None, extra))
                say(_line(names[kind], runs[kind][-1]))
            pair += 1
        say(f"after {pair} pairs in {(time.monotonic() - started) / 60:.1f} minutes: {_load()}")
        _report(runs, names)


def _fits(started: float, minutes: float, pairs: int) -> bool:
    """Whether another pair fits in ``minutes`` from ``started``, at the pace so far."""
    spent = time.monotonic() - started
    return pairs > 0 and spent + spent / pairs <= 60 * minutes


if __name__ == "__main__":
    main()
