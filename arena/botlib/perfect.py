"""The perfect Order player's strategy: five when it can, the border pairing, the solved centre.

Why: with six in a line counting, Order wins by force, and this is that win as a move function
(``bots/perfect/main.py`` wraps it); its tables cover every 2-ply opening too (``equal_pair`` when
a border pair holds equal marks). Off them it solves the centre game within half the time left
(``solver``, or ``repair`` when the pairing's shape is broken), else searches (``perfect_search``).
As Chaos it plays ``mcts``'s search with its first reply in the central 4x4 and Order's replies
below its root sorted by value (``CHAOS_REPLY_TEMPERATURE``). Ties go to the seeded
generator, so games vary with ``ARENA_SEED``. Its steps in order of priority: ``docs/bots.md``.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from arena.botlib.centre import (
    CENTRE_CELLS,
    CENTRE_FULL,
    CENTRE_LINES,
    LINE_ENDS,
    PARTNER,
    SYMMETRIES,
    CentreTable,
    canonical_images,
    canonical_small,
    centre_masks,
    four_table,
    threat_table,
)
from arena.botlib.equal_pair import lookup
from arena.botlib.mcts import CENTRE_OPENING, CHAOS_REPLY_TEMPERATURE, budgeted_move
from arena.botlib.perfect_search import search
from arena.botlib.repair import GeneralCentre
from arena.botlib.solver import MAX_ORDER_MOVES, SearchLimitError, Solver
from arena.rules import CELLS, WINDOWS_THROUGH, Board, Mark, Move, Role


def time_budget(ms: int) -> float:
    """Seconds of a ``ms`` allowance this player may spend: well inside it, for a busy machine.

    A third of it, and at least 50 ms to spare (the search may overrun its stop by a few
    milliseconds, and the reply must still cross the pipe); never less than a millisecond.
    """
    return max(0.001, min(ms / 3, ms - 50) / 1000)


def _fives(bits: list[int]) -> list[Move]:
    """Every move that completes five in a line."""
    occupied = bits[0] | bits[1]
    moves = []
    for cell in range(CELLS):
        if occupied >> cell & 1:
            continue
        for mark in Mark:
            mine = bits[mark] | 1 << cell
            if any(mine & w == w for w in WINDOWS_THROUGH[cell]):
                moves.append(Move(cell, mark))
    return moves


class PerfectOrder:
    """Order's forced win, with the tables read from ``table_path`` and ``equal_path`` on first
    use."""

    def __init__(
        self,
        table_path: Path | None = None,
        table: CentreTable | None = None,
        equal_path: Path | None = None,
        equal: CentreTable | None = None,
    ) -> None:
        self.table_path = table_path
        self._table = table
        self.equal_path = equal_path
        """The table for a border with one pair of equal marks (``equal_pair``): read on first
        use; without it (nor ``equal``) such a border is off the strategy."""
        self._equal = equal
        self._solver: Solver | None = None
        self._general: GeneralCentre | None = None
        self.node_limit = 1 << 62
        """Nodes the alpha-beta fallback may search (``choose_move`` sets it from the time)."""
        self.last_reason = ""
        """How the last move was chosen: five, pair, four, table, solve or search."""

    @property
    def table(self) -> CentreTable:
        if self._table is None:
            if self.table_path is None:
                raise ValueError("no table and no table file")
            self._table = CentreTable.read(self.table_path)
        return self._table

    @property
    def equal(self) -> CentreTable | None:
        if self._equal is None and self.equal_path is not None:
            self._equal = CentreTable.read(self.equal_path)
        return self._equal

    def warm(self) -> None:
        """Load the table and build the solver's small lookup tables now (before the first move).

        The solver here canonicalises with byte tables (``canonical_small``): slower per call than
        the 65,536-entry tables of the table build, but built in a few milliseconds.
        """
        _ = self.table, self.equal
        threat_table(), four_table()

    def forget(self) -> None:
        """Drop what the solvers learnt in earlier games (their memos), as a fresh process has
        not: a process kept for another match then plays as if started for it (``match``)."""
        self._solver = None
        self._general = None

    def seed_solver(self, memo: dict[int, bool]) -> Solver:
        """Start the centre game's solver (``solve_move``'s) from a copy of ``memo``, the memo
        of a ``Solver(MAX_ORDER_MOVES, canonical=canonical_small)`` (the same keys and bound):
        what a proof made before the game knows, this game's solver knows at once, and what it
        learns stays in this game's copy. Returns the solver."""
        self._solver = Solver(MAX_ORDER_MOVES, canonical=canonical_small)
        self._solver.memo = dict(memo)
        return self._solver

    def strategy_move(
        self, board: Board, rng: random.Random, last: Move | None = None
    ) -> Move | None:
        """The strategy's move (steps 1-4), or None when the position is off its tables.
        ``last``: Chaos's last move (an opening's last ply on the first turn after it), if known."""
        bits = board.bits
        fives = _fives(bits)
        if fives:
            self.last_reason = "five"
            return rng.choice(fives)
        shape = self._border_shape(board, last)
        if shape is None:
            return None
        if isinstance(shape, Move):
            self.last_reason = "pair"
            return shape
        equal, equal_mark = shape
        x, o = centre_masks(bits)
        empty = CENTRE_FULL & ~(x | o)
        fours = [
            Move(CENTRE_CELLS[c], mark)
            for i, line in enumerate(CENTRE_LINES)
            for mark, mine in ((Mark.X, x), (Mark.O, o))
            if (line & ~mine).bit_count() == 1 and (i != equal or mark == equal_mark)
            for c in range(16)
            if (line & ~mine & empty) >> c & 1
        ]
        if fours:
            self.last_reason = "four"
            return rng.choice(fours)
        if equal >= 0:
            if self.equal is None or (move := lookup(self.equal, equal, equal_mark, x, o)) is None:
                return None
            self.last_reason = "table"
            return Move(CENTRE_CELLS[move[0]], Mark(move[1]))
        key, images = canonical_images(x, o)
        found = self.table.get(key)
        if found is None:
            return None
        cell, mark = found
        sym, swapped = rng.choice(images)
        self.last_reason = "table"
        return Move(CENTRE_CELLS[SYMMETRIES[sym].index(cell)], Mark(mark ^ swapped))

    def _border_shape(
        self, board: Board, last: Move | None = None
    ) -> Move | tuple[int, int] | None:
        """The pairing's answer to a half-filled border pair when it is the only one, or when
        ``last`` made it (Chaos's move into an empty pair: answering it changes no line); else,
        with no half-filled pair, ``(line, mark)`` for the one centre line whose pair holds two
        of ``mark``, or ``(-1, -1)`` when every pair is empty or holds X and O; else None (off
        the strategy: several half-filled pairs, or several pairs of equal marks)."""
        halves, equal_pairs = border_pairs(board)
        equal = [(-1, -1), *equal_pairs]
        if len(halves) == 1:
            return halves[0]
        if (
            last is not None
            and last.cell in PARTNER
            and Move(PARTNER[last.cell], Mark(1 - last.mark)) in halves
        ):
            return Move(PARTNER[last.cell], Mark(1 - last.mark))
        if halves or len(equal) > 2:
            return None
        return equal[-1]

    def solve_move(self, board: Board, stop: float, nodes: int | None = None) -> Move | None:
        """A winning centre move found by solving the centre game by ``stop`` (and within
        ``nodes`` more nodes: a work budget), else None."""
        if self._border_shape(board) != (-1, -1):
            return self.repair_move(board, stop, nodes)
        x, o = centre_masks(board.bits)
        if (x | o).bit_count() & 1:
            return None
        if self._solver is None:
            self._solver = Solver(MAX_ORDER_MOVES, canonical=canonical_small)
        self._solver.deadline = stop
        self._solver.node_limit = None if nodes is None else self._solver.nodes + nodes
        try:
            move = self._solver.winning_move(x, o)
        except SearchLimitError:
            return None
        if move is None:
            return None
        return Move(CENTRE_CELLS[move[0]], Mark(move[1]))

    def repair_move(self, board: Board, stop: float, nodes: int | None = None) -> Move | None:
        """A move that wins the general centre game (``arena.botlib.repair``) by ``stop`` (and
        within ``nodes``), else None: for a border out of the pairing's shape (half-filled
        pairs, equal marks)."""
        if self._general is None:
            self._general = GeneralCentre()
        try:
            return self._general.winning_move(board, stop, nodes)
        except SearchLimitError:
            return None

    def choose(
        self, board: Board, rng: random.Random, stop: float, last: Move | None = None
    ) -> Move:
        """Order's move in ``board`` (Order to move, game not over), decided by ``stop``, after
        Chaos's move ``last`` (if known)."""
        move = self.strategy_move(board, rng, last)
        if move is not None:
            return move
        now = time.monotonic()
        move = self.solve_move(board, now + (stop - now) / 2)
        if move is not None:
            self.last_reason = "solve"
            return move
        self.last_reason = "search"
        return search(board.bits, True, stop, rng, self.node_limit)


def border_pairs(board: Board) -> tuple[list[Move], list[tuple[int, int]]]:
    """The border pairs as the pairing sees them: its answer to each half-filled pair (the
    opposite mark in the empty end), and ``(line, mark)`` for each pair holding two equal marks
    (in ``LINE_ENDS`` order)."""
    halves: list[Move] = []
    equal: list[tuple[int, int]] = []
    for line, (a, b) in enumerate(LINE_ENDS):
        ma, mb = board.mark_at(a), board.mark_at(b)
        if ma is None and mb is not None:
            halves.append(Move(a, Mark(1 - mb)))
        elif mb is None and ma is not None:
            halves.append(Move(b, Mark(1 - ma)))
        elif ma is not None and ma == mb:
            equal.append((line, int(ma)))
    return halves, equal


def chaos_move(board: Board, rng: random.Random, ms: int, deadline: float) -> Move:
    """Chaos's move: the ``mcts`` bot's search, its first reply in the centre and Order's replies
    below its root sorted by their value too (``CHAOS_REPLY_TEMPERATURE``), for a move of ``ms``
    milliseconds that must be made by ``deadline`` (a ``time.monotonic`` value)."""
    x, o = board.bits
    cell, mark = budgeted_move(x, o, rng, ms, deadline, CENTRE_OPENING, CHAOS_REPLY_TEMPERATURE)
    return Move(cell, Mark(mark))


NODES_PER_MS = 4
"""The search's node allowance per millisecond of the move's time: about a third of the time on
a busy 2-core machine, so that the node limit, not the clock, usually ends the search and the
game replays exactly given ``ARENA_SEED`` (the clock still stops it on a slower machine)."""


def choose_move(
    player: PerfectOrder,
    board: Board,
    role: Role,
    rng: random.Random,
    ms: int,
    deadline: float | None = None,
    last: Move | None = None,
) -> Move:
    """One move for ``role`` with ``ms`` milliseconds allowed (the bot's whole ``choose``).

    ``deadline`` is the ``time.monotonic()`` value when the allowance runs out, counted from when
    the turn arrived (the kit's ``state.deadline``); the move is decided well before it.
    ``last`` is the opponent's last move (the kit's ``state.last``).
    """
    start = time.monotonic() if deadline is None else deadline - ms / 1000
    if role is Role.CHAOS:
        return chaos_move(board, rng, ms, start + ms / 1000)
    player.node_limit = max(1, NODES_PER_MS * ms)
    return player.choose(board, rng, start + time_budget(ms), last)
