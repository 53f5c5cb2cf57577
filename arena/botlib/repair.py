"""The centre game from any position: for openings and other positions off the perfect strategy.

Why: a random opening leaves border pairs half filled or holding two equal marks, which the table
never meets. The pairing argument still works line by line: a centre line *serves* a mark when a
four of that mark in it wins, and Order may *repair* a half-filled pair. The search has no symmetry
reduction, a memo shared by all searches and a deadline; what it cannot decide in time is left to
the alpha-beta fallback. The moves and when a line serves a mark: ``docs/bots.md``.
"""

from __future__ import annotations

import time

from arena.botlib.centre import CENTRE_CELLS, CENTRE_FULL, CENTRE_LINES, LINE_ENDS, centre_masks
from arena.botlib.solver import SearchLimitError, chaos_moves, order_children
from arena.rules import Board, Mark, Move, cells_of

_LINES = tuple(enumerate(CENTRE_LINES))
_MEMO_LIMIT = 3_000_000

Shape = tuple[int, int, int, int]
"""``(serves_x, serves_o, half, half_o)``: 10-bit masks over the centre lines: the lines serving
X, those serving O, the lines whose pair is half filled, and among those, the ones whose filled
end holds O."""


def shape_of(board: Board) -> Shape:
    """The lines' state for the general centre game, read from the border of ``board``."""
    serves_x = serves_o = half = half_o = 0
    for i, (a, b) in enumerate(LINE_ENDS):
        marks = {board.mark_at(a), board.mark_at(b)}
        bit = 1 << i
        if marks == {None}:
            serves_x |= bit
            serves_o |= bit
            continue
        if Mark.X in marks:
            serves_x |= bit
        if Mark.O in marks:
            serves_o |= bit
        if None in marks:
            half |= bit
            if Mark.O in marks:
                half_o |= bit
    return serves_x, serves_o, half, half_o


class GeneralCentre:
    """Memoised search of the general centre game (see the module's docstring)."""

    def __init__(self) -> None:
        self.memo: dict[tuple[int, ...], bool] = {}
        self.deadline: float | None = None
        self.nodes = 0
        self.max_nodes: int | None = None

    @staticmethod
    def _completions(marks: int, empty: int, serving: int) -> int:
        """The empty cells where one more of ``marks`` makes four in a line of ``serving``."""
        cells = 0
        for i, line in _LINES:
            if serving >> i & 1:
                missing = line & ~marks
                if missing & (missing - 1) == 0 and missing & empty:
                    cells |= missing
        return cells

    @staticmethod
    def _four(marks: int, serving: int) -> bool:
        return any(serving >> i & 1 and marks & line == line for i, line in _LINES)

    def order_node(self, x: int, o: int, shape: Shape) -> bool:
        """Whether Order, to move, forces a four in a line serving its mark."""
        self.nodes += 1
        sx, so, half, half_o = shape
        empty = CENTRE_FULL & ~(x | o)
        if self._completions(x, empty, sx) or self._completions(o, empty, so):
            return True
        key = (0, x, o, sx, so, half, half_o)
        known = self._recall(key) if empty else False  # a full centre without four is lost
        if known is not None:
            return known
        won = self._winning_reply(x, o, shape) is not None
        self._store(key, won)
        return won

    def _winning_reply(self, x: int, o: int, shape: Shape) -> tuple[int, int] | None:
        """Order's first move that leaves a won Chaos node: ``(centre cell, mark)``, or
        ``(line, -1)`` for the repair of that line's half-filled pair; None when there is none
        (``order_node`` and ``winning_move`` try the same moves in the same order)."""
        sx, so, half, half_o = shape
        for c, mark, x2, o2 in order_children(x, o):
            if self.chaos_node(x2, o2, shape):
                return c, mark
        for i in cells_of(half):
            bit = 1 << i
            if self.chaos_node(x, o, (sx | bit, so | bit, half & ~bit, half_o & ~bit)):
                return i, -1
        return None

    def chaos_node(self, x: int, o: int, shape: Shape) -> bool:
        """Whether Order wins with Chaos to move."""
        self.nodes += 1
        sx, so, half, half_o = shape
        empty = CENTRE_FULL & ~(x | o)
        tx = self._completions(x, empty, sx)  # Chaos must write O there
        to = self._completions(o, empty, so)
        both = tx | to
        if both:
            if tx & to or both & (both - 1):
                return True
            if tx:  # the block, unless it makes four itself (then tx & to above)
                return self.order_node(x, o | tx, shape)
            return self.order_node(x | to, o, shape)
        key = (1, x, o, sx, so, half, half_o)
        known = self._recall(key) if empty else False  # a full centre without four is lost
        if known is not None:
            return known
        won = True
        moves = chaos_moves(x, o)  # best first, but it leaves out every four...
        listed = set(moves)
        for c in cells_of(empty):  # ...and a four in a line that does not serve it is harmless
            for mark in (0, 1):
                if (c, mark) not in listed:
                    moves.append((c, mark))
        for c, mark in moves:
            bit = 1 << c
            if mark == 0:
                if self._four(x | bit, sx):
                    continue
                result = self.order_node(x | bit, o, shape)
            else:
                if self._four(o | bit, so):
                    continue
                result = self.order_node(x, o | bit, shape)
            if not result:
                won = False
                break
        if won:
            for i in cells_of(half):  # Chaos fills a half pair with its own mark: Order moves
                bit = 1 << i
                if not self.order_node(x, o, (sx, so, half & ~bit, half_o & ~bit)):
                    won = False
                    break
        self._store(key, won)
        return won

    def _recall(self, key: tuple[int, ...]) -> bool | None:
        """The memo's answer for ``key``, or None: the node is to be searched, and the deadline
        is checked first."""
        known = self.memo.get(key)
        if known is None:
            self._check()
        return known

    def _check(self) -> None:
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise SearchLimitError("out of nodes")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise SearchLimitError("out of time")

    def _store(self, key: tuple[int, ...], value: bool) -> None:
        if len(self.memo) >= _MEMO_LIMIT:
            self.memo.clear()
        self.memo[key] = value

    def strategy(
        self, shape: Shape, x: int = 0, o: int = 0
    ) -> dict[tuple[int, int], tuple[int, int]]:
        """Order's winning centre move ``(cell, mark)`` for every position ``(x, o)`` (raw, Order
        to move) its strategy meets from the won ``(x, o)`` against every Chaos centre reply, for
        a ``shape`` with no half-filled pair (so no repairs); none where Order makes four at once.
        """
        sx, so, half, _ = shape
        if half:
            raise ValueError("a shape with half-filled pairs")
        table: dict[tuple[int, int], tuple[int, int]] = {}
        stack = [(x, o)]
        while stack:
            x, o = stack.pop()
            empty = CENTRE_FULL & ~(x | o)
            if (x, o) in table or self._completions(x, empty, sx) | self._completions(o, empty, so):
                continue
            move = self._winning_reply(x, o, shape) if self.order_node(x, o, shape) else None
            if move is None:
                raise AssertionError(f"the strategy reached a lost position {x:#06x} {o:#06x}")
            table[(x, o)] = move
            c, mark = move
            x, o = (x | 1 << c, o) if mark == 0 else (x, o | 1 << c)
            empty &= ~(1 << c)
            tx = self._completions(x, empty, sx)
            to = self._completions(o, empty, so)
            if tx | to:  # one forced block (two threats, or one either mark completes, win)
                if not tx & to and (tx | to).bit_count() == 1:
                    stack.append((x, o | tx) if tx else (x | to, o))
                continue
            for c in cells_of(empty):
                if not self._four(x | 1 << c, sx):
                    stack.append((x | 1 << c, o))
                if not self._four(o | 1 << c, so):
                    stack.append((x, o | 1 << c))
        return table

    def winning_move(
        self, board: Board, deadline: float | None = None, nodes: int | None = None
    ) -> Move | None:
        """A move of Order's that keeps the general centre game won, or None.

        Raises ``SearchLimitError`` when the search cannot decide by ``deadline`` or within
        ``nodes`` more nodes (a work budget: the answer then depends only on the positions
        searched so far, not on the machine). The board must have Order to move and no five to
        complete (the caller plays fives first).
        """
        self.deadline = deadline
        self.max_nodes = None if nodes is None else self.nodes + nodes
        x, o = centre_masks(board.bits)
        shape = shape_of(board)
        sx, so, half, half_o = shape
        empty = CENTRE_FULL & ~(x | o)
        tx = self._completions(x, empty, sx)
        if tx:
            return Move(CENTRE_CELLS[(tx & -tx).bit_length() - 1], Mark.X)
        to = self._completions(o, empty, so)
        if to:
            return Move(CENTRE_CELLS[(to & -to).bit_length() - 1], Mark.O)
        if not self.order_node(x, o, shape):
            return None
        reply = self._winning_reply(x, o, shape)
        if reply is None:
            raise AssertionError("a won Order node has a winning move")
        where, mark = reply
        if mark >= 0:
            return Move(CENTRE_CELLS[where], Mark(mark))
        a, b = LINE_ENDS[where]
        hole = b if board.mark_at(a) is not None else a
        return Move(hole, Mark(1 - (half_o >> where & 1)))
