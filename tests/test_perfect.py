"""The perfect Order player: the pairing, the centre game's solver and table, and the bot.

The solver's answers are checked against an independent search written here from the rules
(no symmetry, no threat logic, no move ordering, its own line geometry), and the table's
strategy is played out against every Chaos reply.
"""

from __future__ import annotations

import random
import time
from functools import cache
from pathlib import Path

import pytest

from arena.botlib import centre, solver
from arena.botlib.centre import (
    CENTRE_CELLS,
    LINE_ENDS,
    PARTNER,
    CentreTable,
    canonical,
    canonical_with,
    map_cell,
)
from arena.rules import CELLS, SIZE, WINDOWS

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "bots" / "perfect" / "table.bin"
BOUND = 7


# --- an independent model of the centre game ------------------------------------------------------
def _centre_lines_from_board() -> list[tuple[int, ...]]:
    """The lines of four inside the central 4x4, found by walking the board in four directions."""
    inner = range(1, SIZE - 1)
    lines = []
    for r in inner:
        for c in inner:
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + dr * k, c + dc * k) for k in range(4)]
                if all(rr in inner and cc in inner for rr, cc in cells):
                    lines.append(tuple(SIZE * rr + cc for rr, cc in cells))
    return lines


LINES4 = [
    sum(1 << CENTRE_CELLS.index(cell) for cell in line) for line in _centre_lines_from_board()
]


def has_four(marks: int) -> bool:
    return any(marks & line == line for line in LINES4)


@cache
def order_wins(x: int, o: int, budget: int) -> bool:
    """Order to move, ``budget`` centre moves left: can it force four? (plain search)"""
    if has_four(x) or has_four(o):
        return True
    if budget == 0:
        return False
    for cell in range(16):
        if (x | o) >> cell & 1:
            continue
        for nx, no in ((x | 1 << cell, o), (x, o | 1 << cell)):
            if chaos_loses(nx, no, budget - 1):
                return True
    return False


@cache
def chaos_loses(x: int, o: int, budget: int) -> bool:
    """Chaos to move: does every reply leave Order a forced four? (plain search)"""
    if has_four(x) or has_four(o):
        return True
    free = [cell for cell in range(16) if not (x | o) >> cell & 1]
    if not free:
        return False
    return all(
        order_wins(nx, no, budget)
        for cell in free
        for nx, no in ((x | 1 << cell, o), (x, o | 1 << cell))
    )


def centre_of(key: int) -> tuple[int, int]:
    return key & 0xFFFF, key >> 16


def table_move(table: CentreTable, x: int, o: int) -> tuple[int, int] | None:
    """The table's move for ``(x, o)`` in its own orientation, as the bot finds it."""
    key, sym, swapped = canonical_with(x, o)
    found = table.get(key)
    if found is None:
        return None
    cell, mark = found
    return map_cell(cell, sym, inverse=True), mark ^ swapped


@pytest.fixture(scope="module")
def table() -> CentreTable:
    return CentreTable.read(TABLE)


# --- geometry and pairing -------------------------------------------------------------------------
def test_the_pairing_covers_the_20_border_cells_symmetrically() -> None:
    border = {c for c in range(CELLS) if to_rc(c)[0] in (0, SIZE - 1) or to_rc(c)[1] in (0, 5)}
    assert len(border) == 20
    assert set(PARTNER) == border
    assert all(PARTNER[PARTNER[c]] == c and PARTNER[c] != c for c in PARTNER)
    assert not set(PARTNER) & set(CENTRE_CELLS)


def to_rc(cell: int) -> tuple[int, int]:
    return divmod(cell, SIZE)


def test_each_centre_line_extends_to_a_six_whose_ends_are_partners() -> None:
    assert len(centre.CENTRE_LINES) == 10 == len(LINES4)
    assert sorted(centre.CENTRE_LINES) == sorted(LINES4)
    for line, (a, b) in zip(centre.CENTRE_LINES, LINE_ENDS, strict=True):
        six = {a, b} | {CENTRE_CELLS[i] for i in range(16) if line >> i & 1}
        assert PARTNER[a] == b
        # The six cells form a full row, column or long diagonal: both its windows lie inside.
        windows = [w for w in WINDOWS if all(w >> c & 1 <= (c in six) for c in range(CELLS))]
        assert len(windows) == 2
        assert {c for w in windows for c in range(CELLS) if w >> c & 1} == six


def test_symmetries_and_the_canonical_key() -> None:
    rng = random.Random(5)
    for _ in range(300):
        cells = rng.sample(range(16), rng.randrange(0, 12))
        x = sum(1 << c for c in cells[::2])
        o = sum(1 << c for c in cells[1::2])
        key, sym, swapped = canonical_with(x, o)
        assert key == canonical(x, o)
        images = set()
        for perm in centre.SYMMETRIES:
            px = sum(1 << perm[c] for c in range(16) if x >> c & 1)
            po = sum(1 << perm[c] for c in range(16) if o >> c & 1)
            images |= {px | po << 16, po | px << 16}
        assert key == min(images)
        perm = centre.SYMMETRIES[sym]
        px = sum(1 << perm[c] for c in range(16) if x >> c & 1)
        po = sum(1 << perm[c] for c in range(16) if o >> c & 1)
        assert key == (po | px << 16 if swapped else px | po << 16)
        # A symmetry keeps the lines of four.
        assert sorted(
            sum(1 << perm[c] for c in range(16) if line >> c & 1) for line in LINES4
        ) == sorted(LINES4)


def test_threat_and_four_tables_agree_with_the_lines() -> None:
    threats, fours = centre.threat_table(), centre.four_table()
    rng = random.Random(6)
    for _ in range(2000):
        m = rng.getrandbits(16) & rng.getrandbits(16)
        assert bool(fours[m]) == has_four(m)
        if has_four(m):
            continue
        expected = 0
        for c in range(16):
            if not m >> c & 1 and has_four(m | 1 << c):
                expected |= 1 << c
        assert threats[m] == expected


# --- the solver and its table --------------------------------------------------------------------
def test_the_table_file_loads_fast_and_is_compact(table: CentreTable) -> None:
    assert TABLE.stat().st_size < 100_000
    started = time.perf_counter()
    again = CentreTable.read(TABLE)
    assert time.perf_counter() - started < 0.5
    assert again.keys == table.keys and again.moves == table.moves
    assert len(table) > 100
    assert table.keys == sorted(set(table.keys))
    assert all(canonical(*centre_of(key)) == key for key in table.keys)
    assert CentreTable.from_bytes(table.to_bytes()).keys == table.keys


def test_a_damaged_table_file_is_refused() -> None:
    with pytest.raises(centre.TableFormatError):
        CentreTable.from_bytes(b"not a table")
    with pytest.raises(centre.TableFormatError):
        CentreTable.from_bytes(centre.MAGIC + b"\xfd7zXZ garbage")


def test_every_table_move_is_legal_and_keeps_the_win(table: CentreTable) -> None:
    """The whole strategy played out against every Chaos reply, in raw (unreduced) positions.

    Chaos may write either mark in any empty centre cell (those that make four or ignore a threat
    included); Order answers by the table, as the bot looks it up, or makes four when it can.
    Order must make four within 7 of its moves, every time.
    """
    seen: dict[tuple[int, int], int] = {}

    def order_turn(x: int, o: int, moves: int) -> int:
        """Most Order moves needed from here; fails the test if the strategy breaks."""
        if (x, o) in seen:
            return seen[(x, o)]
        free = [c for c in range(16) if not (x | o) >> c & 1]
        four = [(c, 0) for c in free if has_four(x | 1 << c)]
        four += [(c, 1) for c in free if has_four(o | 1 << c)]
        if four:
            result = moves + 1
        else:
            move = table_move(table, x, o)
            assert move is not None, f"no table move for {x:#06x} {o:#06x}"
            cell, mark = move
            assert cell in free
            nx, no = (x | 1 << cell, o) if mark == 0 else (x, o | 1 << cell)
            assert moves + 1 <= BOUND
            replies = [c for c in free if c != cell]
            assert replies, "the centre filled without four"
            result = 0
            for c in replies:
                for cx, co in ((nx | 1 << c, no), (nx, no | 1 << c)):
                    if has_four(cx) or has_four(co):
                        result = max(result, moves + 1)  # Chaos made four: Order wins
                    else:
                        result = max(result, order_turn(cx, co, moves + 1))
        assert result <= BOUND
        seen[(x, o)] = result
        return result

    assert order_turn(0, 0, 0) == BOUND
    assert len(seen) > len(table)


def test_table_positions_agree_with_an_independent_search(table: CentreTable) -> None:
    """Sampled table positions are won by the plain search, and so is their table move."""
    rng = random.Random(11)
    deep = [k for k in table.keys if centre_of(k)[0].bit_count() + centre_of(k)[1].bit_count() >= 8]
    sample = rng.sample(deep, min(60, len(deep)))
    sample += rng.sample([k for k in table.keys if (k & 0xFFFF).bit_count() == 3], 2)
    for key in sample:
        x, o = centre_of(key)
        budget = BOUND - (x | o).bit_count() // 2
        assert order_wins(x, o, budget)
        cell, mark = table.get(key) or (-1, -1)
        nx, no = (x | 1 << cell, o) if mark == 0 else (x, o | 1 << cell)
        assert has_four(nx) or has_four(no) or chaos_loses(nx, no, budget - 1)


def test_solver_values_agree_with_an_independent_search() -> None:
    """Wins and losses alike: random positions with 8 to 12 marks, Order or Chaos to move."""
    rng = random.Random(12)
    search = solver.Solver(BOUND)
    checked = {True: 0, False: 0}
    while min(checked.values()) < 40:
        n = rng.randrange(8, 13)
        cells = rng.sample(range(16), n)
        marks = [rng.getrandbits(1) for _ in cells]
        x = sum(1 << c for c, m in zip(cells, marks, strict=True) if m == 0)
        o = sum(1 << c for c, m in zip(cells, marks, strict=True) if m == 1)
        if has_four(x) or has_four(o):
            continue
        budget = BOUND - (n + 1) // 2 if n % 2 else BOUND - n // 2
        if n % 2 == 0:
            value = search.order_node(x, o)
            assert value == order_wins(x, o, budget), (x, o)
        else:
            value = search.chaos_node(x, o)
            assert value == chaos_loses(x, o, budget), (x, o)
        checked[value] += 1


def test_passes_change_nothing() -> None:
    """A pass (a border move, answered by the pairing) gives Chaos the same position again."""
    rng = random.Random(13)
    plain, passing = solver.Solver(BOUND), solver.Solver(BOUND, passes=3)
    for _ in range(100):
        cells = rng.sample(range(16), rng.choice((5, 7, 9)))
        x = sum(1 << c for c in cells[::2])
        o = sum(1 << c for c in cells[1::2])
        if has_four(x) or has_four(o):
            continue
        assert plain.chaos_node(x, o) == passing.chaos_node(x, o, 3)


@pytest.mark.slow
def test_order_wins_with_seven_moves_and_every_first_move_wins() -> None:
    result = solver.solve(BOUND, table=False)
    assert result.won and result.positions > 1000
    for first in ((0, 0), (1, 0), (5, 1)):
        assert solver.solve(BOUND, table=False, first=first).won


@pytest.mark.slow
def test_six_order_moves_do_not_suffice() -> None:
    assert not solver.solve(BOUND - 1, table=False).won


@pytest.mark.slow
def test_the_committed_table_is_what_the_solver_builds(table: CentreTable, tmp_path: Path) -> None:
    out = tmp_path / "table.bin"
    assert solver.main(["--out", str(out)]) == 0
    rebuilt = CentreTable.read(out)
    assert rebuilt.keys == table.keys and rebuilt.moves == table.moves


def test_search_limits_stop_the_search() -> None:
    with pytest.raises(solver.SearchLimitError):
        solver.Solver(BOUND, node_limit=100).order_node(0, 0)
    with pytest.raises(solver.SearchLimitError):
        solver.Solver(BOUND, deadline=time.monotonic() - 1).order_node(0, 0)
