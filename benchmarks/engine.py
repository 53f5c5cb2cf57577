"""Speed of the bots' engine (``arena.botlib.engine``) against the public ``arena.rules.Board``.

Run it from the repository with the Python that has ``arena`` installed::

    python benchmarks/engine.py            # about 20 s
    python benchmarks/engine.py --quick    # about 6 s

Everything is measured in one run, side by side: each measurement is repeated in interleaved
rounds (3, or 2 with ``--quick``) and the best round is kept, on both sides of every ratio. One
core, one process. Times are the process's CPU time (``time.process_time``), so that the figures
hold on a machine shared with other work (the wall time of a loaded machine would understate them).

What each line means:

1. **Random playouts per second**, from the empty board to the end of the game (five, or a full
   board), every move uniformly random among the legal moves:

   - *Board API*: ``Board.legal_moves()`` every ply (a list of up to 72 ``Move``), ``rng.choice``,
     ``Board.push`` (which checks the windows through the cell), until ``is_game_over()``;
   - *engine, move by move* (``engine.random_game``): two ints, a scratch list of empty cells
     (swap-remove), one random draw per ply, the windows through the cell checked for five; the
     game's length is known;
   - *engine, whole-board* (``engine.random_winner_count``): a uniformly random game ends in five
     exactly when the board filled with the same random marks holds five (marks are never removed;
     the order of the cells does not matter), so a playout is one ``getrandbits(36)`` and one
     bit-parallel five check. Same distribution of winners as the other two (the last column
     shows Order's share; the property tests check it), not the game's length;
   - the ratio of each engine loop to the Board API loop (target: at least 10x).

   Also *heuristic playouts* (``engine.smart_game``: Order takes a five, Chaos blocks a lone
   four, each side writes a sensible mark in a random cell; it stops once no window is live),
   which ``mcts`` played before it scored its leaves with the evaluation instead.

2. **The win check**: the cost of asking "did this move make five?" after a move, in ns: in
   ``Board.push`` (``push`` + ``pop`` of a move, minus nothing: the whole public call), the
   engine's ``five_through`` (the windows through the cell), and the engine's whole-board
   ``has_five`` (both marks, all 32 windows at once).

3. **Alpha-beta nodes per second** (``arena.botlib.alphabeta.Searcher``, as the ``alphabeta`` bot
   searches): a fixed node budget from a few positions (the empty board and positions after 6 and
   12 random moves), nodes counted at every visited position including leaves; with the plain
   window sum at the leaves, and with the leaves read for threats (``threat_eval``: fours,
   double-four cells, wins by up to 3 fours) as the bot does as Order, about twice as dear.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from arena.botlib import engine
from arena.botlib.alphabeta import Searcher
from arena.rules import Board, Move


def board_playouts(n: int, rng: random.Random) -> tuple[float, float]:
    """(seconds, Order's share) for ``n`` random games through the public Board API."""
    start = time.process_time()
    wins = 0
    for _ in range(n):
        board = Board()
        while not board.is_game_over():
            board.push(rng.choice(board.legal_moves()))
        wins += board.has_five()
    return time.process_time() - start, wins / n


def engine_games(n: int, rng: random.Random) -> tuple[float, float]:
    start = time.process_time()
    wins = 0
    game = engine.random_game
    for _ in range(n):
        wins += game(0, 0, rng) < 0
    return time.process_time() - start, wins / n


def engine_fill(n: int, rng: random.Random) -> tuple[float, float]:
    start = time.process_time()
    wins = engine.random_winner_count(0, 0, n, rng)
    return time.process_time() - start, wins / n


def heuristic_games(n: int, rng: random.Random) -> tuple[float, float]:
    start = time.process_time()
    wins = 0
    game = engine.smart_game
    for _ in range(n):
        wins += game(0, 0, True, rng) < 0
    return time.process_time() - start, wins / n


def win_checks(n: int, rng: random.Random) -> dict[str, float]:
    """ns per win check, over positions of random games (a move into an empty cell)."""
    samples: list[tuple[Board, Move]] = []
    while len(samples) < 200:
        board = Board()
        for _ in range(rng.randrange(4, 30)):
            move = rng.choice(board.legal_moves())
            if board.push(move):
                break
        if board.is_game_over():
            continue
        samples.append((board, rng.choice(board.legal_moves())))
    reps = max(1, n // len(samples))
    start = time.process_time()
    for board, move in samples:
        push, pop = board.push, board.pop
        for _ in range(reps):
            push(move)
            pop()
    t_board = time.process_time() - start
    start = time.process_time()
    for board, move in samples:
        bits = board.bits[move.mark] | 1 << move.cell
        cell = move.cell
        five = engine.five_through
        for _ in range(reps):
            five(bits, cell)
    t_through = time.process_time() - start
    start = time.process_time()
    for board, _move in samples:
        x, o = board.bits
        has = engine.has_five
        for _ in range(reps):
            has(x, o)
    t_whole = time.process_time() - start
    count = reps * len(samples)
    return {
        "Board.push + pop": t_board / count * 1e9,
        "engine.five_through": t_through / count * 1e9,
        "engine.has_five (whole board)": t_whole / count * 1e9,
    }


def alphabeta_nodes(
    budget: int, rng: random.Random, threat_leaves: bool = False
) -> tuple[float, int]:
    """(seconds, nodes) of alpha-beta searches with ``budget`` nodes from a few positions; with
    ``threat_leaves`` the leaves are evaluated as the ``alphabeta`` bot's Order does."""
    positions = [(0, 0)]
    while len(positions) < 3:
        board = Board()
        for _ in range(6 * len(positions)):
            board.push(rng.choice(board.legal_moves()))
        if not board.is_game_over() and not any(engine.threats(*board.bits)):
            positions.append((board.bits[0], board.bits[1]))
    seconds = 0.0
    nodes = 0
    for x, o in positions:
        searcher = Searcher(random.Random(1))
        searcher.beam = 8  # as the alphabeta bot plays Order
        searcher.tiers = True
        if threat_leaves:
            searcher.leaf_threats = True
            searcher.leaf_vcf = 3
        start = time.process_time()
        result = searcher.best_move(x, o, time.monotonic() + 60.0, max_nodes=budget)
        seconds += time.process_time() - start
        nodes += result.nodes
    return seconds, nodes


def best_of(rounds: int, run: Callable[[], tuple[float, float]]) -> tuple[float, float]:
    results = [run() for _ in range(rounds)]
    return min(results, key=lambda r: r[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller counts (about 6 s)")
    args = parser.parse_args()
    scale = 1 if args.quick else 3
    rounds = 2 if args.quick else 3
    rng = random.Random(2026)
    n_board = 400 * scale
    n_games = 4000 * scale
    n_fill = 100_000 * scale
    n_heur = 3000 * scale
    best: dict[str, tuple[float, float]] = {}
    for _ in range(rounds):  # interleaved rounds, best of each kept
        for name, run, n in (
            ("Board API (legal_moves every ply)", board_playouts, n_board),
            ("engine, move by move (random_game)", engine_games, n_games),
            ("engine, whole-board (random_winner_count)", engine_fill, n_fill),
            ("engine, heuristic playouts (smart_game)", heuristic_games, n_heur),
        ):
            seconds, share = run(n, rng)
            rate = n / seconds
            if name not in best or rate > best[name][0]:
                best[name] = (rate, share)
    base = best["Board API (legal_moves every ply)"][0]
    print(f"Random playouts from the empty board (CPU time, one core; best of {rounds} rounds)")
    print(f"  {'loop':<44} {'playouts/s':>12} {'x Board':>8} {'Order wins':>11}")
    for name, (rate, share) in best.items():
        print(f"  {name:<44} {rate:>12,.0f} {rate / base:>7.1f}x {share:>10.1%}")
    target = best["engine, move by move (random_game)"][0]
    print(
        f"  target: >= 10x the Board API and >= 25,000/s move by move: "
        f"{'met' if target >= 10 * base and target >= 25_000 else 'NOT met'} "
        f"({target / base:.1f}x, {target:,.0f}/s)"
    )
    checks: dict[str, float] = {}
    for _ in range(rounds):
        for key, value in win_checks(20_000 * scale, rng).items():
            checks[key] = min(value, checks.get(key, value))
    print("Win check after a move (ns per call)")
    for key, value in checks.items():
        print(f"  {key:<44} {value:>8.0f} ns")
    budget = 4000 * scale
    ab_best = [0.0, 0.0]
    for _ in range(rounds):
        for i, threat_leaves in enumerate((False, True)):
            seconds, nodes = alphabeta_nodes(budget, rng, threat_leaves)
            ab_best[i] = max(ab_best[i], nodes / seconds)
    print("Alpha-beta nodes per second (the alphabeta bot's search: tiers, beam 8)")
    print(f"  {'window-sum leaves':<44} {ab_best[0]:>12,.0f}")
    print(f"  {'threat leaves (as the bot plays Order)':<44} {ab_best[1]:>12,.0f}")


if __name__ == "__main__":
    main()
