"""A small time-bounded alpha-beta search on the whole board, for either role.

Why: the perfect Order player needs a sound fallback for positions its strategy does not cover
(an opening from a tournament, a border pair holding two equal marks), and it plays Chaos too.
This is that fallback, kept modest: iterative deepening within a deadline, alpha-beta over the
best few moves of each node, with the game's threats handled exactly:

- Order to move wins at once when a cell completes five (for either mark);
- Chaos to move loses when two cells complete five, or one cell completes five with either mark
  (it cannot block both); facing one such cell its only sensible move is to block it (the
  opposite mark), a forced move that costs no depth;
- a full board, or one with no live five-cell window left, is Chaos's win.

The leaf evaluation counts live windows (holding one kind of mark only), weighted by how many
marks they hold (from Order's point of view: Order maximises, Chaos minimises). Its strength
depends on its time: more time, deeper search.

Pure: imports only ``arena.rules`` and the standard library.
"""

from __future__ import annotations

import random
import time

from arena.rules import CELLS, FULL_MASK, WINDOWS, WINDOWS_THROUGH, Mark, Move

__all__ = ["WIN", "search", "evaluate", "five_cells"]

WIN = 1 << 40
"""Score of a won game for Order (minus the plies it takes)."""
_WEIGHT = (1, 6, 40, 300, 3000)
_BRANCH = 10
"""Moves searched at an inner node (the root searches them all)."""
_MOVES = tuple(Move(c, m) for c in range(CELLS) for m in Mark)


class _Timeout(Exception):
    pass


def evaluate(x: int, o: int) -> int:
    """Live windows weighted by their marks, from Order's side; ``-WIN`` when none is live."""
    score = 0
    live = False
    for w in WINDOWS:
        a = x & w
        b = o & w
        if a:
            if not b:
                score += _WEIGHT[a.bit_count()]
                live = True
        elif b:
            score += _WEIGHT[b.bit_count()]
            live = True
        else:
            score += 1
            live = True
    return score if live else -WIN


def five_cells(mine: int, free: int) -> int:
    """The empty cells where the mark whose bitboard is ``mine`` would complete five."""
    cells = 0
    for w in WINDOWS:
        missing = w & ~mine
        if missing & (missing - 1) == 0 and missing & free:
            cells |= missing
    return cells


def _ordered(
    x: int, o: int, free: int, chaos: bool, rng: random.Random | None = None
) -> list[tuple[int, int]]:
    """``(cell, mark)`` of every move by greedy value for the mover (Chaos: never a five).

    Ties are broken by ``rng`` when given, else by cell.
    """
    scored: list[tuple[int, float, int, int]] = []
    cells = free
    while cells:
        low = cells & -cells
        cells ^= low
        c = low.bit_length() - 1
        for mark, mine, theirs in ((0, x, o), (1, o, x)):
            gain = 0
            five = False
            for w in WINDOWS_THROUGH[c]:
                same = (mine & w).bit_count()
                if theirs & w:
                    if not same:
                        gain -= _WEIGHT[(theirs & w).bit_count()]
                else:
                    if same == 4:
                        five = True
                    gain += _WEIGHT[same + 1] - _WEIGHT[same] if same < 4 else WIN
            if chaos:
                if five:
                    continue
                gain = -gain
            scored.append((-gain, rng.random() if rng else 0.0, c, mark))
    scored.sort()
    return [(c, m) for _, _, c, m in scored]


class _Search:
    def __init__(self, stop: float) -> None:
        self.stop = stop
        self.nodes = 0

    def value(
        self, x: int, o: int, order: bool, depth: int, alpha: int, beta: int, ply: int
    ) -> int:
        self.nodes += 1
        if not self.nodes & 15 and time.monotonic() > self.stop:
            raise _Timeout
        free = FULL_MASK & ~(x | o)
        if not free:
            return -WIN
        fx = five_cells(x, free)
        fo = five_cells(o, free)
        if order:
            if fx | fo:
                return WIN - ply
        else:
            threats = fx | fo
            if threats:
                if fx & fo or threats & (threats - 1):
                    return WIN - ply - 1
                if fx:  # forced: O in the cell where X would make five
                    return self.value(x, o | fx, True, depth, alpha, beta, ply + 1)
                return self.value(x | fo, o, True, depth, alpha, beta, ply + 1)
        if depth <= 0:
            return evaluate(x, o)
        moves = _ordered(x, o, free, not order)
        if not moves:  # Chaos can only make five
            return WIN - ply - 1
        if order:
            best = -WIN * 2
            for c, mark in moves[:_BRANCH]:
                bit = 1 << c
                v = self.value(
                    x | bit if mark == 0 else x,
                    o | bit if mark else o,
                    False,
                    depth - 1,
                    alpha,
                    beta,
                    ply + 1,
                )
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
            return best
        best = WIN * 2
        for c, mark in moves[:_BRANCH]:
            bit = 1 << c
            v = self.value(
                x | bit if mark == 0 else x,
                o | bit if mark else o,
                True,
                depth - 1,
                alpha,
                beta,
                ply + 1,
            )
            if v < best:
                best = v
                if v < beta:
                    beta = v
                    if alpha >= beta:
                        break
        return best


def _makes_five(mine: int, cell: int) -> bool:
    return any(mine & w == w for w in WINDOWS_THROUGH[cell])


def search(bits: list[int] | tuple[int, int], order: bool, stop: float, rng: random.Random) -> Move:
    """The move to play for Order (``order``) or Chaos in the position ``bits``, by ``stop``.

    ``bits`` is a board's ``[x, o]``; the game must not be over. Deepens one ply at a time while
    time is left and returns the best move of the deepest finished search (at least the greedy
    move). Moves of equal greedy value are ordered with ``rng``, so the seed varies the play.
    """
    x, o = bits
    free = FULL_MASK & ~(x | o)
    if not free:
        raise ValueError("the board is full")
    moves = _ordered(x, o, free, not order, rng)
    if not moves:  # Chaos with nothing but fives left: any move loses
        low = free & -free
        return Move(low.bit_length() - 1, Mark.X)
    if order:
        for c, mark in moves:
            if _makes_five((o if mark else x) | 1 << c, c):
                return Move(c, Mark(mark))
    best = moves[0]
    engine = _Search(stop)
    for depth in range(free.bit_count()):
        try:
            top: int | None = None
            for move in moves:
                if time.monotonic() > stop:
                    raise _Timeout
                c, mark = move
                bit = 1 << c
                nx, no = (x | bit, o) if mark == 0 else (x, o | bit)
                if order:
                    v = engine.value(
                        nx, no, False, depth, -2 * WIN if top is None else top, 2 * WIN, 1
                    )
                    better = top is None or v > top
                else:
                    v = engine.value(
                        nx, no, True, depth, -2 * WIN, 2 * WIN if top is None else top, 1
                    )
                    better = top is None or v < top
                if better:
                    top = v
                    best = move
        except _Timeout:
            break
        moves.remove(best)
        moves.insert(0, best)  # search the best move first next time
        if top is not None and abs(top) >= WIN - 64:  # forced: deeper search cannot change it
            break
        if time.monotonic() > stop:
            break
    return Move(best[0], Mark(best[1]))
