"""heuristic: a one-ply search over a window evaluation, for both roles.

Strategy (``arena.botlib.heuristic``): every move (both marks in every live cell, and one move for
all the dead cells, which change nothing) is scored by the evaluation of the position it leads to,
and the best for the bot's role is played (Order maximises, Chaos minimises). The evaluation sums,
over the live windows (those holding one kind of mark), a weight that grows eightfold with each mark
in the window (0, 1, 8, 64, 512), so a cell is worth more the more, and the fuller, the live windows
through it; then it reads the threats one step on: a four left to Order wins, a lone four must be
blocked (the block is played and the position after it evaluated), and a cell where one mark would
make two fours at once is a win for Order if Order is to move.

So Order completes a five when it can and prefers moves that build toward two fours; Chaos blocks
every four, never completes a five or hands Order a four when it can help it, spoils double-four
cells, and otherwise kills the fullest live windows, counting against each move the most Order
could add to the live windows with its next move (so it spoils the cells that extend several
windows at once). No look-ahead beyond that. Ties are broken
with the seeded generator (``state.rng`` from ``ARENA_SEED``). Instant (a few milliseconds): it does
not depend on the move time. Run it as ``python bots/heuristic/main.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    from arena.bot import BotState, run
except ImportError:  # running from a clone without installing: the package is two folders up
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
    from arena.bot import BotState, run
from arena.botlib.heuristic import one_ply
from arena.rules import Mark, Move


def choose(state: BotState) -> Move:
    """The best move for the side to move by the one-ply evaluation."""
    x, o = state.board.bits
    cell, mark = one_ply(x, o, state.rng)
    return Move(cell, Mark(mark))


if __name__ == "__main__":
    run(choose, name="heuristic")
