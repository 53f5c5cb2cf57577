"""Benchmark of the arena harness: per-ply cost against a floor, scaling, start-up, memory, timing.

Run it from the repository with the Python that has ``arena`` installed::

    python benchmarks/bench.py            # full run, about a minute or two on 2 cores
    python benchmarks/bench.py --quick    # smaller counts, under ~40 s

It compiles the C bots in ``benchmarks/bots/`` with ``cc -O2`` into ``benchmarks/_build/``
(git-ignored), runs the ``arena`` command of the same Python as subprocesses, prints a report and
leaves no other file behind (everything else goes to a temporary folder). All figures come from the
same run, measured side by side (interleaved), so that their ratios compare like with like. Where a
measurement is repeated (3 rounds; with ``--quick``, 2 for the per-ply runs and 1 for scaling), the
best (lowest) time is kept, on both sides of a ratio.

What each number means:

1. **Per-ply cost.** A *ply* is one move: one ``turn`` line to a bot and its reply line.

   - *floor*: a minimal referee written in this file (not arena's code): two persistent bot
     processes, ``game``/``turn``/``end`` lines, each reply awaited under a deadline with
     ``select.poll``, looked up, checked for legality and for five in a row with bitboards (the 32
     five-cell windows), whole games. The benchmark pins itself to one core first (the core
     ``arena``'s ``affinity auto`` would choose), so the bots it starts inherit that core. The floor
     is timed over the games only (start-up and hand-shake excluded): the cost of refereeing, with
     nothing else, in Python.
   - *arena, whole command*: ``arena match BOT BOT --games N --record FILE --quiet`` with default
     settings (``sandbox auto``: bubblewrap when it works; ``affinity auto``), timed from spawning
     the command to its exit, divided by the plies in the record file. Nothing is subtracted:
     interpreter start-up, imports, starting the bots and writing the record are all in it.
   - *arena, per ply excl. start-up*: the same command run twice, with N and with N/10 games;
     (time(N) - time(N/10)) / (plies(N) - plies(N/10)): the marginal cost of one more ply.
   - *floor/arena*: floor us/ply divided by arena us/ply; 1.0 means arena costs no more than the
     floor. The target (>= 0.7) applies to the whole-command figure with the C bot.
   - The same with ``--sandbox none``, and with the instant bot written in Python.

   The instant bots (``bots/instant.c``, ``bots/instant.py``) play the first empty cell with the
   mark X where ``(row + col // 2)`` is even and O elsewhere; that board has no five anywhere
   (checked below), so every game lasts the full 36 plies.

2. **Scaling.** A round-robin tournament of four copies of the C instant bot (6 pairings, both
   role assignments), run with ``arena tournament CONFIG --quiet --workers 1`` and then
   ``--workers 2``, each into a fresh store: games/s of each (games stored / wall time of the whole
   command) and their ratio. Target >= 1.7 on 2 cores. ``games_per_pairing`` is calibrated first
   (from a 12-game and a 600-game run) so that one worker takes about 6 s (2.5 s with
   ``--quick``). The 12-game runs (``games_per_pairing: 1``) also give each command's fixed cost,
   hence games/s excluding start-up: (games - 12) / (wall - 12-game wall). The peak RSS of the
   parent and of each worker of the 2-worker run is sampled from ``/proc/PID/status`` (VmHWM).

3. **Start-up.** Wall time of ``arena --help`` and ``arena match --help``, best, median and worst
   of 5; target < 0.3 s (best). For comparison, a whole 2-game ``arena match`` of the C bot.
   Below, ``python -X importtime -c "import arena.cli"``: the modules that cost most, sorted by
   cumulative import time (a package's time includes its submodules'), and the top-level imports
   of a real ``arena match`` run (``python -X importtime -m arena match ...``), which include what
   typer and the command import only when a command runs: candidates for lazy imports.

4. **Memory.** Peak RSS of the ``arena match`` process (the harness: VmHWM from
   ``/proc/PID/status``, sampled every 10 ms) for 200 and for 2000 games: it should not grow
   with the number of games (target: the 2000-game peak within 2 MiB of the 200-game peak).
   Then a store of 10,000 games (2,000 with ``--quick``) filled with
   ``arena.store.Store.add_game`` from the real 36-move records of the match above: file size,
   bytes per game and the time per ``add_game``.

5. **Timing accuracy.** A bot (``bots/sleeper.c``, through a wrapper script that passes the sleep
   on its command line) sleeps 20 ms before each reply; ``arena match`` records the time of each
   move as the harness saw it (``ms`` in the record). Error = recorded - 20 ms, p50 / p99 / max.
   The bot also reports on stderr how long it really took from reading ``turn`` to writing its
   reply (the sleep plus the kernel's oversleep); recorded - that is the part of the error that is
   the pipe and the harness. Target: p99 error < 1 ms.

The summary table at the end lists each target with PASS or MISS. The report starts and ends with
the share of the machine that other processes kept busy (sampled for 0.5 s from /proc/stat): the
figures are only as good as that is close to 0%. ``profile_ply.py`` beside this file breaks the
per-ply and per-game cost of arena down further (in-process, against the same floor).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import select
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
BOTS = HERE / "bots"
BUILD = HERE / "_build"
PYTHON = sys.executable

SIZE = 6
CELLS = 36
SLEEP_MS = 20


# --- small helpers ----------------------------------------------------------------------------
def say(text: str = "") -> None:
    print(text, flush=True)


def section(title: str) -> None:
    """A section's title, with how busy other processes keep the machine as it starts."""
    say(f"{title}   [others busy: {other_load(0.3):.0%}]")


def arena_command() -> str:
    """The ``arena`` script of this Python (its venv), else the one on PATH."""
    beside = Path(PYTHON).with_name("arena")
    if beside.exists():
        return str(beside)
    found = shutil.which("arena")
    if found is None:
        sys.exit("bench: no `arena` command beside this Python or on PATH (pip install -e .)")
    return found


def compile_bots() -> dict[str, Path]:
    """Compile the C bots into the build folder (only when a source is newer)."""
    BUILD.mkdir(exist_ok=True)
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        sys.exit("bench: no C compiler (cc) found")
    built = {}
    for name in ("instant", "sleeper"):
        source, target = BOTS / f"{name}.c", BUILD / name
        if not target.exists() or target.stat().st_mtime < source.stat().st_mtime:
            subprocess.run([compiler, "-O2", "-o", str(target), str(source)], check=True)
        built[name] = target
    return built


@dataclass
class Run:
    """A finished subprocess: wall time, CPU time (itself and the descendants it waited for),
    the peak RSS of the process itself, exit code and output."""

    wall: float
    user: float
    system: float
    peak_kb: int
    """VmHWM of the process, sampled every 10 ms while it runs. (Not ``ru_maxrss``: Linux
    carries the spawning process's RSS over into the child's at exec, so with a benchmark that
    holds thousands of records in memory, ``ru_maxrss`` would measure the benchmark.)"""
    code: int
    out: str
    err: str


def run(argv: Sequence[str], watch: Callable[[int], None] | None = None) -> Run:
    """Run a command to completion; ``wait4`` gives its CPU times.

    ``watch(pid)``, if given, is called every 0.25 s in a thread while the command runs.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        stop = threading.Event()
        peak = [0]

        def sample() -> None:
            ticks = 0
            while not stop.wait(0.01):
                peak[0] = max(peak[0], vm_hwm_kb(proc.pid))
                ticks += 1
                if watch is not None and ticks % 25 == 0:
                    watch(proc.pid)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        stop.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        result = Run(
            wall,
            usage.ru_utime,
            usage.ru_stime,
            peak[0],
            proc.returncode,
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
        )
    if result.code != 0:
        tail = (result.err or result.out).strip()[-800:]
        raise RuntimeError(f"{' '.join(argv)} exited with {result.code}:\n{tail}")
    return result


def vm_hwm_kb(pid: int) -> int:
    """Peak resident set size of a running process in KiB (0 once it has exited)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def other_load(seconds: float = 0.5) -> float:
    """The fraction of all cores busy over ``seconds`` while this benchmark sleeps (from
    /proc/stat): other processes that would disturb the measurements."""

    def sample() -> tuple[int, int]:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        return sum(fields[:8]), idle

    try:
        total_0, idle_0 = sample()
        time.sleep(seconds)
        total_1, idle_1 = sample()
    except (OSError, ValueError, IndexError):
        return 0.0
    return 1 - (idle_1 - idle_0) / max(total_1 - total_0, 1)


def percentile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * p / 100
    low = int(k)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


def table(rows: Sequence[Sequence[object]], header: Sequence[str]) -> str:
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = []
    for n, row in enumerate(cells):
        parts = [c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(row)]
        lines.append("  " + "  ".join(parts).rstrip())
        if n == 0:
            lines.append("  " + "  ".join("-" * w for w in widths))
    return "\n".join(lines)


@contextlib.contextmanager
def pinned(core: int) -> Iterator[None]:
    """Pin this process (and the children it starts meanwhile) to one core, then restore."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {core})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


# --- the rules, written out independently of arena ---------------------------------------------
def five_windows() -> list[int]:
    """The 32 five-cell windows of the 6x6 board as bitmasks (cell index = 6 * row + col)."""
    windows = []
    for row in range(SIZE):
        for col in range(SIZE):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                if 0 <= row + 4 * dr < SIZE and 0 <= col + 4 * dc < SIZE:
                    windows.append(
                        sum(1 << (SIZE * (row + i * dr) + col + i * dc) for i in range(5))
                    )
    return windows


WINDOWS = five_windows()
assert len(WINDOWS) == 32
THROUGH = [tuple(w for w in WINDOWS if w >> cell & 1) for cell in range(CELLS)]
MOVES = {
    f"{'abcdef'[cell % SIZE]}{cell // SIZE + 1}{mark}".encode(): (cell, "XOxo".index(mark) & 1)
    for cell in range(CELLS)
    for mark in "XOxo"
}


def pattern_mark(cell: int) -> int:
    """The instant bots' mark for a cell: 0 (X) where row + col // 2 is even, else 1 (O)."""
    return (cell // SIZE + cell % SIZE // 2) % 2


def check_pattern() -> None:
    """The instant bots' full board has no five: every game they play lasts 36 plies."""
    bits = [0, 0]
    for cell in range(CELLS):
        bits[pattern_mark(cell)] |= 1 << cell
    fives = [w for w in WINDOWS for b in bits if b & w == w]
    assert not fives, "the instant bots' pattern makes five in a row"


# --- 1. the floor --------------------------------------------------------------------------------
class FloorBot:
    """A bot process and its pipes, for the floor referee."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.fd_in = self.proc.stdin.fileno()
        self.fd_out = self.proc.stdout.fileno()
        self.poller = select.poll()
        self.poller.register(self.fd_out, select.POLLIN)
        self.buf = b""

    def send(self, data: bytes) -> None:
        os.write(self.fd_in, data)

    def line(self, deadline_ns: int) -> bytes:
        """The next line from the bot, waiting at most until ``deadline_ns``."""
        while True:
            newline = self.buf.find(b"\n")
            if newline >= 0:
                line = self.buf[:newline]
                self.buf = self.buf[newline + 1 :]
                return line
            remaining = deadline_ns - time.perf_counter_ns()
            if remaining <= 0:
                raise TimeoutError("the bot did not answer in time")
            if self.poller.poll(remaining // 1_000_000 + 1):
                data = os.read(self.fd_out, 4096)
                if not data:
                    raise EOFError("the bot exited")
                self.buf += data

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.send(b"quit\n")
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()


def floor_game(order: FloorBot, chaos: FloorBot, move_ms: int) -> int:
    """One whole game between two bots; returns the plies played."""
    order.send(b"game order\n")
    chaos.send(b"game chaos\n")
    seats = (order, chaos)
    budget = move_ms * 1_000_000
    suffix = b" %d\n" % move_ms
    board = bytearray(b"." * CELLS)
    bits = [0, 0]
    occupied = 0
    last = b"-"
    winner = b"chaos", b"full"
    plies = 0
    clock = time.perf_counter_ns
    for ply in range(CELLS):
        bot = seats[ply & 1]
        started = clock()
        bot.send(b"turn " + board + b" " + last + suffix)
        line = bot.line(started + budget)
        move = MOVES.get(line)
        if move is None:
            raise ValueError(f"not a move: {line!r}")
        cell, mark = move
        bit = 1 << cell
        if occupied & bit:
            raise ValueError(f"illegal move: {line!r}")
        occupied |= bit
        mine = bits[mark] | bit
        bits[mark] = mine
        board[cell] = b"XO"[mark]
        last = line
        plies += 1
        for window in THROUGH[cell]:
            if mine & window == window:
                winner = b"order", b"five"
        if winner[1] == b"five":
            break
    order.send(b"end %s %s\n" % (b"win" if winner[0] == b"order" else b"loss", winner[1]))
    chaos.send(b"end %s %s\n" % (b"win" if winner[0] == b"chaos" else b"loss", winner[1]))
    return plies


def measure_floor(argv: Sequence[str], games: int, core: int, move_ms: int = 100) -> float:
    """The floor's us per ply over ``games`` whole games, pinned to ``core``."""
    with pinned(core):
        bots = [FloorBot(argv), FloorBot(argv)]
        try:
            for bot in bots:
                bot.send(b"arena 1\n")
                if not bot.line(time.perf_counter_ns() + 5_000_000_000).startswith(b"ready"):
                    raise RuntimeError("no `ready` from the floor's bot")
            plies = 0
            started = time.perf_counter_ns()
            for game in range(games):
                order = game & 1
                plies += floor_game(bots[order], bots[1 - order], move_ms)
            elapsed = time.perf_counter_ns() - started
        finally:
            for bot in bots:
                bot.close()
    return elapsed / 1000 / plies


# --- 1. arena match ------------------------------------------------------------------------------
@dataclass
class MatchRun:
    games: int
    plies: int
    run: Run
    record: Path
    """The --record file (overwritten by a later run of the same size)."""

    @property
    def us_per_ply(self) -> float:
        return self.run.wall * 1e6 / self.plies

    def records(self) -> list[dict]:
        return [json.loads(line) for line in self.record.read_text().splitlines()]


def arena_match(
    arena: str, bot: str, games: int, record: Path, extra: Sequence[str] = ()
) -> MatchRun:
    argv = [arena, "match", bot, bot, "--games", str(games), "--record", str(record), "--quiet"]
    result = run([*argv, *extra])
    records = [json.loads(line) for line in record.read_text().splitlines()]
    if len(records) != games:
        raise RuntimeError(f"expected {games} records in {record}, found {len(records)}")
    faults = [r for r in records if r["reason"] not in ("five", "full")]
    if faults:
        raise RuntimeError(f"{len(faults)} games lost by a fault, e.g. {faults[0]['detail']}")
    return MatchRun(games, sum(len(r["moves"]) for r in records), result, record)


@dataclass
class PlyFigures:
    """Section 1's figures for one bot and one sandbox mode."""

    label: str
    floor_us: float
    whole_us: float
    marginal_us: float
    plies: int
    plies_per_game: float
    long_run: MatchRun
    short_run: MatchRun

    @property
    def ratio(self) -> float:
        return self.floor_us / self.whole_us

    @property
    def marginal_ratio(self) -> float:
        return self.floor_us / self.marginal_us


def best(runs: list[MatchRun]) -> MatchRun:
    return min(runs, key=lambda r: r.run.wall)


def per_ply_section(
    arena: str, bots: dict[str, str], counts: dict[str, int], rounds: int, core: int, tmp: Path
) -> list[PlyFigures]:
    """Floor and arena (sandbox auto and none), interleaved ``rounds`` times, best kept."""
    figures = []
    for name, bot in bots.items():
        argv = [bot] if not bot.endswith(".py") else [PYTHON, "-u", bot]
        games = counts[name]
        short = max(2, games // 10)
        floors: list[float] = []
        runs: dict[tuple[str, int], list[MatchRun]] = {}
        for _ in range(rounds):
            floors.append(measure_floor(argv, games, core))
            for mode in ("auto", "none"):
                extra = [] if mode == "auto" else ["--sandbox", "none"]
                for n in (games, short):
                    record = tmp / f"{name}-{mode}-{n}.jsonl"
                    runs.setdefault((mode, n), []).append(arena_match(arena, bot, n, record, extra))
        floor_us = min(floors)
        for mode in ("auto", "none"):
            long_run, short_run = best(runs[(mode, games)]), best(runs[(mode, short)])
            marginal = (
                (long_run.run.wall - short_run.run.wall) * 1e6 / (long_run.plies - short_run.plies)
            )
            label = f"{name} bot, sandbox {mode}" + (" (default)" if mode == "auto" else "")
            figures.append(
                PlyFigures(
                    label,
                    floor_us,
                    long_run.us_per_ply,
                    marginal,
                    long_run.plies,
                    long_run.plies / long_run.games,
                    long_run,
                    short_run,
                )
            )
    return figures


# --- 2. scaling -----------------------------------------------------------------------------------
def tournament_yaml(bot: Path, games_per_pairing: int, db: Path) -> str:
    bots = "\n".join(f"  - {{name: {name}, path: {bot}}}" for name in ("a", "b", "c", "d"))
    return (
        "name: bench-scaling\n"
        f"bots:\n{bots}\n"
        f"games_per_pairing: {games_per_pairing}\n"
        "time_control: {move_ms: 1000, startup_ms: 5000}\n"
        "seed: 1\n"
        f"db: {db}\n"
        "workers: 2\n"
    )


def children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def command_name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return "?"


@dataclass
class TournamentRun:
    workers: int
    games: int
    plies: int
    run: Run
    db_bytes: int
    peaks: dict[int, int] = field(default_factory=dict)

    @property
    def games_per_s(self) -> float:
        return self.games / self.run.wall


_RUNS = iter(range(1_000_000))


def arena_tournament(
    arena: str, bot: Path, gpp: int, workers: int, tmp: Path, watch_memory: bool = False
) -> TournamentRun:
    """``arena tournament CONFIG --quiet --workers N`` into a fresh store."""
    number = next(_RUNS)
    db = tmp / f"scaling-{number}-w{workers}.sqlite"
    config = tmp / f"scaling-{number}-w{workers}.yaml"
    config.write_text(tournament_yaml(bot, gpp, db))
    peaks: dict[int, int] = {}

    def watch(pid: int) -> None:
        peaks[pid] = max(peaks.get(pid, 0), vm_hwm_kb(pid))
        for child in children(pid):  # the workers (the bots are their children)
            if command_name(child) not in (bot.name, "bwrap"):
                peaks[child] = max(peaks.get(child, 0), vm_hwm_kb(child))

    argv = [arena, "tournament", str(config), "--quiet", "--workers", str(workers)]
    result = run(argv, watch if watch_memory else None)
    with contextlib.closing(sqlite3.connect(db)) as conn:
        games, plies = conn.execute(
            "SELECT COUNT(*), SUM(json_array_length(moves)) FROM games"
        ).fetchone()
    expected = 12 * gpp
    if games != expected:
        raise RuntimeError(f"tournament stored {games} games, expected {expected}")
    return TournamentRun(workers, games, plies, result, db.stat().st_size, peaks)


@dataclass
class Scaling:
    gpp: int
    runs: dict[int, TournamentRun]
    """The best full-size run for each number of workers."""
    small: dict[int, TournamentRun]
    """The best 12-game run for each number of workers (start-up and shut-down)."""

    def rate(self, workers: int) -> float:
        return self.runs[workers].games_per_s

    def marginal_rate(self, workers: int) -> float:
        big, small = self.runs[workers], self.small[workers]
        return (big.games - small.games) / (big.run.wall - small.run.wall)


def scaling_section(arena: str, bot: Path, seconds: float, rounds: int, tmp: Path) -> Scaling:
    """Calibrate games_per_pairing for ``seconds`` with one worker, then time 1 and 2 workers."""
    small = {w: arena_tournament(arena, bot, 1, w, tmp) for w in (1, 2)}
    probe = arena_tournament(arena, bot, 50, 1, tmp)
    rate = (probe.games - small[1].games) / max(probe.run.wall - small[1].run.wall, 1e-3)
    gpp = max(10, round(seconds * rate / 12))
    runs: dict[int, list[TournamentRun]] = {1: [], 2: []}
    for number in range(rounds):
        for workers in (1, 2):
            runs[workers].append(
                arena_tournament(arena, bot, gpp, workers, tmp, watch_memory=number == 0)
            )
            if number > 0:
                small[workers] = min(
                    small[workers], arena_tournament(arena, bot, 1, workers, tmp),
                    key=lambda t: t.run.wall,
                )  # fmt: skip
    best_runs = {w: min(r, key=lambda t: t.run.wall) for w, r in runs.items()}
    best_runs[2].peaks = runs[2][0].peaks
    return Scaling(gpp, best_runs, small)


def machine_scaling(argv: Sequence[str], games: int) -> float:
    """What two cores give two independent floor referees, pinned one to each, against one.

    The ceiling for any harness on this machine: interrupts, the hypervisor and shared caches
    take their share whatever the harness does.
    """
    from concurrent.futures import ProcessPoolExecutor

    alone = measure_floor(argv, games, core=1)
    with ProcessPoolExecutor(2) as pool:
        both = list(pool.map(measure_floor, [argv, argv], [games, games], [0, 1]))
    return sum(1 / us for us in both) / (1 / alone)


# --- 3. start-up ----------------------------------------------------------------------------------
def startup_times(argv: Sequence[str], repeats: int = 5) -> list[float]:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - started)
    return times


_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def import_times(args: Sequence[str]) -> list[tuple[str, int, int, int]]:
    """``python -X importtime ARGS``: (module, self us, cumulative us, depth) in import order."""
    done = subprocess.run(
        [PYTHON, "-X", "importtime", *args], capture_output=True, text=True, check=True
    )
    rows = []
    for line in done.stderr.splitlines():
        match = _IMPORT_LINE.match(line)
        if match:
            own, total, indent, name = match.groups()
            rows.append((name, int(own), int(total), (len(indent) - 1) // 2))
    return rows


# --- 4. store size --------------------------------------------------------------------------------
def fill_store(path: Path, records: list[dict], games: int) -> tuple[int, float]:
    """Store ``games`` games built from ``records`` (cycled); (file bytes, us per add_game)."""
    from arena.records import GameRecord
    from arena.store import Store

    base = [GameRecord.from_json(r) for r in records]
    started = time.perf_counter()
    with Store.open(path) as store:
        for slot in range(games):
            store.add_game(base[slot % len(base)], slot)
        added = time.perf_counter() - started
    return path.stat().st_size, added * 1e6 / games


# --- 5. timing accuracy ---------------------------------------------------------------------------
def sleeper_wrapper(sleeper: Path, ms: int) -> Path:
    """A script that runs the sleeper with its argument (arena runs a program without arguments).

    It lives beside the sleeper, in the build folder: the sandbox exposes the bot's own folder.
    """
    wrapper = sleeper.with_name(f"sleeper{ms}")
    text = f'#!/bin/sh\nexec "$(dirname "$0")/{sleeper.name}" {ms}\n'
    if not wrapper.exists() or wrapper.read_text() != text:
        wrapper.write_text(text)
        wrapper.chmod(0o755)
    return wrapper


def timing_errors(records: list[dict], sleep_ms: float) -> tuple[list[float], list[float]]:
    """(recorded - sleep, recorded - the bot's own measure) for every move, in ms."""
    nominal, harness = [], []
    for record in records:
        took = {
            "order": [float(x) for x in re.findall(r"took ([\d.]+)", record["stderr_order"])],
            "chaos": [float(x) for x in re.findall(r"took ([\d.]+)", record["stderr_chaos"])],
        }
        times = record["ms"]
        nominal.extend(ms - sleep_ms for ms in times)
        for role, first in (("order", 0), ("chaos", 1)):
            mine = times[first::2]
            if len(took[role]) == len(mine):  # one note per move, in order
                harness.extend(ms - own for ms, own in zip(mine, took[role], strict=True))
    return nominal, harness


# --- the report -----------------------------------------------------------------------------------
@dataclass
class Target:
    what: str
    target: str
    value: str
    ok: bool


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller counts (under ~40 s)")
    args = parser.parse_args()
    quick = args.quick

    clock_start = time.perf_counter()
    arena = arena_command()
    built = compile_bots()
    check_pattern()
    cores = sorted(os.sched_getaffinity(0))
    core = cores[-1]  # the core arena's `affinity auto` picks for a match
    match_games = {"C": 600 if quick else 2000, "Python": 200 if quick else 1000}
    rounds = 2 if quick else 3
    scaling_rounds = 1 if quick else 3
    store_games = 2000 if quick else 10_000
    sleeper_games = 3 if quick else 8
    scaling_seconds = 2.5 if quick else 6.0

    say(f"arena benchmark ({'quick' if quick else 'full'}): {arena}")
    say(
        f"python {sys.version.split()[0]}, {len(cores)} usable cores {cores}, floor pinned to "
        f"core {core}, bwrap: {shutil.which('bwrap') or 'absent'}"
    )
    busy = other_load()
    say(f"CPU busy with other processes just before the run: {busy:.0%} of the machine")
    if busy > 0.05:
        say("   warning: something else is using the CPU: figures will be noisy")
    say()
    targets: list[Target] = []

    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp_name:
        tmp = Path(tmp_name)

        # 1. per-ply cost ------------------------------------------------------------------------
        section("1. Per-ply cost: floor (minimal referee in this file) vs `arena match`")
        say(
            f"   games per run: C bot {match_games['C']}, Python bot {match_games['Python']} "
            f"(and a tenth of that for the start-up difference); best of {rounds} "
            f"round{'s' * (rounds > 1)}"
        )
        bots = {"C": str(built["instant"]), "Python": str(BOTS / "instant.py")}
        figures = per_ply_section(arena, bots, match_games, rounds, core, tmp)
        rows = []
        for f in figures:
            rows.append(
                [
                    f.label,
                    f"{f.plies}",
                    f"{f.plies_per_game:.0f}",
                    f"{f.floor_us:.1f}",
                    f"{f.whole_us:.1f}",
                    f"{f.ratio:.2f}",
                    f"{f.marginal_us:.1f}",
                    f"{f.marginal_ratio:.2f}",
                    f"{f.long_run.run.wall:.2f}",
                    f"{f.short_run.run.wall:.2f}",
                ]
            )
        say(
            table(
                rows,
                [
                    "",
                    "plies",
                    "/game",
                    "floor us",
                    "arena us",
                    "ratio",
                    "excl.start us",
                    "ratio",
                    "run s",
                    "short s",
                ],
            )
        )
        say("   floor us = floor's us/ply; arena us = whole command / plies (nothing subtracted);")
        say("   excl.start us = (t(N) - t(N/10)) / (plies(N) - plies(N/10)); ratio = floor/arena.")
        for f in figures:
            startup = f.short_run.run.wall - f.short_run.plies * f.marginal_us / 1e6
            say(
                f"   {f.label}: fixed cost (short run minus its plies at the marginal rate) "
                f"{startup:.2f} s = {startup * 1e6 / f.plies:.1f} us of each of the {f.plies} plies"
            )
        c_default = figures[0]
        targets.append(
            Target(
                "per ply, C bot: floor/arena (whole command)",
                ">= 0.70",
                f"{c_default.ratio:.2f}",
                c_default.ratio >= 0.7,
            )
        )
        targets.append(
            Target(
                "per ply, C bot: floor/arena excluding start-up",
                "(info)",
                f"{c_default.marginal_ratio:.2f}",
                True,
            )
        )
        say()

        # 2. scaling -----------------------------------------------------------------------------
        section("2. Scaling: round-robin of 4 C instant bots, `arena tournament --workers 1` vs 2")
        scaling = scaling_section(arena, built["instant"], scaling_seconds, scaling_rounds, tmp)
        rows = []
        for workers in (1, 2):
            t, small = scaling.runs[workers], scaling.small[workers]
            rows.append(
                [
                    f"--workers {workers}",
                    t.games,
                    f"{t.plies / t.games:.0f}",
                    f"{t.run.wall:.2f}",
                    f"{t.games_per_s:.0f}",
                    f"{t.run.user + t.run.system:.2f}",
                    f"{small.run.wall:.2f}",
                    f"{scaling.marginal_rate(workers):.0f}",
                    f"{t.db_bytes / t.games:.0f}",
                ]
            )
        say(
            table(
                rows,
                ["", "games", "plies/game", "wall s", "games/s", "CPU s", "12-game s",
                 "games/s excl.start", "db B/game"],
            )
        )  # fmt: skip
        speedup = scaling.rate(2) / scaling.rate(1)
        marginal_speedup = scaling.marginal_rate(2) / scaling.marginal_rate(1)
        say(
            f"   games_per_pairing {scaling.gpp} (6 pairings x 2 role assignments); best of "
            f"{scaling_rounds}. Speed-up with 2 workers: {speedup:.2f}x whole command, "
            f"{marginal_speedup:.2f}x excluding start-up"
        )
        say(
            "   CPU s = user + sys of the command and the processes it reaped (bots inside "
            "bubblewrap escape it); 12-game s = the same tournament with games_per_pairing 1;"
        )
        say("   games/s excl.start = (games - 12) / (wall - 12-game wall).")
        peaks = scaling.runs[2].peaks
        parent = next(iter(peaks), None)
        if parent is not None:
            workers_mib = [f"{kb / 1024:.1f}" for pid, kb in peaks.items() if pid != parent]
            say(
                f"   peak RSS with 2 workers (VmHWM, MiB): parent {peaks[parent] / 1024:.1f}, "
                f"workers {', '.join(workers_mib) or '-'}"
            )
        targets.append(
            Target(
                "scaling: 2 workers / 1 worker (games/s)",
                ">= 1.70x",
                f"{speedup:.2f}x",
                speedup >= 1.7,
            )
        )
        targets.append(
            Target(
                "scaling: the same excluding start-up",
                "(info)",
                f"{marginal_speedup:.2f}x",
                True,
            )
        )
        ceiling = machine_scaling([str(built["instant"])], 500 if quick else 2000)
        say(
            f"   the machine's own ceiling: two floor referees side by side, one per core, "
            f"give {ceiling:.2f}x one alone"
        )
        targets.append(
            Target("scaling: the machine's ceiling (two floors)", "(info)", f"{ceiling:.2f}x", True)
        )
        say()

        # 3. start-up ----------------------------------------------------------------------------
        section("3. Start-up: wall time of commands (5 runs each)")
        rows = []
        worst_best = 0.0
        c_bot = str(built["instant"])
        commands = (
            [arena, "--help"],
            [arena, "match", "--help"],
            [arena, "match", c_bot, c_bot, "--games", "2", "--quiet"],
        )
        for n, argv in enumerate(commands):
            times = startup_times(argv)
            if n < 2:
                worst_best = max(worst_best, min(times))
            rows.append(
                [
                    " ".join(["arena", *argv[1:]]).replace(c_bot, "C"),
                    f"{min(times):.3f}",
                    f"{statistics.median(times):.3f}",
                    f"{max(times):.3f}",
                ]
            )
        say(table(rows, ["", "best s", "median s", "worst s"]))
        targets.append(
            Target(
                "start-up: `arena --help`, `arena match --help` (best)",
                "< 0.300 s",
                f"{worst_best:.3f} s",
                worst_best < 0.3,
            )
        )
        imports = import_times(["-c", "import arena.cli"])
        total = next((t for name, _, t, depth in imports if name == "arena.cli"), 0)
        say(
            f'   python -X importtime -c "import arena.cli": {total / 1000:.0f} ms in all; '
            "top 15 by cumulative time (ms):"
        )
        top = sorted(imports, key=lambda row: -row[2])[:15]
        say(
            table(
                [
                    [name, f"{t / 1000:.1f}", f"{own / 1000:.1f}", depth]
                    for name, own, t, depth in top
                ],
                ["module", "cumul", "self", "depth"],
            )
        )
        bot = str(built["instant"])
        real = import_times(["-m", "arena", "match", bot, bot, "--games", "2", "--quiet"])
        top_level = sorted((row for row in real if row[3] == 0), key=lambda row: -row[2])
        say(
            "   what a real `arena match C C --games 2 --quiet` imports (python -X importtime -m "
            f"arena ...): {sum(row[2] for row in top_level) / 1000:.0f} ms; top-level imports:"
        )
        say(
            table(
                [[name, f"{t / 1000:.1f}"] for name, _, t, _ in top_level[:10]],
                ["module", "cumul"],
            )
        )
        say()

        # 4. memory ------------------------------------------------------------------------------
        section("4. Memory")
        long_run, short_run = c_default.long_run, c_default.short_run
        rows = [
            [f"arena match, {m.games} games", f"{m.run.peak_kb / 1024:.1f}"]
            for m in (short_run, long_run)
        ]
        say(table(rows, ["", "peak RSS MiB (VmHWM)"]))
        growth_kb = long_run.run.peak_kb - short_run.run.peak_kb
        per_game = growth_kb * 1024 / (long_run.games - short_run.games)
        say(
            f"   growth: {growth_kb / 1024:+.1f} MiB for {long_run.games - short_run.games} more "
            f"games ({per_game:.0f} bytes/game)"
        )
        targets.append(
            Target(
                "memory: match peak RSS, 2000 vs 200 games"
                if not quick
                else "memory: match peak RSS, N vs N/10 games",
                "growth <= 2 MiB",
                f"{growth_kb / 1024:+.1f} MiB",
                growth_kb <= 2048,
            )
        )
        size, add_us = fill_store(tmp / "filled.sqlite", long_run.records(), store_games)
        say(
            f"   store of {store_games} games (36 moves each, via Store.add_game): "
            f"{size / 1e6:.2f} MB, {size / store_games:.0f} bytes/game, "
            f"{add_us:.0f} us per add_game (one transaction each)"
        )
        if quick:
            say(f"   (10,000 games at that rate: {size / store_games * 10_000 / 1e6:.1f} MB)")
        targets.append(
            Target(
                f"store: bytes per game ({store_games} games)",
                "(info)",
                f"{size / store_games:.0f} B",
                True,
            )
        )
        say()

        # 5. timing accuracy ---------------------------------------------------------------------
        section(
            f"5. Timing accuracy: a bot sleeping {SLEEP_MS} ms per move, "
            f"{sleeper_games} games, default settings"
        )
        wrapper = sleeper_wrapper(built["sleeper"], SLEEP_MS)
        timed = arena_match(arena, str(wrapper), sleeper_games, tmp / "sleeper.jsonl")
        nominal, harness = timing_errors(timed.records(), SLEEP_MS)
        rows = [
            ["recorded - sleep (what a bot loses)", len(nominal)]
            + [f"{percentile(nominal, p):.3f}" for p in (50, 99)]
            + [f"{max(nominal):.3f}"],
            ["recorded - bot's own time (pipe + harness)", len(harness)]
            + [f"{percentile(harness, p):.3f}" for p in (50, 99)]
            + [f"{max(harness):.3f}"],
        ]
        say(table(rows, ["error (ms)", "moves", "p50", "p99", "max"]))
        p99 = percentile(nominal, 99)
        targets.append(
            Target(
                f"timing: error of recorded ms vs {SLEEP_MS} ms sleep, p99",
                "< 1.000 ms",
                f"{p99:.3f} ms",
                p99 < 1.0,
            )
        )
        say()

    # summary -------------------------------------------------------------------------------------
    say("Summary")
    say(
        table(
            [
                [
                    t.what,
                    t.target,
                    t.value,
                    "-" if t.target == "(info)" else ("PASS" if t.ok else "MISS"),
                ]
                for t in targets
            ],
            ["", "target", "measured", ""],
        )
    )
    say(
        f"\nbenchmark wall time: {time.perf_counter() - clock_start:.0f} s; CPU busy with other "
        f"processes just after the run: {other_load():.0%} of the machine"
    )


if __name__ == "__main__":
    main()
