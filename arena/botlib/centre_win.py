"""Order's centre-game knowledge for the searching bots: a proven move when one is found cheaply.

Why: from a random opening, or once Chaos has played in the centre, the search alone can leave a
won centre game (a four of one mark in a centre line whose border pair serves that mark) by one
move it cannot see the end of. The centre game's solvers (``PerfectOrder.solve_move``:
``solver`` with the border paired, ``repair`` otherwise) decide it exactly, and on a work budget
(nodes per millisecond of ``<ms>``) the answer depends only on the game so far, not the machine.
"""

from __future__ import annotations

from arena.botlib.alphabeta import pairing_reply
from arena.botlib.centre import CENTRE_FULL, centre_masks, four_table, threat_table
from arena.botlib.engine import threats
from arena.botlib.perfect import PerfectOrder
from arena.rules import Board, Mark, Move

__all__ = ["NODES_PER_MS", "MOST_EMPTY", "CentreWin", "prepare"]

NODES_PER_MS = 20
"""The solvers' work budget per millisecond of ``<ms>`` (they search about 130 to 200 nodes a
millisecond, so about a seventh of the move's time)."""
MOST_EMPTY = 14
"""Tried once at most this many centre cells are empty: with more, the general game's solver
almost never decides within its budget (23 of 24 tries with 15 or 16 empty cells ran out of
20,000 nodes)."""


def prepare() -> None:
    """Build the solvers' lookup tables (about 40 ms, once per process): call it before `ready`,
    since the first move to need them would otherwise pay for it, past a short move time (the
    solvers' symmetries use byte tables, ``canonical_small``: nothing more to build)."""
    threat_table(), four_table()


class CentreWin:
    """The solvers of one game, with their memos (kept across the game's moves)."""

    def __init__(self, pairing: bool = False) -> None:
        self.player = PerfectOrder()  # its solvers only: its table is never read here
        self.pairing = pairing
        """Answer a border mark by the pairing (for a search that does not do it itself)."""

    def move(self, board: Board, ms: int, stop: float) -> Move | None:
        """Order's move that keeps the centre game won, if the solvers find one within the
        budget for ``ms`` and by ``stop``. When a border mark awaits the pairing's answer: that
        answer with ``pairing``, else None (the caller's search gives it). None when a four stands
        on the board (the search plays it), when the centre is too empty, when the centre game
        is not won or the budget runs out."""
        x, o = board.bits
        tx, to = threats(x, o)
        if tx | to:
            return None
        reply = pairing_reply(x, o)
        if reply >= 0:
            return Move(reply >> 1, Mark(reply & 1)) if self.pairing else None
        cx, co = centre_masks(board.bits)
        if (CENTRE_FULL & ~(cx | co)).bit_count() > MOST_EMPTY:
            return None
        return self.player.solve_move(board, stop, NODES_PER_MS * ms)
