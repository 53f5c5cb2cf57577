"""random: a uniformly random legal move, in either role.

Strategy: none. Every legal move (both marks in every empty cell) is equally likely, drawn with
the generator the kit seeds from ``ARENA_SEED`` (``state.rng``), so a game replays exactly and two
seeds give different games. The bottom rung of the ladder, the baseline every other bot must beat,
and the smallest example of ``arena.bot``. Instant: it does not depend on the move time.

Run it as ``python bots/random/main.py`` (with or without ``arena`` installed).
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
from arena.rules import Move


def choose(state: BotState) -> Move:
    """Any of the legal moves, equally likely."""
    return state.rng.choice(state.board.legal_moves())


if __name__ == "__main__":
    run(choose, name="random")
