"""Monte Carlo tree search with a heuristic prior and evaluated leaves (PUCT, as in AlphaZero).

Python gives a move only a few hundred simulations and random playouts say little here, so the
tree is fed knowledge instead: a softmax prior over the window gains, leaves valued by
``threat_eval`` through a fitted logistic curve, tactics (fours, forced blocks) solved at every
node as in MCTS-Solver, and first-play urgency. Deterministic given the seed and a budget of
simulations. The design in detail: ``docs/bots.md``.

As Chaos (``budgeted_move`` with Chaos to move, hence also ``perfect``'s Chaos) the leaves are
valued by a second curve once a mark stands in the border: ``window_win_probability``, fitted on
the shape of the live windows (how many hold 1, 2, 3 marks of one kind, how many are left), which
tells apart Chaos's candidate moves whose threat evaluations are close. Order's search keeps the
threat curve. At Chaos's root the prior is also re-weighted by that curve (``Mcts.value_prior``,
``CHAOS_ROOT_TEMPERATURE``, ``CHAOS_ROOT_MIX``): one evaluation a root move, once a search, puts
first the moves after which Order's chance is lowest, where the gain prior alone sends the few
hundred simulations to the moves killing the heaviest windows. ``perfect``'s Chaos also sorts
Order's replies one ply below its root by that curve (``CHAOS_REPLY_TEMPERATURE``,
``Mcts.sort_by_value``), so that its search reads the replies a searching Order plays; the
``mcts`` bot does not (why: at ``CHAOS_REPLY_TEMPERATURE``).

What each part gives, against ``ref_ab3w4``'s depth-3 Order (``benchmarks/chaos_survival.py``,
200 games a block of 10 seeds from the tournaments' 2-ply openings, 100 ms of work; that
program's own Chaos lasts 24.3 plies a game on seeds 1-10 and 26.2 on seeds 11-20):

- the gain prior and threat curve alone: 59 wins and 25.6 plies on seeds 1-10, 70 and 27.2 on 11-20;
- with the window curve at the leaves: 86 and 27.4; 89 and 27.3;
- with the root's value prior as well (the ``mcts`` bot): 108 and 29.2; 123 and 30.7;
- with the replies sorted as well (``perfect``'s Chaos), seeds 1-60 (1,200 games): 744 wins and
  30.2 plies, against 680 and 29.6 without; that program's own Chaos 24.8.

``docs/ladder.md`` ("Survival against a depth-3 Order") has these runs and the ladder's Chaos
order with them.
"""

from __future__ import annotations

import math
import random
import sys
import time

from arena.botlib.alphabeta import (
    DOUBLE_FOUR,
    FOUR_BONUS,
    VCF_DEPTH,
    WEIGHTS,
    WIN,
    Searcher,
    threat_eval,
)
from arena.botlib.clock import guard_deadline
from arena.botlib.engine import FULL_MASK, WINDOWS, live_windows, threats, window_union

C_PUCT = 0.8
"""Weight of the prior's exploration term against the mean value (both in [0, 1])."""
FPU_REDUCTION = 0.1
"""An unvisited move's value: its parent's, minus this (for the side to move)."""
PRIOR_TEMPERATURE = 24.0
"""Softmax temperature over the gains (window-weight units: a window's 2 -> 3 marks is +56)."""
VALUE_WEIGHTS = (0.4157, -0.2291, 0.8476, 0.3726)
"""Logistic fit of Order's wins on ``(ln(1 + threat_eval), ply, Order to move, 1)``
(``benchmarks/mcts_value.py``)."""


def _decided(e: int) -> float | None:
    """Order's chance in a position the threats decide, from its ``threat_eval`` ``e``: 1 when
    Order wins, 0 when no live window is left; None when the threats leave it open."""
    if e >= WIN // 2:
        return 1.0
    if e < 0:
        return 0.0
    return None


def order_win_probability(x: int, o: int, e: int | None = None) -> float:
    """How likely Order wins from ``(x, o)`` (no five on it), from ``threat_eval``.

    A logistic curve ``1 / (1 + exp(-z))`` with ``z = a * ln(1 + e) + b * ply + c * [Order to
    move] + d``, ``e`` the threat evaluation. Why these features: the evaluation is a sum of
    weights that grow eightfold per mark, so its logarithm counts marks; the ply says how much
    board is left for Chaos to run out the clock (fewer cells, fewer chances for Order); and the
    evaluation swings with the side to move (Order's move adds, Chaos's removes). Fitted by
    maximum likelihood on the 7,249 positions of 400 ``heuristic`` self-play games (the first
    four plies random with a probability falling from 4/5 to 1/5, so that games from the empty
    board are in the data; positions the threats decide left out): ``VALUE_WEIGHTS``, log-loss
    0.532 against 0.678 for the evaluation alone (``python benchmarks/mcts_value.py`` refits
    it). A fit on games that all open with 2-5 random plies played as well from such openings
    but worse from the empty board, where the ladder's games start: as Chaos against
    ``heuristic``, 93 wins in 200 games instead of 146 (in-process, 300 simulations a move).
    Positions the threats decide are 1 (Order wins) or 0 (no live window left). ``e``: the
    position's ``threat_eval`` if already known.
    """
    if e is None:
        e = threat_eval(x, o)
    known = _decided(e)
    if known is not None:
        return known
    ply = (x | o).bit_count()
    a, b, c, d = VALUE_WEIGHTS
    z = a * math.log1p(e) + b * ply + (c if not ply & 1 else 0.0) + d
    return 1.0 / (1.0 + math.exp(-z))


WINDOW_VALUE_WEIGHTS = (0.0062, 0.0476, 0.406, 0.7572, 0.2549, 0.0555, 0.7181, -8.2689)
"""Logistic fit of Order's wins on ``window_features`` (``python benchmarks/window_curve.py
--games 1000``: 9,029 positions of 1,000 ``heuristic`` games, Chaos looking two plies; log-loss on
the 9,014 positions of the held-out games 0.503, the threat curve refitted on the same 0.556).
Tried and left out: a ninth feature, the double-four cells (empty cells in two live three-mark
windows of one mark), fitted better (0.498) and lasted longer against ``ref_ab3w4``'s Order (28.8
plies a game over seeds 1-20 instead of 27.3), but lost the ladder's games from the empty board:
as Chaos against ``heuristic``'s Order (in-process, seeds 1-40) ``perfect`` won 18 of 40 with it
instead of 40, ``mcts`` 26 instead of 39 (32 with the threat curve alone); without ``ln(1 + e)``
``perfect`` still won only 25."""

_WINDOW_MASKS = tuple(WINDOWS)
CENTRE_MASK = sum(1 << (6 * r + c) for r in range(1, 5) for c in range(1, 5))
"""The central 4x4 cells (b2-e5), the cells in the most windows."""
BORDER_MASK = FULL_MASK & ~CENTRE_MASK
"""The 20 cells around the centre."""


def window_features(x: int, o: int, e: int) -> tuple[float, ...]:
    """The features of ``window_win_probability``: ``ln(1 + e)`` (``e``: ``threat_eval``), the
    live windows holding 1, 2 and 3 marks of one kind, the live windows, the ply, Order to move
    and 1."""
    n1 = n2 = n3 = live = 0
    for w in _WINDOW_MASKS:
        xw = x & w
        ow = o & w
        if xw and ow:
            continue
        live += 1
        k = (xw | ow).bit_count()
        if k == 1:
            n1 += 1
        elif k == 2:
            n2 += 1
        elif k >= 3:
            n3 += 1
    return _feature_row(e, n1, n2, n3, live, (x | o).bit_count())


def _feature_row(e: int, n1: int, n2: int, n3: int, live: int, ply: int) -> tuple[float, ...]:
    """``window_features`` from its counts, in the order ``WINDOW_VALUE_WEIGHTS`` was fitted in:
    the one definition that ``window_chance``, which counts in its own pass, shares."""
    return (math.log1p(e), n1, n2, n3, live, ply, 0.0 if ply & 1 else 1.0, 1.0)


def window_win_probability(
    x: int, o: int, weights: tuple[float, ...] = WINDOW_VALUE_WEIGHTS, e: int | None = None
) -> float:
    """How likely Order wins from ``(x, o)``, from ``window_features`` through a logistic curve
    with ``weights``; positions the threats decide as in ``order_win_probability``. ``e``: the
    position's ``threat_eval`` if already known."""
    if e is None:
        e = threat_eval(x, o)
    known = _decided(e)
    if known is not None:
        return known
    return _logistic(weights, window_features(x, o, e))


def _logistic(weights: tuple[float, ...], features: tuple[float, ...]) -> float:
    """``1 / (1 + exp(-z))``, ``z`` the weighted sum of ``features`` clamped to [-30, 30]."""
    f0, f1, f2, f3, f4, f5, f6, f7 = features
    w0, w1, w2, w3, w4, w5, w6, w7 = weights
    # the products summed by ``sum`` left to right, as a generator over ``zip`` did (the same
    # rounding in any Python: 3.12's ``sum`` of floats compensates, a chain of ``+`` would not)
    z = sum([w0 * f0, w1 * f1, w2 * f2, w3 * f3, w4 * f4, w5 * f5, w6 * f6, w7 * f7])
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def window_chance(x: int, o: int, weights: tuple[float, ...]) -> tuple[float, int]:
    """``window_win_probability(x, o, weights)`` and ``threat_eval(x, o)``, the same numbers, in
    one pass over the windows where the threats leave the evaluation a plain sum (no four, and
    with Order to move no three-mark window for ``Searcher.vcf`` to start from; with Chaos to
    move the double-four cells are counted here): the search's leaves, faster."""
    occ = x | o
    total = 0
    once = [0, 0]  # by mark: the cells in one / two or more three-mark windows
    twice = [0, 0]
    four = False
    counts = [0, 0, 0, 0, 0]  # live windows by their marks (of one kind)
    window_weights = WEIGHTS
    for w in _WINDOW_MASKS:
        xw = x & w
        ow = o & w
        if xw:
            if ow:
                continue
            mine, mark = xw, 0
        elif ow:
            mine, mark = ow, 1
        else:
            total += window_weights[0]
            counts[0] += 1
            continue
        k = mine.bit_count()
        if k >= 3:
            if k == 3:
                f = w & ~occ
                twice[mark] |= once[mark] & f
                once[mark] |= f
            else:
                four = True
        total += window_weights[k]
        counts[k] += 1
    ply = occ.bit_count()
    live = sum(counts)
    if four or not ply & 1 and once[0] | once[1]:
        e = threat_eval(x, o)
    elif not live:
        e = -WIN
    else:
        double = twice[0] | twice[1]  # only Chaos to move here
        if double & (double - 1):
            e = WIN // 2
        elif double:
            e = total + DOUBLE_FOUR
        else:
            e = total
    if e >= WIN // 2:
        return 1.0, e
    if e < 0:
        return 0.0, e
    features = _feature_row(e, counts[1], counts[2], counts[3] + counts[4], live, ply)
    return _logistic(weights, features), e


def priors(gains: list[int], order: bool, temperature: float = PRIOR_TEMPERATURE) -> list[float]:
    """A softmax over move gains (Order's point of view) for the side to move: Order favours
    high gains, Chaos low ones. Shifted by the best gain, so that huge bonuses (a four, a move
    that hands Order the win) give probabilities of 0 or 1 instead of an overflow."""
    if not gains:
        return []
    sign = 1.0 if order else -1.0
    best = max(sign * g for g in gains)
    weights = [math.exp((sign * g - best) / temperature) for g in gains]
    total = sum(weights)
    return [w / total for w in weights]


_LANES = 36 * 2  # bytes: one 16-bit lane a cell
_sqrt = math.sqrt
_BIAS = sum(0x8000 << 16 * c for c in range(36))
"""Half a lane in every lane: the gains packed with it stay in [0, 2**16) (|gain| <= 7 * 512)."""


def _packed(w: int, gain: int) -> int:
    """``gain`` in the lane of each cell of ``w``."""
    return sum(gain << 16 * c for c in range(36) if w >> c & 1)


_MARK_GAINS: tuple[tuple[int, int], ...] = tuple(
    (WEIGHTS[k + 1] - WEIGHTS[k] if k < 4 else 0, -WEIGHTS[k]) for k in range(1, 5)
)
"""A live window holding k = 1..4 marks of one kind (index k - 1): the gain of writing that mark
in one of its empty cells, and of writing the other mark (the window dies)."""
_STATE_GAINS = (
    (WEIGHTS[1] - WEIGHTS[0],) * 2,
    *_MARK_GAINS,
    *((ao, ax) for ax, ao in _MARK_GAINS),
)
"""The gains of an X and of an O in a live window by its state: 0 empty, 1-4 that many X, 5-8
one to four O."""
_WINDOW_GAINS: tuple[tuple[int, int, tuple[int, ...], tuple[int, ...], tuple[int, ...]], ...] = (
    tuple(
        (
            1 << i,
            w,
            tuple(_packed(w, ax) for ax, _ in _STATE_GAINS),
            tuple(_packed(w, ao) for _, ao in _STATE_GAINS),
            tuple(c for c in range(36) if w >> c & 1),
        )
        for i, w in enumerate(WINDOWS)
    )
)
"""Per window: its bit in a live set, its mask, the X and O gains its cells get by its state
(packed, a lane a cell) and its cells."""


_BYTE_CELLS = tuple(
    tuple(tuple(8 * k + i for i in range(8) if byte >> i & 1) for byte in range(256))
    for k in range(5)
)
"""The cells of a byte of a cell mask, by the byte's place (0-4) and value."""


def _cells(mask: int) -> tuple[int, ...]:
    """The cells of ``mask`` (36 bits), in order, by five table look-ups."""
    t = _BYTE_CELLS
    return (
        t[0][mask & 255]
        + t[1][mask >> 8 & 255]
        + t[2][mask >> 16 & 255]
        + t[3][mask >> 24 & 255]
        + t[4][mask >> 32]
    )


def _lanes(packed: int) -> memoryview:
    """The 16-bit lanes of ``packed`` (with ``_BIAS``), indexed by cell."""
    view = memoryview(packed.to_bytes(_LANES, sys.byteorder)).cast("H")
    return view if sys.byteorder == "little" else view[::-1]


def move_gains(x: int, o: int, live: int, tx: int, to: int) -> tuple[list[int], list[int]]:
    """The moves of ``Searcher.children`` as codes ``cell * 2 + mark``, in its order, and their
    ordering keys (the gain for Order plus the four bonuses), without the child positions: the
    search builds a position only for the moves it visits. For a position without a five (the
    search never expands one: a four before it is proven). One pass over the live windows adds
    each window's gains to its cells' lanes of two big integers (integers: any order gives the
    same sums)."""
    occ = x | o
    gx = go = _BIAS  # the gains of an X / an O in each cell, a 16-bit lane a cell
    fours: list[list[int] | None] = [None, None]  # by mark, per cell: the fours it makes there
    fives = [0, 0]  # by mark: the cells where it makes five
    for bit, w, px, po, cells in _WINDOW_GAINS:
        if not live & bit:
            continue
        xw = x & w
        if xw:
            k = xw.bit_count()
            mark = 0
            state = k
        else:
            ow = o & w
            if not ow:
                gx += px[0]
                go += po[0]
                continue
            k = ow.bit_count()
            mark = 1
            state = k + 4
        if k >= 3:
            if k == 3:
                made = fours[mark]
                if made is None:
                    made = fours[mark] = [0] * 36
                f = w & ~occ
                for c in cells:
                    made[c] |= f
            else:
                fives[mark] |= w & ~occ
        gx += px[state]
        go += po[state]
    fx, fo = fours
    five_x, five_o = fives
    order = not occ.bit_count() & 1
    cover = window_union(live)
    free = cover & ~occ & FULL_MASK
    lanes_x = _lanes(gx)
    lanes_o = _lanes(go)
    gains: list[int] = []
    codes: list[int]
    if fx is None and fo is None and not five_x | five_o:  # no four, no five: every cell, X, O
        cells = _cells(free)
        for c in cells:
            gains.append(lanes_x[c] - 0x8000)
            gains.append(lanes_o[c] - 0x8000)
        codes = [m for c in cells for m in (2 * c, 2 * c + 1)]
        free = 0
    else:
        codes = []
    while free:
        b = free & -free
        free ^= b
        c = b.bit_length() - 1
        if not five_x & b:
            g = lanes_x[c] - 0x8000
            if fx is not None and fx[c]:  # a four: Order wins next if Chaos made it, or two
                t = fx[c] & ~b | (tx | to) & ~b
                g += FOUR_BONUS if order and not (t & (t - 1) or t & to & ~b) else WIN
            gains.append(g)
            codes.append(2 * c)
        if not five_o & b:
            g = lanes_o[c] - 0x8000
            if fo is not None and fo[c]:
                t = fo[c] & ~b | (tx | to) & ~b
                g += FOUR_BONUS if order and not (t & (t - 1) or t & tx & ~b) else WIN
            gains.append(g)
            codes.append(2 * c + 1)
    dead = FULL_MASK & ~occ & ~cover
    if dead:
        gains.append(0)
        codes.append(2 * ((dead & -dead).bit_length() - 1))
    return gains, codes


class Node:
    """A position in the tree, reached by ``(cell, mark)``; ``wins`` sums Order's values.

    ``proven`` is True once Order is known to win from here with best play, False once Chaos
    is; ``moves`` (the moves of ``Searcher.children`` as codes ``cell * 2 + mark``, from
    ``move_gains``, best prior first) and ``prior`` are filled when the node is first selected,
    ``children`` (their positions built by ``Searcher._play``) as they are visited."""

    __slots__ = (
        "cell",
        "mark",
        "x",
        "o",
        "live",
        "tx",
        "to",
        "order",
        "proven",
        "moves",
        "prior",
        "weighted",
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
        self.proven: bool | None = None
        if self.order:
            if t:
                self.proven = True
            elif not live:
                self.proven = False
        elif t and (t & (t - 1) or tx & to):
            self.proven = True
        elif not live:
            self.proven = False
        self.moves: list[int] | None = None
        self.prior: list[float] = []
        self.weighted: list[float] | None = None
        """``prior`` times the search's ``c`` (``Mcts._select``: computed at its first call)."""
        self.children: list[Node] = []
        self.visits = 0
        self.wins = 0.0

    def value(self, weights: tuple[float, ...] | None = None, anywhere: bool = False) -> float:
        """Order's chance to win here before any search: proven, or the fitted evaluation (with
        ``weights``, ``window_win_probability`` once a mark stands in the border, or anywhere)."""
        if self.proven is not None:
            return 1.0 if self.proven else 0.0
        if weights is not None and (anywhere or (self.x | self.o) & BORDER_MASK):
            return window_win_probability(self.x, self.o, weights)
        return order_win_probability(self.x, self.o)

    def expand(self, rng: random.Random) -> None:
        """Generate the moves (codes ``cell * 2 + mark``) and their priors, best first (ties in
        the generator's order)."""
        t = self.tx | self.to
        # a four: its block is Chaos's only move (with fours of both marks, the block of one, the
        # game being lost anyway; a cell completing both is left to the full move list below)
        if not self.order and t and not self.tx & self.to:
            c = (self.tx or self.to).bit_length() - 1
            self.moves = [2 * c + (1 if self.tx >> c & 1 else 0)]
            self.prior = [1.0]
            return
        gains, codes = move_gains(self.x, self.o, self.live, self.tx, self.to)
        n = len(codes)
        # equal gains in an order drawn from the generator: a random rotation (cheaper than a
        # shuffle), then a stable sort by gain, best first for the mover. One sort of plain
        # integers: (minus) the gain, then the place after the rotation, then the code
        k = rng.randrange(n) if n else 0
        if k:
            gains = gains[k:] + gains[:k]
            codes = codes[k:] + codes[:k]
        sign = -1 if self.order else 1
        keys = [
            (sign * g << 16) | j << 8 | m for j, g, m in zip(range(n), gains, codes, strict=True)
        ]
        keys.sort()
        self.moves = [key & 255 for key in keys]
        if not keys:
            self.prior = []
            return
        # ``priors``: the mover's gain minus the best is an integer, exact as a float, as the
        # difference of the floats was
        top = keys[0] >> 16
        temperature = PRIOR_TEMPERATURE
        exp = math.exp
        weights = [exp((top - (key >> 16)) / temperature) for key in keys]
        total = sum(weights)
        self.prior = [w / total for w in weights]

    def child(self, index: int) -> Node:
        """The node after ``moves[index]``, appended to ``children`` (visited in order)."""
        assert self.moves is not None
        code = self.moves[index]
        c = code >> 1
        mark = code & 1
        x, o, live, tx, to, _ = Searcher._play(
            self.x, self.o, self.live, self.tx, self.to, 0, c, mark
        )
        node = Node(c, mark, x, o, live, tx, to)
        self.children.append(node)
        return node


def after(x: int, o: int, code: int) -> tuple[int, int]:
    """The marks ``(x, o)`` after the move ``code`` (``cell * 2 + mark``)."""
    b = 1 << (code >> 1)
    return (x, o | b) if code & 1 else (x | b, o)


CENTRE_OPENING = 2
"""Opening knowledge for Chaos (``Mcts(centre_opening=CENTRE_OPENING)``): the root keeps only
``CENTRE_MASK`` cells while fewer marks than this stand on the board, so its first reply goes
into the centre. Used by ``perfect``'s Chaos, not by the ``mcts`` bot (a plain search, to compare
search families with). Why: against the depth-3 alpha-beta Order of issue
11 (``benchmarks/bots/depth3.py``, in-process at 200 ms, seeds 1-20) the search's first reply
decided the game: a border or corner cell (a3, c1, c6, f3, f6) let Order take a second central
cell and win 9 of 10 such games by ply 21-25, a central one held the full board every time
(11 of 20 before, 20 of 20 with this). The cost: ``alphabeta``'s Order, whose pairing answers a
border move by the partner cell, wins the centre games: 20 of 20 in-process (10 of 20 against the
search's own first replies), which is why the plain ``mcts`` bot keeps its own."""

CHAOS_WINDOWS = True
"""Whether ``budgeted_move``'s Chaos values its leaves with ``WINDOW_VALUE_WEIGHTS`` once a mark
stands in the border (``Mcts(window_weights=...)``)."""
CHAOS_WINDOW_ANYWHERE = False
"""Whether that curve serves from the empty border on too: against ``ref_ab3w4``'s Order (seeds
1-9, 180 games) 27.1 plies a game instead of 27.4 from the first border mark on."""

CHAOS_ROOT_TEMPERATURE = 0.5
"""The temperature, in logit units of the window curve, of the value prior at ``budgeted_move``'s
Chaos root (``Mcts(root_temperature=...)``): a softmax over minus the logit of Order's chance
after each root move, so that the moves the curve likes most are tried first; 0: the gain prior
alone (27.4 plies a game against ``ref_ab3w4``'s Order, ``chaos_survival.py``, seeds 1-10, 100
ms); at 0.5, 29.2. With the window curve valuing only the border moves while the border is
empty (``value_prior``), on the same games: temperatures 0.25, 0.5, 1, 2 (mix 0.5, 0.5, 0, 0)
29.3, 29.4, 28.9, 28.2 plies; 0.5 with the mix at 0 and 0.3: 29.2, 29.4."""
CHAOS_ROOT_MIX = 0.5
"""The gain prior's share in that root prior (the value prior's: the rest)."""

CHAOS_REPLY_TEMPERATURE = 1.0
"""The temperature of a value prior over Order's replies one ply below a Chaos root
(``Mcts(reply_temperature=...)``, mixed with the gain prior at ``CHAOS_ROOT_MIX``): each reply
valued by the window curve once, when its node is first expanded, and Order's likeliest replies
(by the curve) tried first. Used by ``perfect``'s Chaos, not by the ``mcts`` bot. Why: with the
gain prior alone the search models Order as the weak, one-ply Orders play (the replies that fill
the heaviest windows), and against an Order that searches, the replies that matter were often
not among those it read. Against ``ref_ab3w4``'s depth-3 Order (``chaos_survival.py``, 100 ms of
work, from the tournaments' 2-ply openings, 20 games a seed): seeds 1-40 (800 games) 500 wins
and 30.3 plies a game instead of 466 and 29.9, that program's own Chaos 25.0; seeds 41-60 (held
out, 400 games) 244 wins and 30.1 plies instead of 214 and 29.1, its own Chaos 24.5 (the
temperatures 0.25, 0.5 and 2 gave 30.2, 30.1 and 29.9 plies on seeds 1-40; mixes of 0.25 and
0.75 at 1, 29.3 and 29.6; the prior only once a mark stands in the border, 30.0). Against the
held-out references' Orders (seeds 1-5; 10 games a seed at depth 4) 179 wins of 400 instead of
175, against ``ref_ab3w2``'s 24.8 plies instead of 23.8. The cost, and why ``mcts`` does without
it: against the ladder's one-ply Orders from the empty board the plain search with it lost more
(``order_vs_chaos.py``, seeds 1 and 2, 80 games each: ``heuristic``'s Order won 28 instead of 11,
``greedy``'s 14 instead of 8), while ``perfect``'s Chaos, whose first reply goes to the centre,
lost none of its 160 games against them either way. A Chaos move costs more CPU: 7.2 ms on
average instead of 5.7, at most 32 instead of 20 (828 and 832 moves against ``ref_ab3w4``, seeds
1-3), within the 40% guard of ``arena.botlib.clock``."""

SIMULATIONS_PER_MS = 3.0
"""The bots' work budget: simulations (one new node, one evaluation each) per millisecond of
``<ms>``, so that the budget, not the clock, usually ends the search and a game replays exactly
given ``ARENA_SEED``. What it costs, measured as Chaos against ``ref_ab3w4``'s Order (40 games
from 2-ply openings, 100 ms, CPU per move, three runs on a shared two-core machine): on the early
moves (plies 3-9) 16-19 ms on average, at most 26, a fifth of the move time; 8-9 ms over all
moves. Before the simulations were made cheaper (the same moves, ``benchmarks/mcts_identity.py``:
a move's gains read in one pass over the windows, positions built only for the visited moves, a
leaf's two curves in one pass, ``vcf`` inlined) 20-24 ms, at most 42, and 9-11 ms."""
CHAOS_SIMULATIONS_PER_MS = 3.0
"""The same budget when Chaos is to move (``budgeted_move``; hence also ``perfect``'s Chaos),
kept at 3: with the cheaper simulations 3.75 to 4 a ms cost what 3 did before on Chaos's early
moves (mean and max CPU per move at plies 3-9, measured side by side as in
``SIMULATIONS_PER_MS``), but more did not make Chaos last longer against ``ref_ab3w4``'s Order
(``chaos_survival.py``, 100 ms): on seeds 1-10, where the root prior was tuned at 3, 28.5 plies a
game at 3.5 and 3.75, 28.8 at 4 and 28.9 at 6 instead of 29.2; on seeds 11-20 29.6 at 4 instead
of 30.7. In-process against ``greedy``'s, ``heuristic``'s and ``alphabeta``'s Orders
(``order_vs_chaos.py --games 40``, seed 1) the Orders won 112 of 240 games against it at 4, 109
at 3 (the ladder's Chaos order held: ``alphabeta``'s Chaos lost 149, ``perfect``'s 99 at 4 and
100 at 3)."""


def budgeted_move(
    x: int,
    o: int,
    rng: random.Random,
    ms: int,
    deadline: float,
    centre_opening: int = 0,
    reply_temperature: float = 0.0,
) -> tuple[int, int]:
    """The move ``(cell, mark)`` of a search of ``SIMULATIONS_PER_MS`` simulations per ms of
    ``ms`` (``CHAOS_SIMULATIONS_PER_MS`` when Chaos is to move), stopped in any case at the
    clock's guard (``arena.botlib.clock``) before ``deadline`` (a ``time.monotonic`` value): how
    the bundled bots use it. ``centre_opening`` and ``reply_temperature`` (Chaos only): see
    ``Mcts``."""
    stop = guard_deadline(deadline, ms)
    chaos = (x | o).bit_count() & 1
    rate = CHAOS_SIMULATIONS_PER_MS if chaos else SIMULATIONS_PER_MS
    search = Mcts(
        rng,
        centre_opening=centre_opening,
        window_weights=WINDOW_VALUE_WEIGHTS if chaos and CHAOS_WINDOWS else None,
        window_anywhere=CHAOS_WINDOW_ANYWHERE,
        root_temperature=CHAOS_ROOT_TEMPERATURE if chaos else 0.0,
        root_mix=CHAOS_ROOT_MIX,
        reply_temperature=reply_temperature if chaos else 0.0,
    )
    return search.best_move(x, o, stop, max_playouts=int(rate * ms))


def _restrict(root: Node, keep: list[bool]) -> list[int]:
    """Keep the root's moves marked in ``keep`` (all of them if none is), priors renormalised."""
    moves = root.moves
    assert moves is not None
    if any(keep) and not all(keep):
        root.moves = [m for m, k in zip(moves, keep, strict=True) if k]
        p = [v for v, k in zip(root.prior, keep, strict=True) if k]
        total = sum(p) or 1.0
        root.prior = [v / total for v in p]
    assert root.moves is not None
    return root.moves


class Mcts:
    """PUCT search from a position; ``best_move`` stops at a simulation budget or a deadline."""

    def __init__(
        self,
        rng: random.Random | None = None,
        c: float = C_PUCT,
        centre_opening: int = 0,
        window_weights: tuple[float, ...] | None = None,
        window_anywhere: bool = False,
        root_temperature: float = 0.0,
        root_mix: float = CHAOS_ROOT_MIX,
        reply_temperature: float = 0.0,
    ) -> None:
        self.rng = rng or random.Random()
        self.c = c
        self.window_weights = window_weights
        """Leaves valued by ``window_win_probability`` with these weights once a mark stands in
        the border (everywhere with ``window_anywhere``); None: ``order_win_probability``."""
        self.window_anywhere = window_anywhere
        self.root_temperature = root_temperature
        """As Chaos, the temperature of the value prior at the root (``value_prior``; 0: none)."""
        self.root_mix = root_mix
        """The gain prior's share in that root prior."""
        self.reply_temperature = reply_temperature
        """The temperature of the value prior over the replies one ply below the root, mixed
        with their gain prior as the root's is (0: none; ``CHAOS_REPLY_TEMPERATURE``)."""

        self.centre_opening = centre_opening
        """As Chaos, keep the reply in the centre while fewer marks than this stand on the board
        (0: never; ``CENTRE_OPENING`` is the measured opening knowledge)."""
        self.playouts = 0
        """Simulations of the last search (each adds one node and backs up one value)."""
        self.evals: dict[int, int] = {}
        """The last search's ``threat_eval`` of the positions it valued, by ``x | o << 36``."""

    def best_move(
        self, x: int, o: int, deadline: float, max_playouts: int = 1 << 30
    ) -> tuple[int, int]:
        """The move ``(cell, mark)`` after the search: a proven win, else the most visited."""
        live = live_windows(x, o)
        tx, to = threats(x, o)
        root = Node(-1, 0, x, o, live, tx, to)
        order = root.order
        t = tx | to
        if order and t:
            c = t.bit_length() - 1
            return c, 0 if tx >> c & 1 else 1
        rng = self.rng
        self.evals = {}
        evals = self.evals
        root.expand(rng)
        moves = root.moves
        assert moves is not None
        if not moves:  # Chaos, every empty cell completes a five: lost anyway
            free = ~(x | o) & FULL_MASK
            return (free & -free).bit_length() - 1, 0
        if len(moves) == 1:
            return moves[0] >> 1, moves[0] & 1
        if order:  # a win by successive fours: play it
            code = Searcher.vcf(x, o, live, VCF_DEPTH)
            if code >= 0:
                return code >> 1, code & 1
        else:  # leave out the moves after which the threats already decide for Order
            keep = []
            for m in moves:
                x2, o2 = after(x, o, m)
                e = evals[x2 | o2 << 36] = threat_eval(x2, o2)
                keep.append(e < WIN // 2)
            moves = _restrict(root, keep)
            if (x | o).bit_count() < self.centre_opening:  # the opening reply: in the centre
                moves = _restrict(root, [bool(CENTRE_MASK >> (m >> 1) & 1) for m in moves])
            if len(moves) == 1:
                return moves[0] >> 1, moves[0] & 1
            if self.root_temperature > 0:
                moves = self.value_prior(root, evals)
        clock = time.monotonic
        self.playouts = 0
        root.visits = 1
        root.wins = self._value(root)
        path: list[Node] = []
        value_of = self._value
        select = self._select
        replies = self.reply_temperature
        while self.playouts < max_playouts and root.proven is None:
            if not self.playouts & 3 and clock() > deadline:
                break
            self.playouts += 1
            node = root
            path.clear()
            path.append(node)
            # selection down to a node not yet visited (or a proven one)
            while True:
                if node.moves is None:
                    node.expand(rng)
                    if replies and len(path) == 2:  # one of the root's children
                        self.sort_by_value(node, replies)
                node = select(node)
                path.append(node)
                if node.visits == 0 or node.proven is not None:
                    break
            value = value_of(node)
            for n in path:
                n.visits += 1
                n.wins += value
            if node.proven is not None:
                self._prove(path)
        if not root.children:  # the deadline had passed before the first simulation (a loaded
            return moves[0] >> 1, moves[0] & 1  # machine): the move with the best prior
        won = [n for n in root.children if n.proven is order]
        if won:
            return won[0].cell, won[0].mark
        best = max(root.children, key=lambda n: (n.visits, n.wins if order else -n.wins))
        return best.cell, best.mark

    def _value(self, node: Node) -> float:
        """``node.value`` with this search's curve, each position's ``threat_eval`` computed
        once a search (``evals``: the root's moves are evaluated before the search, and a
        position can be reached by several paths)."""
        proven = node.proven
        if proven is not None:
            return 1.0 if proven else 0.0
        x = node.x
        o = node.o
        key = x | o << 36
        evals = self.evals
        e = evals.get(key)
        weights = self.window_weights
        if weights is not None and (self.window_anywhere or (x | o) & BORDER_MASK):
            if e is None:
                value, evals[key] = window_chance(x, o, weights)
                return value
            return window_win_probability(x, o, weights, e)
        if e is None:
            e = evals[key] = threat_eval(x, o)
        return order_win_probability(x, o, e)

    def value_prior(self, root: Node, evals: dict[int, int] | None = None) -> list[int]:
        """Chaos's root moves re-weighted and re-sorted, best first, by the leaves' curve: the
        prior becomes ``root_mix`` times the gain prior plus the rest times a softmax, at
        ``root_temperature``, over minus the logit of Order's chance after each move (one
        evaluation a root move, once a search). Why: the gain prior sorts Chaos's moves by the
        window weights, and a few hundred simulations reach only the first few dozen of them;
        the curve the leaves are valued with tells the moves apart better. ``evals``:
        the positions' ``threat_eval`` by ``x | o << 36``, as the root's filter found them."""
        return self.sort_by_value(root, self.root_temperature, evals)

    def sort_by_value(
        self, node: Node, temperature: float, evals: dict[int, int] | None = None
    ) -> list[int]:
        """``node``'s moves re-sorted, best first for its mover, by a prior of ``root_mix`` times
        their gain prior plus the rest times a softmax, at ``temperature``, over the logit of the
        mover's chance after each (the leaves' curve): ``value_prior`` at the root, and Order's
        replies one ply below it (``reply_temperature``). The positions' ``threat_eval`` are
        taken from ``evals`` (default: the search's) and kept there."""
        moves = node.moves
        assert moves is not None
        if len(moves) < 2:
            return moves
        cache = self.evals if evals is None else evals
        # one curve for every move, the border empty or not: with the window curve for the
        # moves into the border only, the two curves' scales were compared and the border moves
        # favoured from an empty border (``perfect``'s Chaos then won 15 of 40 instead of 40
        # against ``heuristic``'s Order from the empty board)
        logits = []
        weights = self.window_weights
        for m in moves:
            x2, o2 = after(node.x, node.o, m)
            key = x2 | o2 << 36
            e = cache.get(key)
            if weights is None:
                if e is None:
                    e = cache[key] = threat_eval(x2, o2)
                v = order_win_probability(x2, o2, e)
            elif e is None:
                v, cache[key] = window_chance(x2, o2, weights)
            else:
                v = window_win_probability(x2, o2, weights, e)
            v = min(max(v, 1e-9), 1.0 - 1e-9)
            mover = v / (1.0 - v) if node.order else (1.0 - v) / v
            logits.append(math.log(mover) / temperature)
        top = max(logits)
        soft = [math.exp(z - top) for z in logits]
        total = sum(soft)
        mix = self.root_mix
        prior = [(1.0 - mix) * w / total + mix * p for w, p in zip(soft, node.prior, strict=True)]
        ranked = sorted(range(len(moves)), key=lambda i: -prior[i])
        node.moves = [moves[i] for i in ranked]
        node.prior = [prior[i] for i in ranked]
        return node.moves

    def _select(self, node: Node) -> Node:
        """The child maximising PUCT for the side to move; the next unvisited move (the best
        prior among them, the moves being sorted) competes with its parent's value minus
        ``FPU_REDUCTION``. A proven child is taken at once if it wins for the mover, and
        skipped if it loses (unless nothing else is left)."""
        moves = node.moves
        assert moves is not None
        order = node.order
        children = node.children
        weighted = node.weighted
        if weighted is None:  # the priors times ``c``, once the root's prior is final
            c = self.c
            weighted = node.weighted = [c * p for p in node.prior]
        sqrt_n = _sqrt(node.visits)
        best: Node | None = None
        best_score = -1e9
        # the same float operations as ever (``q + c * p * sqrt_n / (1 + visits)``, left to
        # right, ``c * p`` computed once), in one loop per side to move
        if order:
            for child, cp in zip(children, weighted, strict=False):  # the visited ones
                proven = child.proven
                if proven is None:
                    visits = child.visits
                    score = child.wins / visits + cp * sqrt_n / (1 + visits)
                    if score > best_score:
                        best_score = score
                        best = child
                elif proven:
                    return child
        else:
            for child, cp in zip(children, weighted, strict=False):  # the visited ones
                proven = child.proven
                if proven is None:
                    visits = child.visits
                    score = 1.0 - child.wins / visits + cp * sqrt_n / (1 + visits)
                    if score > best_score:
                        best_score = score
                        best = child
                elif not proven:
                    return child
        k = len(children)
        if k < len(moves):
            q = node.wins / node.visits
            if not order:
                q = 1.0 - q
            if best is None or q - FPU_REDUCTION + weighted[k] * sqrt_n > best_score:
                return node.child(k)
        if best is None:  # every move is proven lost for the mover
            return children[0]
        return best

    @staticmethod
    def _prove(path: list[Node]) -> None:
        """Back a proven result up the path (MCTS-Solver): a node whose mover has a winning
        child is won for the mover; one whose every move is generated, visited and lost for the
        mover is lost."""
        for i in range(len(path) - 2, -1, -1):
            node = path[i]
            child = path[i + 1]
            if child.proven is None or node.proven is not None:
                return
            if child.proven is node.order:
                node.proven = node.order
                continue
            moves = node.moves
            if moves is None or len(node.children) < len(moves):
                return
            if all(n.proven is not None and n.proven is not node.order for n in node.children):
                node.proven = not node.order
            else:
                return
