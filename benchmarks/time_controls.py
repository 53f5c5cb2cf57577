"""The cost per ply of each time control, side by side: the default (``measure: cpu`` with
``freeze_idle``) against wall time without freezing, a game clock, and each setting alone.

Run it from the repository::

    python benchmarks/time_controls.py [--games 300] [--rounds 5]

Everything runs in this process, pinned to one core with its bots, with ``sandbox none``. Two
pairs of C bots: two instant bots (every move quick: the referee reads no clock and freezes
nothing), and an instant bot against one that sleeps 3 ms a move (past ``QUICK_MS``: each of
its moves freezes its opponent and reads its own clocks), whose rows print what the freeze
costs per ply. Rounds are interleaved and the best of them is kept.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.dont_write_bytecode = True  # leave no __pycache__ beside the benchmarks

from support import compile_bots, table  # noqa: E402 - a script: its folder is on sys.path

from arena.botspec import BotSpec  # noqa: E402
from arena.limits import Measure, SandboxMode, TimeControl  # noqa: E402
from arena.referee import Match, MatchSettings  # noqa: E402

WALL = Measure.WALL
CLOCK = {"clock_ms": 60000, "increment_ms": 500}
CONTROLS = {
    "cpu + freeze_idle (default)": (TimeControl(move_ms=1000), True),
    "wall, no freeze": (TimeControl(move_ms=1000, measure=WALL), False),
    "cpu, no freeze": (TimeControl(move_ms=1000), False),
    "wall + freeze_idle": (TimeControl(move_ms=1000, measure=WALL), True),
    "cpu + freeze_idle, clock 60+0.5": (TimeControl(**CLOCK), True),
}
BASE = "wall, no freeze"


def us_per_ply(a: BotSpec, b: BotSpec, tc: TimeControl, freeze: bool, games: int) -> float:
    """Microseconds per ply of ``games`` games of Match.play (the bots started before timing)."""
    settings = MatchSettings(time_control=tc, sandbox=SandboxMode.NONE, freeze_idle=freeze)
    with Match(a, b, settings, expected_games=games + 1) as match:
        match.play(0)  # start-up is not a ply
        plies = 0
        started = time.perf_counter_ns()
        for i in range(games):
            plies += len(match.play(i & 1).moves)
        return (time.perf_counter_ns() - started) / 1000 / plies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})  # the bots inherit it: one core, as arena match pins
    built = compile_bots()
    instant = BotSpec.from_path(built["instant"], "instant")
    thinker = BotSpec.from_command([str(built["sleeper"]), "3"], "sleeper")
    pairs = {
        "instant": (instant, instant.renamed("other"), args.games),
        "3 ms": (thinker, instant, args.games // 10),
    }
    best: dict[tuple[str, str], float] = {}
    for _ in range(args.rounds):
        for pair, (a, b, games) in pairs.items():
            for name, (tc, freeze) in CONTROLS.items():
                cost = us_per_ply(a, b, tc, freeze, games)
                best[pair, name] = min(best.get((pair, name), cost), cost)
    rows = []
    for name in CONTROLS:
        quick, slow = best["instant", name], best["3 ms", name]
        base_quick, base_slow = best["instant", BASE], best["3 ms", BASE]
        rows.append(
            (
                name,
                f"{quick:.1f}",
                f"{quick / base_quick:.2f}x",
                f"{slow - base_slow:+.1f}",
            )
        )
    print(f"{args.games} games x {args.rounds} rounds, C bots, sandbox none, one core")
    columns = ("time control", "instant us/ply", f"vs {BASE}", "3 ms bot: us/ply vs base")
    print(table(rows, columns))


if __name__ == "__main__":
    main()
