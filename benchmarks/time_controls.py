"""The cost per ply of each time control, side by side: ``measure: wall`` against ``measure: cpu``
(one read of the bot's process-tree CPU clock per move), a game clock, and ``freeze_idle``.

Run it from the repository::

    python benchmarks/time_controls.py [--games 300] [--rounds 5]

Everything runs in this process, pinned to one core with its bots, with ``sandbox none``, against
the C instant bot (built by ``support.compile_bots``), so that what differs between the rows is
the referee's own work per ply. Rounds are interleaved and the best of them is kept.
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

CLOCK = {"clock_ms": 60000, "increment_ms": 500}
CONTROLS = {
    "wall, move_ms (default)": (TimeControl(move_ms=1000), False),
    "wall, clock 60+0.5": (TimeControl(**CLOCK), False),
    "cpu, move_ms": (TimeControl(move_ms=1000, measure=Measure.CPU), False),
    "cpu, clock 60+0.5": (
        TimeControl(clock_ms=60000, increment_ms=500, measure=Measure.CPU),
        False,
    ),
    "wall + freeze_idle": (TimeControl(move_ms=1000), True),
}


def us_per_ply(spec: BotSpec, tc: TimeControl, freeze: bool, games: int) -> float:
    """Microseconds per ply of ``games`` games of Match.play (the bots started before timing)."""
    settings = MatchSettings(time_control=tc, sandbox=SandboxMode.NONE, freeze_idle=freeze)
    with Match(spec, spec.renamed("other"), settings, expected_games=games + 1) as match:
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
    instant = compile_bots()["instant"]
    spec = BotSpec.from_path(instant, "instant")
    best: dict[str, float] = {}
    for _ in range(args.rounds):
        for name, (tc, freeze) in CONTROLS.items():
            cost = us_per_ply(spec, tc, freeze, args.games)
            best[name] = min(best.get(name, cost), cost)
    base = best["wall, move_ms (default)"]
    rows = [
        (name, f"{us:.1f}", f"{us - base:+.1f}", f"{us / base:.2f}x") for name, us in best.items()
    ]
    print(f"{args.games} games x {args.rounds} rounds, C instant bot, sandbox none, one core")
    print(table(rows, ("time control", "us/ply", "vs wall", "ratio")))


if __name__ == "__main__":
    main()
