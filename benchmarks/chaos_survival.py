"""How long the bundled Chaos lasts against the references' Orders (issue 25), and nothing else.

Run it from the repository with the Python that has ``arena`` installed::

    python benchmarks/chaos_survival.py --bots mcts perfect --refs ref_ab3w4 --seeds 1 2 --games 20

Why: ``benchmarks/ladder_vs_refs.py`` plays every pairing in both roles; while working on a
Chaos only the reference's Order against the bundled Chaos matters. This plays exactly those
games of it (its ``pairing``: the same openings ``opening_for(seed, i, 2)``, the same seeds, so the
figures agree with its table) and prints, per reference and bundled Chaos, the Chaos's wins and
the mean length of its games (wins count 36: the issue's "plies survived"), per seed and in all.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

from ladder_vs_refs import pairing, plies_survived


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", nargs="*", default=["mcts", "perfect"])
    parser.add_argument("--refs", nargs="*", default=["ref_ab3w4"])
    parser.add_argument("--seeds", nargs="*", type=int, default=[1])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--ms", type=int, default=100, help="the bundled bots' move time")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    tasks = [
        (ref, bot, args.games, seed, args.ms)
        for ref in args.refs
        for bot in args.bots
        for seed in args.seeds
    ]
    started = time.monotonic()
    total: dict[tuple[str, str], list[float]] = {}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for (ref, bot, games, seed, _), (_, _, results) in zip(
            tasks, pool.map(pairing, tasks), strict=True
        ):
            wins = sum(not r.order_won for r in results)
            plies = plies_survived(results)
            entry = total.setdefault((ref, bot), [0, 0, 0.0])
            entry[0] += wins
            entry[1] += games
            entry[2] += plies * games
            print(
                f"  {ref} Order vs {bot} Chaos, seed {seed}: Chaos won {wins}/{games}, "
                f"plies {plies:.1f}",
                flush=True,
            )
    print(f"({time.monotonic() - started:.0f} s)")
    for (ref, bot), (wins, games, plies) in total.items():
        print(f"{ref} Order vs {bot} Chaos: Chaos won {wins}/{games}, plies {plies / games:.1f}")


if __name__ == "__main__":
    main()
