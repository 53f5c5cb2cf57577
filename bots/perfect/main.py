"""perfect: the solved Order player (and, as Chaos, the ladder's strongest: ``mcts``'s search).

Why: with six in a line counting, Order wins by force; this bot plays that win, so that every
Chaos bot can be measured against the strongest possible Order. As Order it completes five when
it can, answers a Chaos move in the border with the opposite mark in the partner cell (the
pairing of the 20 border cells), and otherwise plays the solved centre game from ``table.bin``
(rebuilt by ``python -m arena.botlib.solver --out bots/perfect/table.bin``), or from
``equal.bin`` when one border pair holds two equal marks (after some random openings; rebuilt by
``python -m arena.botlib.equal_pair --out bots/perfect/equal.bin``). A position its
strategy does not cover (a random opening) falls back to solving the centre game within the
time, then to a small alpha-beta search (``arena.botlib.perfect_search``: 4 nodes per ms of
``<ms>``, and at most a third of it). As Chaos, where no perfect play is known, it plays the
``mcts`` bot's search with the same budget (``arena.botlib.mcts.budgeted_move``), its first
reply in the centre and Order's replies below its root sorted by value: its strength there
depends on its time.
See ``arena.botlib.perfect`` for the details. Deterministic given ``ARENA_SEED``.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    from arena.bot import BotState, run
except ImportError:  # running from a clone without installing: the package is two folders up
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
    from arena.bot import BotState, run

from arena.botlib.perfect import PerfectOrder, choose_move
from arena.rules import Move

HERE = Path(__file__).resolve().parent
PLAYER = PerfectOrder(HERE / "table.bin", equal_path=HERE / "equal.bin")


def choose(state: BotState) -> Move:
    """The protocol entry point: the move for this bot's role within ``state.ms``."""
    board, role, rng = state.board, state.role, state.rng
    return choose_move(PLAYER, board, role, rng, state.ms, state.deadline, state.last)


if __name__ == "__main__":
    PLAYER.warm()  # the tables and lookup tables, before `ready` (about a tenth of a second)
    run(choose, name="perfect", on_match=lambda _seed: PLAYER.forget())
