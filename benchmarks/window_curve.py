"""Fit and compare ``mcts``'s two value curves (``arena.botlib.mcts``) on the same positions.

Why: ``order_win_probability`` reads a position through one number, ``threat_eval``; as Chaos
the search needs to tell apart moves whose evaluations are close, and the shape of the live
windows (how many hold 1, 2, 3 marks of one kind, how many are left) says more. This plays
``--games`` games (game ``g`` seeded ``g``: ``heuristic``'s ``one_ply`` for Order; for Chaos its
two-ply ``one_ply(replies=3)``; each of the first four plies ``p`` a random move with probability
``(4 - p) / 5``), labels every position the threats do not decide with the result, fits both
curves by maximum likelihood on the even games and prints their log-loss on the odd ones (held
out) and the window curve's weights (``WINDOW_VALUE_WEIGHTS``). Run it from the repository::

    python benchmarks/window_curve.py --games 1000     # about 60 s of CPU
"""

from __future__ import annotations

import argparse
import math
import random

import numpy as np
from mcts_value import fit

from arena.botlib.alphabeta import WIN, threat_eval
from arena.botlib.engine import FULL_MASK, has_five
from arena.botlib.heuristic import one_ply
from arena.botlib.mcts import WINDOW_VALUE_WEIGHTS, window_features


def games(count: int, start: int = 0) -> list[tuple[int, list[tuple[int, int, int]], bool]]:
    """``(seed, positions (x, o, threat_eval), Order won)`` for each game."""
    out = []
    for g in range(start, start + count):
        rng = random.Random(g)
        x = o = 0
        seen: list[tuple[int, int, int]] = []
        while not has_five(x, o) and (x | o) != FULL_MASK:
            ply = (x | o).bit_count()
            e = threat_eval(x, o)
            if 0 <= e < WIN // 2:
                seen.append((x, o, e))
            if ply < rng.randint(0, 4):  # ply p < 4: random with probability (4 - p) / 5
                free = [c for c in range(36) if not (x | o) >> c & 1]
                cell, mark = rng.choice(free), rng.getrandbits(1)
            else:
                cell, mark = one_ply(x, o, rng, replies=0 if ply % 2 == 0 else 3)
            if mark:
                o |= 1 << cell
            else:
                x |= 1 << cell
        out.append((g, seen, has_five(x, o)))
    return out


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    return -float(np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    args = parser.parse_args()
    data = games(args.games)
    parts = {}
    for name, keep in (("fit", 0), ("held out", 1)):
        rows = [(x, o, e, won) for g, seen, won in data if g % 2 == keep for x, o, e in seen]
        feats = np.array([window_features(x, o, e) for x, o, e, _ in rows])
        labels = np.array([float(won) for *_, won in rows])
        parts[name] = (feats, labels)
    feats, labels = parts["fit"]
    threat_cols = [0, 5, 6, 7]  # ln(1 + e), ply, Order to move, 1: the threat curve's features
    w_threat, loss_threat = fit(feats[:, threat_cols], labels)
    w_window, loss_window = fit(feats, labels)
    test_feats, test_labels = parts["held out"]
    p_threat = 1 / (1 + np.exp(-test_feats[:, threat_cols] @ w_threat))
    p_window = 1 / (1 + np.exp(-test_feats @ w_window))
    print(f"{len(labels)} positions to fit, {len(test_labels)} held out ({args.games} games)")
    for name, loss, p in (("threat", loss_threat, p_threat), ("window", loss_window, p_window)):
        held = log_loss(p, test_labels)
        print(f"{name} curve: log-loss {loss:.3f} fitted, {held:.3f} held out")
    print(f"(a coin: {math.log(2):.3f})")
    print("WINDOW_VALUE_WEIGHTS =", tuple(round(float(v), 4) for v in w_window))
    print("in use:", WINDOW_VALUE_WEIGHTS)


if __name__ == "__main__":
    main()
