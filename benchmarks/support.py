"""Helpers shared by the benchmark scripts: running commands with their peak memory and CPU
times, the load of the machine, plain tables, and the C bots built from ``bots/``.

They are not arena's code, so that what they measure does not measure itself.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

# The commands measured run as a user's would: with Python's bytecode cache. Without it
# (PYTHONDONTWRITEBYTECODE set in the environment, as on some CI and agent machines) every start
# compiles arena's sources again, about 0.1 s, and start-up figures measure the compiler.
BYTECODE_CACHE_WAS_OFF = os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BOTS = HERE / "bots"
BUILD = HERE / "_build"
PYTHON = sys.executable


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


def copy_config(source: Path, folder: Path, **overrides: object) -> Path:
    """``source`` (a tournament YAML) written into ``folder`` with its store there and the bots'
    relative paths made absolute, so that it runs from anywhere and leaves nothing behind."""
    data = yaml.safe_load(source.read_text())
    for bot in data.get("bots", []):
        if isinstance(bot, dict) and "path" in bot:
            bot["path"] = str((source.parent / bot["path"]).resolve())
    data.update(overrides, db=str(folder / f"{source.stem}.sqlite"))
    path = folder / source.name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def store_of(config: Path) -> Path:
    return Path(yaml.safe_load(config.read_text())["db"])


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


def children(pid: int) -> list[int]:
    """The direct children of a running process (none once it has exited)."""
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
