"""mcts: Monte Carlo tree search (UCT) with heuristic playouts, for both roles.

Strategy (``arena.botlib.mcts``): each playout walks the tree by the upper confidence bound of
each move's win rate for the side to move, adds one position, and plays the game out with the
obvious tactics (Order takes a five, Chaos blocks a lone four; otherwise a random cell, where
Order extends and Chaos kills the fuller live windows through it); the move played is the most
visited at the root. The tree's moves are ordered in tiers (fullest windows first) and opened a
few at a time (progressive widening); positions settled by fours are terminal, all dead cells are
one tempo move, and at the root Order takes a win by fours and Chaos avoids lost positions.

Time: it stops after ``PLAYOUTS_PER_MS`` playouts per millisecond of ``<ms>`` (about a third of the
move time on an idle core) so that its games depend only on ``ARENA_SEED``, and in any case after
``arena.botlib.clock.GUARD_SHARE`` of ``<ms>``; it gets stronger with more time. Run it as
``python bots/mcts/main.py``.
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path

try:
    from arena.bot import BotState, run
except ImportError:  # running from a clone without installing: the package is two folders up
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
    from arena.bot import BotState, run
from arena.botlib.clock import guard_deadline
from arena.botlib.mcts import Mcts
from arena.rules import Mark, Move

PLAYOUTS_PER_MS = 3.0


def choose(state: BotState) -> Move:
    """The most visited root move after this turn's playouts."""
    x, o = state.board.bits
    cell, mark = Mcts(state.rng).best_move(
        x, o, guard_deadline(state.deadline, state.ms), max_playouts=int(PLAYOUTS_PER_MS * state.ms)
    )
    return Move(cell, Mark(mark))


if __name__ == "__main__":
    gc.disable()  # the tree has no reference cycles: reference counting frees it
    run(choose, name="mcts")
