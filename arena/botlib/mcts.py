"""Monte Carlo tree search (UCT) with heuristic playouts and progressive widening.

Each iteration walks down the tree choosing the child with the best upper confidence bound for
the side to move (``wins/visits + C * sqrt(ln N / visits)``, wins counted for the mover), adds one
child, plays a *heuristic playout* from it (:func:`arena.botlib.engine.smart_game`: Order takes a
five, Chaos blocks a lone four; otherwise a random cell, where Order writes the mark of the fuller
live windows through it and Chaos the other; the playout stops once no live window is left) and
adds the result along the path.

Game knowledge in the tree: the moves are those of :meth:`Searcher.ordered_moves` (live cells with
both marks, all dead cells as one tempo move), in its tiers (Order extends its fullest windows
first, Chaos kills them first); a node may open only its first ``WIDEN_BASE + sqrt(visits)``
children (progressive widening), so that the few hundred playouts of a short move go to plausible
moves. Positions decided by threats are terminal: Order to move with a four wins; Chaos facing two
fours (or one cell good for both marks) has lost, facing one has a single child, the block; no
live window left is a win for Chaos. At the root, Order plays a win by successive fours at once,
and Chaos leaves out the moves after which :func:`threat_eval` already gives the game to Order.
"""

from __future__ import annotations

import math
import random
import time

from arena.botlib.alphabeta import VCF_DEPTH, WIN, Searcher, threat_eval
from arena.botlib.engine import live_windows, smart_game, threats

__all__ = ["Node", "Mcts"]

C_UCT = 0.6
WIDEN_BASE = 3


class Node:
    """A position in the tree, reached by ``(cell, mark)``; ``wins`` counts Order's wins."""

    __slots__ = (
        "cell",
        "mark",
        "x",
        "o",
        "live",
        "tx",
        "to",
        "order",
        "terminal",
        "moves",
        "children",
        "visits",
        "wins",
    )

    def __init__(self, cell: int, mark: int, x: int, o: int, live: int, tx: int, to: int) -> None:
        self.cell = cell
        self.mark = mark
        self.x = x
        self.o = o
        self.live = live
        self.tx = tx
        self.to = to
        self.order = not (x | o).bit_count() & 1
        t = tx | to
        self.terminal: bool | None = None  # True: Order has won; False: Chaos has won
        if self.order:
            if t:
                self.terminal = True
            elif not live:
                self.terminal = False
        elif t and (t & (t - 1) or tx & to):
            self.terminal = True
        elif not live:
            self.terminal = False
        self.moves: list[int] | None = None
        self.children: list[Node] = []
        self.visits = 0
        self.wins = 0.0

    def expand_list(self) -> list[int]:
        """The moves of this node as codes ``cell * 2 + mark``, best first for the mover
        (``Searcher.ordered_moves``; computed once)."""
        if self.moves is None:
            t = self.tx | self.to
            if not self.order and t:  # a lone four: the block is the only move
                c = t.bit_length() - 1
                self.moves = [c * 2 + (1 if self.tx else 0)]
            else:
                self.moves = Searcher.ordered_moves(self.x, self.o, self.live, self.order)
        return self.moves

    def child(self, code: int) -> Node:
        """The node after the move ``code``, added to ``children``."""
        cell, mark = code >> 1, code & 1
        x, o, live, tx, to, _ = Searcher._play(
            self.x, self.o, self.live, self.tx, self.to, 0, cell, mark
        )
        node = Node(cell, mark, x, o, live, tx, to)
        self.children.append(node)
        return node


class Mcts:
    """UCT search from a position; ``best_move`` stops at a playout budget or a deadline."""

    def __init__(self, rng: random.Random | None = None, c: float = C_UCT) -> None:
        self.rng = rng or random.Random()
        self.c = c
        self.playouts = 0

    def best_move(
        self, x: int, o: int, deadline: float, max_playouts: int = 1 << 30
    ) -> tuple[int, int]:
        """The most visited move at the root after the search: ``(cell, mark)``."""
        live = live_windows(x, o)
        tx, to = threats(x, o)
        root = Node(-1, 0, x, o, live, tx, to)
        order = root.order
        t = tx | to
        if order and t:
            c = t.bit_length() - 1
            return c, 0 if tx >> c & 1 else 1
        moves = root.expand_list()
        if len(moves) == 1:
            return moves[0] >> 1, moves[0] & 1
        if not moves:
            free = ~(x | o) & ((1 << 36) - 1)
            return (free & -free).bit_length() - 1, 0
        # tactics at the root: Order plays a win by fours at once; Chaos leaves out the moves
        # after which the threats already decide the game for Order (while it has others)
        if order:
            code = Searcher.vcf(x, o, live, VCF_DEPTH)
            if code >= 0:
                return code >> 1, code & 1
        else:
            safe = []
            for code in moves:
                c, m = code >> 1, code & 1
                cx, co = (x, o | 1 << c) if m else (x | 1 << c, o)
                if threat_eval(cx, co) < WIN // 2:
                    safe.append(code)
            if safe:
                root.moves = moves = safe
            if len(moves) == 1:
                return moves[0] >> 1, moves[0] & 1
        rng = self.rng
        clock = time.monotonic
        self.playouts = 0
        path: list[Node] = []
        while self.playouts < max_playouts:
            if not self.playouts & 3 and clock() > deadline:
                break
            self.playouts += 1
            node = root
            path.clear()
            path.append(node)
            # selection and expansion
            while node.terminal is None:
                moves = node.expand_list()
                allowed = min(len(moves), WIDEN_BASE + int(math.sqrt(node.visits)))
                if len(node.children) < allowed:
                    node = node.child(moves[len(node.children)])
                    path.append(node)
                    break
                node = self._select(node)
                path.append(node)
            # simulation
            if node.terminal is None:
                order_won = smart_game(node.x, node.o, node.order, rng) < 0
            else:
                order_won = node.terminal
            # back-propagation
            result = 1.0 if order_won else 0.0
            for n in path:
                n.visits += 1
                n.wins += result
        if not root.children:  # the deadline had passed before the first playout (a loaded
            return moves[0] >> 1, moves[0] & 1  # machine): the first move of the tiers
        best = max(root.children, key=lambda n: (n.visits, n.wins if order else -n.wins))
        return best.cell, best.mark

    def _select(self, node: Node) -> Node:
        log_n = math.log(node.visits + 1)
        c = self.c
        best = node.children[0]
        best_score = -1.0
        order = node.order
        for child in node.children:
            v = child.visits
            q = child.wins / v
            if not order:
                q = 1.0 - q
            score = q + c * math.sqrt(log_n / v)
            if score > best_score:
                best_score = score
                best = child
        return best
