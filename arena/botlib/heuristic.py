"""A static evaluation of a position with its threats, and the one-ply search of ``heuristic``.

The evaluation (Order's point of view) sums ``WEIGHTS`` over the live windows and then reads the
threats one step on: fours, wins by successive fours, double-four cells. The one-ply search
(``one_ply``) scores each move by it; as Chaos it also charges a move with the most Order can gain
next (against ``greedy``'s Order: 124 Order wins of 200 instead of ~160), or, with ``replies``,
with the best of Order's strongest replies evaluated with their threats (two plies: ``heuristic``'s
Chaos). Ties go to the move's own gain, so a side that sees its game lost still makes the opponent
find the win. The threat rules: ``docs/bots.md``.
"""

from __future__ import annotations

import math
import random
import time

from arena.botlib import alphabeta
from arena.botlib.alphabeta import Searcher
from arena.botlib.engine import FULL_MASK, live_windows, threats

WIN = alphabeta.WIN


def evaluate(x: int, o: int) -> int:
    """The value of ``(x, o)`` for Order (side to move from the number of marks): see the
    module docstring; ``WIN // 2`` when the threats decide it for Order, ``-WIN`` when no
    live window is left."""
    return alphabeta.threat_eval(x, o)


def one_ply(
    x: int, o: int, rng: random.Random, replies: int = 0, stop: float = math.inf
) -> tuple[int, int]:
    """The move ``(cell, mark)`` whose resulting position evaluates best for the side to move
    (Order maximises, Chaos minimises); ties broken with ``rng``. As Chaos with ``replies`` > 0,
    a move is worth the best of Order's ``replies`` strongest replies (by their gain) evaluated
    with their threats; past ``stop`` (``time.monotonic``) it falls back to one ply."""
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
    sign = 1 if order else -1
    best = deep = moves[0]
    best_value = deep_value = (0, 0)
    for i, m in enumerate(moves):
        # ties (above all between moves the threats call lost) go to the move's plain window
        # gain (``m[8]``): a side that sees its game lost still makes the opponent find the win
        plain = two = evaluate(m[3], m[4])
        one = plain
        if not order and abs(plain) < WIN // 2:
            kids = Searcher.children(m[3], m[4], m[5], m[6], m[7], 0)
            if kids:
                one = plain + max(k[0] for k in kids)
                if replies and time.monotonic() > stop:  # a loaded machine: one ply only
                    replies = 0
                if replies:
                    kids.sort(key=_gain, reverse=True)
                    two = max(evaluate(k[3], k[4]) for k in kids[:replies])
        tie = sign * m[8]
        if i == 0 or (sign * one, tie) > best_value:
            best, best_value = m, (sign * one, tie)
        if i == 0 or (sign * two, tie) > deep_value:
            deep, deep_value = m, (sign * two, tie)
    chosen = deep if replies else best
    return chosen[1], chosen[2]


def _gain(child: tuple[int, ...]) -> int:
    """A generated move's ordering key: its gain for Order (threat bonuses included)."""
    return child[0]
