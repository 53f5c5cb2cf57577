"""greedy: a one-ply greedy bot for both roles; builds lines as Order, breaks them as Chaos.

Why: a cheap opponent that is clearly stronger than random, to make tournaments and ratings
meaningful, and an example of using ``WINDOWS_THROUGH`` from ``arena.rules``.

Evaluation: each of the 32 five-cell windows is *live* while it holds only one kind of mark; a
live window with ``k`` marks is worth ``WEIGHT[k]`` (a mixed window is dead, worth 0). ``WEIGHT``
grows by 8 per mark and a cell lies in at most 7 windows, so one window a mark closer to five
always outweighs any number of shorter ones. A move only changes the windows through its cell,
so its value is the change it makes there.

- Order completes a five when it can, else plays the move that adds the most value (extends the
  longest live lines, preferring cells in many of them).
- Chaos plays the move that removes the most value: the opposite mark in the window closest to
  completion, preferring cells in many dangerous windows, and never a move that completes a five.

So Order wins at once when it can (a five outweighs everything) and Chaos blocks every four (the
opposite mark in the four's empty cell removes the most value) and never completes a five. Ties
are broken with the seeded RNG (``state.rng``, from ``ARENA_SEED``). Instant: it does not depend
on the move time. Run it as ``python bots/greedy/main.py`` (with or without ``arena``
installed).
"""

from __future__ import annotations

import random
import sys

try:
    from arena.bot import BotState, run
except ImportError:  # running from a clone without installing: the package is two folders up
    import os.path  # not pathlib: its import would add ~10 ms to every start of this bot

    bot_folder = os.path.dirname(os.path.realpath(__file__))
    sys.path.insert(0, os.path.dirname(os.path.dirname(bot_folder)))
    from arena.bot import BotState, run
from arena.rules import WINDOWS_THROUGH, Board, Mark, Move, Role

FIVE = 1 << 30
WEIGHT = (0, 1, 8, 64, 512, FIVE)
"""Value of a live window by the number of marks in it (five: the game is won)."""


def move_gain(board: Board, move: Move) -> int:
    """How much ``move`` changes the total value of the windows (positive helps Order)."""
    x_bits, o_bits = board.bits
    mine, theirs = (x_bits, o_bits) if move.mark is Mark.X else (o_bits, x_bits)
    gain = 0
    for window in WINDOWS_THROUGH[move.cell]:
        same = (mine & window).bit_count()
        other = (theirs & window).bit_count()
        if other:
            if not same:  # the move kills a live window of the other mark
                gain -= WEIGHT[other]
        else:  # extends (or opens) a live window of this mark
            gain += WEIGHT[same + 1] - WEIGHT[same]
    return gain


def greedy_move(board: Board, role: Role, rng: random.Random) -> Move:
    """The greedy move for ``role`` in ``board`` (which must not be over)."""
    sign = 1 if role is Role.ORDER else -1
    best: list[Move] = []
    best_score = -FIVE * 16
    for move in board.legal_moves():
        score = sign * move_gain(board, move)
        if score > best_score:
            best_score = score
            best = [move]
        elif score == best_score:
            best.append(move)
    return rng.choice(best)


def choose(state: BotState) -> Move:
    """The protocol entry point: the greedy move for this bot's role."""
    return greedy_move(state.board, state.role, state.rng)


if __name__ == "__main__":
    run(choose, name="greedy")
