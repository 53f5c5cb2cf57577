"""The centre game: Order's forced win reduced to the central 4x4 by pairing the border cells.

Why: when Chaos writes in a border cell, Order writes the opposite mark in its partner, so four
identical marks in any of the ten lines of the central 4x4 win; what is left is the *centre game*
on 16 cells (the argument: ``docs/bots.md``). A centre position is two 16-bit masks ``(x, o)``,
cell ``4 * row + column``; its canonical key is the least over the 16 symmetries (the square's 8,
with or without swapping X and O). Also reads and writes the solver's table (:class:`CentreTable`).
"""

from __future__ import annotations

import bisect
import itertools
import lzma
import sys
from array import array
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from arena.rules import SIZE

N = 4
CENTRE_FULL = (1 << N * N) - 1

CENTRE_CELLS: tuple[int, ...] = tuple(SIZE * (r + 1) + c + 1 for r in range(N) for c in range(N))
"""Board index of each centre cell, in centre order (``CENTRE_CELLS[0]`` is b2 = 7)."""

_CENTRE_INDEX = {cell: i for i, cell in enumerate(CENTRE_CELLS)}


def to_board(centre_cell: int) -> int:
    """Board index of centre cell ``centre_cell`` (0-15)."""
    return CENTRE_CELLS[centre_cell]


def to_centre(board_cell: int) -> int | None:
    """Centre index of board cell ``board_cell``, or None for a border cell."""
    return _CENTRE_INDEX.get(board_cell)


def _line(cells: Iterable[tuple[int, int]]) -> int:
    return sum(1 << (N * r + c) for r, c in cells)


CENTRE_LINES: tuple[int, ...] = (
    *(_line((r, c) for c in range(N)) for r in range(N)),
    *(_line((r, c) for r in range(N)) for c in range(N)),
    _line((i, i) for i in range(N)),
    _line((i, N - 1 - i) for i in range(N)),
)
"""The ten lines of four in the centre, as 16-bit masks: 4 rows, 4 columns, 2 diagonals."""

LINE_ENDS: tuple[tuple[int, int], ...] = (
    *((SIZE * (r + 1), SIZE * (r + 1) + SIZE - 1) for r in range(N)),
    *((c + 1, SIZE * (SIZE - 1) + c + 1) for c in range(N)),
    (0, SIZE * SIZE - 1),
    (SIZE - 1, SIZE * (SIZE - 1)),
)
"""The two board cells that extend each centre line (same order as ``CENTRE_LINES``) to six."""

PARTNER: dict[int, int] = {a: b for a, b in LINE_ENDS} | {b: a for a, b in LINE_ENDS}
"""The pairing of the 20 border cells (board indices), symmetric: ``PARTNER[PARTNER[c]] == c``."""


def _symmetries() -> tuple[tuple[int, ...], ...]:
    """The 8 symmetries of the 4x4 as permutations: ``perm[i]`` is where cell ``i`` goes."""
    maps = []
    for transpose in (False, True):
        for flip_r in (False, True):
            for flip_c in (False, True):
                perm = []
                for i in range(N * N):
                    r, c = divmod(i, N)
                    if transpose:
                        r, c = c, r
                    if flip_r:
                        r = N - 1 - r
                    if flip_c:
                        c = N - 1 - c
                    perm.append(N * r + c)
                maps.append(tuple(perm))
    assert maps[0] == tuple(range(N * N))  # the identity first
    return tuple(maps)


SYMMETRIES: tuple[tuple[int, ...], ...] = _symmetries()


def centre_masks(bits: list[int] | tuple[int, int]) -> tuple[int, int]:
    """The centre part ``(x, o)`` of a board's two 36-bit bitboards."""
    x = o = 0
    bx, bo = bits
    for i, cell in enumerate(CENTRE_CELLS):
        x |= (bx >> cell & 1) << i
        o |= (bo >> cell & 1) << i
    return x, o


@cache
def four_table() -> bytes:
    """``four_table()[m]`` is 1 when the 16-bit mask ``m`` holds a whole centre line."""
    table = bytearray(1 << N * N)
    for line in CENTRE_LINES:
        rest = CENTRE_FULL & ~line
        sub = rest
        while True:  # every mask that contains the line
            table[sub | line] = 1
            if not sub:
                break
            sub = (sub - 1) & rest
    return bytes(table)


@cache
def threat_table() -> array[int]:
    """``threat_table()[m]``: the cells that would complete a centre line for the marks ``m``.

    A cell is in it when it is not in ``m`` and some centre line through it has its other three
    cells in ``m``; intersect with the empty cells to get the cells where a mark makes four.
    """
    table = array("H", bytes(2 << N * N))
    for line in CENTRE_LINES:
        for cell_bit in (1 << i for i in range(N * N) if line >> i & 1):
            three = line & ~cell_bit
            rest = CENTRE_FULL & ~line
            sub = rest
            while True:  # every mask that holds the three cells and not the fourth
                table[sub | three] |= cell_bit
                if not sub:
                    break
                sub = (sub - 1) & rest
    return table


@cache
def perm_tables() -> tuple[array[int], ...]:
    """For each symmetry, the image of every 16-bit mask (65,536 entries each)."""
    tables = []
    for perm in SYMMETRIES:
        low = [0] * 256
        high = [0] * 256
        for byte in range(256):
            for bit in range(8):
                if byte >> bit & 1:
                    low[byte] |= 1 << perm[bit]
                    high[byte] |= 1 << perm[bit + 8]
        tables.append(array("H", (low[m & 255] | high[m >> 8] for m in range(1 << N * N))))
    return tuple(tables)


def canonical(x: int, o: int) -> int:
    """The canonical key of the centre position ``(x, o)``: least ``x | o << 16`` of its images."""
    p0, p1, p2, p3, p4, p5, p6, p7 = perm_tables()
    return min(
        x | o << 16,
        o | x << 16,
        p1[x] | p1[o] << 16,
        p1[o] | p1[x] << 16,
        p2[x] | p2[o] << 16,
        p2[o] | p2[x] << 16,
        p3[x] | p3[o] << 16,
        p3[o] | p3[x] << 16,
        p4[x] | p4[o] << 16,
        p4[o] | p4[x] << 16,
        p5[x] | p5[o] << 16,
        p5[o] | p5[x] << 16,
        p6[x] | p6[o] << 16,
        p6[o] | p6[x] << 16,
        p7[x] | p7[o] << 16,
        p7[o] | p7[x] << 16,
    )


def byte_tables() -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """Per symmetry, the images of a mask's low and high byte (cheap to build: no big tables)."""
    tables = []
    for perm in SYMMETRIES:
        low = tuple(
            sum(1 << perm[bit] for bit in range(8) if byte >> bit & 1) for byte in range(256)
        )
        high = tuple(
            sum(1 << perm[bit + 8] for bit in range(8) if byte >> bit & 1) for byte in range(256)
        )
        tables.append((low, high))
    return tuple(tables)


_BYTES = byte_tables()


def map_mask(mask: int, symmetry: int) -> int:
    """Where ``symmetry`` takes the centre cells of ``mask``: a mask (``map_cell`` of each cell)."""
    low, high = _BYTES[symmetry]
    return low[mask & 255] | high[mask >> 8]


def canonical_small(x: int, o: int) -> int:
    """``canonical`` computed with byte tables (no 65,536-entry tables to build first)."""
    best = -1
    for low, high in _BYTES:
        px = low[x & 255] | high[x >> 8]
        po = low[o & 255] | high[o >> 8]
        a = px | po << 16
        b = po | px << 16
        if a > b:
            a = b
        if best < 0 or a < best:
            best = a
    return best


def canonical_images(x: int, o: int) -> tuple[int, list[tuple[int, bool]]]:
    """The canonical key of ``(x, o)`` and every ``(symmetry, swapped)`` that reaches it."""
    best = -1
    found: list[tuple[int, bool]] = []
    for s, (low, high) in enumerate(_BYTES):
        px = low[x & 255] | high[x >> 8]
        po = low[o & 255] | high[o >> 8]
        for key, swapped in ((px | po << 16, False), (po | px << 16, True)):
            if best < 0 or key < best:
                best = key
                found = [(s, swapped)]
            elif key == best:
                found.append((s, swapped))
    return best, found


def canonical_with(x: int, o: int) -> tuple[int, int, bool]:
    """``(key, symmetry, swapped)``: the canonical key and one transformation reaching it.

    The canonical position is ``SYMMETRIES[symmetry]`` applied to ``(x, o)``, then X and O
    exchanged when ``swapped``.
    """
    best: tuple[int, int, bool] | None = None
    for s, table in enumerate(perm_tables()):
        px, po = table[x], table[o]
        for key, swapped in ((px | po << 16, False), (po | px << 16, True)):
            if best is None or key < best[0]:
                best = (key, s, swapped)
    assert best is not None
    return best


def map_cell(centre_cell: int, symmetry: int, inverse: bool = False) -> int:
    """Where ``symmetry`` takes ``centre_cell`` (or where its inverse does)."""
    perm = SYMMETRIES[symmetry]
    return perm.index(centre_cell) if inverse else perm[centre_cell]


class TableFormatError(ValueError):
    """A table file that is not one this module wrote."""


MAGIC = b"OCCENTRE1\n"


class CentreTable:
    """Order's winning move for centre positions, by canonical key.

    The file is ``MAGIC`` followed by an xz stream of: the entry count (uint32), the keys in
    increasing order as deltas (uint32 each), then one byte per entry, ``cell << 1 | mark`` in the
    canonical position's coordinates (mark 0 = X, 1 = O), all little-endian. It loads in a few
    milliseconds and is searched by bisection.
    """

    __slots__ = ("keys", "moves")

    def __init__(self, keys: list[int], moves: bytes) -> None:
        if len(keys) != len(moves):
            raise ValueError("one move per key")
        self.keys = keys
        self.moves = moves

    def __len__(self) -> int:
        return len(self.keys)

    @classmethod
    def from_dict(cls, table: dict[int, tuple[int, int]]) -> CentreTable:
        keys = sorted(table)
        return cls(keys, bytes(table[k][0] << 1 | table[k][1] for k in keys))

    def get(self, key: int) -> tuple[int, int] | None:
        """``(centre cell, mark)`` for the canonical ``key``; None when the table lacks it."""
        i = bisect.bisect_left(self.keys, key)
        if i == len(self.keys) or self.keys[i] != key:
            return None
        move = self.moves[i]
        return move >> 1, move & 1

    def items(self) -> Iterable[tuple[int, tuple[int, int]]]:
        for key, move in zip(self.keys, self.moves, strict=True):
            yield key, (move >> 1, move & 1)

    def to_bytes(self) -> bytes:
        deltas = array("I", [len(self.keys)])
        previous = 0
        for key in self.keys:
            deltas.append(key - previous)
            previous = key
        if sys.byteorder == "big":
            deltas.byteswap()
        return MAGIC + lzma.compress(deltas.tobytes() + self.moves, preset=9 | lzma.PRESET_EXTREME)

    @classmethod
    def from_bytes(cls, data: bytes) -> CentreTable:
        if not data.startswith(MAGIC):
            raise TableFormatError("not a centre table (bad magic)")
        try:
            raw = lzma.decompress(data[len(MAGIC) :])
        except lzma.LZMAError as exc:
            raise TableFormatError(f"corrupt centre table: {exc}") from None
        if len(raw) < 4:
            raise TableFormatError("truncated centre table")
        header = array("I", raw[:4])
        if sys.byteorder == "big":
            header.byteswap()
        count = header[0]
        if len(raw) != 4 + 5 * count:
            raise TableFormatError("centre table length does not match its count")
        deltas = array("I", raw[4 : 4 + 4 * count])
        if sys.byteorder == "big":
            deltas.byteswap()
        return cls(list(itertools.accumulate(deltas)), raw[4 + 4 * count :])

    def write(self, path: Path) -> None:
        path.write_bytes(self.to_bytes())

    @classmethod
    def read(cls, path: Path) -> CentreTable:
        return cls.from_bytes(path.read_bytes())
