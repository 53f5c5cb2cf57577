"""refab: fixed-depth alpha-beta for both roles, the search of the ``ref_ab*`` references.

Why: a reference opponent written from the rules alone (``refkit``; no ``arena`` import), of the
family of the public program the issue measured against (depth-3 and depth-4 alpha-beta), with
the window weighting as a parameter so that one search gives several opponents.

Search: plain minimax with alpha-beta over every legal move (both marks in every empty cell) to a
fixed depth, whatever the move time (its strength does not depend on the clock or the load). A
five ends the line as a win for Order, sooner better (``WIN - plies``); a full board as a loss
for Order (``-WIN``). Evaluation, from Order's side: X windows and O windows are counted apart,
each window holding no O scores ``base ** (its X marks)`` and each holding no X scores
``base ** (its O marks)`` (an empty window counts for both). Moves are tried in the order of
their one-ply change of that score (Order: largest first; Chaos: smallest first), after a
shuffle with the seeded generator, so that ties go to a move drawn from ``ARENA_SEED``.
"""

from __future__ import annotations

import random

from refkit import CELLS, FULL, THROUGH, WINDOWS, Chooser, order_to_move, token

WIN = 10**9


def make_chooser(depth: int, base: int) -> Chooser:
    """A ``choose(x, o, last, rng)`` searching ``depth`` plies with weights ``base ** marks``."""
    power = [base**k for k in range(6)]

    def score(x: int, o: int) -> int:
        total = 0
        for w in WINDOWS:
            a, b = (x & w).bit_count(), (o & w).bit_count()
            if not b:
                total += power[a]
            if not a:
                total += power[b]
        return total

    def effect(x: int, o: int, cell: int, mark_x: bool) -> tuple[int, bool]:
        """(change of the score, whether the move makes five) for the mark in ``cell``."""
        mine, theirs = (x, o) if mark_x else (o, x)
        change = 0
        five = False
        for w in THROUGH[cell]:
            a, b = (mine & w).bit_count(), (theirs & w).bit_count()
            if not b:
                change += power[a + 1] - power[a]
                if a == 4:
                    five = True
            if not a:
                change -= power[b]
        return change, five

    def moves(x: int, o: int, value: int, maximise: bool) -> list[tuple[int, bool, int, bool]]:
        free = FULL & ~(x | o)
        out = []
        for cell in range(CELLS):
            if free >> cell & 1:
                for mark_x in (True, False):
                    change, five = effect(x, o, cell, mark_x)
                    out.append((value + change, five, cell, mark_x))
        out.sort(key=lambda m: (not m[1], -m[0]) if maximise else (m[1], m[0]))
        return out

    def search(x: int, o: int, ply: int, depth_left: int, alpha: int, beta: int, value: int) -> int:
        maximise = order_to_move(x, o)
        best = -2 * WIN if maximise else 2 * WIN
        full_after = (x | o).bit_count() == CELLS - 1
        for child_value, five, cell, mark_x in moves(x, o, value, maximise):
            if five:
                result = WIN - ply
            elif full_after:
                result = -WIN
            elif depth_left <= 1:
                result = child_value
            else:
                bit = 1 << cell
                nx, no = (x | bit, o) if mark_x else (x, o | bit)
                result = search(nx, no, ply + 1, depth_left - 1, alpha, beta, child_value)
            if maximise:
                if result > best:
                    best = result
                alpha = max(alpha, result)
            else:
                if result < best:
                    best = result
                beta = min(beta, result)
            if alpha >= beta:
                break
        return best

    def choose(x: int, o: int, last: int, rng: random.Random) -> str:
        del last
        maximise = order_to_move(x, o)
        value = score(x, o)
        ply = (x | o).bit_count() + 1
        candidates = moves(x, o, value, maximise)
        rng.shuffle(candidates)
        candidates.sort(key=lambda m: (not m[1], -m[0]) if maximise else (m[1], m[0]))
        full_after = (x | o).bit_count() == CELLS - 1
        alpha, beta = -2 * WIN, 2 * WIN
        best_move = candidates[0]
        best = -3 * WIN if maximise else 3 * WIN
        for move in candidates:
            child_value, five, cell, mark_x = move
            if five:
                result = WIN - ply
            elif full_after:
                result = -WIN
            elif depth <= 1:
                result = child_value
            else:
                bit = 1 << cell
                nx, no = (x | bit, o) if mark_x else (x, o | bit)
                result = search(nx, no, ply + 1, depth - 1, alpha, beta, child_value)
            if (maximise and result > best) or (not maximise and result < best):
                best, best_move = result, move
            if maximise:
                alpha = max(alpha, result)
            else:
                beta = min(beta, result)
        return token(best_move[2], best_move[3])

    return choose
