"""The centre game when one border pair holds two equal marks: Order's table for ``perfect``.

Why: a 2-ply opening with both marks in the border can leave, once Order has answered its
half-filled pairs, one pair holding two equal marks (Chaos can fill one so). That pair's line
serves its mark only; the general centre game (``repair``) is still won, one game per class of
line (outer row, inner row, diagonal), and this table holds Order's strategy in each.
``python -m arena.botlib.equal_pair --out bots/perfect/equal.bin`` rebuilds it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from arena.botlib.centre import CENTRE_LINES, SYMMETRIES, CentreTable, map_cell, map_mask
from arena.botlib.repair import GeneralCentre

LINE_CLASSES = (0, 1, 8)
"""The line standing for each class: centre row 0 (and its images: the outer rows and columns),
row 1 (the inner ones) and the first diagonal (both diagonals)."""
_ALL = (1 << len(CENTRE_LINES)) - 1


def _to_class() -> tuple[tuple[int, int], ...]:
    """For each centre line, ``(class, symmetry)``: the first symmetry taking it to its class's
    line (fixed, so that a game's positions all map alike)."""
    found = []
    for line in CENTRE_LINES:
        for symmetry in range(len(SYMMETRIES)):
            image = map_mask(line, symmetry)
            if image in (CENTRE_LINES[rep] for rep in LINE_CLASSES):
                cls = [CENTRE_LINES[rep] for rep in LINE_CLASSES].index(image)
                found.append((cls, symmetry))
                break
    return tuple(found)


_TO_CLASS = _to_class()


def equal_key(cls: int, x: int, o: int) -> int:
    """The table key of centre position ``(x, o)`` in class ``cls`` (its line's pair holds two X):
    the cells in base 3 (1 for X, 2 for O), the class above them (it fits 32 bits)."""
    key = 0
    for cell in range(15, -1, -1):
        key = key * 3 + (x >> cell & 1) + 2 * (o >> cell & 1)
    return cls * 3**16 + key


def build(progress: bool = False) -> CentreTable:
    """Solve the three games (the class's line serving X only, the empty centre, Order to move)
    and extract Order's strategy in each (about half a minute)."""
    table: dict[int, tuple[int, int]] = {}
    for cls, line in enumerate(LINE_CLASSES):
        started = time.perf_counter()
        general = GeneralCentre()
        strategy = general.strategy((_ALL, _ALL & ~(1 << line), 0, 0))
        table.update((equal_key(cls, x, o), move) for (x, o), move in strategy.items())
        if progress:
            print(
                f"line {line}: {len(strategy):,} Order positions, {general.nodes:,} nodes, "
                f"{time.perf_counter() - started:.1f} s",
                flush=True,
            )
    return CentreTable.from_dict(table)


def lookup(table: CentreTable, line: int, mark: int, x: int, o: int) -> tuple[int, int] | None:
    """Order's move ``(centre cell, mark)`` in ``(x, o)`` when centre line ``line``'s pair holds
    two of ``mark`` (0 X, 1 O) and the rest of the border the pairing's shape; None off the
    table."""
    cls, symmetry = _TO_CLASS[line]
    if mark:
        x, o = o, x
    found = table.get(equal_key(cls, map_mask(x, symmetry), map_mask(o, symmetry)))
    if found is None:
        return None
    cell, found_mark = found
    return map_cell(cell, symmetry, inverse=True), found_mark ^ mark


def main(argv: list[str] | None = None) -> int:
    """``python -m arena.botlib.equal_pair``: solve the three games and write their table."""
    parser = argparse.ArgumentParser(
        prog="python -m arena.botlib.equal_pair",
        description="Solve the centre game with one pair of equal marks and write its table.",
    )
    parser.add_argument("--out", type=Path, help="where to write it (bots/perfect/equal.bin)")
    args = parser.parse_args(argv)
    table = build(progress=True)
    print(f"table: {len(table):,} Order positions", flush=True)
    if args.out is not None:
        table.write(args.out)
        print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
