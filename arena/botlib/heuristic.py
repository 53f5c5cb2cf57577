"""A static evaluation of a position with its threats, and the one-ply search of ``heuristic``.

The evaluation (Order's point of view) adds, over the live windows (those holding one kind of
mark), ``WEIGHTS[k]`` for a window with ``k`` marks, and then looks at the threats:

- Order to move with a four on the board wins (``WIN``);
- Chaos to move facing two fours, or one cell that completes five for both marks, has lost;
  facing one four, it must block it: the block is played and the position after it evaluated;
- Order to move with a win by successive fours (``Searcher.vcf``, up to ``VCF_DEPTH`` fours,
  each answered by its only block) has won (``WIN // 2``);
- a *double-four cell* (an empty cell shared by two live windows holding three marks of the same
  kind) lets the side that writes that mark there make two fours at once. With Order to move, one
  such cell is a win (``WIN // 2``: found, not yet played); with Chaos to move, Chaos can spoil
  one of them, so two are a win and one is worth ``DOUBLE_FOUR``.

The one-ply search (``one_ply``) scores each move by that evaluation; as Chaos (the position after
its move has Order to move) it adds Order's best *gain* there, the most one Order move can add to
the window sum (``Searcher.children``' ordering key: extending the fullest windows, a bonus for a
four). A one-ply Chaos that looks only at the sum kills the fullest window and leaves Order a cell
that extends several windows at once; with the reply's gain it spoils those cells first (measured
over 200 games against ``greedy``'s Order at 100 ms: Order won 124 instead of ~160). Ties, above all
between moves the threats call lost, go to the move's own gain: a side that sees its game lost
still makes the opponent find the win.
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
