"""Figures of the perfect Order player: the solver, the table, start-up, and games in-process.

Usage: ``python benchmarks/perfect.py [--games 1000] [--search-games 100]``

Prints the centre game's search (positions, nodes, time, table entries, the most Order moves),
the table file's size and load time, the bot's start-up time (process start to ``ready``), and
the strategy's record as Order from the empty board, in-process on ``arena.rules.Board``:
against a uniformly random Chaos (``--games``) and against perfect's own Chaos (``mcts``'s search)
(``--search-games``, its budget for 100 ms a move). The real-process check is
``arena match bots/perfect/main.py random --games 200``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from arena.botlib import solver
from arena.botlib.centre import CentreTable
from arena.botlib.perfect import PerfectOrder, chaos_move
from arena.rules import Board, Move, Role

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "bots" / "perfect" / "main.py"
TABLE = BOT.with_name("table.bin")

Chaos = Callable[[Board, random.Random], Move]


def random_chaos(board: Board, rng: random.Random) -> Move:
    return rng.choice(board.legal_moves())


def search_chaos(board: Board, rng: random.Random) -> Move:
    """perfect's own Chaos (``mcts``'s search) on a 100 ms move."""
    return chaos_move(board, rng, 100, time.monotonic() + 0.1)


def games(player: PerfectOrder, chaos: Chaos, count: int, label: str) -> None:
    wins = 0
    plies: list[int] = []
    reasons: Counter[str] = Counter()
    order_s: list[float] = []
    for seed in range(count):
        rng = random.Random(seed)
        board = Board()
        while not board.is_game_over():
            if board.turn is Role.ORDER:
                started = time.perf_counter()
                move = player.strategy_move(board, rng)
                order_s.append(time.perf_counter() - started)
                if move is None:
                    raise AssertionError(f"off the strategy:\n{board}")
                reasons[player.last_reason] += 1
            else:
                move = chaos(board, rng)
            board.push(move)
        wins += board.outcome is not None and board.outcome.winner is Role.ORDER
        plies.append(board.ply)
    print(
        f"as Order vs {label}: {wins}/{count} won; plies mean {statistics.mean(plies):.1f}, "
        f"max {max(plies)}; Order's move {statistics.mean(order_s) * 1e6:.0f} us mean, "
        f"{max(order_s) * 1e3:.2f} ms max; moves by {dict(reasons)}"
    )


def startup_s() -> float:
    times = []
    for _ in range(5):
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, str(BOT)], input=b"arena 1\nquit\n", capture_output=True, timeout=30
        )
        if not done.stdout.startswith(b"ready"):
            raise SystemExit(f"the bot did not start: {done.stderr.decode(errors='replace')}")
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--search-games", type=int, default=100)
    args = parser.parse_args()

    result = solver.solve(7)
    print(
        f"solver: Order {'wins' if result.won else 'does not win'} within 7 moves; "
        f"{result.positions:,} positions ({result.nodes:,} nodes) in {result.seconds:.1f} s; "
        f"table {len(result.table):,} entries, at most {result.max_order_moves} Order moves"
    )
    started = time.perf_counter()
    table = CentreTable.read(TABLE)
    load_ms = (time.perf_counter() - started) * 1e3
    print(
        f"table file: {TABLE.stat().st_size:,} bytes, {len(table):,} entries, "
        f"loads in {load_ms:.1f} ms"
    )
    print(f"bot start-up (process start to ready, median of 5): {startup_s() * 1e3:.0f} ms")
    player = PerfectOrder(table=table)
    player.warm()
    games(player, random_chaos, args.games, "random Chaos")
    if args.search_games:
        games(player, search_chaos, args.search_games, "perfect's own Chaos (mcts's search)")


if __name__ == "__main__":
    main()
