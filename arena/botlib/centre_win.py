"""Order's centre-game knowledge for the searching bots: a proven move when one is found cheaply.

Why: from a random opening, or once Chaos has played in the centre, the search alone can leave a
won centre game (a four of one mark in a centre line whose border pair serves that mark) by one
move it cannot see the end of. The centre game's solvers (``PerfectOrder.solve_move``:
``solver`` with the border paired, ``repair`` otherwise) decide it exactly, and on a work budget
(nodes per millisecond of ``<ms>``) the answer depends only on the game so far, not the machine.
"""

from __future__ import annotations

import array
import random
import sys
import zlib
from pathlib import Path

from arena.botlib.alphabeta import pairing_reply
from arena.botlib.centre import (
    CENTRE_CELLS,
    CENTRE_FULL,
    canonical_small,
    centre_masks,
    four_table,
    threat_table,
)
from arena.botlib.engine import threats
from arena.botlib.perfect import PerfectOrder, border_pairs
from arena.botlib.solver import MAX_ORDER_MOVES, Solver, two_mark_positions
from arena.rules import Board, Mark, Move

NODES_PER_MS = 20
"""The solvers' work budget per millisecond of ``<ms>`` (they search about 130 to 200 nodes a
millisecond, so about a seventh of the move's time)."""
MOST_EMPTY = 14
"""Tried once at most this many centre cells are empty: with more, the general game's solver
almost never decides within its budget (23 of 24 tries with 15 or 16 empty cells ran out of
20,000 nodes)."""


def prepare(opening: bool = False, memo_file: Path | None = None) -> None:
    """Build the solvers' lookup tables (about 40 ms, once per process): call it before `ready`,
    since the first move to need them would otherwise pay for it, past a short move time (the
    solvers' symmetries use byte tables, ``canonical_small``: nothing more to build). With
    ``opening``, also have the opening's proof (``opening_memo``): read from ``memo_file`` when it
    holds one (``write_memo``; a few milliseconds), else proved here (about 0.7 s)."""
    global _opening
    threat_table(), four_table()
    if opening:
        if _opening is None and memo_file is not None:
            _opening = read_memo(memo_file)
        opening_memo()


_opening: dict[int, bool] | None = None
"""This process's opening proof, once made or read (``opening_memo``)."""


def opening_memo() -> dict[int, bool]:
    """The memo of the centre game's proof from the empty centre and its two-mark positions
    (``prove_opening``): the one ``prepare`` read, else proved now, once per process (callers
    copy it, ``PerfectOrder.seed_solver``)."""
    global _opening
    if _opening is None:
        _opening = prove_opening()
    return _opening


def prove_opening() -> dict[int, bool]:
    """The memo of the centre game's proof from the empty centre and from each of its 42
    two-mark positions (up to symmetry), Order to move, border paired: the solver of
    ``PerfectOrder.solve_move`` (``Solver(MAX_ORDER_MOVES, canonical=canonical_small)``) with
    these proofs done.

    Why: early in the game the solvers cannot decide within a move's work budget (hence
    ``MOST_EMPTY``), and the search alone can leave the won centre game. Proved once, without
    a bound on Order's moves, the game is small: 42,300 positions, 128,122 nodes, about 0.7 s
    on one core (0.2 s for the empty centre alone). The memo then holds Order's whole winning
    strategy from the empty board and from every 2-ply opening that keeps the pairing's shape
    (two centre marks, or one after the pairing's answer), and ``Solver.known_moves`` reads
    each move off it. Made by the project's own search, not read from ``perfect``'s table files;
    ``write_memo`` keeps it in a bot's folder so that each start need not prove it again.
    """
    threat_table(), four_table()
    solver = Solver(MAX_ORDER_MOVES, canonical=canonical_small)
    if not solver.order_node(0, 0):
        raise AssertionError("the centre game is won for Order from the empty centre")
    for key in two_mark_positions(canonical_small):
        solver.order_node(key & CENTRE_FULL, key >> 16)
    return solver.memo


MEMO_MAGIC = b"centre-win memo 1\n"
"""The first bytes of a memo file; then a zlib stream of two uint32 counts (won, lost keys) and
the keys themselves, each part in increasing order, little-endian uint32."""


def _little(part: array.array[int]) -> array.array[int]:
    if sys.byteorder != "little":
        part.byteswap()
    return part


def write_memo(memo: dict[int, bool], path: Path) -> None:
    """Write ``memo`` (keys of centre positions, ``x | o << 16``) to ``path`` for ``read_memo``."""
    won = sorted(k for k, v in memo.items() if v)
    lost = sorted(k for k, v in memo.items() if not v)
    keys = _little(array.array("I", [len(won), len(lost), *won, *lost]))
    path.write_bytes(MEMO_MAGIC + zlib.compress(keys.tobytes(), 9))


def read_memo(path: Path) -> dict[int, bool] | None:
    """The memo ``write_memo`` wrote at ``path``; None when the file is missing or is not one
    (the caller proves it instead: a damaged file costs time, never a wrong move)."""
    try:
        data = path.read_bytes()
        if not data.startswith(MEMO_MAGIC):
            return None
        keys = _little(array.array("I", zlib.decompress(data[len(MEMO_MAGIC) :])))
    except (OSError, zlib.error, ValueError):
        return None
    if len(keys) < 2 or len(keys) != 2 + keys[0] + keys[1]:
        return None
    won = 2 + keys[0]
    memo = dict.fromkeys(keys[2:won], True)
    memo.update(dict.fromkeys(keys[won:], False))
    return memo


class CentreWin:
    """The solvers of one game, with their memos (kept across the game's moves)."""

    def __init__(self, pairing: bool = False, opening: bool = False) -> None:
        self.player = PerfectOrder()  # its solvers only: its table is never read here
        self.pairing = pairing
        """Answer a border mark by the pairing (for a search that does not do it itself)."""
        self.solver: Solver | None = None
        """With ``opening``: the paired centre game's solver, seeded with ``opening_memo``
        (a copy: what this game adds to it is forgotten with the game)."""
        if opening:
            self.solver = self.player.seed_solver(opening_memo())

    def move(
        self, board: Board, ms: int, stop: float, rng: random.Random | None = None
    ) -> Move | None:
        """Order's move that keeps the centre game won, if the solvers find one within the
        budget for ``ms`` and by ``stop``. When a border mark awaits the pairing's answer: that
        answer with ``pairing``, else None (the caller's search gives it). With ``opening`` and
        the border paired, first a move the memo already proves (``Solver.known_moves``, at
        any number of empty cells; drawn from ``rng`` when given, else the first). None when a
        four stands on the board (the search plays it), when the centre is too empty, when the
        centre game is not won or the budget runs out."""
        x, o = board.bits
        tx, to = threats(x, o)
        if tx | to:
            return None
        reply = pairing_reply(x, o)
        if reply >= 0:
            return Move(reply >> 1, Mark(reply & 1)) if self.pairing else None
        cx, co = centre_masks(board.bits)
        if self.solver is not None and reply == -1 and not (cx | co).bit_count() & 1:
            known = self.solver.known_moves(cx, co)
            if known:
                cell, mark = known[0] if rng is None else rng.choice(known)
                return Move(CENTRE_CELLS[cell], Mark(mark))
        if (CENTRE_FULL & ~(cx | co)).bit_count() > MOST_EMPTY:
            return repair(board, rng) if self.solver is not None else None
        return self.player.solve_move(board, stop, NODES_PER_MS * ms)


def repair(board: Board, rng: random.Random | None = None) -> Move | None:
    """The pairing's answer to one of several half-filled border pairs (drawn from ``rng`` when
    given, else the first), when no pair holds two equal marks; else None.

    Why: an opening with marks in two border pairs (such as ``e1O c1X``) breaks the pairing,
    and with the centre empty neither the paired solver's memo nor the general solver
    (``arena.botlib.repair``: over two million nodes without an answer) decides in a move's
    budget, so the search played on and lost. Answering the pairs one by one, as ``perfect``
    does, brings the game back to the paired centre game, with Chaos's extra marks in the
    centre: from a 2-ply opening at most two, positions that ``opening_memo`` proves won (the
    pair left half-filled gets the pairing's own answer at the next turn). Only where the
    solvers cannot decide (``MOST_EMPTY``): with fewer empty cells they weigh a repair against
    the centre moves themselves."""
    halves, equal = border_pairs(board)
    if equal or not halves:
        return None
    return rng.choice(halves) if rng is not None else halves[0]


def main(argv: list[str] | None = None) -> int:
    """``python -m arena.botlib.centre_win --out FILE``: prove the opening and write its memo."""
    import argparse
    import time

    parser = argparse.ArgumentParser(
        prog="python -m arena.botlib.centre_win",
        description="Prove the centre game from its opening and write the memo (mcts's Order).",
    )
    parser.add_argument("--out", type=Path, required=True, help="e.g. bots/mcts/opening.bin")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    memo = prove_opening()
    write_memo(memo, args.out)
    took = time.perf_counter() - started
    print(f"{len(memo)} positions proved in {took:.1f} s; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
