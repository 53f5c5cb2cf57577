"""mcts: Monte Carlo tree search (PUCT, as in AlphaZero) on the window evaluation, for both roles.

Strategy (``arena.botlib.mcts``): each simulation walks down the tree choosing, for the side to
move, the move with the best mean value plus an exploration bonus weighted by a *prior* (a
softmax over the moves' window gains: Order extends the fullest live windows, Chaos kills them),
adds one position, and scores it with the ``heuristic`` bot's threat evaluation turned into a
probability that Order wins (a logistic curve fitted on self-play), instead of a random playout;
the move played is the most visited at the root. Positions settled by fours are terminal and
their results are proven up the tree (a proven win is played at once); all dead cells are one
tempo move; at the root Order takes a win by fours and Chaos avoids lost positions. As Chaos,
once a mark stands in the border, the leaves are scored by a second curve fitted on the shape of
the live windows (``arena.botlib.mcts.window_win_probability``): against the depth-3 reference
``ref_ab3w4``'s Order it won 86 of 200 games instead of 59, against the held-out references'
Orders 38 of 80 instead of 24 (``docs/ladder.md``, "Survival against a depth-3 Order"). Its
root's prior is also re-weighted by that curve (``Mcts.value_prior``): 108 of those 200 games
instead of 86, 29.2 plies a game instead of 27.4; on the held-out seeds 11-20, 123 instead of 89.

As Chaos it is the plain search, with no opening knowledge: its first reply is the search's own.
``perfect``'s Chaos plays the same search with its first reply kept in the central 4x4
(``arena.botlib.mcts.CENTRE_OPENING``). Measured in-process at 200 ms on the work budget against
the depth-3 alpha-beta Order (``benchmarks/bots/depth3.py``): left free, the first reply
often went to the border (a3, c1, c6, f3, f6), Order then took a second central cell and won 9
of those 10 games (Chaos won 11 of seeds 1-20, losing at plies 21-25); in the centre Chaos held
the full board in 40 of 40 (seeds 1-40), and won 30 of 30 instead of 24 against ``heuristic``'s
Order (100 ms). But ``alphabeta``'s Order, whose pairing answers a border move by its partner
cell, wins the centre lines: 20 of 20 in-process, where the search's own replies won 10.

As Order it answers a Chaos mark in the border by the pairing (the opposite mark in the
partner cell, as ``alphabeta``) and plays the centre game from a proof it makes itself: before
``ready`` it proves the paired centre game won from the empty centre and from each of the 42
two-mark positions (``arena.botlib.centre_win.opening_memo``: the project's own ``Solver``, 42,300
positions, about 0.7 s; ``perfect``'s table files are not read). That proof, the same each time,
is kept beside this file (``opening.bin``, written by ``python -m arena.botlib.centre_win --out
bots/mcts/opening.bin``; read in about 15 ms) and made again at start-up only when the file is
missing or unreadable. At each turn with the border
paired it plays a move that proof shows winning (``Solver.known_moves``, drawn from the seeded
generator), however many centre cells are empty. With several border pairs half filled and the
centre (nearly) empty, as after an opening with two border marks, it answers one of them by the
pairing (``centre_win.repair``). Elsewhere (a pair holding two equal marks, longer openings),
once at most 14 centre cells are empty, it asks the centre game's solvers on their work budget;
it searches only when none of these gives a move. Why: early in the game the solvers cannot
decide within a move's budget, and the search alone left the won centre game there: that is
where its Order lost and rated below ``alphabeta``'s (issue 25). Proving it at each start cost
about 0.7 s of CPU (0.1 s before): in the ladder's tournament, with the bot started once on each
worker, that was 1.2% of the machine's time; read from ``opening.bin`` the start stays near
0.1 s (``arena match mcts random --games 2 --startup-ms 400`` starts in time under bubblewrap,
and fails without the file).

Measured in-process on the 100 ms work budgets against the ladder's Chaoses (``greedy``,
``heuristic``, ``alphabeta``, ``mcts``, ``perfect``), 160 games each from the empty board and
160 from the tournaments' random 2-ply openings, ``python benchmarks/order_vs_chaos.py --games
160 --jobs 2`` (seed 1; ``--seed 2`` for the second figures): before, 770 of 800 from the empty
board and 751 of 800 from 2-ply openings (``alphabeta``'s Order: 784 and 780); with the proof
alone 800 and 771; with the repair too 800 and 800 (seed 2: 800 and 798, both losses one game
where Chaos left two equal marks in a border pair, which no proof made at start-up covers).

Why not playouts: at a few hundred simulations a move, the playout-based UCT this bot used to be
lost to the one-ply ``heuristic``; the evaluation and the prior make the same budget count.

Time: it stops after ``arena.botlib.mcts.SIMULATIONS_PER_MS`` (3) simulations per millisecond of
``<ms>`` (as Chaos ``CHAOS_SIMULATIONS_PER_MS``, also 3: on its early moves about a fifth of the
move time, measured there; as Order with the solvers, up to about half) so that its games depend
only on ``ARENA_SEED``, and in any case after ``arena.botlib.clock.GUARD_SHARE`` of ``<ms>``; it
gets stronger with more time (as Chaos against ``heuristic``'s Order, measured in-process: 31
wins in 100 games at 150 simulations a move, 41 at 300). Run it as ``python bots/mcts/main.py``.
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
from arena.botlib.centre_win import CentreWin, prepare
from arena.botlib.clock import guard_deadline
from arena.botlib.mcts import budgeted_move
from arena.rules import Mark, Move, Role

_centre: CentreWin | None = None


def on_game(role: Role) -> None:
    """A new game: forget the previous game's centre solutions."""
    global _centre
    _centre = None


def choose(state: BotState) -> Move:
    """As Order a proven centre move if one is found cheaply, else the search's move after this
    turn's simulations."""
    global _centre
    if state.role is Role.ORDER:
        if _centre is None:
            _centre = CentreWin(pairing=True, opening=True)
        move = _centre.move(
            state.board, state.ms, guard_deadline(state.deadline, state.ms), state.rng
        )
        if move is not None:
            return move
    x, o = state.board.bits
    cell, mark = budgeted_move(x, o, state.rng, state.ms, state.deadline)
    return Move(cell, Mark(mark))


if __name__ == "__main__":
    gc.disable()  # the tree has no reference cycles: reference counting frees it
    # The centre solvers' tables and the opening's proof (kept beside this file), before `ready`.
    prepare(opening=True, memo_file=Path(__file__).resolve().with_name("opening.bin"))
    run(choose, name="mcts", on_game=on_game)
