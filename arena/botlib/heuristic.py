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
"""

from __future__ import annotations

import random

from arena.botlib.alphabeta import Searcher
from arena.botlib.engine import CELL_WINDOWS, FULL_MASK, WINDOWS, live_windows, threats

__all__ = ["WEIGHTS", "WIN", "DOUBLE_FOUR", "evaluate", "one_ply"]

WEIGHTS = (0, 1, 8, 64, 512)
"""Value of a live window holding k marks of one kind: a window one mark closer to five outweighs
every shorter window through a cell (a cell lies in at most 7 windows)."""
WIN = 1 << 40
DOUBLE_FOUR = 4096
VCF_DEPTH = 3
"""How many successive fours the evaluation reads for Order (each answered by its block)."""
_BITS = tuple(1 << i for i in range(len(WINDOWS)))
_PAIRS = tuple(zip(_BITS, WINDOWS, strict=True))


def evaluate(x: int, o: int) -> int:
    """The value of ``(x, o)`` for Order (side to move from the number of marks)."""
    occ = x | o
    order = not occ.bit_count() & 1
    tx, to = threats(x, o)
    t = tx | to
    if t:
        if order or t & (t - 1) or tx & to:
            return WIN
        # Chaos must block the lone four: evaluate the position after the block
        c = t.bit_length() - 1
        b = 1 << c
        if (occ | b) == FULL_MASK:
            return -WIN
        return evaluate(x, o | b) if tx else evaluate(x | b, o)
    total = 0
    once = twice = 0  # cells in one / two or more three-mark windows (by mark)
    once_o = twice_o = 0
    live = 0
    weights = WEIGHTS
    for bit, w in _PAIRS:
        kx = (x & w).bit_count()
        ko = (o & w).bit_count()
        if kx and ko:
            continue
        live |= bit
        if kx:
            total += weights[kx]
            if kx == 3:
                e = w & ~occ
                twice |= once & e
                once |= e
        elif ko:
            total += weights[ko]
            if ko == 3:
                e = w & ~occ
                twice_o |= once_o & e
                once_o |= e
    if not live:
        return -WIN
    double = twice | twice_o
    if order and (double or Searcher.vcf(x, o, live, VCF_DEPTH) >= 0):
        return WIN // 2
    if double:
        if double & (double - 1):
            return WIN // 2
        total += DOUBLE_FOUR
    return total


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
    best_value = 0
    for i, m in enumerate(moves):
        value = evaluate(m[3], m[4])
        if not order:
            value = -value
        if i == 0 or value > best_value:
            best, best_value = m, value
    return best[1], best[2]


assert all(len(p) <= 7 for p in CELL_WINDOWS)
