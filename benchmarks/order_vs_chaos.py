"""The ladder's searching Orders against each ladder Chaos, side by side (issue 25).

Run it from the repository with the Python that has ``arena`` installed::

    python benchmarks/order_vs_chaos.py                          # 20 games a pairing, 100 ms
    python benchmarks/order_vs_chaos.py --games 40 --seed 2 --jobs 2
    python benchmarks/order_vs_chaos.py --orders mcts --chaoses alphabeta perfect --games 10

Why: in ``tournaments/ladder.yaml`` the per-role ratings put ``alphabeta``'s Order above
``mcts``'s; this measures the two Orders on the same games, without a tournament's clock, to see
where each loses and whether a change to one of them helps.

How: every game is played in this process (``benchmarks/ladder_vs_refs.py``'s ``play``), each
bot's deadline far away, so that only its work budget for ``--ms`` counts and each game is an
exact function of its seeds, whatever the load (``perfect`` too: as Chaos it plays ``mcts``'s
budgeted search). For each Order in ``--orders`` and each Chaos in ``--chaoses``, ``--games``
games from the empty board (game ``i``: Order seeded ``seed * 1000 + i``, Chaos ``seed * 1000 +
500 + i``) and as many from the tournaments' random 2-ply openings
(``arena.tournament.schedule.opening_for(seed, i, 2)``, the openings of ``ladder_vs_refs.py``),
printing Order's wins per pairing and the totals per Order, side by side, and the openings of the
games each Order lost (to replay them).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from ladder_vs_refs import Bundled, Result, play  # noqa: E402

from arena.tournament.schedule import opening_for  # noqa: E402

ORDERS = ("alphabeta", "mcts")
CHAOSES = ("greedy", "heuristic", "alphabeta", "mcts", "perfect")
STARTS = ("empty", "2-ply")


def unclocked(name: str, ms: int) -> Bundled:
    """A bundled bot on its work budget alone (``perfect`` included: its deadline far away)."""
    bot = Bundled(name, ms)
    bot.clocked = False
    return bot


def pairing(
    task: tuple[str, str, str, int, int, int],
) -> tuple[str, str, str, list[tuple[tuple[str, ...], Result]]]:
    """``games`` games of ``order`` against ``chaos`` from ``start`` (``empty`` or ``2-ply``)."""
    order_name, chaos_name, start, games, seed, ms = task
    order, chaos = unclocked(order_name, ms), unclocked(chaos_name, ms)
    results = []
    for i in range(games):
        opening = opening_for(seed, i, 2) if start == "2-ply" else ()
        seeds = (seed * 1000 + i, seed * 1000 + 500 + i)
        results.append((opening, play(order, chaos, opening, seeds)))
    return order_name, chaos_name, start, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--orders", nargs="*", default=list(ORDERS))
    parser.add_argument("--chaoses", nargs="*", default=list(CHAOSES))
    parser.add_argument("--starts", nargs="*", default=list(STARTS), choices=STARTS)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ms", type=int, default=100, help="the bots' move time (work budget)")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    tasks = [
        (order, chaos, start, args.games, args.seed, args.ms)
        for start in args.starts
        for chaos in args.chaoses
        for order in args.orders
    ]
    print(
        f"{len(tasks)} pairings x {args.games} games, seed {args.seed}, {args.ms} ms "
        "(work budgets), in-process",
        flush=True,
    )
    started = time.monotonic()
    wins: dict[tuple[str, str, str], int] = {}
    lost: dict[str, list[str]] = {order: [] for order in args.orders}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for order, chaos, start, results in pool.map(pairing, tasks):
            wins[order, chaos, start] = sum(r.order_won for _, r in results)
            for i, (opening, r) in enumerate(results):
                if not r.order_won:
                    lost[order].append(f"{chaos} {start} #{i} {' '.join(opening) or '-'}")
            print(
                f"  {order:>9} (Order) vs {chaos:<9} {start:>5}: "
                f"{wins[order, chaos, start]:>3}/{len(results)}",
                flush=True,
            )
    print(f"({time.monotonic() - started:.0f} s)\n")
    print("Order's wins, of " + str(args.games) + " games a cell:")
    heads = ["Chaos", *(f"{o} {s}" for s in args.starts for o in args.orders)]
    print("| " + " | ".join(heads) + " |")
    print("|" + "---|" * len(heads))
    for chaos in args.chaoses:
        cells = [str(wins[o, chaos, s]) for s in args.starts for o in args.orders]
        print(f"| {chaos} | " + " | ".join(cells) + " |")
    total = len(args.chaoses) * args.games
    cells = [
        f"{sum(wins[o, c, s] for c in args.chaoses)}/{total}"
        for s in args.starts
        for o in args.orders
    ]
    print("| all | " + " | ".join(cells) + " |")
    for order in args.orders:
        print(f"\n{order} lost ({len(lost[order])}):")
        for line in lost[order]:
            print(f"  {line}")


if __name__ == "__main__":
    main()
