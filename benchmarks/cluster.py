"""Benchmark of the cluster executor against the local pool, side by side in one run.

Run it from the repository with the Python that has ``arena[cluster]`` installed::

    python benchmarks/cluster.py            # about two minutes on 2 cores
    python benchmarks/cluster.py --quick    # one round, smaller counts

Every figure is a whole ``arena tournament CONFIG --quiet --fresh`` command, timed from spawn to
exit, with the local pool (``--workers N``) and with ``--cluster local:N`` (a Dask LocalCluster of
N worker processes on this machine, started and stopped by the command), interleaved, best of
the rounds. The bots are copies of the C instant bot (``benchmarks/bots/instant.c``, full
36-ply games), so that the harness's own costs dominate: what a real bot spends thinking is the
same on either executor, and only adds to both.

1. **Fixed cost**: 2 bots, 1 game a side (one match): starting the executor (forking the pool;
   starting a scheduler and N workers, shipping the bots), playing 2 games, stopping.
2. **Per-match overhead**: 10 bots, 1 game a side (45 matches of 2 games: each match starts
   its two bots anew on either executor). (wall - fixed cost) / 44 per executor; the cluster's
   extra over the pool is a task's round trip through the scheduler and the pickling of its
   games, per match.
3. **Throughput**: 4 bots (6 pairings, both roles), 100 games a side per pairing (1,200
   games); games/s on 1 and 2 workers of each executor, whole command, and marginal (the games
   beyond a 120-game run of the same tournament, over the extra time: fixed costs cancel out),
   and the ratios cluster/local.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from support import arena_command, compile_bots, run, say, section, table


def config(folder: Path, bot: Path, bots: int, games_per_pairing: int) -> Path:
    names = [f"b{i}" for i in range(bots)]
    path = folder / f"t{bots}x{games_per_pairing}.yaml"
    path.write_text(
        "name: bench-cluster\n"
        "bots:\n" + "".join(f"  - {{name: {n}, path: {bot}}}\n" for n in names) + ""
        f"games_per_pairing: {games_per_pairing}\n"
        "time_control: {move_ms: 1000, startup_ms: 5000}\n"
        "seed: 1\n"
        f"db: {folder / 'results.sqlite'}\n"
    )
    return path


def timed(arena: str, config_path: Path, executor: str, workers: int, rounds: int) -> float:
    """Best wall time of the tournament on ``executor`` (``local`` or ``cluster``)."""
    argv = [arena, "tournament", str(config_path), "--quiet", "--fresh", "--workers", str(workers)]
    if executor == "cluster":
        argv += ["--cluster", f"local:{workers}"]
    return min(run(argv).wall for _ in range(rounds))


def side_by_side(arena: str, config_path: Path, workers: int, rounds: int) -> tuple[float, float]:
    """(local, cluster) best wall times, measured interleaved round by round."""
    local: list[float] = []
    cluster: list[float] = []
    for _ in range(rounds):
        local.append(timed(arena, config_path, "local", workers, 1))
        cluster.append(timed(arena, config_path, "cluster", workers, 1))
    return min(local), min(cluster)


def rate(games: int, seconds: float) -> float:
    """Games per second, or 0 when the difference of two noisy timings is not positive."""
    return games / seconds if seconds > 0 else 0.0


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one round, smaller counts")
    args = parser.parse_args(argv)
    rounds = 1 if args.quick else 2
    try:
        import distributed  # noqa: F401
    except ImportError:
        sys.exit("bench: the cluster executor needs Dask here: pip install -e '.[cluster]'")
    arena = arena_command()
    instant = compile_bots()["instant"]
    tmp = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    try:
        bot = tmp / "bot" / "instant"  # a folder of its own: what is packed and shipped
        bot.parent.mkdir()
        shutil.copy2(instant, bot)

        section("1. fixed cost: 2 bots, 1 game a side (one match)")
        fixed = {w: side_by_side(arena, config(tmp, bot, 2, 1), w, rounds) for w in (1, 2)}
        say(table(
            [(f"{w} worker{'s' * (w > 1)}", f"{lo:.2f}", f"{cl:.2f}", f"{cl - lo:+.2f}")
             for w, (lo, cl) in fixed.items()],
            ["", "local pool s", "cluster s", "cluster - local s"],
        ))  # fmt: skip

        section("2. per-match overhead: 10 bots, 1 game a side (45 matches of 2 games)")
        lo, cl = side_by_side(arena, config(tmp, bot, 10, 1), 2, rounds)
        per_lo = (lo - fixed[2][0]) / 44 * 1000  # 44 matches more than the fixed-cost run
        per_cl = (cl - fixed[2][1]) / 44 * 1000
        say(table(
            [("local pool, 2 workers", f"{lo:.2f}", f"{per_lo:.1f}"),
             ("cluster local:2", f"{cl:.2f}", f"{per_cl:.1f}"),
             ("cluster - local", f"{cl - lo:+.2f}", f"{per_cl - per_lo:+.1f}")],
            ["", "wall s", "ms per match (excl. fixed)"],
        ))  # fmt: skip

        gpp = 40 if args.quick else 100
        small = 10
        games, few = 2 * gpp * 6, 2 * small * 6
        section(
            f"3. throughput: 4 bots, {gpp} games a side per pairing ({games} games); marginal:"
            f" against the same with {small} ({few} games)"
        )
        rows = []
        for w in (1, 2):
            lo, cl = side_by_side(arena, config(tmp, bot, 4, gpp), w, rounds)
            lo_s, cl_s = side_by_side(arena, config(tmp, bot, 4, small), w, rounds)
            lo_x = rate(games - few, lo - lo_s)
            cl_x = rate(games - few, cl - cl_s)
            ratio = f"{cl_x / lo_x:.2f}" if lo_x and cl_x else "n/a"
            rows.append((
                f"{w} worker{'s' * (w > 1)}", f"{games / lo:.0f}", f"{games / cl:.0f}",
                f"{lo / cl:.2f}", f"{lo_x:.0f}" if lo_x else "n/a",
                f"{cl_x:.0f}" if cl_x else "n/a", ratio,
            ))  # fmt: skip
        say(table(rows, [
            "", "local g/s", "cluster g/s", "cluster/local",
            "local marginal g/s", "cluster marginal g/s", "cluster/local marginal",
        ]))  # fmt: skip
        say(f"best of {rounds} round(s), interleaved; C instant bots (36-ply games)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
