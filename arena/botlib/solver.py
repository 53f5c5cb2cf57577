"""Solve the centre game (see ``arena.botlib.centre``) and write Order's table of winning moves.

Why: the perfect Order player needs a move that keeps the forced win for every centre position its
strategy can meet; this proves the win by a memoised AND-OR search over canonical centre positions
(threats and forced blocks handled directly) and extracts that table.
``python -m arena.botlib.solver --out bots/perfect/table.bin`` rebuilds it and prints the figures.
The search's rules: ``docs/bots.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from arena.botlib.centre import (
    CENTRE_FULL,
    CENTRE_LINES,
    CentreTable,
    canonical,
    canonical_with,
    four_table,
    perm_tables,
    threat_table,
)
from arena.rules import cells_of

MAX_ORDER_MOVES = 8
"""Order writes at most 8 of the 16 centre marks: this bound is no bound at all."""

_LINES_THROUGH: tuple[tuple[int, ...], ...] = tuple(
    tuple(line for line in CENTRE_LINES if line >> c & 1) for c in range(16)
)
_WEIGHT = (1, 4, 16, 64, 256)


class SearchLimitError(Exception):
    """The search ran out of its time or node allowance before it could decide."""


def order_moves(x: int, o: int) -> list[tuple[int, int]]:
    """Order's candidate moves ``(cell, mark)`` in ``(x, o)``, most promising first.

    A move making two threats at once comes first, then one making a threat, then the rest by
    the lines it extends (a live line with ``k`` of the mark is worth ``4 ** k``).
    """
    threats = threat_table()
    empty = CENTRE_FULL & ~(x | o)
    scored: list[tuple[int, int, int]] = []
    for c in cells_of(empty):
        bit = 1 << c
        for mark, mine, theirs in ((0, x, o), (1, o, x)):
            made = threats[mine | bit] & empty & ~bit
            if made & (made - 1):
                score = 1 << 20
            elif made:
                score = 1 << 16
            else:
                score = 0
            for line in _LINES_THROUGH[c]:
                if not theirs & line:
                    score += _WEIGHT[(mine & line).bit_count()]
            scored.append((-score, c, mark))
    scored.sort()
    return [(c, mark) for _, c, mark in scored]


def order_children(x: int, o: int) -> Iterator[tuple[int, int, int, int]]:
    """``(cell, mark, x, o)`` for each of ``order_moves(x, o)``: the move and the position after
    it, in that order (the Order nodes of ``Solver`` and of ``repair`` walk them alike)."""
    for c, mark in order_moves(x, o):
        bit = 1 << c
        yield (c, mark, x | bit, o) if mark == 0 else (c, mark, x, o | bit)


def chaos_moves(x: int, o: int) -> list[tuple[int, int]]:
    """Chaos's moves ``(cell, mark)`` that do not make four, those that spoil most lines first."""
    fours = four_table()
    empty = CENTRE_FULL & ~(x | o)
    scored: list[tuple[int, int, int]] = []
    for c in cells_of(empty):
        bit = 1 << c
        for mark, mine, theirs in ((0, x, o), (1, o, x)):
            if fours[mine | bit]:
                continue
            score = 0
            for line in _LINES_THROUGH[c]:
                if mine & line:
                    if not theirs & line:  # extends a line of its own mark: helps Order
                        score -= _WEIGHT[(mine & line).bit_count()]
                elif theirs & line:  # kills a live line of the other mark
                    score += _WEIGHT[(theirs & line).bit_count()]
            scored.append((-score, c, mark))
    scored.sort()
    return [(c, mark) for _, c, mark in scored]


@dataclass
class SolveResult:
    """What ``solve`` found."""

    won: bool
    """Whether Order forces four from the start position within the bound."""
    positions: int
    """Distinct positions (up to symmetry) in the memo when the search ended."""
    nodes: int
    """Nodes visited, forced and immediate ones included."""
    seconds: float
    table: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Canonical key -> (centre cell, mark) for every Order node of the strategy (if asked)."""
    max_order_moves: int = 0
    """The most centre moves Order makes under the table's strategy, the four included."""
    opening_entries: int = 0
    """Entries added for the two-mark positions of ``two_mark_positions`` (if asked)."""


class Solver:
    """One memoised search with a bound on Order's moves (``MAX_ORDER_MOVES``: none)."""

    def __init__(
        self,
        max_order_moves: int = MAX_ORDER_MOVES,
        *,
        deadline: float | None = None,
        node_limit: int | None = None,
        passes: int = 0,
        canonical: Callable[[int, int], int] = canonical,
    ) -> None:
        self.bound = max_order_moves
        self.canonical = canonical
        self.deadline = deadline
        self.node_limit = node_limit
        self.passes = passes
        self.memo: dict[int, bool] = {}
        self.nodes = 0

    # The two node functions are written for speed: locals, no per-node allocation but the lists.
    def order_node(self, x: int, o: int) -> bool:
        """Whether Order, to move in ``(x, o)`` (no four on it), forces four within the bound."""
        self.nodes += 1
        threats = threat_table()
        empty = CENTRE_FULL & ~(x | o)
        if (threats[x] | threats[o]) & empty:
            return True
        if (16 - empty.bit_count()) >> 1 >= self.bound:  # Order has used all its moves
            return False
        key = self.canonical(x, o)
        known = self.memo.get(key)
        if known is not None:
            return known
        self._check_limits()
        won = self._winning_reply(x, o, self.passes) is not None
        self.memo[key] = won
        return won

    def _winning_reply(self, x: int, o: int, passes: int) -> tuple[int, int] | None:
        """Order's first move ``(cell, mark)``, in ``order_moves`` order, whose Chaos node is
        won; None when there is none (``order_node`` and ``winning_move`` ask the same)."""
        for c, mark, x2, o2 in order_children(x, o):
            if self.chaos_node(x2, o2, passes):
                return c, mark
        return None

    def chaos_node(self, x: int, o: int, passes: int = 0) -> bool:
        """Whether Order wins with Chaos to move in ``(x, o)`` (no four on it).

        ``passes`` is how many border moves Chaos may still make; it changes nothing (a pass gives
        the move back to Chaos in the same position), which the tests check with ``passes > 0``.
        """
        self.nodes += 1
        threats = threat_table()
        empty = CENTRE_FULL & ~(x | o)
        tx = threats[x] & empty  # cells where X would make four: Chaos must write O there
        to = threats[o] & empty
        both = tx | to
        if (17 - empty.bit_count()) >> 1 >= self.bound:  # Order has no move left:
            return bool(empty) and tx & to == empty  # only a zugzwang wins
        if both:
            if tx & to or both & (both - 1):
                return True
            if tx:
                return self.order_node(x, o | tx)
            return self.order_node(x | to, o)
        if not empty:
            return False
        key = self.canonical(x, o)
        if passes:
            key = -(key << 4 | passes)
        known = self.memo.get(key)
        if known is not None:
            return known
        self._check_limits()
        won = True
        if passes and not self.chaos_node(x, o, passes - 1):
            won = False
        else:
            for c, mark in chaos_moves(x, o):
                bit = 1 << c
                if not (self.order_node(x | bit, o) if mark == 0 else self.order_node(x, o | bit)):
                    won = False
                    break
        self.memo[key] = won
        return won

    def _check_limits(self) -> None:
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise SearchLimitError(f"over {self.node_limit} nodes")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise SearchLimitError("out of time")

    def winning_move(self, x: int, o: int) -> tuple[int, int] | None:
        """A move that keeps Order's win in ``(x, o)`` (Order to move), or None if it is lost.

        An immediate four comes first; otherwise the first move, in ``order_moves`` order, whose
        Chaos node is won (memo hits after ``order_node`` has searched the position).
        """
        threats = threat_table()
        empty = CENTRE_FULL & ~(x | o)
        tx = threats[x] & empty
        to = threats[o] & empty
        if tx:
            return (tx & -tx).bit_length() - 1, 0
        if to:
            return (to & -to).bit_length() - 1, 1
        if not self.order_node(x, o):
            return None
        reply = self._winning_reply(x, o, 0)
        if reply is None:
            raise AssertionError("a won Order node has a winning move")
        return reply

    def known_moves(self, x: int, o: int) -> list[tuple[int, int]]:
        """Order's moves ``(cell, mark)`` in ``(x, o)`` (Order to move) that the memo already
        proves winning, without searching: an immediate four, else every move, in
        ``order_moves`` order, whose Chaos node the memo (through forced blocks) says is won.

        Why: a memo filled by a finished proof (``order_node`` returned True) holds the whole
        strategy below it, so a player that keeps to these moves finds the next one here at
        every turn, however many centre cells are empty, for the cost of a few lookups (the
        ``mcts`` bot's Order, ``arena.botlib.centre_win``). Empty when the memo does not know.
        """
        threats = threat_table()
        empty = CENTRE_FULL & ~(x | o)
        fours = [(c, 0) for c in cells_of(threats[x] & empty)]
        fours += [(c, 1) for c in cells_of(threats[o] & empty)]
        if fours:
            return fours
        return [(c, mark) for c, mark, x2, o2 in order_children(x, o) if self._known_chaos(x2, o2)]

    def _known_order(self, x: int, o: int) -> bool | None:
        """``order_node`` from the memo alone: None when it does not know."""
        empty = CENTRE_FULL & ~(x | o)
        threats = threat_table()
        if (threats[x] | threats[o]) & empty:
            return True
        if (16 - empty.bit_count()) >> 1 >= self.bound:
            return False
        return self.memo.get(self.canonical(x, o))

    def _known_chaos(self, x: int, o: int) -> bool | None:
        """``chaos_node`` (no passes) from the memo alone: None when it does not know."""
        threats = threat_table()
        empty = CENTRE_FULL & ~(x | o)
        tx = threats[x] & empty
        to = threats[o] & empty
        both = tx | to
        if (17 - empty.bit_count()) >> 1 >= self.bound:
            return bool(empty) and tx & to == empty
        if both:
            if tx & to or both & (both - 1):
                return True
            return self._known_order(x, o | tx) if tx else self._known_order(x | to, o)
        if not empty:
            return False
        return self.memo.get(self.canonical(x, o))

    def strategy(
        self, x: int = 0, o: int = 0, known: Iterable[int] = ()
    ) -> tuple[dict[int, tuple[int, int]], int]:
        """The table for the won Order node ``(x, o)``, and the most Order moves it needs.

        Walks the strategy: at each Order node (in canonical orientation) the ``winning_move``,
        at each Chaos node every reply that does not lose at once (a forced block only, when Chaos
        faces one threat). Positions where Order makes four at once get no entry, nor those in
        ``known`` (keys of a table closed under its own strategy: the walk stops there).
        """
        table: dict[int, tuple[int, int]] = {}
        seen: set[int] = set(known)
        deepest = 0
        threats = threat_table()
        fours = four_table()
        stack = [(x, o)]
        while stack:
            x, o = stack.pop()
            key, sym, swapped = canonical_with(x, o)
            if key in seen:
                continue
            seen.add(key)
            cx, co = key & CENTRE_FULL, key >> 16
            moves_so_far = (cx | co).bit_count() >> 1
            empty = CENTRE_FULL & ~(cx | co)
            if (threats[cx] | threats[co]) & empty:
                deepest = max(deepest, moves_so_far + 1)
                continue
            move = self.winning_move(cx, co)
            if move is None:
                raise AssertionError(f"strategy reached a lost position {key:#x}")
            table[key] = move
            c, mark = move
            nx, no = (cx | 1 << c, co) if mark == 0 else (cx, co | 1 << c)
            empty &= ~(1 << c)
            tx = threats[nx] & empty
            to = threats[no] & empty
            both = tx | to
            if both:
                if tx & to or both & (both - 1):
                    deepest = max(deepest, moves_so_far + 2)
                elif tx:
                    stack.append((nx, no | tx))
                else:
                    stack.append((nx | to, no))
                continue
            replies = 0
            for cell in range(16):
                bit = 1 << cell
                if not empty & bit:
                    continue
                if not fours[nx | bit]:
                    stack.append((nx | bit, no))
                    replies += 1
                if not fours[no | bit]:
                    stack.append((nx, no | bit))
                    replies += 1
            if not replies:  # zugzwang: every Chaos move makes four
                deepest = max(deepest, moves_so_far + 1)
        return table, deepest


def two_mark_positions(key: Callable[[int, int], int] = canonical) -> list[int]:
    """The canonical keys (by ``key``: ``canonical``, or ``canonical_small``, which gives the
    same keys) of every centre position with two marks (Order to move).

    A 2-ply opening whose border keeps the pairing's shape once the pairing has answered leaves
    one of these (or the empty centre, or one mark with Chaos to move, whose replies give one):
    the table covers them all, so that ``perfect`` stays on its table from such an opening.
    """
    keys = set()
    for a in range(16):
        for b in range(a + 1, 16):
            for x, o in ((1 << a | 1 << b, 0), (1 << a, 1 << b), (1 << b, 1 << a)):
                keys.add(key(x, o))
    return sorted(keys)


def opening_strategy(known: dict[int, tuple[int, int]]) -> dict[int, tuple[int, int]]:
    """The entries to add to the table ``known`` (closed under its strategy) so that it covers
    every ``two_mark_positions`` position, by a search with no bound on Order's moves."""
    solver = Solver(MAX_ORDER_MOVES)
    added: dict[int, tuple[int, int]] = {}
    for key in two_mark_positions():
        if key in known or key in added:
            continue
        more, _ = solver.strategy(key & CENTRE_FULL, key >> 16, known.keys() | added.keys())
        added.update(more)
    return added


def solve(
    max_order_moves: int = MAX_ORDER_MOVES,
    *,
    table: bool = True,
    first: tuple[int, int] | None = None,
    progress: Callable[[str], None] | None = None,
) -> SolveResult:
    """Search the centre game from the empty centre (or after Order's ``first`` move).

    With ``table``, also extract the strategy's table (only when Order wins), extended to the
    positions 2-ply openings leave (``opening_strategy``).
    """
    perm_tables(), threat_table(), four_table()  # build the lookup tables outside the timing
    solver = Solver(max_order_moves)
    started = time.perf_counter()
    if first is None:
        won = solver.order_node(0, 0)
    else:
        c, mark = first
        won = solver.chaos_node(1 << c, 0) if mark == 0 else solver.chaos_node(0, 1 << c)
    seconds = time.perf_counter() - started
    result = SolveResult(won, len(solver.memo), solver.nodes, seconds)
    if progress is not None:
        progress(
            f"searched {result.positions:,} positions ({result.nodes:,} nodes) in {seconds:.1f} s"
        )
    if table and won and first is None:
        result.table, result.max_order_moves = solver.strategy()
        added = opening_strategy(result.table)
        result.table.update(added)
        result.opening_entries = len(added)
    return result


def main(argv: list[str] | None = None) -> int:
    """``python -m arena.botlib.solver``: prove Order's centre win and write the table."""
    parser = argparse.ArgumentParser(
        prog="python -m arena.botlib.solver",
        description="Prove that Order forces four in the centre 4x4 and write its table.",
    )
    parser.add_argument(
        "--out", type=Path, help="where to write the table (e.g. bots/perfect/table.bin)"
    )
    parser.add_argument(
        "--max-order-moves",
        type=int,
        default=7,
        help="bound on Order's centre moves, the four included (default 7; 8 means none)",
    )
    parser.add_argument(
        "--first-moves",
        action="store_true",
        help="also check every first move in the centre (up to symmetry)",
    )
    parser.add_argument(
        "--check-bound",
        action="store_true",
        help="also show that one Order move fewer does not suffice",
    )
    args = parser.parse_args(argv)

    def say(text: str) -> None:
        print(text, flush=True)

    total = time.perf_counter()
    say(f"centre game, Order's moves bounded by {args.max_order_moves}")
    result = solve(args.max_order_moves, progress=say)
    say(f"Order {'wins' if result.won else 'does not win'} from the empty centre")
    if not result.won:
        return 1
    say(
        f"table: {len(result.table):,} Order positions; "
        f"at most {result.max_order_moves} Order moves in the centre from the empty centre; "
        f"{result.opening_entries:,} of them for the two-mark positions 2-ply openings leave"
    )
    if args.out is not None:
        data = CentreTable.from_dict(result.table).to_bytes()
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_bytes(data)
        say(f"wrote {args.out} ({len(data):,} bytes)")
    if args.first_moves:
        for c in (0, 1, 5):  # a corner, an edge and an inner cell of the 4x4: one of each class
            first = solve(args.max_order_moves, table=False, first=(c, 0))
            say(
                f"first move in centre cell {c}: Order {'wins' if first.won else 'does not win'} "
                f"({first.positions:,} positions, {first.seconds:.1f} s)"
            )
    if args.check_bound:
        fewer = solve(args.max_order_moves - 1, table=False)
        say(
            f"with at most {args.max_order_moves - 1} Order moves: Order "
            f"{'wins' if fewer.won else 'does not win'} "
            f"({fewer.positions:,} positions, {fewer.seconds:.1f} s)"
        )
    say(f"total {time.perf_counter() - total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
