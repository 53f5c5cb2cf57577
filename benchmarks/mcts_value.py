"""Refit the value curve of the ``mcts`` bot (``arena.botlib.mcts.VALUE_WEIGHTS``).

Why: ``mcts`` scores a new position by ``threat_eval`` (a window sum that grows eightfold per
mark, with the threats read one step on), turned into Order's chance to win by a logistic curve
``1 / (1 + exp(-z))``, ``z = a * ln(1 + e) + b * ply + c * [Order to move] + d``. This script
produces those four numbers: it plays ``--games`` games of the ``heuristic`` bot against itself
(game ``g`` seeded with ``g``; each of its first four plies ``p`` is a uniformly random move
with probability ``(4 - p) / 5``, so that the data holds openings from the empty board as well
as scattered ones; then ``one_ply`` for both sides), takes every position on the way that the
threats do not already decide, labels it with the game's result, and fits the curve by maximum
likelihood (Newton's method). Run it from the repository::

    python benchmarks/mcts_value.py [--games 400]

It prints the weights, the log-loss of the fit and, for comparison, of a fit on the evaluation
alone, and the weights in use. About 15 s for 400 games.
"""

from __future__ import annotations

import argparse
import math
import random

import numpy as np

from arena.botlib.alphabeta import WIN, threat_eval
from arena.botlib.engine import FULL_MASK, has_five
from arena.botlib.heuristic import one_ply
from arena.botlib.mcts import VALUE_WEIGHTS


def positions(games: int) -> list[tuple[int, int, bool]]:
    """``(threat_eval, ply, Order won)`` for every undecided position of the self-play games."""
    rows: list[tuple[int, int, bool]] = []
    for g in range(games):
        rng = random.Random(g)
        x = o = 0
        seen: list[tuple[int, int]] = []
        while not has_five(x, o) and (x | o) != FULL_MASK:
            ply = (x | o).bit_count()
            e = threat_eval(x, o)
            if 0 <= e < WIN // 2:
                seen.append((e, ply))
            if ply < rng.randint(0, 4):  # ply p < 4: random with probability (4 - p) / 5
                free = [c for c in range(36) if not (x | o) >> c & 1]
                cell, mark = rng.choice(free), rng.getrandbits(1)
            else:
                cell, mark = one_ply(x, o, rng)
            if mark:
                o |= 1 << cell
            else:
                x |= 1 << cell
        won = has_five(x, o)
        rows.extend((e, ply, won) for e, ply in seen)
    return rows


def fit(features: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, float]:
    """Logistic regression by Newton's method: the weights and the mean log-loss."""
    w = np.zeros(features.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-features @ w))
        gradient = features.T @ (labels - p)
        hessian = (features * (p * (1 - p))[:, None]).T @ features
        w += np.linalg.solve(hessian + 1e-9 * np.eye(len(w)), gradient)
    p = 1.0 / (1.0 + np.exp(-features @ w))
    loss = -float(np.mean(labels * np.log(p + 1e-12) + (1 - labels) * np.log(1 - p + 1e-12)))
    return w, loss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    args = parser.parse_args()
    rows = np.array(positions(args.games), dtype=float)
    e, ply, won = rows[:, 0], rows[:, 1], rows[:, 2]
    log_e = np.log1p(e)
    one = np.ones_like(e)
    order_to_move = (ply % 2 == 0).astype(float)
    weights, loss = fit(np.c_[log_e, ply, order_to_move, one], won)
    _, loss_alone = fit(np.c_[log_e, one], won)
    print(f"{len(rows)} positions of {args.games} games; Order won {won.mean():.1%} of them")
    print("fitted (a, b, c, d):", tuple(round(float(v), 4) for v in weights))
    coin = math.log(2)
    print(f"log-loss {loss:.3f} (the evaluation alone: {loss_alone:.3f}; a coin: {coin:.3f})")
    print("in use:", VALUE_WEIGHTS)


if __name__ == "__main__":
    main()
