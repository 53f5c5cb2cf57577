"""Bot share: of a tournament's core-time, how much a bot spends on move; where the rest goes.

Run it from the repository (``bench.py`` calls ``measure`` and ``report``)::

    python benchmarks/botshare.py [--games-per-pairing 40]   # tournaments/ladder.yaml, 2 workers

The method. ``arena tournament`` runs a copy of the config (its own store in a scratch folder)
with ``--workers W``, timed from spawn to exit (wall ``T``): the core-time it had is ``W x T``.
A bot is on move from the ``turn`` line to its reply: the records' per-move ``ms``, summed over all
games, is the bot time; the share is that over ``W x T``. The rest comes from the timestamps
every record carries (``started_at`` is taken before the referee makes sure both bots are ready,
so a bot's start falls inside the first game it plays; ``finished_at`` after the ``end`` lines).
The games are laid back onto W worker timelines (each game goes to a worker free at its start,
preferring the one that played the same pair last: a match's games run one after another on
one worker); each timeline, from the command's spawn to its exit, is then cut into: before the
first game (start-up), games (on move, and the referee's time off move), the gaps between two
games of one match (storing the game, setting up the next) or of two matches (the next match
from the parent), and after the worker's last game (waiting for the other worker, stopping the
bots, exit). A match's first game holds the bots' start (or taking them from the keeper): its
time off move beyond a typical game's is shown apart. The rows add up to ``W x T`` exactly; how
the games are laid onto timelines only moves time between the gap rows. Beside them, not adding
up (they run on the same cores, slowing the rows above): the CPU time of the parent process and
of the workers' own processes, sampled from ``/proc`` every 20 ms, and the bot processes started
(every process whose command line names the config's bots, seen while it runs).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

sys.dont_write_bytecode = True  # leave no __pycache__ beside the benchmarks

from support import ROOT, arena_command, children, command_name, copy_config, say, store_of, table  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


@dataclass
class Game:
    """One stored game, in seconds of Unix time."""

    pair: frozenset[str]
    """The two bots' names (a match plays both role assignments)."""
    started: float
    finished: float
    on_move: float
    """The sum of the game's per-move ``ms``, in seconds."""

    @property
    def off_move(self) -> float:
        return self.finished - self.started - self.on_move


def stored_games(db: Path) -> list[Game]:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(
            "SELECT order_name, chaos_name, started_at, finished_at, ms FROM games"
        ).fetchall()
    games = [Game(frozenset((o, c)), s, f, sum(json.loads(ms)) / 1000) for o, c, s, f, ms in rows]
    return sorted(games, key=lambda g: g.started)


@dataclass
class Watched:
    """A command run to its exit, with what ``/proc`` showed of its processes meanwhile."""

    wall: float
    began: float
    """Unix time just before the spawn (to set against the records' timestamps)."""
    ended: float
    """Unix time just after the exit."""
    parent_cpu: float
    """User + system seconds of the command's own process (last sample, up to 20 ms early)."""
    worker_cpu: float
    """The same, summed over its other children that are not bots (the workers)."""
    bot_starts: int
    """Distinct processes whose command line named a bot of the config."""


def cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return 0.0


def command_line(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def kind(pid: int, bot_marks: Sequence[str]) -> str:
    """``bwrap`` (a sandbox's), ``bot`` (its command line names a bot) or ``other``."""
    if command_name(pid) == "bwrap":
        return "bwrap"
    line = command_line(pid)
    return "bot" if any(mark in line for mark in bot_marks) else "other"


def watched_run(argv: Sequence[str], bot_marks: Sequence[str], timeout: float = 3600) -> Watched:
    """Run ``argv``, walking its process tree every 20 ms until it exits (killed after
    ``timeout`` seconds)."""
    cpu: dict[int, float] = {}
    kinds: dict[int, str] = {}
    with tempfile.TemporaryFile() as err:
        began, started = time.time(), time.perf_counter()
        proc = subprocess.Popen(
            list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err
        )
        while proc.poll() is None:
            if time.perf_counter() - started > timeout:
                proc.kill()
                proc.wait()
                raise RuntimeError(f"{' '.join(argv)} still ran after {timeout:.0f} s: killed")
            sample(proc.pid, bot_marks, cpu, kinds)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(0.02)  # returns at the exit: the wall time is not rounded up to a tick
        wall, ended = time.perf_counter() - started, time.time()
        err.seek(0)
        tail = err.read().decode(errors="replace")[-800:]
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with {proc.returncode}: {tail}")
    parent = cpu.pop(proc.pid, 0.0)
    starts = sum(seen == "bot" for seen in kinds.values())
    return Watched(wall, began, ended, parent, sum(cpu.values()), starts)


def sample(
    root: int, bot_marks: Sequence[str], cpu: dict[int, float], kinds: dict[int, str]
) -> None:
    """One walk of ``root``'s process tree: each process's kind, and the CPU time of those that
    are not bots (their last reading is kept once they exit)."""
    cpu[root] = cpu_seconds(root) or cpu.get(root, 0.0)
    stack = children(root)
    while stack:
        pid = stack.pop()
        stack.extend(children(pid))
        # again until it is a bot: a fork may not have exec'd yet, and bubblewrap's own fork
        # (named ``bwrap`` until then) becomes the bot when it execs
        if kinds.get(pid, "other") != "bot":
            kinds[pid] = kind(pid, bot_marks)
        if kinds[pid] == "other":
            cpu[pid] = cpu_seconds(pid) or cpu.get(pid, 0.0)
        else:
            cpu.pop(pid, None)


def timelines(games: Sequence[Game], workers: int, began: float) -> list[list[Game]]:
    """The games laid onto ``workers`` timelines (see the module's docstring)."""
    lines: list[list[Game]] = [[] for _ in range(workers)]

    def free_since(line: list[Game]) -> float:
        return line[-1].finished if line else began

    for game in games:
        free = [line for line in lines if free_since(line) <= game.started + 1e-3] or [
            min(lines, key=free_since)
        ]
        same = [line for line in free if line and line[-1].pair == game.pair]
        (same or sorted(free, key=free_since))[-1].append(game)
    return lines


@dataclass
class Share:
    """The bot share of one tournament run and where the rest of the core-time went."""

    config: str
    """The config's file name."""
    workers: int
    games: int
    """Games stored."""
    matches: int
    """Runs of games of one pair on one timeline."""
    watched: Watched
    """The command's run: wall time, timestamps, CPU times, bot starts."""
    rows: dict[str, float] = field(default_factory=dict)
    """Core-seconds by where they went; they add up to workers x wall."""

    @property
    def core_time(self) -> float:
        return self.workers * self.watched.wall

    @property
    def share(self) -> float:
        return self.rows[ON_MOVE] / self.core_time


ON_MOVE = "bots on move"


def breakdown(
    games: Sequence[Game], workers: int, watched: Watched
) -> tuple[dict[str, float], int]:
    """Core-seconds by row (adding up to workers x wall), and the number of matches."""
    rows = dict.fromkeys(
        [
            ON_MOVE,
            "the referee in games, off move",
            "a match's first game beyond a typical one (bot starts, `match`)",
            "between games of a match (storing, set-up)",
            "between matches (storing, the next match)",
            "start-up before the first game",
            "after a worker's last game (the tail, exit)",
        ],
        0.0,
    )
    names = list(rows)
    matches = 0
    typical = statistics.median(g.off_move for g in games) if games else 0.0
    for line in timelines(games, workers, watched.began):
        previous = None
        for game in line:
            rows[ON_MOVE] += game.on_move
            first = previous is None or previous.pair != game.pair
            extra = max(game.off_move - typical, 0.0) if first else 0.0
            rows[names[1]] += game.off_move - extra
            rows[names[2]] += extra
            if previous is None:
                rows[names[5]] += game.started - watched.began
            else:
                rows[names[4] if first else names[3]] += game.started - previous.finished
            matches += first
            previous = game
        rows[names[6]] += watched.ended - (previous.finished if previous else watched.began)
    # The rows span began..ended (Unix time); scale the wall-clock gap rows to the command's
    # perf_counter wall so that they add up to workers x wall exactly (they differ by < 1 ms).
    excess = workers * (watched.ended - watched.began - watched.wall)
    rows[names[6]] -= excess
    return rows, matches


def measure(
    arena: str, source: Path, folder: Path, workers: int, timeout: float = 3600, **overrides: object
) -> Share:
    """Run a copy of ``source`` (with ``overrides``) on ``workers`` workers and break it down."""
    config = copy_config(source, folder, **overrides)
    names = [
        b if isinstance(b, str) else b["name"] for b in yaml.safe_load(config.read_text())["bots"]
    ]
    marks = [f"/{name}/" for name in names]
    argv = [arena, "tournament", str(config), "--quiet", "--fresh", "--workers", str(workers)]
    watched = watched_run(argv, marks, timeout)
    games = stored_games(store_of(config))
    rows, matches = breakdown(games, workers, watched)
    return Share(config.name, workers, len(games), matches, watched, rows)


def report(share: Share) -> None:
    w = share.watched
    core = share.core_time
    say(
        f"   {share.config}: {share.games} games in {share.matches} matches, {share.workers} "
        f"workers, {w.wall:.1f} s wall = {core:.1f} core-s; bot share {share.share:.3f}"
    )
    rows = [[what, f"{s:.2f}", f"{s / core:.1%}"] for what, s in share.rows.items()]
    rows.append(
        [
            "= workers x wall",
            f"{sum(share.rows.values()):.2f}",
            f"{sum(share.rows.values()) / core:.1%}",
        ]
    )
    say(table(rows, ["where the core-time went", "core-s", "share"]))
    say(
        f"   beside them (same cores, not adding up): the parent process used {w.parent_cpu:.2f} "
        f"CPU-s ({w.parent_cpu / core:.1%}), the workers' own processes {w.worker_cpu:.2f} "
        f"({w.worker_cpu / core:.1%}); bot processes started: {w.bot_starts}"
    )


def main() -> None:
    os.environ.setdefault("ARENA_BOTS_AS_ROOT", "1")
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--games-per-pairing", type=int, default=40)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-botshare-") as tmp:
        share = measure(
            arena_command(),
            ROOT / "tournaments" / "ladder.yaml",
            Path(tmp),
            args.workers,
            games_per_pairing=args.games_per_pairing,
        )
    report(share)


if __name__ == "__main__":
    main()
