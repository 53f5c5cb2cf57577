"""A small time-bounded alpha-beta search on the whole board, for either role.

Why: the perfect Order player needs a sound fallback for positions its strategy does not cover,
and it plays Chaos too. Kept modest: iterative deepening within a deadline, alpha-beta over the best
few moves of each node, every move at the last ply, with the game's threats handled exactly and the
evaluation carried down the tree. More time, deeper search (in ~33 ms on a busy machine: two to four
plies early in the game). Its rules: ``docs/bots.md``. Imports only ``arena.rules``, the engine
and the stdlib.
"""

from __future__ import annotations

import random
import time

from arena.botlib.engine import line_sum
from arena.rules import CELLS, FULL_MASK, WINDOWS, WINDOWS_THROUGH, Mark, Move

WIN = 1 << 40
"""Score of a won game for Order (minus the plies it takes)."""
_WEIGHT = (1, 8, 60, 600, 6000)
_STEP = tuple(_WEIGHT[k + 1] - _WEIGHT[k] for k in range(4))
_BRANCH = 5
"""Moves searched at an inner node (the root searches them all, the frontier too)."""


class _Timeout(Exception):
    pass


_State = tuple[int, int, int, int]
"""A position's evaluation, live windows, X's five-cells and O's five-cells."""
_Kid = tuple[int, int, int, _State]
"""A move's change of the evaluation, its cell, its mark and its child's state."""


def evaluate(x: int, o: int) -> int:
    """Live windows weighted by their marks, from Order's side; ``-WIN`` when none is live."""
    score, live = line_sum(x, o, _WEIGHT)
    return score if live else -WIN


def five_cells(mine: int, free: int) -> int:
    """The empty cells where the mark whose bitboard is ``mine`` would complete five."""
    cells = 0
    for w in WINDOWS:
        missing = w & ~mine
        if missing & (missing - 1) == 0 and missing & free:
            cells |= missing
    return cells


def _effect(mine: int, theirs: int, c: int) -> tuple[int, int, int, bool]:
    """Writing ``mine``'s mark in cell ``c``: the change of the evaluation, the cells where that
    mark now completes five (new ones), the windows it kills, and whether it makes five."""
    gain = killed = fours = 0
    low = 1 << c
    for w in WINDOWS_THROUGH[c]:
        t = theirs & w
        m = mine & w
        if t:
            if not m:
                gain -= _WEIGHT[t.bit_count()]
                killed += 1
        else:
            k = m.bit_count()
            if k == 4:
                return WIN, 0, 0, True
            gain += _STEP[k]
            if k == 3:
                fours |= w & ~m & ~low
    return gain, fours, killed, False


_THROUGH = tuple(tuple(i for i, w in enumerate(WINDOWS) if w >> c & 1) for c in range(CELLS))
_BITS = tuple(1 << c for c in range(CELLS))


def _moves(x: int, o: int, free: int, score: int, live: int) -> list[_Kid]:
    """Every move of a position where no cell completes five, with its child's state.

    One pass over the windows finds what adding each mark does to each window; a move's effect
    is then the sum over the windows through its cell.
    """
    dx = [0] * 32  # change of the evaluation when an X joins window i
    do = [0] * 32
    kx = [0] * 32  # 1 when an X kills window i (it holds O only)
    ko = [0] * 32
    nfx = [0] * CELLS  # cells where X completes five after an X in cell c
    nfo = [0] * CELLS
    for i, w in enumerate(WINDOWS):
        a = x & w
        b = o & w
        if a:
            if b:
                continue
            mine, gains, losses, kills = a, dx, do, ko
        elif b:
            mine, gains, losses, kills = b, do, dx, kx
        else:
            dx[i] = do[i] = _STEP[0]
            continue
        k = mine.bit_count()
        gains[i] = _STEP[k]
        losses[i] = -_WEIGHT[k]
        kills[i] = 1
        if k == 3:
            fives = nfx if a else nfo
            empty = w & ~mine
            e1 = empty & -empty
            e2 = empty ^ e1
            fives[e1.bit_length() - 1] |= e2
            fives[e2.bit_length() - 1] |= e1
    kids: list[_Kid] = []
    gx, go, kill_x, kill_o = dx.__getitem__, do.__getitem__, kx.__getitem__, ko.__getitem__
    while free:
        low = free & -free
        free ^= low
        c = low.bit_length() - 1
        idx = _THROUGH[c]
        gain = sum(map(gx, idx))
        kids.append((gain, c, 0, (score + gain, live - sum(map(kill_x, idx)), nfx[c], 0)))
        gain = sum(map(go, idx))
        kids.append((gain, c, 1, (score + gain, live - sum(map(kill_o, idx)), 0, nfo[c])))
    return kids


def _double_four(x: int, o: int) -> bool:
    """Whether one move makes two different cells complete five (Chaos can block only one)."""
    for mine, theirs in ((x, o), (o, x)):
        partners = [0] * CELLS
        for w in WINDOWS:
            a = mine & w
            if theirs & w or a.bit_count() != 3:
                continue
            empty = w & ~a
            e1 = empty & -empty
            e2 = empty ^ e1
            c1 = e1.bit_length() - 1
            c2 = e2.bit_length() - 1
            partners[c1] |= e2
            partners[c2] |= e1
            if partners[c1] & (partners[c1] - 1) or partners[c2] & (partners[c2] - 1):
                return True
    return False


class _Search:
    """Alpha-beta with the evaluation, the live-window count and the five-cells carried down the
    tree (a move only changes the windows through its cell), so that a leaf costs no scan."""

    def __init__(self, stop: float, node_limit: int) -> None:
        self.stop = stop
        self.node_limit = node_limit
        self.nodes = 0

    def value(
        self,
        x: int,
        o: int,
        order: bool,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        state: _State,
    ) -> int:
        """Order-side value of ``(x, o)``; ``state`` is (score, live windows, X's five-cells,
        O's five-cells)."""
        self.nodes += 1
        if self.nodes > self.node_limit or not self.nodes & 31 and time.monotonic() > self.stop:
            raise _Timeout
        score, live, fx, fo = state
        free = FULL_MASK & ~(x | o)
        if not free or not live:
            return -WIN
        if order:
            if fx | fo:
                return WIN - ply
        else:
            threats = fx | fo
            if threats:
                if fx & fo or threats & (threats - 1):
                    return WIN - ply - 1
                # Forced: the opposite mark in the one cell that completes five.
                if fx:
                    gain, fours, killed, _ = _effect(o, x, fx.bit_length() - 1)
                    child = (score + gain, live - killed, 0, fo | fours)
                    return self.value(x, o | fx, True, depth, alpha, beta, ply + 1, child)
                gain, fours, killed, _ = _effect(x, o, fo.bit_length() - 1)
                child = (score + gain, live - killed, fx | fours, 0)
                return self.value(x | fo, o, True, depth, alpha, beta, ply + 1, child)
        if depth <= 0:
            if order and _double_four(x, o):
                return WIN - ply - 2
            return score
        kids = _moves(x, o, free, score, live)
        if depth == 1:  # the frontier: every move, each valued without a search
            if order:
                best = -2 * WIN
                for _, _, _, (cs, cl, cfx, cfo) in kids:
                    t = cfx | cfo
                    if t & (t - 1):
                        v = WIN - ply - 2
                    elif not cl:
                        v = -WIN
                    else:
                        v = cs
                    if v > best:
                        best = v
                return best
            best = 2 * WIN
            for _, _, _, (cs, cl, cfx, cfo) in kids:
                if cfx | cfo:
                    v = WIN - ply - 1
                elif not cl:
                    v = -WIN
                else:
                    v = cs
                if v < best:
                    best = v
            return best
        kids.sort(key=lambda kid: kid[0], reverse=order)
        best = -2 * WIN if order else 2 * WIN
        for _, c, mark, child in kids[:_BRANCH]:
            bit = 1 << c
            v = self.value(
                x | bit if mark == 0 else x,
                o | bit if mark else o,
                not order,
                depth - 1,
                alpha,
                beta,
                ply + 1,
                child,
            )
            if order:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
            elif v < best:
                best = v
                if v < beta:
                    beta = v
            if alpha >= beta:
                break
        return best


def search(
    bits: list[int] | tuple[int, int],
    order: bool,
    stop: float,
    rng: random.Random,
    node_limit: int = 1 << 62,
) -> Move:
    """The move to play for Order (``order``) or Chaos in the position ``bits``, by ``stop``.

    ``bits`` is a board's ``[x, o]``; the game must not be over. Deepens one ply at a time while
    time is left and returns the best move of the deepest finished search (at least the greedy
    move). Moves of equal greedy value are ordered with ``rng``, so the seed varies the play.
    ``node_limit`` bounds the nodes too: a search that ends by it, not by ``stop``, plays the
    same move for the same position and generator state (reproducible games given the seed,
    as long as the machine is fast enough for the limit to come first).
    """
    x, o = bits
    free = FULL_MASK & ~(x | o)
    if not free:
        raise ValueError("the board is full")
    score, live = line_sum(x, o, _WEIGHT)
    fx, fo = five_cells(x, free), five_cells(o, free)
    moves: list[tuple[int, float, int, int, tuple[int, int, int, int]]] = []
    for c in range(CELLS):
        low = 1 << c
        if not free & low:
            continue
        for mark in (0, 1):
            mine, theirs = (o, x) if mark else (x, o)
            gain, fours, killed, five = _effect(mine, theirs, c)
            if five:
                if order:
                    return Move(c, Mark(mark))
                continue
            cfx, cfo = (
                (fx & ~low, (fo & ~low) | fours) if mark else ((fx & ~low) | fours, fo & ~low)
            )
            child = (score + gain, live - killed, cfx, cfo)
            moves.append((gain if order else -gain, rng.random(), c, mark, child))
    if not moves:  # Chaos with nothing but fives left: any move loses
        low = free & -free
        return Move(low.bit_length() - 1, Mark.X)
    moves.sort(reverse=True)
    best = moves[0]
    engine = _Search(stop, node_limit)
    for depth in range(free.bit_count()):
        try:
            top: int | None = None
            for move in moves:
                if time.monotonic() > stop:
                    raise _Timeout
                _, _, c, mark, child = move
                bit = 1 << c
                nx, no = (x | bit, o) if mark == 0 else (x, o | bit)
                if order:
                    alpha = -2 * WIN if top is None else top
                    v = engine.value(nx, no, False, depth, alpha, 2 * WIN, 1, child)
                    better = top is None or v > top
                else:
                    beta = 2 * WIN if top is None else top
                    v = engine.value(nx, no, True, depth, -2 * WIN, beta, 1, child)
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
    return Move(best[2], Mark(best[3]))
