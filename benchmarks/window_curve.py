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

``--searched`` takes the positions from games against searching Orders instead (issue 25):
``alphabeta``'s Order on its work budgets for 3, 5 and 10 ms (``--order-ms``; Order wins 60-90%
of them) against ``mcts``'s Chaos at 100 ms with the weights in use, ``--games`` games per budget
from the tournaments' 2-ply openings (game ``g``: ``opening_for(77, g, 2)``, Order seeded
``7000 + g``, Chaos ``9000 + g``), in-process on the bots' work budgets::

    python benchmarks/window_curve.py --searched --games 1000 --jobs 2   # about 5 min

Tried and left out. On these games the weights in use score a log-loss of 0.719, worse than the
base rate's 0.601. A fit on them scores 0.496, and a second round (games played with that fit)
scores 0.547. With the second round's weights, used from the first mark on,
``chaos_survival.py`` gave these results (100 ms, in-process):
- against ``ref_ab3w4``'s Order (tuned), seeds 1-10: 28.5 plies instead of 27.4, 105 wins of 200
  instead of 86;
- against the held-out Orders, seed 1: 31 wins of 80 instead of 38 (``ref_ab3w2`` 2 instead
  of 4, ``ref_mc10k`` 11 instead of 15, ``ref_patorder`` 15 instead of 17, ``ref_ab4w4`` 3 instead
  of 2 and ``ref_ab4w2`` 0 of 10 in both);
- at 300 ms against ``ref_ab3w4``, seeds 1-4: 27.9 plies instead of 29.7.

The fit tuned the curve to ``alphabeta``'s kind of Order, and the held-out references caught it.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from mcts_value import fit

from arena.botlib.alphabeta import WIN, threat_eval
from arena.botlib.engine import FULL_MASK, has_five
from arena.botlib.heuristic import one_ply
from arena.botlib.mcts import WINDOW_VALUE_WEIGHTS, window_features

Game = tuple[int, list[tuple[int, int, int]], bool]
"""``(game number, positions (x, o, threat_eval) the threats do not decide, Order won)``."""


def note_position(seen: list[tuple[int, int, int]], x: int, o: int) -> None:
    """Add ``(x, o, threat_eval)`` to ``seen`` unless the threats already decide the position:
    the positions both kinds of games fit the curves on."""
    e = threat_eval(x, o)
    if 0 <= e < WIN // 2:
        seen.append((x, o, e))


def games(count: int, start: int = 0) -> list[Game]:
    """``(seed, positions (x, o, threat_eval), Order won)`` for each game."""
    out = []
    for g in range(start, start + count):
        rng = random.Random(g)
        x = o = 0
        seen: list[tuple[int, int, int]] = []
        while not has_five(x, o) and (x | o) != FULL_MASK:
            ply = (x | o).bit_count()
            note_position(seen, x, o)
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


def searched_games(task: tuple[int, int, int]) -> list[Game]:
    """Games ``start`` to ``start + count - 1`` of ``alphabeta``'s Order on its work budget for
    ``order_ms`` against ``mcts``'s Chaos at 100 ms (see the module's docstring)."""
    start, count, order_ms = task
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from ladder_vs_refs import Bundled, play

    from arena.rules import Board
    from arena.tournament.schedule import opening_for

    order, chaos = Bundled("alphabeta", order_ms), Bundled("mcts", 100)
    out = []
    for g in range(start, start + count):
        seen: list[tuple[int, int, int]] = []

        def record(board: Board, seen: list[tuple[int, int, int]] = seen) -> None:
            note_position(seen, *board.bits)

        result = play(order, chaos, opening_for(77, g, 2), (7000 + g, 9000 + g), record)
        out.append((g, seen, result.order_won))
    return out


def searched(count: int, budgets: list[int], jobs: int) -> list[Game]:
    """``count`` games for each budget of ``budgets``, spread over ``jobs`` processes."""
    chunk = 25
    tasks = [(g, min(chunk, count - g), ms) for ms in budgets for g in range(0, count, chunk)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return [game for part in pool.map(searched_games, tasks) for game in part]


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    return -float(np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--searched", action="store_true", help="games against searching Orders")
    parser.add_argument("--order-ms", nargs="*", type=int, default=[3, 5, 10])
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    data = searched(args.games, args.order_ms, args.jobs) if args.searched else games(args.games)
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
    won = sum(g[2] for g in data)
    print(
        f"{len(labels)} positions to fit, {len(test_labels)} held out ({len(data)} games, "
        f"Order won {won})"
    )
    for name, loss, p in (("threat", loss_threat, p_threat), ("window", loss_window, p_window)):
        held = log_loss(p, test_labels)
        print(f"{name} curve: log-loss {loss:.3f} fitted, {held:.3f} held out")
    print(f"(a coin: {math.log(2):.3f})")
    print("WINDOW_VALUE_WEIGHTS =", tuple(round(float(v), 4) for v in w_window))
    in_use = np.clip(test_feats @ np.array(WINDOW_VALUE_WEIGHTS), -30.0, 30.0)
    held = log_loss(1 / (1 + np.exp(-in_use)), test_labels)
    print(f"in use: {WINDOW_VALUE_WEIGHTS}, log-loss {held:.3f} held out")


if __name__ == "__main__":
    main()
