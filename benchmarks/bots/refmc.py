"""refmc: flat Monte Carlo for both roles, the search of the ``ref_mc*`` references.

Why: a reference opponent of another family than alpha-beta, written from the rules alone
(``refkit``; no ``arena`` import), like the public program's flat Monte Carlo player.

Each legal move (both marks in every empty cell) gets an equal share of a fixed number of random
playouts, handed out round-robin over the moves in a shuffled order (so that the remainder, and
the ties, are drawn from ``ARENA_SEED``). A playout after a move that makes five counts as a win
for Order; otherwise the empty cells are filled with uniformly random marks and the playout is a
win for Order when the filled board holds a five: marks are never removed, so that is exactly
whether a game of uniformly random moves from there would end in a five. Order plays the move
with the highest share of Order wins, Chaos the lowest. Fixed work (no clock).
"""

from __future__ import annotations

import random

from refkit import CELLS, FULL, WINDOWS, Chooser, makes_five, order_to_move, token


def make_chooser(playouts: int) -> Chooser:
    """A ``choose(x, o, last, rng)`` spending ``playouts`` random playouts on each decision."""

    def choose(x: int, o: int, last: int, rng: random.Random) -> str:
        del last
        maximise = order_to_move(x, o)
        free = FULL & ~(x | o)
        moves = [(c, m) for c in range(CELLS) if free >> c & 1 for m in (True, False)]
        rng.shuffle(moves)
        wins = [0] * len(moves)
        tries = [0] * len(moves)
        settled: list[bool] = []
        for i, (cell, mark_x) in enumerate(moves):
            five = makes_five(x if mark_x else o, cell)
            settled.append(five)
            if five:
                wins[i] = tries[i] = 1
        getrandbits = rng.getrandbits
        windows = WINDOWS
        for n in range(playouts):
            i = n % len(moves)
            if settled[i]:
                continue
            cell, mark_x = moves[i]
            bit = 1 << cell
            rest = free & ~bit
            fill = getrandbits(CELLS) & rest
            px = x | fill | (bit if mark_x else 0)
            po = o | (rest & ~fill) | (0 if mark_x else bit)
            tries[i] += 1
            for w in windows:
                if px & w == w or po & w == w:
                    wins[i] += 1
                    break
        rates = [wins[i] / tries[i] if tries[i] else 0.5 for i in range(len(moves))]
        pick = max if maximise else min
        best = pick(range(len(moves)), key=lambda i: rates[i])
        return token(*moves[best])

    return choose
