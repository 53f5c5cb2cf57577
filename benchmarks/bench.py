"""Benchmark of the arena harness: every speed target of issue 24, with the floor and ceiling.

Run it from the repository with the Python that has ``arena`` installed::

    python benchmarks/bench.py              # full run, about five minutes on 2 cores
    python benchmarks/bench.py --quick      # smaller counts (says so in the table), ~1 min
    python benchmarks/bench.py --pools      # also the 100-bot pool (about 2 more minutes)
    python benchmarks/bench.py --markdown   # end with the README's performance table

It compiles the C bots in ``benchmarks/bots/`` with ``cc -O2`` into ``benchmarks/_build/``
(git-ignored), runs the ``arena`` command of the same Python as subprocesses, prints a report and
leaves no other file behind (everything else goes to a temporary folder). All figures come from the
same run, measured side by side (interleaved), so that their ratios compare like with like. Where a
measurement is repeated (3 rounds; with ``--quick``, 2 for the per-ply runs and 1 for scaling), the
best (lowest) time is kept, on both sides of a ratio.

What each number means:

1. **Per-ply cost.** A *ply* is one move: one ``turn`` line to a bot and its reply line.

   - *floor*: a minimal referee written apart from arena (`floor.py`): two persistent bot
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
     floor. The target (>= 0.8) applies to the whole-command figure with the C bot, 4,000 games
     (600 with ``--quick``, which the table says).
   - The same with ``--sandbox none``, and with the instant bot written in Python.
   - What each us over the floor is (``plycost.py``): start-up, bubblewrap, the record, the game
     lines, the ahead-of-turn checks, the rest of the turn loop, and what is left unexplained.

   The instant bots (``bots/instant.c``, ``bots/instant.py``) play the first empty cell with the
   mark X where ``(row + col // 2)`` is even and O elsewhere; that board has no five anywhere
   (checked below), so every game lasts the full 36 plies.

2. **Scaling.** A round-robin tournament of four copies of the C instant bot (6 pairings, both role
   assignments), run with ``arena tournament CONFIG --quiet --workers 1`` and then ``--workers 2``,
   each into a fresh store: games/s of each (games stored / wall time of the whole command) and
   their ratio. In each round, beside the tournaments, the machine's own ceiling: two floor referees
   side by side, one pinned to each core, against one alone (best times kept on each side). Target:
   the speed-up >= 0.95 of that ceiling. ``games_per_pairing`` is calibrated first (from a 12-game
   and a 600-game run) so that one worker takes about 6 s (2.5 s with ``--quick``). The 12-game runs
   (``games_per_pairing: 1``) also give each command's fixed cost, hence games/s excluding start-up:
   (games - 12) / (wall - 12-game wall). The peak RSS of the parent and of each worker of the
   2-worker run is sampled from ``/proc/PID/status`` (VmHWM). Beside them too, two whole
   ``arena match`` commands side by side, one pinned to each core, against one alone (the best
   round): how far arena's own refereeing scales, so that what the tournament loses beyond it
   (parent, store, scheduling, the end of the run) is told apart from what the machine takes.

3. **Start-up.** Wall time of ``arena --help`` and ``arena match --help``, best, median and worst
   of 5; target <= 0.15 s (best). For comparison, a whole 2-game ``arena match`` of the C bot. Then
   ``arena tournament`` on a copy of ``tournaments/example.yaml`` (its own store, in the scratch
   folder): from the spawn to its first game's ``started_at`` and ``finished_at`` (best of 3).
   Below, ``python -X importtime -c "import arena.cli"``: the modules that cost most, sorted by
   cumulative import time (a package's time includes its submodules'), and the top-level imports
   of a real ``arena match`` run (``python -X importtime -m arena match ...``), which include what
   typer and the command import only when a command runs: candidates for lazy imports.

4. **Memory.** Peak RSS of the ``arena match`` process (the harness: VmHWM from
   ``/proc/PID/status``, sampled every 10 ms) for 400 and for 4,000 games (section 1's runs): it
   should not grow with the number of games (the longer run's peak within 2 MiB of the other's).
   Then a store of 10,000 games (2,000 with ``--quick``) filled with
   ``arena.store.database.Store.add_game`` from the real 36-move records of the match above: file
   size, bytes per game and the time per ``add_game``.

5. **Timing accuracy.** A bot (``bots/sleeper.c``, through a wrapper script that passes the sleep
   on its command line) sleeps 20 ms before each reply; ``arena match`` records the time of each
   move as the harness saw it (``ms`` in the record). Error = recorded - 20 ms, p50 / p99 / max.
   The bot also reports on stderr how long it really took from reading ``turn`` to writing its
   reply (the sleep plus the kernel's oversleep); recorded - that is the part of the error that is
   the pipe and the harness. Target: p99 error < 1 ms.

6. **Bot share** (``botshare.py``, whose docstring gives the method): ``tournaments/ladder.yaml``
   on 2 workers (``games_per_pairing`` 4 with ``--quick``, which the table says): the records'
   per-move ``ms`` summed, over 2 x the wall time; target >= 0.95; where the rest goes, from the
   records' timestamps laid onto the workers' timelines, and the parent's CPU time beside it.

7. **Pools** (``pools.py``'s functions): 40 bots that sleep 1 s before ``ready``, one game per
   ordered pair, 2 workers, ``keep_bots: auto``; target <= 90 s (about a minute: not run with
   ``--quick``). The 100-bot run (about 2 minutes, against docs/scaling.md's figure) only with
   ``--pools``; a run left out says "not run".

The summary at the end lists issue 24's targets with PASS or MISS, then the other figures
(memory, store, timing); ``--markdown`` prints both as the README's table, "missed" where
missed. The report starts and ends with the share of the machine that other processes kept busy
(sampled for 0.5 s from /proc/stat), and so does each section: the figures are only as good as
that is close to 0%. ``profile_ply.py`` beside this file breaks the per-ply and per-game cost of
arena down further (in-process, against the same floor).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.dont_write_bytecode = True  # leave no __pycache__ beside the benchmarks

import botshare  # noqa: E402 - a script: its folder is on sys.path
import pools  # noqa: E402
from botshare import stored_games  # noqa: E402
from floor import check_pattern, measure_floor  # noqa: E402
from plycost import INNER, in_process_parts  # noqa: E402
from support import (  # noqa: E402
    BOTS,
    BYTECODE_CACHE_WAS_OFF,
    PYTHON,
    ROOT,
    Run,
    arena_command,
    children,
    command_name,
    compile_bots,
    copy_config,
    other_load,
    percentile,
    run,
    say,
    section,
    store_of,
    table,
    vm_hwm_kb,
)
from targets import Target, markdown, summary_report  # noqa: E402

SLEEP_MS = 20


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


@dataclass
class TournamentRun:
    workers: int
    games: int
    plies: int
    run: Run
    db_bytes: int
    span: float
    """From the first game's ``started_at`` to the last one's ``finished_at``: the games alone,
    without the command's start (imports, config, store, workers, bots) and end (standings)."""
    peaks: dict[int, int] = field(default_factory=dict)

    @property
    def games_per_s(self) -> float:
        return self.games / self.run.wall

    @property
    def fixed(self) -> float:
        """The command's wall time outside its games: its start and its end."""
        return self.run.wall - self.span


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
        games, plies, first, last = conn.execute(
            "SELECT COUNT(*), SUM(json_array_length(moves)), MIN(started_at), MAX(finished_at)"
            " FROM games"
        ).fetchone()
    expected = 12 * gpp
    if games != expected:
        raise RuntimeError(f"tournament stored {games} games, expected {expected}")
    return TournamentRun(workers, games, plies, result, db.stat().st_size, last - first, peaks)


@dataclass
class Scaling:
    gpp: int
    runs: dict[int, TournamentRun]
    """The best full-size run for each number of workers."""
    small: dict[int, TournamentRun]
    """The best 12-game run for each number of workers (start-up and shut-down)."""
    ceiling: float
    """The machine's own 2-core ceiling, measured in each round beside the tournaments."""
    matches: float
    """Two ``arena match`` side by side (one per core) against one alone, best of the rounds:
    how far arena's refereeing itself scales, apart from the tournament around it."""

    def rate(self, workers: int) -> float:
        return self.runs[workers].games_per_s

    def marginal_rate(self, workers: int) -> float:
        big, small = self.runs[workers], self.small[workers]
        return (big.games - small.games) / (big.run.wall - small.run.wall)


def scaling_section(
    arena: str, bot: Path, seconds: float, rounds: int, tmp: Path, floor_games: int
) -> Scaling:
    """Calibrate games_per_pairing for ``seconds`` with one worker, then time 1 and 2 workers
    and the machine's ceiling, interleaved ``rounds`` times."""
    small = {w: arena_tournament(arena, bot, 1, w, tmp) for w in (1, 2)}
    probe = arena_tournament(arena, bot, 50, 1, tmp)
    gap = probe.run.wall - small[1].run.wall
    # Under load the 12-game run can take nearly as long as the probe, and the difference of the
    # two then says nothing (once it gave 294,000 games a pairing): fall back on the probe's
    # whole-command rate, a lower bound of the marginal one.
    if gap > probe.run.wall / 4:
        rate = (probe.games - small[1].games) / gap
    else:
        rate = probe.games / probe.run.wall
    gpp = max(10, round(seconds * rate / 12))
    runs: dict[int, list[TournamentRun]] = {1: [], 2: []}
    alone: list[float] = []
    both: list[list[float]] = []
    matches: list[float] = []
    for number in range(rounds):
        single, pair = machine_ceiling([str(bot)], floor_games)
        alone.append(single)
        both.append(pair)
        matches.append(matches_side_by_side(arena, bot, floor_games))
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
    ceiling = sum(1 / min(pair[i] for pair in both) for i in (0, 1)) * min(alone)
    return Scaling(gpp, best_runs, small, ceiling, max(matches))


def matches_side_by_side(arena: str, bot: Path, games: int) -> float:
    """Two ``arena match`` of ``games`` games, pinned one to each core, against one alone on the
    last core: the speed-up of the refereeing alone, as ``machine_ceiling`` measures the floor's.
    Between it and the tournament's speed-up lies what the tournament adds (its parent, the
    store, the scheduling of matches, the end of the run)."""

    def start(core: int) -> subprocess.Popen[bytes]:
        argv = [arena, "match", str(bot), str(bot), "--games", str(games), "--quiet"]
        return subprocess.Popen(
            argv,
            stdout=subprocess.DEVNULL,
            preexec_fn=lambda: os.sched_setaffinity(0, {core}),
        )

    cores = sorted(os.sched_getaffinity(0))[-2:]
    started = time.perf_counter()
    start(cores[-1]).wait()
    one = time.perf_counter() - started
    started = time.perf_counter()
    for process in [start(core) for core in cores]:
        process.wait()
    return 2 * one / (time.perf_counter() - started)


def machine_ceiling(argv: Sequence[str], games: int) -> tuple[float, list[float]]:
    """The floor's us/ply alone, and of two floors side by side, pinned one to each core.

    What two cores give two independent referees against one is the ceiling for any harness
    on this machine: interrupts, the hypervisor and shared caches take their share whatever the
    harness does.
    """
    from concurrent.futures import ProcessPoolExecutor

    alone = measure_floor(argv, games, core=1)
    with ProcessPoolExecutor(2) as pool:
        both = list(pool.map(measure_floor, [argv, argv], [games, games], [0, 1]))
    return alone, both


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
    from arena.store.database import Store

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
@dataclass(frozen=True)
class Plan:
    """How much each section measures (``--quick`` trades precision for time)."""

    quick: bool
    match_games: dict[str, int]
    """Games per ``arena match`` run, by the instant bot's language."""
    rounds: int
    """Interleaved repetitions of the per-ply runs (the best is kept)."""
    scaling_rounds: int
    scaling_seconds: float
    """What one worker's tournament is calibrated to last."""
    store_games: int
    sleeper_games: int
    example_rounds: int
    """Runs of ``tournaments/example.yaml`` timed to their first game (the best is kept)."""
    ladder_games: int
    """``games_per_pairing`` of the bot-share run of ``tournaments/ladder.yaml`` (its own: 40)."""
    pools: tuple[int, ...]
    """Pool sizes run by ``pools.py``'s functions (40 bots: about a minute; 100: two more)."""

    @classmethod
    def make(cls, quick: bool, pools: bool) -> Plan:
        return cls(
            quick=quick,
            match_games={"C": 600 if quick else 4000, "Python": 200 if quick else 1000},
            rounds=2 if quick else 3,
            scaling_rounds=1 if quick else 3,
            scaling_seconds=2.5 if quick else 6.0,
            store_games=2000 if quick else 10_000,
            sleeper_games=3 if quick else 8,
            example_rounds=1 if quick else 3,
            ladder_games=4 if quick else 40,
            pools=(40, 100) if pools else () if quick else (40,),
        )


@dataclass
class Bench:
    """What every section needs: the command, the built bots, the core, the plan, a scratch
    folder, and the targets collected for the summary."""

    arena: str
    built: dict[str, Path]
    core: int
    plan: Plan
    tmp: Path
    targets: list[Target] = field(default_factory=list)
    """Issue 24's targets, and the floor and ceiling beside them, in the summary's order."""
    others: list[Target] = field(default_factory=list)
    """The other figures of the run (memory, store, timing)."""

    def target(self, what: str, target: str, value: str, ok: bool | None = None) -> None:
        self.targets.append(Target(what, target, value, ok))

    def other(self, what: str, target: str, value: str, ok: bool | None = None) -> None:
        self.others.append(Target(what, target, value, ok))


def per_ply_report(b: Bench) -> PlyFigures:
    """Section 1; returns the C bot's default-mode figures (section 4 reuses its runs)."""
    plan = b.plan
    section("1. Per-ply cost: floor (minimal referee in floor.py) vs `arena match`")
    say(
        f"   games per run: C bot {plan.match_games['C']}, Python bot "
        f"{plan.match_games['Python']} (and a tenth of that for the start-up difference); best "
        f"of {plan.rounds} round{'s' * (plan.rounds > 1)}"
    )
    bots = {"C": str(b.built["instant"]), "Python": str(BOTS / "instant.py")}
    figures = per_ply_section(b.arena, bots, plan.match_games, plan.rounds, b.core, b.tmp)
    rows = [
        [
            f.label, f"{f.plies}", f"{f.plies_per_game:.0f}", f"{f.floor_us:.1f}",
            f"{f.whole_us:.1f}", f"{f.ratio:.2f}", f"{f.marginal_us:.1f}",
            f"{f.marginal_ratio:.2f}", f"{f.long_run.run.wall:.2f}",
            f"{f.short_run.run.wall:.2f}",
        ]
        for f in figures
    ]  # fmt: skip
    header = ["", "plies", "/game", "floor us", "arena us", "ratio", "excl.start us", "ratio",
              "run s", "short s"]  # fmt: skip
    say(table(rows, header))
    say("   floor us = floor's us/ply; arena us = whole command / plies (nothing subtracted);")
    say("   excl.start us = (t(N) - t(N/10)) / (plies(N) - plies(N/10)); ratio = floor/arena.")
    for f in figures:
        startup = f.short_run.run.wall - f.short_run.plies * f.marginal_us / 1e6
        say(
            f"   {f.label}: fixed cost (short run minus its plies at the marginal rate) "
            f"{startup:.2f} s = {startup * 1e6 / f.plies:.1f} us of each of the {f.plies} plies"
        )
    c_default, c_none = figures[0], figures[1]
    games = f"{c_default.long_run.games:,} games" + (" (--quick: not 4,000)" if plan.quick else "")
    b.target(
        f"`arena match` of instant C bots, whole command, default settings, {games}: "
        "floor/arena per ply",
        ">= 0.80",
        f"{c_default.whole_us:.1f} us a ply; floor {c_default.floor_us:.1f} us: "
        f"{c_default.ratio:.2f}",
        c_default.ratio >= 0.8,
    )
    b.target(
        "the floor (`benchmarks/floor.py`), measured beside it",
        "",
        f"{c_default.floor_us:.1f} us a ply",
    )
    parts = ply_parts(b, c_default, c_none)
    b.target(
        "what each us over the floor is",
        "",
        "; ".join(f"{name} {us:.1f}" for name, us in parts.items() if not name.startswith("=")),
    )
    # Why the target is out of reach of any referee loop: 0.8 of the floor leaves a fixed room
    # per ply, and the command's own start (interpreter, imports, the sandbox's bot starts),
    # spread over the run's plies, fills it before the first `turn` is written.
    room = c_default.floor_us / 0.8 - c_default.floor_us
    fixed = parts["start-up"] + parts["bubblewrap"]
    b.target(
        "the room 0.80 of the floor leaves over it, against what the command's start-up and "
        "the default sandbox take of it alone",
        "",
        f"room {room:.1f} us a ply; start-up {parts['start-up']:.1f} + bubblewrap "
        f"{parts['bubblewrap']:.1f} = {fixed:.1f} ({fixed / room:.0%} of it) before the turn "
        f"loop's own work",
    )
    return c_default


def ply_parts(b: Bench, c_default: PlyFigures, c_none: PlyFigures) -> dict[str, float]:
    """The whole command's us/ply over the floor, part by part (``plycost.py``), printed."""
    games = 300 if b.plan.quick else 1000
    inner = in_process_parts(str(b.built["instant"]), games, b.core)
    parts = {
        "start-up": c_default.whole_us - c_default.marginal_us,
        "bubblewrap": c_default.marginal_us - c_none.marginal_us,
        **inner,
        "unexplained (the command's loop, the record's file, its own process)": c_none.marginal_us
        - c_default.floor_us
        - inner[INNER],
        "= arena's whole command over the floor": c_default.whole_us - c_default.floor_us,
    }
    say(f"   what each us of the C bot's {c_default.whole_us:.1f} us a ply over the floor's is")
    say(f"   (in-process parts: {games} games pinned to core {b.core}, sandbox none, best of 5):")
    say(table([[name, f"{us:.2f}"] for name, us in parts.items()], ["", "us a ply"]))
    return parts


def scaling_report(b: Bench) -> None:
    """Section 2: tournaments with 1 and 2 workers, and the machine's own ceiling."""
    plan = b.plan
    section("2. Scaling: round-robin of 4 C instant bots, `arena tournament --workers 1` vs 2")
    floor_games = 500 if plan.quick else 2000
    scaling = scaling_section(
        b.arena, b.built["instant"], plan.scaling_seconds, plan.scaling_rounds, b.tmp, floor_games
    )
    rows = []
    for workers in (1, 2):
        t, small = scaling.runs[workers], scaling.small[workers]
        rows.append(
            [
                f"--workers {workers}", t.games, f"{t.plies / t.games:.0f}", f"{t.run.wall:.2f}",
                f"{t.games_per_s:.0f}", f"{t.run.user + t.run.system:.2f}",
                f"{small.run.wall:.2f}", f"{scaling.marginal_rate(workers):.0f}",
                f"{t.db_bytes / t.games:.0f}",
            ]
        )  # fmt: skip
    header = ["", "games", "plies/game", "wall s", "games/s", "CPU s", "12-game s",
              "games/s excl.start", "db B/game"]  # fmt: skip
    say(table(rows, header))
    speedup = scaling.rate(2) / scaling.rate(1)
    marginal_speedup = scaling.marginal_rate(2) / scaling.marginal_rate(1)
    say(
        f"   games_per_pairing {scaling.gpp} (6 pairings x 2 role assignments); best of "
        f"{plan.scaling_rounds}. Speed-up with 2 workers: {speedup:.2f}x whole command, "
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
    ceiling = scaling.ceiling
    say(
        f"   the machine's own ceiling, measured in each round beside the tournaments: two floor "
        f"referees side by side, one per core ({floor_games} games each), give {ceiling:.2f}x "
        f"one alone; 2 workers reach {speedup / ceiling:.2f} of it"
    )
    b.target(
        "round robin of 4 instant C bots, `--workers 2` vs `--workers 1`: the speed-up against "
        "the machine's two-floor ceiling",
        ">= 0.95",
        f"{speedup:.2f}x against {ceiling:.2f}x: {speedup / ceiling:.2f} "
        f"({marginal_speedup:.2f}x without start-up)",
        speedup / ceiling >= 0.95,
    )
    b.target(
        "the ceiling: two floor referees side by side (one per core) against one, beside it",
        "",
        f"{ceiling:.2f}x",
    )
    one, two = scaling.runs[1], scaling.runs[2]
    say(
        f"   the games alone (first game's start to last game's end): {one.span:.2f} s and "
        f"{two.span:.2f} s, {one.span / two.span:.2f}x ({one.span / two.span / ceiling:.2f} of "
        f"the ceiling); outside them (the command's start and end) {one.fixed:.2f} s and "
        f"{two.fixed:.2f} s, which two workers do not halve"
    )
    b.target(
        "beside it: the games alone, from the first game's start to the last one's end",
        "",
        f"{one.span / two.span:.2f}x ({one.span / two.span / ceiling:.2f} of the ceiling); the "
        f"command's start and end outside them {one.fixed:.2f} s and {two.fixed:.2f} s",
    )
    say(
        f"   two `arena match` side by side, one per core ({floor_games} games each), give "
        f"{scaling.matches:.2f}x one alone: the tournament reaches "
        f"{speedup / scaling.matches:.2f} of its own referee's scaling"
    )
    b.target(
        "beside it: two `arena match` side by side (one per core) against one",
        "",
        f"{scaling.matches:.2f}x (the tournament at {speedup / scaling.matches:.2f} of it)",
    )


def startup_report(b: Bench) -> None:
    """Section 3: wall time of short commands, and what importing the CLI costs."""
    section("3. Start-up: wall time of commands (5 runs each)")
    c_bot = str(b.built["instant"])
    commands = (
        [b.arena, "--help"],
        [b.arena, "match", "--help"],
        [b.arena, "match", c_bot, c_bot, "--games", "2", "--quiet"],
    )
    rows = []
    for n, argv in enumerate(commands):
        times = startup_times(argv)
        if n < 2:
            best_s = min(times)
            b.target(
                f"start-up of `{' '.join(['arena', *argv[1:]])}` (best of 5)",
                "<= 0.150 s",
                f"{best_s:.3f} s (median {statistics.median(times):.3f} s)",
                best_s <= 0.15,
            )
        rows.append(
            [
                " ".join(["arena", *argv[1:]]).replace(c_bot, "C"),
                f"{min(times):.3f}",
                f"{statistics.median(times):.3f}",
                f"{max(times):.3f}",
            ]
        )
    say(table(rows, ["", "best s", "median s", "worst s"]))
    first_game_report(b)
    imports = import_times(["-c", "import arena.cli"])
    total = next((t for name, _, t, depth in imports if name == "arena.cli"), 0)
    say(
        f'   python -X importtime -c "import arena.cli": {total / 1000:.0f} ms in all; '
        "top 15 by cumulative time (ms):"
    )
    top = sorted(imports, key=lambda row: -row[2])[:15]
    rows = [[name, f"{t / 1000:.1f}", f"{own / 1000:.1f}", depth] for name, own, t, depth in top]
    say(table(rows, ["module", "cumul", "self", "depth"]))
    real = import_times(["-m", "arena", "match", c_bot, c_bot, "--games", "2", "--quiet"])
    top_level = sorted((row for row in real if row[3] == 0), key=lambda row: -row[2])
    say(
        "   what a real `arena match C C --games 2 --quiet` imports (python -X importtime -m "
        f"arena ...): {sum(row[2] for row in top_level) / 1000:.0f} ms; top-level imports:"
    )
    rows = [[name, f"{t / 1000:.1f}"] for name, _, t, _ in top_level[:10]]
    say(table(rows, ["module", "cumul"]))


def memory_report(b: Bench, c_default: PlyFigures) -> None:
    """Section 4: peak memory of a short and a long match, and the store's size per game."""
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
    b.other(
        f"peak memory of `arena match`, {short_run.games:,} vs {long_run.games:,} games",
        "growth <= 2 MiB",
        f"{growth_kb / 1024:+.1f} MiB",
        growth_kb <= 2048,
    )
    games = b.plan.store_games
    size, add_us = fill_store(b.tmp / "filled.sqlite", long_run.records(), games)
    say(
        f"   store of {games} games (36 moves each, via Store.add_game): {size / 1e6:.2f} MB, "
        f"{size / games:.0f} bytes/game, {add_us:.0f} us per add_game (one transaction each)"
    )
    if b.plan.quick:
        say(f"   (10,000 games at that rate: {size / games * 10_000 / 1e6:.1f} MB)")
    b.other(f"store size ({games:,} games)", "", f"{size / games:.0f} bytes per game")


def timing_report(b: Bench) -> None:
    """Section 5: how far the recorded move times are from a bot's known sleep."""
    games = b.plan.sleeper_games
    section(f"5. Timing accuracy: a bot sleeping {SLEEP_MS} ms per move, {games} games, defaults")
    wrapper = sleeper_wrapper(b.built["sleeper"], SLEEP_MS)
    timed = arena_match(b.arena, str(wrapper), games, b.tmp / "sleeper.jsonl")
    nominal, harness = timing_errors(timed.records(), SLEEP_MS)
    rows = [
        [label, len(errors)]
        + [f"{percentile(errors, p):.3f}" for p in (50, 99)]
        + [f"{max(errors):.3f}"]
        for label, errors in (
            ("recorded - sleep (what a bot loses)", nominal),
            ("recorded - bot's own time (pipe + harness)", harness),
        )
    ]
    say(table(rows, ["error (ms)", "moves", "p50", "p99", "max"]))
    p99 = percentile(nominal, 99)
    b.other(
        f"recorded move time vs a bot sleeping {SLEEP_MS} ms: error p99",
        "< 1.000 ms",
        f"{p99:.3f} ms",
        p99 < 1.0,
    )


def first_game_report(b: Bench) -> None:
    """``arena tournament tournaments/example.yaml`` (a copy, its own store) to its first game."""
    firsts, ends, walls = [], [], []
    for number in range(b.plan.example_rounds):
        folder = b.tmp / f"example-{number}"
        folder.mkdir()
        config = copy_config(ROOT / "tournaments" / "example.yaml", folder)
        began = time.time()
        walls.append(run([b.arena, "tournament", str(config)]).wall)
        games = stored_games(store_of(config))
        firsts.append(games[0].started - began)
        ends.append(min(g.finished for g in games) - began)
    say(
        f"   `arena tournament tournaments/example.yaml` (a copy with its own store, best of "
        f"{len(walls)}): its first game starts {min(firsts):.3f} s after the spawn and ends at "
        f"{min(ends):.3f} s; the whole command ({len(games)} games) {min(walls):.2f} s"
    )
    b.target(
        "time to the first game of `arena tournament tournaments/example.yaml`",
        "measured and printed",
        f"{min(firsts):.2f} s to its start, {min(ends):.2f} s to its end "
        f"(the whole command {min(walls):.1f} s)",
    )


def bot_share_report(b: Bench) -> None:
    """Section 6: the share of the core-time during which a bot is on move (``botshare.py``)."""
    gpp = b.plan.ladder_games
    short = " (--quick: not 40)" if b.plan.quick else ""
    section(f"6. Bot share: tournaments/ladder.yaml, 2 workers, games_per_pairing {gpp}{short}")
    folder = b.tmp / "ladder"
    folder.mkdir()
    ladder = ROOT / "tournaments" / "ladder.yaml"
    share = botshare.measure(b.arena, ladder, folder, 2, games_per_pairing=gpp)
    botshare.report(share)
    w, core = share.watched, share.core_time
    rest = [(what, s) for what, s in share.rows.items() if what != botshare.ON_MOVE]
    b.target(
        f"bot share of `tournaments/ladder.yaml` on 2 workers, {share.games:,} games{short}: "
        "a bot on move / (workers x wall)",
        ">= 0.95",
        f"{share.share:.3f}; the rest: "
        + ", ".join(f"{what} {s / core:.1%}" for what, s in sorted(rest, key=lambda r: -r[1]))
        + f"; beside them, the parent's CPU {w.parent_cpu / core:.1%}, {w.bot_starts} bot starts",
        share.share >= 0.95,
    )


POOL_TARGETS = {40: ("<= 90 s", 90.0), 100: ("docs/scaling.md: 125.3 s", None)}
"""Each pool size's target (seconds), or the figure to compare with."""


def pools_report(b: Bench) -> None:
    """Section 7: ``pools.py``'s round robin of bots that take 1 s to start, keep_bots auto."""
    section("7. Pools: bots sleeping 1 s before `ready`, one game per ordered pair, 2 workers")
    for bots, (target, limit) in POOL_TARGETS.items():
        what = f"pool of {bots} bots that sleep 1 s before ready (`benchmarks/pools.py`)"
        if bots not in b.plan.pools:
            why = "--quick; run with --pools" if bots == 40 else "about 2 min: run with --pools"
            b.target(what, target, f"not run ({why})")
            continue
        folder = b.tmp / f"pool{bots}"
        folder.mkdir()
        wall = pools.timed(b.arena, pools.config(folder, bots, 1.0, True), 2, None)
        starts = pools.started(folder / "results.sqlite")
        say(f"   {bots} bots, {bots * (bots - 1):,} games: {wall:.1f} s")
        value = f"{wall:.1f} s ({bots * (bots - 1):,} games, {starts} bot starts)"
        b.target(what, target, value, None if limit is None else wall <= limit)


def main() -> None:
    # Its bots are trusted, and as root an unprivileged bot user may not reach this Python.
    os.environ.setdefault("ARENA_BOTS_AS_ROOT", "1")
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller counts (about a minute)")
    parser.add_argument(
        "--pools", action="store_true", help="also the 100-bot pool (about 2 more minutes)"
    )
    parser.add_argument(
        "--markdown", action="store_true", help="end with the README's performance table"
    )
    args = parser.parse_args()
    plan = Plan.make(args.quick, args.pools)
    clock_start = time.perf_counter()
    arena, built = arena_command(), compile_bots()
    check_pattern()
    cores = sorted(os.sched_getaffinity(0))
    core = cores[-1]  # the core arena's `affinity auto` picks for a match
    say(f"arena benchmark ({'quick' if plan.quick else 'full'}): {arena}")
    say(
        f"python {sys.version.split()[0]}, {len(cores)} usable cores {cores}, floor pinned to "
        f"core {core}, bwrap: {shutil.which('bwrap') or 'absent'}"
    )
    if BYTECODE_CACHE_WAS_OFF:
        say("PYTHONDONTWRITEBYTECODE was set: unset for the commands measured (a user's cache)")
    busy = other_load()
    say(f"CPU busy with other processes just before the run: {busy:.0%} of the machine")
    if busy > 0.05:
        say("   warning: something else is using the CPU: figures will be noisy")
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        b = Bench(arena, built, core, plan, Path(tmp))
        say()
        c_default = per_ply_report(b)
        say()
        scaling_report(b)
        say()
        startup_report(b)
        say()
        memory_report(b, c_default)
        say()
        timing_report(b)
        say()
        bot_share_report(b)
        say()
        pools_report(b)
        say()
    summary_report(b.targets, b.others)
    after = other_load()
    say(
        f"\nbenchmark wall time: {time.perf_counter() - clock_start:.0f} s; CPU busy with other "
        f"processes just after the run: {after:.0%} of the machine"
    )
    if args.markdown:
        say()
        say(markdown(b.targets, b.others))
        say(
            f"\n(`python benchmarks/bench.py{' --quick' * plan.quick}{' --pools' * args.pools}`, "
            f"{time.strftime('%Y-%m-%d', time.gmtime())}; other processes kept {busy:.0%} of the "
            f"machine busy just before the run, {after:.0%} just after)"
        )


if __name__ == "__main__":
    main()
