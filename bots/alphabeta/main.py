"""alphabeta: iterative-deepening alpha-beta search, for both roles.

Strategy (``arena.botlib.alphabeta``): a minimax search over a window evaluation (the weights of
the ``heuristic`` bot, kept up to date move by move), deepened one ply at a time, with a
transposition table kept across the moves of a game, move ordering (the table's move, killer moves,
then tiers: Order extends its fullest live windows first, Chaos kills them first), threat detection
(fours carried down the tree; Order to move with a four wins, Chaos facing two fours or a cell good
for both marks has lost, Chaos facing one has a single move that costs no depth, so lines of fours
are read to the end), dead-cell collapsing (all empty cells in no live window are one tempo move)
and an exact win/loss solver once few live cells remain. Below the root it looks only at the
``BEAM`` first moves of each position in that order (8 in either role), which lets
it read four to six plies within 40 ms.

As Order it plays the classic strategy's answer in the border: when Chaos writes in one of the
20 border cells, Order writes the opposite mark in its partner (the other end of the same middle
row, middle column or long diagonal) without searching, so that four identical marks in a line of
the central 4x4 win; it searches every other move (the centre, and any position where the pairing
is broken). It evaluates the leaves with the threats read one step on (``threat_eval``: a four to
block, double-four cells, a win by up to ``LEAF_VCF`` successive fours) and otherwise by the
windows plus the ten lines of the central 4x4 (the lines the pairing makes winning), at about
twice the cost of a node, hence fewer nodes. Measured in-process against
``benchmarks/bots/depth3.py`` as Chaos
at 200 ms, work budget only, with depth3's ties at the root broken at random (so that the games
differ): without the pairing answer Order won 73 of 100 games at 14 nodes per ms; with it 93 of
100 at 14, 81 of 100 at 28, and 200 of 200 at 10 (a deeper search under the beam misjudges more
lines). ``tests/test_ladder.py`` breaks depth3's ties at random at every node: 82 of 100 before,
100 of 100 now. Against a depth-3 Chaos weighting its windows ``2 ** marks`` (it plays in the
centre, where the pairing does not help) Order won 46 of 60 with the centre lines, 23 without.

Where the pairing gives no answer, Order first asks the centre game's solvers
(``arena.botlib.centre_win``: a four in a centre line whose border pair serves its mark wins) for
a move that keeps that game won, within their own work budget, and searches only when they find
none or run out. From random
2-ply openings the search alone left such won centre games (one move off, found by the solver,
lost the line) in 7 of 180 games against the tuned references ``ref_ab3w4``, ``ref_mc1k`` and
``ref_patchaos`` (seeds 1-3, 20 games each, 100 ms); with the solver, 2 of 180, both decided
before the solver's budget reaches them.

Time: it stops on a node budget proportional to ``<ms>`` (``NODES_PER_MS`` nodes per millisecond,
by role; with the centre solver's, Order's moves take up to about a third of the move time on an
idle core) so that its games depend only on
``ARENA_SEED``, and in any case after ``arena.botlib.clock.GUARD_SHARE`` of ``<ms>``; its
strength depends on the time (as Order not monotonically: see above). The order of equal moves
is drawn from ``state.rng``, so two seeds give different games. Run it as
``python bots/alphabeta/main.py``.
"""

from __future__ import annotations

import gc
import sys

try:
    from arena.bot import BotState, run
except ImportError:  # running from a clone without installing: the package is two folders up
    import os.path  # not pathlib: its import would add ~10 ms to every start of this bot

    bot_folder = os.path.dirname(os.path.realpath(__file__))
    sys.path.insert(0, os.path.dirname(os.path.dirname(bot_folder)))
    from arena.bot import BotState, run
from arena.botlib.alphabeta import Searcher
from arena.botlib.centre_win import CentreWin, prepare
from arena.botlib.clock import guard_deadline
from arena.rules import Mark, Move, Role

NODES_PER_MS = {Role.ORDER: 10, Role.CHAOS: 25}
"""The work budget: nodes per millisecond of ``<ms>`` (Order's leaves cost about twice as much;
Order's 10 measured best against an outside depth-3 Chaos, see the module docstring)."""
BEAM = {Role.ORDER: 8, Role.CHAOS: 8}
"""Moves searched per position below the root. Chaos had 5 (depth for width); with 8, measured
in-process on its work budget, its wins against ``greedy``'s / ``heuristic``'s Order rose from 17 /
15 to 29 / 26 of 40 from the empty board (seed 1), 22 / 19 to 22 / 24 of 60 from 2-ply openings
(seed 2), and against ``ref_ab3w4``'s Order from 10 to 12 of 40 (seeds 1, 2): wide enough to keep
above ``heuristic``'s two-ply Chaos."""
LEAF_THREATS = {Role.ORDER: True, Role.CHAOS: False}
"""Evaluate the leaves with ``threat_eval`` (as Order; as Chaos it measured weaker)."""
LEAF_VCF = {Role.ORDER: 3, Role.CHAOS: 0}
"""Successive fours read by the leaf evaluation for a win (0: none)."""
ROOT_VCF = 8
"""As Order, first look for a win by up to this many successive fours."""
_searcher: Searcher | None = None
_centre: CentreWin | None = None


def on_game(role: Role) -> None:
    """A new game: forget the previous game's table."""
    global _searcher, _centre
    _searcher = None
    _centre = None


def choose(state: BotState) -> Move:
    """The search's move within this turn's budget."""
    global _searcher, _centre
    if _searcher is None:
        _searcher = Searcher(state.rng)
        _searcher.tiers = True
        _searcher.root_vcf = ROOT_VCF
        _searcher.pairing = state.role is Role.ORDER
    _searcher.beam = BEAM[state.role]
    _searcher.leaf_threats = LEAF_THREATS[state.role]
    _searcher.leaf_vcf = LEAF_VCF[state.role]
    stop = guard_deadline(state.deadline, state.ms)
    if state.role is Role.ORDER:
        if _centre is None:
            _centre = CentreWin()
        move = _centre.move(state.board, state.ms, stop)
        if move is not None:
            return move
    x, o = state.board.bits
    budget = NODES_PER_MS[state.role] * state.ms
    result = _searcher.best_move(x, o, stop, max_nodes=budget)
    return Move(result.cell, Mark(result.mark))


if __name__ == "__main__":
    gc.disable()  # no reference cycles here; a collection of the big table would cost a move
    prepare()  # the centre solvers' tables, before `ready`
    run(choose, name="alphabeta", on_game=on_game)
