"""A static evaluation of a position with its threats, and the one-ply search of ``heuristic``.

The evaluation (Order's point of view) sums ``WEIGHTS`` over the live windows and then reads the
threats one step on: fours, wins by successive fours, double-four cells. The one-ply search
(``one_ply``) scores each move by it; as Chaos it also charges a move with the most Order can gain
next (against ``greedy``'s Order: 124 Order wins of 200 instead of ~160). Ties go to the move's own
gain, so a side that sees its game lost still makes the opponent find the win. The threat rules:
``docs/bots.md``.
"""

from __future__ import annotations

import random

from arena.botlib import alphabeta
from arena.botlib.alphabeta import DOUBLE_FOUR, VCF_DEPTH, WEIGHTS, Searcher
from arena.botlib.engine import FULL_MASK, live_windows, threats

__all__ = ["WEIGHTS", "WIN", "DOUBLE_FOUR", "VCF_DEPTH", "evaluate", "one_ply"]

WIN = alphabeta.WIN


def evaluate(x: int, o: int) -> int:
    """The value of ``(x, o)`` for Order (side to move from the number of marks): see the
    module docstring; ``WIN // 2`` when the threats decide it for Order, ``-WIN`` when no
    live window is left."""
    return alphabeta.threat_eval(x, o)


def one_ply(x: int, o: int, rng: random.Random) -> tuple[int, int]:
    """The move ``(cell, mark)`` whose resulting position evaluates best for the side to move
    (Order maximises, Chaos minimises); ties broken with ``rng``."""
    occ = x | o
    order = not occ.bit_count() & 1
    tx, to = threats(x, o)
    t = tx | to
    if t:
        c = t.bit_length() - 1
        if order:  # five now
            return c, 0 if tx >> c & 1 else 1
        if not tx & to:  # the block of the (first) four: the opposite mark in its cell
            return c, 1 if tx >> c & 1 else 0
    live = live_windows(x, o)
    moves = Searcher.children(x, o, live, tx, to, 0)
    if not moves:  # Chaos, and every empty cell completes a five: lost anyway
        free = FULL_MASK & ~occ
        return (free & -free).bit_length() - 1, 0
    rng.shuffle(moves)
    best = moves[0]
    best_value = (0, 0)
    for i, m in enumerate(moves):
        # ties (above all between moves the threats call lost) go to the move's plain window
        # gain (``m[8]``): a side that sees its game lost still makes the opponent find the win
        value = (evaluate(m[3], m[4]), m[8])
        if not order and abs(value[0]) < WIN // 2:
            kids = Searcher.children(m[3], m[4], m[5], m[6], m[7], 0)
            if kids:
                value = (value[0] + max(k[0] for k in kids), value[1])
        if not order:
            value = (-value[0], -value[1])
        if i == 0 or value > best_value:
            best, best_value = m, value
    return best[1], best[2]
