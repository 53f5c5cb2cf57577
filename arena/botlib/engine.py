"""A fast position engine for the bundled bots: two bitboards and precomputed window masks.

Why: the bots live or die by how many positions they can look at within a move's time, and
:class:`arena.rules.Board` is built for clarity. Here a position is two plain ints, ``x`` and
``o``, and a search's questions (live windows and cells, dead cells, threats) are a few integer
operations on masks computed at import. ``random_winner`` plays a whole random game with one
``getrandbits`` and one five check, with the same distribution of winners as move by move (the
reasoning: ``docs/bots.md``). Imports only ``arena.rules`` and the standard library.
"""

from __future__ import annotations

import random

from arena.rules import CELLS, Board
from arena.rules import FULL_MASK as FULL_MASK
from arena.rules import WINDOWS as WINDOWS
from arena.rules import cells_of as cells_of

ALL_WINDOWS = (1 << len(WINDOWS)) - 1
"""Every window index set (32 bits)."""
BIT: tuple[int, ...] = tuple(1 << c for c in range(CELLS))
CELL_WINDOWS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((1 << i, w) for i, w in enumerate(WINDOWS) if w >> c & 1) for c in range(CELLS)
)
"""Per cell: ``(1 << window index, window mask)`` for each window through it (3 to 7)."""
CELL_MASKS: tuple[tuple[int, ...], ...] = tuple(
    tuple(w for _, w in pairs) for pairs in CELL_WINDOWS
)
CELL_WINSET: tuple[int, ...] = tuple(sum(bit for bit, _ in pairs) for pairs in CELL_WINDOWS)


def _union_table(shift: int) -> tuple[int, ...]:
    table = []
    for byte in range(256):
        cells = 0
        for k in range(8):
            if byte >> k & 1 and shift + k < len(WINDOWS):
                cells |= WINDOWS[shift + k]
        table.append(cells)
    return tuple(table)


_U0, _U1, _U2, _U3 = (_union_table(s) for s in (0, 8, 16, 24))


def window_union(windows: int) -> int:
    """The cells covered by a set of window indices (a 32-bit int), by four table look-ups."""
    return (
        _U0[windows & 255] | _U1[windows >> 8 & 255] | _U2[windows >> 16 & 255] | _U3[windows >> 24]
    )


def live_windows(x: int, o: int) -> int:
    """The set of windows that do not hold both marks (bit ``i``: ``WINDOWS[i]``)."""
    live = 0
    bit = 1
    for w in WINDOWS:
        if not (x & w and o & w):
            live |= bit
        bit <<= 1
    return live


def live_cells(x: int, o: int, live: int) -> int:
    """Empty cells in at least one live window (the moves that matter)."""
    return window_union(live) & ~(x | o) & FULL_MASK


def dead_cells(x: int, o: int, live: int) -> int:
    """Empty cells in no live window: all equivalent, whatever mark is written there (tempo)."""
    return FULL_MASK & ~(x | o) & ~window_union(live)


def line_sum(
    x: int, o: int, weights: tuple[int, ...], lines: tuple[int, ...] = WINDOWS
) -> tuple[int, int]:
    """A line evaluation: over the ``lines`` (cell masks) not holding both marks, the sum of
    ``weights[k]`` (``k`` the marks in the line) and how many such lines there are."""
    occ = x | o
    total = live = 0
    for line in lines:
        if x & line and o & line:
            continue
        total += weights[(occ & line).bit_count()]
        live += 1
    return total, live


def threats(x: int, o: int) -> tuple[int, int]:
    """``(tx, to)``: the empty cells that would complete five X / five O (one per four)."""
    tx = to = 0
    for w in WINDOWS:
        xa = x & w
        if xa:
            if not o & w and xa.bit_count() == 4:
                tx |= w & ~x
        else:
            oa = o & w
            if oa.bit_count() == 4:
                to |= w & ~o
    return tx, to


# Five in a line, bit-parallel: X in the low 64 bits, O shifted up by 64. A start cell s has the
# line s, s+d, ..., s+4d; the start masks keep the lines that stay on the board (no wrap-around),
# and the shifted O bits that land in 36..63 fall outside every start mask.
def _starts(rows: range, columns: range) -> int:
    mask = 0
    for r in rows:
        for c in columns:
            mask |= 1 << (6 * r + c)
    return mask | mask << 64


_H = _starts(range(6), range(2))  # rows: step 1
_V = _starts(range(2), range(6))  # columns: step 6
_D = _starts(range(2), range(2))  # diagonals down-right: step 7
_A = _starts(range(2), range(4, 6))  # diagonals down-left: step 5


def _five_in(b: int) -> bool:
    """Whether the combined int ``x | o << 64`` holds five in a line of either mark."""
    t = b & b >> 1
    if t & t >> 2 & b >> 4 & _H:
        return True
    t = b & b >> 6
    if t & t >> 12 & b >> 24 & _V:
        return True
    t = b & b >> 7
    if t & t >> 14 & b >> 28 & _D:
        return True
    t = b & b >> 5
    return bool(t & t >> 10 & b >> 20 & _A)


def has_five(x: int, o: int) -> bool:
    """Whether five identical marks stand in a line anywhere (one bit-parallel pass)."""
    return _five_in(x | o << 64)


def five_through(bits: int, cell: int) -> bool:
    """Whether ``bits`` (one mark's bitboard) holds a five through ``cell`` (the win check)."""
    for w in CELL_MASKS[cell]:  # noqa: SIM110 - a plain loop is twice as fast as any()
        if bits & w == w:
            return True
    return False


def from_board(board: Board) -> tuple[int, int]:
    """``(x, o)`` of an :class:`arena.rules.Board`."""
    return board.bits[0], board.bits[1]


def random_winner(x: int, o: int, rng: random.Random) -> bool:
    """One random game from ``(x, o)`` (no five on it): True when it ends in five (Order wins).

    Uniform random moves until the end; by the argument in the module docstring only the marks
    matter, so this fills every empty cell with a random mark and looks for five once.
    """
    empty = FULL_MASK & ~(x | o)
    r = rng.getrandbits(36) & empty
    return _five_in((x | r) | (o | (empty ^ r)) << 64)


def random_winner_count(x: int, o: int, n: int, rng: random.Random) -> int:
    """How many of ``n`` random games from ``(x, o)`` Order wins (the playout loop, inlined)."""
    empty = FULL_MASK & ~(x | o)
    getrandbits = rng.getrandbits
    h, v, d, a = _H, _V, _D, _A
    wins = 0
    for _ in range(n):
        r = getrandbits(36) & empty
        b = (x | r) | (o | (empty ^ r)) << 64
        t = b & b >> 1
        if t & t >> 2 & b >> 4 & h:
            wins += 1
            continue
        t = b & b >> 6
        if t & t >> 12 & b >> 24 & v:
            wins += 1
            continue
        t = b & b >> 7
        if t & t >> 14 & b >> 28 & d:
            wins += 1
            continue
        t = b & b >> 5
        if t & t >> 10 & b >> 20 & a:
            wins += 1
    return wins


_SCRATCH = list(range(CELLS))
_POS = list(range(CELLS))


def _list_empty(occ: int) -> int:
    """The playouts' setup: the cells not in ``occ`` listed in ``_SCRATCH``, each one's index
    there in ``_POS`` (a move is a swap-remove); returns how many there are."""
    cells = _SCRATCH
    pos = _POS
    n = 0
    empty = FULL_MASK & ~occ
    while empty:
        low = empty & -empty
        c = low.bit_length() - 1
        cells[n] = c
        pos[c] = n
        n += 1
        empty ^= low
    return n


def random_game(x: int, o: int, rng: random.Random) -> int:
    """One random game from ``(x, o)`` played move by move: its length in plies, negated when
    it ends in five (so ``< 0`` means Order won after ``-result`` plies).

    Each ply draws an empty cell uniformly (swap-remove in a scratch list) and a mark, writes it
    and checks the windows through that cell.
    """
    cells = _SCRATCH
    n = 0
    empty = FULL_MASK & ~(x | o)
    while empty:
        low = empty & -empty
        cells[n] = low.bit_length() - 1
        n += 1
        empty ^= low
    marks = rng.getrandbits(36)
    rand = rng.random
    masks = CELL_MASKS
    plies = 0
    while n:
        j = int(rand() * n)
        c = cells[j]
        n -= 1
        cells[j] = cells[n]
        plies += 1
        if marks >> c & 1:
            o |= 1 << c
            for w in masks[c]:
                if o & w == w:
                    return -plies
        else:
            x |= 1 << c
            for w in masks[c]:
                if x & w == w:
                    return -plies
    return plies


def heuristic_game(x: int, o: int, order_to_move: bool, rng: random.Random) -> int:
    """A playout with the obvious tactics, from a position without five: Order completes a five
    when it can; Chaos blocks a single four (the opposite mark in its cell) and otherwise plays
    at random, never completing a five itself. Returns the length in plies, negated when Order
    wins (as ``random_game``).
    """
    cells = _SCRATCH
    pos = _POS
    occ = x | o
    n = _list_empty(occ)
    tx, to = threats(x, o)
    rand = rng.random
    getrandbits = rng.getrandbits
    masks = CELL_MASKS
    plies = 0
    order = order_to_move
    while n:
        t = tx | to
        if t:
            if order or t & (t - 1) or tx & to:
                return -(plies + 1 if order else plies + 2)
            c = t.bit_length() - 1
            mark_o = bool(tx)  # block an X four with O, an O four with X
        else:
            c = cells[int(rand() * n)]
            mark_o = bool(getrandbits(1))  # no four on the board: no move completes a five
        # remove c from the list of empty cells
        j = pos[c]
        n -= 1
        last = cells[n]
        cells[j] = last
        pos[last] = j
        b = 1 << c
        tx &= ~b
        to &= ~b
        plies += 1
        occ |= b
        if mark_o:
            o |= b
            for w in masks[c]:
                if not x & w:
                    k = (o & w).bit_count()
                    if k == 4:
                        to |= w & ~occ
                    elif k == 5:
                        return -plies
        else:
            x |= b
            for w in masks[c]:
                if not o & w:
                    k = (x & w).bit_count()
                    if k == 4:
                        tx |= w & ~occ
                    elif k == 5:
                        return -plies
        order = not order
    return plies


_PLAYOUT_WEIGHT = (1, 2, 8, 32, 128, 0)


def smart_game(x: int, o: int, order_to_move: bool, rng: random.Random) -> int:
    """A playout in which both sides choose their *mark* sensibly and their cell at random: the
    tactics of ``heuristic_game`` (Order takes a five, Chaos blocks a lone four), and then, in a
    random empty cell, Order writes the mark of the fuller live windows through it (extending
    them) and Chaos the other one (killing them). It stops as soon as no live window is left
    (Chaos has won). Returns the number of plies played, negated when Order wins.
    """
    cells = _SCRATCH
    pos = _POS
    occ = x | o
    n = _list_empty(occ)
    tx, to = threats(x, o)
    live = live_windows(x, o)
    rand = rng.random
    pairs = CELL_WINDOWS
    weight = _PLAYOUT_WEIGHT
    plies = 0
    order = order_to_move
    while n:
        if not live:
            return plies
        t = tx | to
        if t:
            if order or t & (t - 1) or tx & to:
                return -(plies + 1 if order else plies + 2)
            c = t.bit_length() - 1
            mark_o = bool(tx)  # block an X four with O, an O four with X
        else:
            c = cells[int(rand() * n)]
            sx = so = 0  # weight of the live X / O windows through c
            for bit, w in pairs[c]:
                if live & bit:
                    kx = (x & w).bit_count()
                    if kx:
                        sx += weight[kx]
                    else:
                        so += weight[(o & w).bit_count()]
            # Order writes the fuller side's mark, Chaos the other; a tie: either
            mark_o = rand() < 0.5 if sx == so else (so > sx) == order
        j = pos[c]
        n -= 1
        last = cells[n]
        cells[j] = last
        pos[last] = j
        b = 1 << c
        tx &= ~b
        to &= ~b
        plies += 1
        occ |= b
        if mark_o:
            o |= b
            for bit, w in pairs[c]:
                if x & w:
                    live &= ~bit
                elif live & bit:
                    k = (o & w).bit_count()
                    if k == 4:
                        to |= w & ~occ
                    elif k == 5:
                        return -plies
        else:
            x |= b
            for bit, w in pairs[c]:
                if o & w:
                    live &= ~bit
                elif live & bit:
                    k = (x & w).bit_count()
                    if k == 4:
                        tx |= w & ~occ
                    elif k == 5:
                        return -plies
        order = not order
    return plies
