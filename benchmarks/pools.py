"""Benchmark of pools of many bots: keeping bots alive between matches (``keep_bots``) or not.

Run it from the repository with the venv's Python::

    python benchmarks/pools.py                  # 40 bots, then 100 bots, with reuse
    python benchmarks/pools.py --bots 40 --off  # also time reuse off (about 800 s for 40)
    python benchmarks/pools.py --cluster local:2  # on a Dask cluster (here: 2 workers)

Each bot is its own copy of a Python bot that sleeps ``--start-s`` (1 s) before ``ready`` and
then answers at once (X in the first empty cell); it asks for the ``match`` extension (it has
nothing to reset at ``match``), as a user's bot that supports reuse does. The tournament is a
round robin, one game per ordered pairing (N x (N - 1) games in N x (N - 1) / 2 matches), on
``--workers`` (2) workers; each figure is the whole ``arena tournament CONFIG --quiet --fresh``
command, timed from spawn to exit. With ``keep_bots: false`` every match starts its two bots
(about 1 s per match per worker); with ``keep_bots: auto`` (the default), each worker starts each
bot about once. With ``--cluster`` the matches run on that Dask cluster instead (its workers
keep the bots alike), the bots under bubblewrap as a cluster requires.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from support import arena_command, run, say, section, table

BOT = '''"""A bot that takes START_S seconds to start, then answers every turn at once."""
import os
import sys
import time

time.sleep({start_s})
for line in iter(sys.stdin.buffer.readline, b""):
    words = line.split() or [b""]
    if words[0] == b"arena":
        sys.stdout.buffer.write(b"want match\\nready p%s\\n" % os.urandom(6).hex().encode())
    elif words[0] == b"turn":
        cell = words[1].index(b".")
        sys.stdout.buffer.write(f"{{'abcdef'[cell % 6]}}{{cell // 6 + 1}}X\\n".encode())
    elif words[0] == b"quit":
        break
    sys.stdout.buffer.flush()
'''


def config(folder: Path, bots: int, start_s: float, keep: bool) -> Path:
    """A round robin of ``bots`` sleepy bots, each in a folder of its own."""
    lines = []
    for i in range(bots):
        home = folder / f"b{i:03d}"
        home.mkdir(exist_ok=True)
        (home / "main.py").write_text(BOT.format(start_s=start_s))
        lines.append(f"  - {{name: b{i:03d}, path: {home}}}\n")
    path = folder / f"pool{bots}-{'keep' if keep else 'fresh'}.yaml"
    path.write_text(
        "name: bench-pools\n"
        "bots:\n" + "".join(lines) + "games_per_pairing: 1\n"
        "time_control: {move_ms: 1000, startup_ms: 10000}\n"
        "seed: 1\n"
        f"keep_bots: {'auto' if keep else 'false'}\n"
        f"db: {folder / 'results.sqlite'}\n"
    )
    return path


def timed(arena: str, path: Path, workers: int, cluster: str | None) -> float:
    argv = [arena, "tournament", str(path), "--quiet", "--fresh"]
    if cluster is not None:
        argv += ["--cluster", cluster]
    else:
        argv += ["--workers", str(workers), "--force-workers"]
    wall = run(argv).wall
    say(f"    bot processes started: {started(path.parent / 'results.sqlite')}")
    return wall


def started(db: Path) -> int:
    """The bot processes that played (each names itself at random in its ``ready``)."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT order_display FROM games UNION SELECT chaos_display FROM games"
        ).fetchall()
    return len(rows)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, action="append", help="pool sizes (default 40, 100)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--start-s", type=float, default=1.0)
    parser.add_argument("--off", action="store_true", help="also time keep_bots: false")
    parser.add_argument("--only-off", action="store_true", help="time keep_bots: false only")
    parser.add_argument("--cluster", help="a Dask cluster (tcp://HOST:PORT or local:N)")
    args = parser.parse_args(argv)
    arena = arena_command()
    rows = []
    with tempfile.TemporaryDirectory(prefix="arena-pools-") as tmp:
        for bots in args.bots or [40, 100]:
            folder = Path(tmp) / str(bots)
            folder.mkdir()
            matches = bots * (bots - 1) // 2
            where = args.cluster or f"{args.workers} workers"
            section(f"{bots} bots, {matches} matches, {2 * matches} games, {where}")
            keep = None
            if not args.only_off:
                keep = timed(
                    arena, config(folder, bots, args.start_s, True), args.workers, args.cluster
                )
                say(f"  keep_bots auto:  {keep:.1f} s")
            fresh = None
            if args.off or args.only_off:
                fresh = timed(
                    arena, config(folder, bots, args.start_s, False), args.workers, args.cluster
                )
                say(f"  keep_bots false: {fresh:.1f} s")
            rows.append(
                (
                    bots,
                    2 * matches,
                    f"{keep:.1f}" if keep is not None else "-",
                    f"{fresh:.1f}" if fresh is not None else "-",
                    f"{fresh / keep:.1f}x" if fresh is not None and keep is not None else "-",
                )
            )
    say(table(rows, ("bots", "games", "auto (s)", "false (s)", "speed-up")))


if __name__ == "__main__":
    sys.exit(main())
