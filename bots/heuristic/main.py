"""heuristic: a one-ply search over a window evaluation (two plies as Chaos), for both roles.

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
could add to the live windows with its next move. As Chaos it looks one ply further: each move is
charged with the best of Order's ``REPLIES`` strongest replies (by their window gain), each
evaluated with its threats, so it spoils the cells where Order would build a double four or a win
by fours next. No look-ahead beyond that. Ties are broken with the seeded generator (``state.rng``
from ``ARENA_SEED``). Instant (at most about 10 ms as Chaos): it does not depend on the move time;
past ``arena.botlib.clock.GUARD_SHARE`` of ``<ms>`` (a very loaded machine) Chaos falls back to the
one-ply charge. Run it as ``python bots/heuristic/main.py``.
"""

from __future__ import annotations

import sys

try:
    from arena.bot import BotState, run
except ImportError:  # running from a clone without installing: the package is two folders up
    import os.path  # not pathlib: its import would add ~10 ms to every start of this bot

    bot_folder = os.path.dirname(os.path.realpath(__file__))
    sys.path.insert(0, os.path.dirname(os.path.dirname(bot_folder)))
    from arena.bot import BotState, run
from arena.botlib.clock import guard_deadline
from arena.botlib.heuristic import one_ply
from arena.rules import Mark, Move

REPLIES = 3
"""Order's replies a Chaos move is charged with. Measured in-process from 2-ply openings (seeds 1
and 2, 300 games each), Chaos wins against ``greedy``'s / ``heuristic``'s Order: one-ply charge
74 / 52, ``REPLIES`` 3 95 / 88, 5 about as many against ``greedy`` but fewer against
``heuristic``; ``greedy``'s Chaos 50 / 46, ``alphabeta``'s about 150 / 111: between the two."""


def choose(state: BotState) -> Move:
    """The best move for the side to move by the evaluation (Chaos: two plies)."""
    x, o = state.board.bits
    stop = guard_deadline(state.deadline, state.ms)
    cell, mark = one_ply(x, o, state.rng, REPLIES, stop)
    return Move(cell, Mark(mark))


if __name__ == "__main__":
    run(choose, name="heuristic")
