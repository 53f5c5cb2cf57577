"""ref_patchaos: a reference Chaos (and a plain Order) playing by hand-written patterns.

Written from the rules alone (``refkit``: standard library, no ``arena``), for
``benchmarks/ladder_vs_refs.py``. No search; as Chaos, the first rule that applies:

1. never a move that makes five (of either mark), unless every move does, nor one that makes a
   four of its own mark (four identical marks and an empty cell in a window) while others do not;
2. a four (a window with four identical marks and one empty cell): the opposite mark in its empty
   cell, the cell that closes the most fours first;
3. an open three (three identical marks, two empty cells): the opposite mark in the empty cell
   that lies in the most windows still serving that mark;
4. otherwise answer the last move: the opposite of its mark in the neighbouring cell (of the
   eight) that breaks the most windows still serving that mark, nearest the centre on ties;
5. otherwise (the first move, or no neighbour free) the cell and mark that break the most live
   windows, weighted ``3 ** marks``.

In rules 2-5 a move's worth is what it breaks less what it builds for its own mark (both weighted
``3 ** marks``).

As Order (so that it can play both roles in a tournament) it plays rule 5 the other way round:
the cell and mark that extend the most live windows, weighted ``3 ** marks``, a five first.
Ties are drawn from ``ARENA_SEED``. Instant.
"""

from __future__ import annotations

import random

from refkit import (
    CELLS,
    FULL,
    SIZE,
    THROUGH,
    WINDOWS,
    empties,
    makes_five,
    order_to_move,
    serve,
    token,
)

CENTRE = [abs(2.5 - c % SIZE) + abs(2.5 - c // SIZE) for c in range(CELLS)]


def serving(x: int, o: int, w: int, mark_x: bool) -> int:
    """Marks of ``mark_x``'s kind in window ``w`` if it holds none of the other kind, else -1."""
    mine, theirs = (x, o) if mark_x else (o, x)
    return -1 if theirs & w else (mine & w).bit_count()


def kill_value(x: int, o: int, cell: int, mark_x: bool) -> int:
    """What writing ``mark_x`` in ``cell`` takes from the other mark's live windows."""
    total = 0
    for w in THROUGH[cell]:
        k = serving(x, o, w, not mark_x)
        if k >= 0:
            total += 3**k
    return total


def makes_four(x: int, o: int, cell: int, mark_x: bool) -> bool:
    return any(serving(x, o, w, mark_x) == 3 for w in THROUGH[cell])


def worth(x: int, o: int, cell: int, mark_x: bool) -> int:
    return kill_value(x, o, cell, mark_x) - build_value(x, o, cell, mark_x)


def build_value(x: int, o: int, cell: int, mark_x: bool) -> int:
    total = 0
    for w in THROUGH[cell]:
        k = serving(x, o, w, mark_x)
        if k >= 0:
            total += 3 ** (k + 1)
    return total


def choose(x: int, o: int, last: int, rng: random.Random) -> str:
    cells = empties(x, o)
    rng.shuffle(cells)
    safe = [(c, m) for c in cells for m in (True, False) if not makes_five(x if m else o, c)]
    if order_to_move(x, o):
        for c in cells:
            for m in (True, False):
                if makes_five(x if m else o, c):
                    return token(c, m)
        c, m = max(safe or [(cells[0], True)], key=lambda cm: build_value(x, o, *cm))
        return token(c, m)
    if not safe:
        return token(cells[0], True)
    calm = [mv for mv in safe if not makes_four(x, o, *mv)]
    safe = calm or safe
    free = FULL & ~(x | o)
    for size in (4, 3):  # rules 2 and 3
        hits: dict[tuple[int, bool], int] = {}
        for w in WINDOWS:
            for mark_x in (True, False):
                if serving(x, o, w, mark_x) == size:
                    for c in range(CELLS):
                        if w >> c & 1 and free >> c & 1:
                            move = (c, not mark_x)
                            hits[move] = hits.get(move, 0) + 1
        options = [mv for mv in safe if mv in hits]
        if options:
            best = max(options, key=lambda mv: (hits[mv], worth(x, o, *mv)))
            return token(*best)
    if last >= 0:  # rule 4
        last_x = bool(x >> last & 1)
        r, c = divmod(last, SIZE)
        near = [
            (r + dr) * SIZE + c + dc
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= r + dr < SIZE and 0 <= c + dc < SIZE
        ]
        options = [(n, not last_x) for n in near if (n, not last_x) in set(safe)]
        if options:
            best = max(options, key=lambda mv: (worth(x, o, *mv), -CENTRE[mv[0]]))
            return token(*best)
    best = max(safe, key=lambda mv: worth(x, o, *mv))  # rule 5
    return token(*best)


if __name__ == "__main__":
    serve(choose, "ref_patchaos")
