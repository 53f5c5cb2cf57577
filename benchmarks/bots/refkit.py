"""refkit: the rules and the "arena 1" protocol for the reference bots, from the rules alone.

Why: the reference opponents in this folder (``ref_*.py``) measure the bundled ladder against
programs written apart from it, so they must not share its code: this module imports neither
``arena`` nor ``arena.botlib``, only the standard library, and restates what it needs from
``docs/protocol.md`` (6x6 board, cells ``a1``..``f6`` row by row, five identical marks in a line
win for Order, a full board for Chaos). A position is two 36-bit ints (X's cells, O's cells);
the side to move follows from the number of marks (Order moves on an even count).

Each reference exposes ``choose(x, o, last, rng) -> token`` (``last``: the previous move's cell,
or -1) and runs as a bot with ``serve(choose, name)``. The benchmark driver
(``benchmarks/ladder_vs_refs.py``) calls the same ``choose`` in-process.
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Callable

SIZE = 6
CELLS = 36
FULL = (1 << CELLS) - 1
COLUMNS = "abcdef"


def _lines() -> list[int]:
    """The 32 windows of five cells (rows, columns, both diagonals) as bit masks."""
    out = []
    steps = ((0, 1), (1, 0), (1, 1), (1, -1))
    for r in range(SIZE):
        for c in range(SIZE):
            for dr, dc in steps:
                end_r, end_c = r + 4 * dr, c + 4 * dc
                if 0 <= end_r < SIZE and 0 <= end_c < SIZE:
                    out.append(sum(1 << ((r + i * dr) * SIZE + c + i * dc) for i in range(5)))
    return out


WINDOWS: list[int] = _lines()
THROUGH: list[list[int]] = [[w for w in WINDOWS if w >> cell & 1] for cell in range(CELLS)]
assert len(WINDOWS) == 32

Chooser = Callable[[int, int, int, random.Random], str]


def token(cell: int, mark_x: bool) -> str:
    """The protocol's move token for ``cell`` (0-35) and the mark."""
    return f"{COLUMNS[cell % SIZE]}{cell // SIZE + 1}{'X' if mark_x else 'O'}"


def parse_token(text: str) -> tuple[int, bool]:
    """(cell, is X) of a move token such as ``c4X``."""
    return (int(text[1]) - 1) * SIZE + COLUMNS.index(text[0].lower()), text[2] in "Xx"


def parse_board(text: str) -> tuple[int, int]:
    """(X bits, O bits) of a 36-character board string."""
    x = o = 0
    for i, ch in enumerate(text):
        if ch == "X":
            x |= 1 << i
        elif ch == "O":
            o |= 1 << i
    return x, o


def has_five(bits: int) -> bool:
    return any(bits & w == w for w in WINDOWS)


def makes_five(bits: int, cell: int) -> bool:
    """Whether adding ``cell`` to ``bits`` (one mark's cells) completes a window."""
    bits |= 1 << cell
    return any(bits & w == w for w in THROUGH[cell])


def empties(x: int, o: int) -> list[int]:
    free = FULL & ~(x | o)
    return [c for c in range(CELLS) if free >> c & 1]


def order_to_move(x: int, o: int) -> bool:
    return (x | o).bit_count() % 2 == 0


def serve(choose: Chooser, name: str) -> None:
    """Speak "arena 1" on stdin/stdout until ``quit`` or end of input."""
    seed = os.environ.get("ARENA_SEED", "").strip()
    rng = random.Random(int(seed)) if seed.lstrip("-").isdigit() else random.Random(0)
    out = sys.stdout
    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "arena":
            out.write(f"ready {name}\n")
            out.flush()
        elif parts[0] == "turn":
            x, o = parse_board(parts[1])
            last = parse_token(parts[2])[0] if parts[2] != "-" else -1
            out.write(choose(x, o, last, rng) + "\n")
            out.flush()
        elif parts[0] == "quit":
            return
