"""A bot that plays a uniformly random legal move, in either role.

Why: the weakest sensible opponent, the baseline every other bot must beat, and the smallest
example of ``arena.bot``. Its RNG is seeded from ``ARENA_SEED``, so a game replays exactly.

Run it as ``python bots/random_bot.py`` (from a clone, with or without ``arena`` installed).
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    from arena.bot import BotState, run
except ImportError:  # running from a clone without installing: the package is one folder up
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from arena.bot import BotState, run

from arena.rules import Move


def choose(state: BotState) -> Move:
    """Any of the legal moves (both marks in every empty cell), equally likely."""
    return state.rng.choice(state.board.legal_moves())


if __name__ == "__main__":
    run(choose, name="random")
