"""Alpha-beta search for both roles, on the bitboards of :mod:`arena.botlib.engine`.

Values are from Order's point of view (``WIN - ply`` for a five at ``ply``, ``-WIN`` when every
window is dead, else the sum of ``WEIGHTS`` over the live windows), computed incrementally: a
child's value is its parent's plus the move's *gain*. The game's threats are carried down the tree
(Chaos's forced blocks cost no depth) and dead cells are one *tempo* move. Iterative deepening, a
transposition table, move ordering, wins by fours, an exact solver near the end; the options
(``beam``, ``leaf_threats``, ``pairing``) and what they were measured to gain: ``docs/bots.md``.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from arena.botlib.engine import (
    CELL_WINDOWS,
    FULL_MASK,
    line_sum,
    live_windows,
    threats,
    window_union,
)

WIN = 1_000_000
WEIGHTS = (0, 1, 8, 64, 512)
"""Value of a live window holding k marks of one kind, k = 0..4 (a four is worth its threat)."""
DOUBLE_FOUR = 4096
"""Value of one double-four cell facing Chaos (Chaos can spoil one; two win for Order)."""
VCF_DEPTH = 3
"""How many successive fours the threat evaluation reads for Order (each answered by its block)."""
FOUR_BONUS = 1024
"""Ordering bonus of an Order move that makes a (single) four: it forces the reply."""
_INF = 10 * WIN


def _border_partners() -> tuple[int, ...]:
    """Per cell: its partner in the border pairing (-1 for the 16 centre cells). The pairs are
    the two ends of each middle row, each middle column and each long diagonal."""
    partner = [-1] * 36
    for i in range(1, 5):
        for a, b in ((6 * i, 6 * i + 5), (i, 30 + i)):
            partner[a], partner[b] = b, a
    for a, b in ((0, 35), (5, 30)):
        partner[a], partner[b] = b, a
    return tuple(partner)


PARTNER = _border_partners()
_PAIRS = tuple((a, b) for a, b in enumerate(PARTNER) if a < b)
_EXACT, _LOWER, _UPPER = 0, 1, 2
_TIME_CHECK = 15  # look at the clock every 16 nodes


class _Timeout(Exception):
    """The deadline passed in the middle of an iteration."""


def evaluate(x: int, o: int, live: int) -> int:
    """The window evaluation of a position (Order's point of view), from scratch."""
    total = 0
    occ = x | o
    for bit, w in _WINDOW_LIST:
        if live & bit:
            total += WEIGHTS[(occ & w).bit_count()]
    return total


_WINDOW_LIST: tuple[tuple[int, int], ...] = tuple(
    sorted({pair for pairs in CELL_WINDOWS for pair in pairs})
)


@dataclass(slots=True, eq=False)
class Result:
    """What a search found: the move (cell, mark: 0 = X, 1 = O), its value, depth and effort."""

    cell: int
    mark: int
    value: int
    depth: int
    nodes: int
    exact: bool

    def __repr__(self) -> str:
        return (
            f"Result(cell={self.cell}, mark={'XO'[self.mark]}, value={self.value}, "
            f"depth={self.depth}, nodes={self.nodes}, exact={self.exact})"
        )


# A generated move: (ordering key, cell, mark, child x, child o, child live, child tx, child to,
# child eval). Generation computes the child completely, so playing it costs nothing more.
_Child = tuple[int, int, int, int, int, int, int, int, int]


class Searcher:
    """Iterative-deepening alpha-beta with a transposition table that lives across moves."""

    def __init__(self, rng: random.Random | None = None, table_size: int = 400_000) -> None:
        self.rng = rng or random.Random()
        self.table: dict[int, tuple[int, int, int, int]] = {}
        self.table_size = table_size
        self.solved: dict[int, bool] = {}
        self.killers: list[int] = [-1] * 80
        self.nodes = 0
        self.max_nodes = 1 << 62
        self.beam = 0
        self.leaf_threats = False
        self.tiers = False
        self.root_vcf = 0
        self.leaf_vcf = 0
        self.pairing = False
        self.deadline = 0.0
        self.clock = time.monotonic

    # --- move generation -------------------------------------------------------------------
    @staticmethod
    def children(x: int, o: int, live: int, tx: int, to: int, ev: int) -> list[_Child]:
        """Every move worth distinguishing (live cells, both marks, one tempo move), with its
        child position; ordering key: the gain from Order's point of view plus threat bonuses."""
        occ = x | o
        order = not occ.bit_count() & 1
        cover = window_union(live)
        free = cover & ~occ & FULL_MASK
        out: list[_Child] = []
        weights = WEIGHTS
        while free:
            b = free & -free
            free ^= b
            c = b.bit_length() - 1
            gx = go = 0
            kill_x = kill_o = 0  # windows killed by writing X / O here
            new_tx = new_to = 0
            five_x = five_o = False
            occ2 = occ | b
            for bit, w in CELL_WINDOWS[c]:
                if not live & bit:
                    continue
                kx = (x & w).bit_count()
                if kx:
                    # an X window: X extends it, O kills it
                    gx += weights[kx + 1] - weights[kx] if kx < 4 else 0
                    if kx == 3:
                        new_tx |= w & ~occ2
                    elif kx == 4:
                        five_x = True
                    go -= weights[kx]
                    kill_o |= bit
                else:
                    ko = (o & w).bit_count()
                    if ko:
                        go += weights[ko + 1] - weights[ko] if ko < 4 else 0
                        if ko == 3:
                            new_to |= w & ~occ2
                        elif ko == 4:
                            five_o = True
                        gx -= weights[ko]
                        kill_x |= bit
                    else:  # empty window: either mark extends it
                        gx += weights[1] - weights[0]
                        go += weights[1] - weights[0]
            rtx = tx & ~b
            rto = to & ~b
            if not five_x:
                bonus = 0
                if new_tx:  # a four: Order wins next if Chaos made it, or if two stand
                    t = new_tx | rtx | rto
                    bonus = FOUR_BONUS if order and not (t & (t - 1) or t & rto) else WIN
                out.append((gx + bonus, c, 0, x | b, o, live & ~kill_x, rtx | new_tx, rto, ev + gx))
            if not five_o:
                bonus = 0
                if new_to:
                    t = new_to | rtx | rto
                    bonus = FOUR_BONUS if order and not (t & (t - 1) or t & rtx) else WIN
                out.append((go + bonus, c, 1, x, o | b, live & ~kill_o, rtx, rto | new_to, ev + go))
        dead = FULL_MASK & ~occ & ~cover
        if dead:
            b = dead & -dead
            out.append((0, b.bit_length() - 1, 0, x | b, o, live, tx, to, ev))
        return out

    @staticmethod
    def ordered_moves(x: int, o: int, live: int, order: bool, limit: int = 0) -> list[int]:
        """The moves worth distinguishing as codes ``cell * 2 + mark``, best first for the side
        to move, by tiers computed with one pass over the live windows (cheaper than the gains of
        ``children``): Order first extends its fullest windows (the mark of the window), Chaos
        first kills them (the opposite mark); within a fullness, cells in two such windows come
        first; then cells of empty windows, then one tempo move. No move completes a five (call
        it without fours on the board). With ``limit``, it may stop once it has listed that many
        (a prefix of the whole list: enough for a beam)."""
        occ = x | o
        one = [0, 0, 0, 0, 0, 0, 0, 0]  # index 2 * k + m: cells in a window with k marks m
        two = [0, 0, 0, 0, 0, 0, 0, 0]  # ... in two or more such windows
        blank = 0
        for bit, w in _WINDOW_LIST:
            if not live & bit:
                continue
            kx = (x & w).bit_count()
            if kx:
                i = 2 * kx
            else:
                ko = (o & w).bit_count()
                if not ko:
                    blank |= w
                    continue
                i = 2 * ko + 1
            e = w & ~occ
            two[i] |= one[i] & e
            one[i] |= e
        blank &= ~occ
        codes: list[int] = []
        seen = [0, 0]
        # (cells, mark) tiers: Order writes the window's mark, Chaos the other one
        flip = 0 if order else 1
        for k in (3, 2, 1):
            for source in (two, one):
                for m in (0, 1):
                    cells = source[2 * k + m]
                    if not cells:
                        continue
                    mark = m ^ flip
                    cells &= ~seen[mark]
                    seen[mark] |= cells
                    while cells:
                        b = cells & -cells
                        cells ^= b
                        codes.append((b.bit_length() - 1) * 2 + mark)
                    if limit and len(codes) >= limit:
                        return codes
        for mark in (0, 1):
            cells = blank & ~seen[mark]
            seen[mark] |= cells
            while cells:
                b = cells & -cells
                cells ^= b
                codes.append((b.bit_length() - 1) * 2 + mark)
        cover = window_union(live)
        for mark in (0, 1):  # live cells not listed yet (a mark that neither extends nor kills)
            cells = cover & ~occ & ~seen[mark] & FULL_MASK
            while cells:
                b = cells & -cells
                cells ^= b
                codes.append((b.bit_length() - 1) * 2 + mark)
        dead = FULL_MASK & ~occ & ~cover
        if dead:
            codes.append(((dead & -dead).bit_length() - 1) * 2)
        return codes

    # --- the search ----------------------------------------------------------------------------
    def _ab(
        self,
        x: int,
        o: int,
        live: int,
        tx: int,
        to: int,
        ev: int,
        depth: int,
        alpha: int,
        beta: int,
    ) -> int:
        self.nodes += 1
        if not self.nodes & _TIME_CHECK and (
            self.nodes > self.max_nodes or self.clock() > self.deadline
        ):
            raise _Timeout
        occ = x | o
        ply = occ.bit_count()
        order = not ply & 1
        t = tx | to
        if order:
            if t:
                return WIN - ply - 1
            if not live:
                return -WIN
        else:
            if t:  # a forced block, read without spending depth
                if t & (t - 1) or tx & to:
                    return WIN - ply - 2
                c = t.bit_length() - 1
                # the block itself may create a four for Order, or fill the board
                child = self._play(x, o, live, tx, to, ev, c, 1 if tx else 0)
                x, o, live, tx, to, ev = child
                occ = x | o
                if occ == FULL_MASK:
                    return -WIN
                if tx | to:
                    return WIN - ply - 2
                if not live:
                    return -WIN
                return self._ab(x, o, live, tx, to, ev, depth, alpha, beta)
            if not live:
                return -WIN
        if depth <= 0:
            if self.leaf_threats:
                return threat_eval(x, o, self.leaf_vcf, self.pairing)
            return ev
        cover = window_union(live)
        key = (x & cover) | (o & cover) << 36 | ply << 72
        entry = self.table.get(key)
        best_move = -1
        if entry is not None:
            e_depth, e_flag, e_value, best_move = entry
            if e_depth >= depth:
                if e_flag == _EXACT:
                    return e_value
                if e_flag == _LOWER:
                    if e_value >= beta:
                        return e_value
                elif e_value <= alpha:
                    return e_value
        if self.tiers:
            # with a beam, only a prefix of the ordering is needed: the beam, and two more in
            # case the killer and the table's move come from it
            codes = self.ordered_moves(x, o, live, order, self.beam + 2 if self.beam else 0)
            # the moves of the whole ordering: every empty live cell with either mark, and the
            # lowest dead cell with X (the killer or the table's move may lie past the prefix)
            free = cover & ~occ
            dead = FULL_MASK & ~occ & ~cover
            tempo = ((dead & -dead).bit_length() - 1) * 2 if dead else -1
            killer = self.killers[ply]
            if killer >= 0 and (free >> (killer >> 1) & 1 or killer == tempo):
                if killer in codes:
                    codes.remove(killer)
                codes.insert(0, killer)
            if best_move >= 0 and (free >> (best_move >> 1) & 1 or best_move == tempo):
                if best_move in codes:
                    codes.remove(best_move)
                codes.insert(0, best_move)
        else:
            moves = self.children(x, o, live, tx, to, ev)
            moves.sort(key=_key_order if order else _key_chaos)
            codes = [m[1] * 2 + m[2] for m in moves]
            killer = self.killers[ply]
            if killer >= 0 and killer in codes:
                codes.remove(killer)
                codes.insert(0, killer)
            if best_move >= 0 and best_move in codes:
                codes.remove(best_move)
                codes.insert(0, best_move)
        if self.beam and len(codes) > self.beam:
            del codes[self.beam :]  # forward pruning: only the most promising moves
        a0, b0 = alpha, beta
        best = -_INF if order else _INF
        chosen = -1
        d1 = depth - 1
        play = self._play
        for code in codes:
            cx, co, clive, ctx, cto, cev = play(x, o, live, tx, to, ev, code >> 1, code & 1)
            value = self._ab(cx, co, clive, ctx, cto, cev, d1, alpha, beta)
            if order:
                if value > best:
                    best = value
                    chosen = code
                    if value > alpha:
                        alpha = value
                        if alpha >= beta:
                            self.killers[ply] = chosen
                            break
            else:
                if value < best:
                    best = value
                    chosen = code
                    if value < beta:
                        beta = value
                        if alpha >= beta:
                            self.killers[ply] = chosen
                            break
        if best <= a0:
            flag = _UPPER
        elif best >= b0:
            flag = _LOWER
        else:
            flag = _EXACT
        if len(self.table) >= self.table_size:
            self.table.clear()
        self.table[key] = (depth, flag, best, chosen)
        return best

    @staticmethod
    def _play(
        x: int, o: int, live: int, tx: int, to: int, ev: int, c: int, mark: int
    ) -> tuple[int, int, int, int, int, int]:
        """The child after writing ``mark`` (0 = X, 1 = O) in cell ``c`` (no five made)."""
        b = 1 << c
        occ2 = x | o | b
        tx &= ~b
        to &= ~b
        weights = WEIGHTS
        for bit, w in CELL_WINDOWS[c]:
            if not live & bit:
                continue
            kx = (x & w).bit_count()
            ko = (o & w).bit_count()
            if mark == 0:
                if ko:
                    ev -= weights[ko]
                    live &= ~bit
                else:
                    ev += weights[kx + 1] - weights[kx]
                    if kx == 3:
                        tx |= w & ~occ2
            else:
                if kx:
                    ev -= weights[kx]
                    live &= ~bit
                else:
                    ev += weights[ko + 1] - weights[ko]
                    if ko == 3:
                        to |= w & ~occ2
        if mark == 0:
            x |= b
        else:
            o |= b
        return x, o, live, tx, to, ev

    # --- victory by continuous fours ------------------------------------------------------
    @staticmethod
    def vcf(x: int, o: int, live: int, depth: int) -> int:
        """With Order to move and no four on the board: a move ``cell * 2 + mark`` that starts
        a forced win by fours (each four answered by its only block) within ``depth`` fours,
        else -1. Only moves that make a four are tried, so the search is narrow."""
        occ = x | o
        tried = 0
        cell_windows = CELL_WINDOWS
        for bit, w in _WINDOW_LIST:
            if not live & bit:
                continue
            kx = (x & w).bit_count()
            if kx == 3:
                mark = 0
                mine, other = x, o
            elif not kx and (o & w).bit_count() == 3:
                mark = 1
                mine, other = o, x
            else:
                continue
            free = w & ~occ
            while free:
                b = free & -free
                free ^= b
                c = b.bit_length() - 1
                code = c * 2 + mark
                if tried >> code & 1:
                    continue
                tried |= 1 << code
                # the four written: the windows the mark kills, the fours it makes
                occ1 = occ | b
                live1 = live
                t = 0
                for bit1, w1 in cell_windows[c]:
                    if live & bit1:
                        if other & w1:
                            live1 &= ~bit1
                        elif (mine & w1).bit_count() == 3:
                            t |= w1 & ~occ1
                if t & (t - 1):
                    return code  # two fours: unstoppable
                if occ1 == FULL_MASK:
                    continue
                # the only block, the other mark in cell r
                r = t.bit_length() - 1
                br = 1 << r
                mine1 = mine | b
                occ2 = occ1 | br
                live2 = live1
                for bit2, w2 in cell_windows[r]:
                    if live1 & bit2:
                        if mine1 & w2:
                            live2 &= ~bit2
                        elif (other & w2).bit_count() == 3:
                            return code  # the block made a four for Order
                if depth > 1 and live2 and occ2 != FULL_MASK:
                    if mark:
                        x2, o2 = x | br, mine1
                    else:
                        x2, o2 = mine1, o | br
                    if Searcher.vcf(x2, o2, live2, depth - 1) >= 0:
                        return code
        return -1

    # --- the exact solver --------------------------------------------------------------------
    def solve(self, x: int, o: int, live: int, tx: int, to: int) -> bool | None:
        """Whether Order wins with best play from here (None when ``max_nodes`` nodes or the
        deadline run out first). No depth limit: the game is read to its end."""
        try:
            return self._solve(x, o, live, tx, to)
        except _Timeout:
            return None

    def _solve(self, x: int, o: int, live: int, tx: int, to: int) -> bool:
        self.nodes += 1
        if not self.nodes & _TIME_CHECK and (
            self.nodes > self.max_nodes or self.clock() > self.deadline
        ):
            raise _Timeout
        occ = x | o
        ply = occ.bit_count()
        order = not ply & 1
        t = tx | to
        if order:
            if t:
                return True
            if not live:
                return False
        else:
            if t:
                if t & (t - 1) or tx & to:
                    return True
                c = t.bit_length() - 1
                x, o, live, tx, to, _ = self._play(x, o, live, tx, to, 0, c, 1 if tx else 0)
                if (x | o) == FULL_MASK:
                    return False
                return self._solve(x, o, live, tx, to)
            if not live:
                return False
        cover = window_union(live)
        key = (x & cover) | (o & cover) << 36 | ply << 72
        known = self.solved.get(key)
        if known is not None:
            return known
        moves = self.children(x, o, live, tx, to, 0)
        moves.sort(key=_key_order if order else _key_chaos)
        result = not order  # Order: False unless some move wins; Chaos: True unless one holds
        for m in moves:
            if self._solve(m[3], m[4], m[5], m[6], m[7]) == order:
                result = order
                break
        if len(self.solved) >= self.table_size:
            self.solved.clear()
        self.solved[key] = result
        return result

    # --- the root ------------------------------------------------------------------------------
    def best_move(
        self,
        x: int,
        o: int,
        deadline: float,
        max_depth: int = 40,
        max_nodes: int = 1 << 62,
        solve_cells: int = 14,
    ) -> Result:
        """The move to play in ``(x, o)`` (no five on it, not full), searching until
        ``deadline`` (a ``time.monotonic`` value), ``max_nodes`` nodes or ``max_depth``.

        With a node budget that binds before the deadline, the result depends only on the
        position, the generator's state and the table (deterministic)."""
        self.deadline = deadline
        self.nodes = 0
        live = live_windows(x, o)
        tx, to = threats(x, o)
        occ = x | o
        ply = occ.bit_count()
        order = not ply & 1
        ev = evaluate(x, o, live)
        moves = self.children(x, o, live, tx, to, ev)
        if not moves:  # every empty cell completes a five (Chaos, lost): any legal move
            free = FULL_MASK & ~occ
            cell = (free & -free).bit_length() - 1
            return Result(cell, 0, WIN - ply - 1, 0, 0, True)
        self.rng.shuffle(moves)
        moves.sort(key=_key_order if order else _key_chaos)
        # immediate decisions
        t = tx | to
        if order and t:
            c = t.bit_length() - 1
            return Result(c, 0 if tx >> c & 1 else 1, WIN - ply - 1, 0, 1, True)
        if not order and t:
            c = t.bit_length() - 1
            if not (t & (t - 1) or tx & to):
                return Result(c, 1 if tx >> c & 1 else 0, 0, 0, 1, False)
        if len(moves) == 1:
            m = moves[0]
            return Result(m[1], m[2], 0, 0, 1, False)
        if order and self.root_vcf:  # a win by successive fours: proven, play it
            code = self.vcf(x, o, live, self.root_vcf)
            if code >= 0:
                return Result(code >> 1, code & 1, WIN - ply - 1, 0, 1, True)
        if order and self.pairing:  # the classic strategy: answer a mark in the border
            reply = pairing_reply(x, o)
            if reply >= 0:
                return Result(reply >> 1, reply & 1, 0, 0, 1, False)
        # exact solver once few live cells remain: half of the budget
        free_live = (window_union(live) & ~occ).bit_count()
        if free_live <= solve_cells:
            self.max_nodes = max_nodes // 2
            self.deadline = self.clock() + (deadline - self.clock()) * 0.5
            for m in moves:
                won = self.solve(m[3], m[4], m[5], m[6], m[7])
                if won is None:
                    break
                if won == order:
                    value = WIN - ply if order else -WIN
                    return Result(m[1], m[2], value, 99, self.nodes, True)
            self.deadline = deadline
        self.max_nodes = max_nodes
        # iterative deepening
        best = moves[0]
        best_value = 0
        depth_done = 0
        exact = False
        for depth in range(1, max_depth + 1):
            scored: list[tuple[int, _Child]] = []
            iteration_best = moves[0]
            iteration_value = -_INF if order else _INF
            try:
                alpha, beta = -_INF, _INF
                for m in moves:
                    value = self._ab(m[3], m[4], m[5], m[6], m[7], m[8], depth - 1, alpha, beta)
                    scored.append((value, m))
                    if order and value > iteration_value:
                        iteration_value, iteration_best = value, m
                        alpha = max(alpha, value)
                    elif not order and value < iteration_value:
                        iteration_value, iteration_best = value, m
                        beta = min(beta, value)
            except _Timeout:
                # the first move searched was the previous best: a later one that beat it at
                # this depth is better
                if scored and iteration_best is not moves[0]:
                    best = iteration_best
                break
            best, best_value, depth_done = iteration_best, iteration_value, depth
            # best move first, then the rest by their values of this iteration
            scored.sort(key=lambda s: -s[0] if order else s[0])
            moves = [m for _, m in scored]
            moves.remove(best)
            moves.insert(0, best)
            if abs(best_value) >= WIN - 100:
                exact = True
                if (best_value > 0) == order:
                    break  # a forced win found: no need to look deeper
            if depth >= FULL_MASK.bit_count() - ply:
                break
        return Result(best[1], best[2], best_value, depth_done, self.nodes, exact)


def pairing_reply(x: int, o: int) -> int:
    """Order's pairing answer ``cell * 2 + mark`` when exactly one border pair is half filled
    (the opposite mark in the empty partner); -1 when every pair is empty or holds X and O (the
    pairing stands: play in the centre); -2 when the pairing is broken (a pair holds one mark
    twice, or several pairs are half filled)."""
    occ = x | o
    reply = -1
    for a, b in _PAIRS:
        ba = 1 << a
        bb = 1 << b
        if occ & ba:
            if occ & bb:
                if bool(x & ba) == bool(x & bb):
                    return -2
            elif reply >= 0:
                return -2
            else:
                reply = b * 2 + (0 if o & ba else 1)
        elif occ & bb:
            if reply >= 0:
                return -2
            reply = a * 2 + (0 if o & bb else 1)
    return reply


CENTRE_LINES: tuple[int, ...] = tuple(
    sum(1 << c for c in cells)
    for cells in (
        *((6 * r + 1, 6 * r + 2, 6 * r + 3, 6 * r + 4) for r in range(1, 5)),
        *((6 + k, 12 + k, 18 + k, 24 + k) for k in range(1, 5)),
        (7, 14, 21, 28),
        (10, 15, 20, 25),
    )
)
"""The ten lines of four of the central 4x4 (rows, columns, diagonals), as cell masks."""
CENTRE_WEIGHTS = (0, 4, 32, 256, 0)
"""Value of a centre line holding k marks of one kind (and none of the other), k = 0..4."""


def centre_value(x: int, o: int) -> int:
    """The centre evaluation: the sum over the centre lines holding one kind of mark of
    ``CENTRE_WEIGHTS[k]``. With the border paired, four identical marks in such a line win, so
    this is the part of the position that matters to Order."""
    return line_sum(x, o, CENTRE_WEIGHTS, CENTRE_LINES)[0]


def threat_eval(x: int, o: int, vcf_depth: int = VCF_DEPTH, centre: bool = False) -> int:
    """The window evaluation with the threats read one step on (Order's point of view; the side
    to move from the number of marks): Order to move with a four, or Chaos facing two, is
    ``WIN``; a lone four facing Chaos is blocked and the position after it evaluated; Order to
    move with a double-four cell (one mark there makes two fours) or a win by up to
    ``vcf_depth`` successive fours is ``WIN // 2``, and so is Chaos to move facing two double-four
    cells (one is worth ``DOUBLE_FOUR``); no live window left is ``-WIN``. With ``centre``, the
    centre lines (``centre_value``) are added to the window sum."""
    occ = x | o
    order = not occ.bit_count() & 1
    total = 0
    once = twice = 0  # cells in one / two or more three-mark windows (by mark)
    once_o = twice_o = 0
    live = 0
    tx = to = 0  # the threats, found in the same pass
    weights = WEIGHTS
    for bit, w in _WINDOW_LIST:
        xw = x & w
        ow = o & w
        if xw:
            if ow:
                continue
            kx = xw.bit_count()
            total += weights[kx]
            if kx == 3:
                e = w & ~occ
                twice |= once & e
                once |= e
            elif kx == 4:
                tx |= w & ~occ
        elif ow:
            ko = ow.bit_count()
            total += weights[ko]
            if ko == 3:
                e = w & ~occ
                twice_o |= once_o & e
                once_o |= e
            elif ko == 4:
                to |= w & ~occ
        live |= bit
    t = tx | to
    if t:
        if order or t & (t - 1) or tx & to:
            return WIN
        # Chaos must block the lone four: evaluate the position after the block
        c = t.bit_length() - 1
        b = 1 << c
        if (occ | b) == FULL_MASK:
            return -WIN
        if tx:
            return threat_eval(x, o | b, vcf_depth, centre)
        return threat_eval(x | b, o, vcf_depth, centre)
    if not live:
        return -WIN
    double = twice | twice_o
    # fours start only from three-mark windows: without one, no call (``vcf`` would find none)
    if order and (
        double or vcf_depth and once | once_o and Searcher.vcf(x, o, live, vcf_depth) >= 0
    ):
        return WIN // 2
    if double:
        if double & (double - 1):
            return WIN // 2
        total += DOUBLE_FOUR
    if centre:  # the centre lines on top of the windows
        total += centre_value(x, o)
    return total


def _key_order(m: _Child) -> int:
    return -m[0]


def _key_chaos(m: _Child) -> int:
    return m[0]
