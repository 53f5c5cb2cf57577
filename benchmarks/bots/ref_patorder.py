"""ref_patorder: a reference Order (and a plain Chaos) playing by hand-written patterns.

Written from the rules alone (``refkit``: standard library, no ``arena``), for
``benchmarks/ladder_vs_refs.py``. No search; as Order, the first rule that applies:

1. a five;
2. a move after which two different empty cells each complete a five (two fours Chaos cannot both
   close), or one cell completes fives for both marks (Chaos cannot write there at all);
3. a four (a window with four identical marks and one empty cell) that also extends the most
   windows;
4. the mark that has more cells on the board (X on ties): the cell in the central 4x4 that
   extends that mark's live windows the most (weighted ``3 ** marks``); outside the centre only
   when the centre has no live window left for it.

As Chaos it plays ``ref_patchaos``'s rule 5 (the cell and mark that break the most live windows,
weighted, never a five). Ties are drawn from ``ARENA_SEED``. Instant.
"""

from __future__ import annotations

import random

from refkit import CELLS, SIZE, THROUGH, empties, makes_five, order_to_move, serve, token

CENTRE = [1 <= c // SIZE <= 4 and 1 <= c % SIZE <= 4 for c in range(CELLS)]


def serving(x: int, o: int, w: int, mark_x: bool) -> int:
    mine, theirs = (x, o) if mark_x else (o, x)
    return -1 if theirs & w else (mine & w).bit_count()


def build_value(x: int, o: int, cell: int, mark_x: bool) -> int:
    total = 0
    for w in THROUGH[cell]:
        k = serving(x, o, w, mark_x)
        if k >= 0:
            total += 3 ** (k + 1)
    return total


def kill_value(x: int, o: int, cell: int, mark_x: bool) -> int:
    total = 0
    for w in THROUGH[cell]:
        k = serving(x, o, w, not mark_x)
        if k >= 0:
            total += 3**k
    return total


def winning_cells(x: int, o: int) -> set[tuple[int, bool]]:
    return {(c, m) for c in empties(x, o) for m in (True, False) if makes_five(x if m else o, c)}


def choose(x: int, o: int, last: int, rng: random.Random) -> str:
    del last
    cells = empties(x, o)
    rng.shuffle(cells)
    moves = [(c, m) for c in cells for m in (True, False)]
    if not order_to_move(x, o):
        safe = [mv for mv in moves if not makes_five(x if mv[1] else o, mv[0])]
        return token(*max(safe or moves, key=lambda mv: kill_value(x, o, *mv)))
    wins = winning_cells(x, o)
    if wins:  # rule 1
        return token(*next(iter(wins)))
    fours = []
    for c, m in moves:
        bit = 1 << c
        nx, no = (x | bit, o) if m else (x, o | bit)
        after = winning_cells(nx, no)
        if not after:
            continue
        spots = {cell for cell, _ in after}
        if len(spots) >= 2 or len(after) >= 2:  # rule 2
            return token(c, m)
        fours.append((c, m))
    if fours:  # rule 3
        return token(*max(fours, key=lambda mv: build_value(x, o, *mv)))
    mark = x.bit_count() >= o.bit_count()  # rule 4
    mine = [mv for mv in moves if mv[1] is mark]
    central = [mv for mv in mine if CENTRE[mv[0]] and build_value(x, o, *mv) > 0]
    pool = central or mine
    return token(*max(pool, key=lambda mv: build_value(x, o, *mv)))


if __name__ == "__main__":
    serve(choose, "ref_patorder")
