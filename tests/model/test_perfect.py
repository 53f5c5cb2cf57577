"""The perfect Order player: the pairing, the centre game's solver and table, and the bot.

The solver's answers are checked against an independent search written here from the rules
(no symmetry, no threat logic, no move ordering, its own line geometry), and the table's
strategy is played out against every Chaos reply.
"""

from __future__ import annotations

import importlib.util
import io
import random
import subprocess
import sys
import time
from collections.abc import Callable
from functools import cache, partial
from pathlib import Path
from types import ModuleType

import pytest
from conftest import REPO_ROOT

from arena.bot import run
from arena.botlib import centre, equal_pair, solver
from arena.botlib.centre import (
    CENTRE_CELLS,
    LINE_ENDS,
    PARTNER,
    CentreTable,
    canonical,
    canonical_with,
    centre_masks,
    map_cell,
    to_centre,
)
from arena.botlib.equal_pair import lookup
from arena.botlib.perfect import PerfectOrder, choose_move
from arena.botlib.repair import GeneralCentre, shape_of
from arena.botspec import BotSpec
from arena.limits import SandboxMode, TimeControl
from arena.referee.match import MatchSettings, play_match
from arena.rules import CELLS, SIZE, WINDOWS, Board, Mark, Move, Reason, Role, parse_cell

ROOT = REPO_ROOT
BOT = ROOT / "bots" / "perfect" / "main.py"
TABLE = BOT.with_name("table.bin")
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
        assert key == canonical(x, o) == centre.canonical_small(x, o)
        small_key, images = centre.canonical_images(x, o)
        assert small_key == key and (sym, swapped) in images
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
def test_the_table_file_is_compact_and_reads_back(table: CentreTable) -> None:
    assert TABLE.stat().st_size < 100_000
    again = CentreTable.read(TABLE)
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


def walk_table(
    move_of: Callable[[int, int], tuple[int, int] | None],
    x: int,
    o: int,
    seen: dict[tuple[int, int], int],
    dead: tuple[int, int] = (0, 0),
) -> int:
    """The strategy ``move_of`` (a table's move, as the bot finds it) from ``(x, o)`` (Order to
    move) played out against every Chaos reply, in raw (unreduced) positions: the most Order moves
    it needs to make a winning four (``seen`` memoises). ``dead``: a line and the mark whose four
    there does not win (its border pair holds two of the other mark), or none.

    Chaos may write either mark in any empty centre cell (those that make four or ignore a threat
    included); Order answers by the table or makes a winning four when it can.
    Fails the test where the table has no move or the centre fills without a winning four.
    """

    def wins(x: int, o: int) -> bool:
        return any(
            marks & line == line and not (line == dead[0] and mark == dead[1])
            for line in LINES4
            for mark, marks in ((0, x), (1, o))
        )

    if (x, o) in seen:
        return seen[(x, o)]
    free = [c for c in range(16) if not (x | o) >> c & 1]
    if any(wins(x | 1 << c, o) or wins(x, o | 1 << c) for c in free):
        result = 1
    else:
        move = move_of(x, o)
        assert move is not None, f"no table move for {x:#06x} {o:#06x}"
        cell, mark = move
        assert cell in free
        nx, no = (x | 1 << cell, o) if mark == 0 else (x, o | 1 << cell)
        replies = [c for c in free if c != cell]
        assert replies, "the centre filled without four"
        result = 1
        for c in replies:
            for cx, co in ((nx | 1 << c, no), (nx, no | 1 << c)):
                if not wins(cx, co):  # else Chaos made a winning four
                    result = max(result, 1 + walk_table(move_of, cx, co, seen, dead))
    seen[(x, o)] = result
    return result


def test_every_table_move_is_legal_and_keeps_the_win(table: CentreTable) -> None:
    """From the empty centre, Order makes four within 7 of its moves, every time."""
    seen: dict[tuple[int, int], int] = {}
    assert walk_table(partial(table_move, table), 0, 0, seen) == BOUND
    assert len(seen) > 1000


def test_table_positions_agree_with_an_independent_search(table: CentreTable) -> None:
    """Sampled table positions are won by the plain search, and so is their table move."""
    rng = random.Random(11)
    deep = [k for k in table.keys if centre_of(k)[0].bit_count() + centre_of(k)[1].bit_count() >= 8]
    sample = rng.sample(deep, min(60, len(deep)))
    sample += rng.sample([k for k in table.keys if (k & 0xFFFF).bit_count() == 3], 2)
    for key in sample:
        x, o = centre_of(key)
        budget = solver.MAX_ORDER_MOVES - (x | o).bit_count() // 2  # 8: the openings' entries
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


@pytest.mark.slow
def test_the_committed_equal_pair_table_is_what_its_build_makes(tmp_path: Path) -> None:
    out = tmp_path / "equal.bin"
    assert equal_pair.main(["--out", str(out)]) == 0
    rebuilt, committed = CentreTable.read(out), CentreTable.read(TABLE.with_name("equal.bin"))
    assert rebuilt.keys == committed.keys and rebuilt.moves == committed.moves


def test_search_limits_stop_the_search() -> None:
    with pytest.raises(solver.SearchLimitError):
        solver.Solver(BOUND, node_limit=100).order_node(0, 0)
    with pytest.raises(solver.SearchLimitError):
        solver.Solver(BOUND, deadline=time.monotonic() - 1).order_node(0, 0)


# --- the strategy on the whole board, in-process ------------------------------------------------
@pytest.fixture(scope="module")
def player(table: CentreTable) -> PerfectOrder:
    return PerfectOrder(table=table, equal=CentreTable.read(TABLE.with_name("equal.bin")))


def random_chaos(board: Board, rng: random.Random) -> Move:
    return rng.choice(board.legal_moves())


def blocking_chaos(board: Board, rng: random.Random) -> Move:
    """An adversarial Chaos: never makes five, blocks every four (both marks), else spoils.

    It spoils the most valuable live lines (greedy on the windows: the opposite mark where the
    other mark is strongest), and one move in five it plays the border (to test the pairing at
    every stage of the game).
    """
    bits = board.bits
    safe = []
    for move in board.legal_moves():
        mine = bits[move.mark] | 1 << move.cell
        if not any(mine & w == w for w in WINDOWS if w >> move.cell & 1):
            safe.append(move)
    if not safe:
        return rng.choice(board.legal_moves())
    free = ~board.occupied & ((1 << CELLS) - 1)
    for mark in Mark:
        for w in WINDOWS:
            missing = w & ~bits[mark]
            if missing.bit_count() == 1 and missing & free:
                cell = missing.bit_length() - 1
                block = Move(cell, Mark(1 - mark))
                if block in safe:
                    return block
    border = [m for m in safe if m.cell in PARTNER]
    if border and rng.random() < 0.2:
        return rng.choice(border)

    def spoil(move: Move) -> int:
        other = bits[1 - move.mark]
        mine = bits[move.mark]
        score = 0
        for w in WINDOWS:
            if w >> move.cell & 1:
                if other & w and not mine & w:
                    score += 8 ** (other & w).bit_count()
                elif mine & w and not other & w:
                    score -= 8 ** (mine & w).bit_count()
        return score

    best = max(spoil(m) for m in safe)
    return rng.choice([m for m in safe if spoil(m) == best])


def play_out(
    player: PerfectOrder, chaos: Callable[[Board, random.Random], Move], seed: int
) -> Board:
    """A game from the empty board: the strategy's moves only (no search), against ``chaos``."""
    rng = random.Random(seed)
    board = Board()
    while not board.is_game_over():
        if board.turn is Role.ORDER:
            move = player.strategy_move(board, rng)
            assert move is not None, f"off the strategy in\n{board}"
        else:
            move = chaos(board, rng)
        board.push(move)
    return board


def test_the_strategy_wins_1000_games_against_random_chaos(player: PerfectOrder) -> None:
    for seed in range(1000):
        board = play_out(player, random_chaos, seed)
        assert board.outcome is not None and board.outcome.winner is Role.ORDER, seed


def test_the_strategy_wins_against_a_blocking_chaos(player: PerfectOrder) -> None:
    plies = []
    for seed in range(300):
        board = play_out(player, blocking_chaos, seed)
        assert board.outcome is not None and board.outcome.winner is Role.ORDER, seed
        plies.append(board.ply)
    assert max(plies) > 15  # the blocker makes Order work for it


def test_the_pairing_answers_a_border_move(player: PerfectOrder) -> None:
    rng = random.Random(1)
    board = Board.from_moves(["c3X", "a2O"])
    assert player.strategy_move(board, rng) == Move.parse("f2X")
    assert player.last_reason == "pair"
    board = Board.from_moves(["c3X", "f6X"])  # the long diagonal's end: partner a1
    assert player.strategy_move(board, rng) == Move.parse("a1O")


def test_five_comes_first(player: PerfectOrder) -> None:
    # Four X in row 3 (b3-e3) and a Chaos border move elsewhere: five beats the pairing answer.
    board = Board.from_moves(["b3X", "c1O", "c3X", "c6X", "d3X", "b1O", "e3X", "e1O"])
    move = player.strategy_move(board, random.Random(2))
    assert move in (Move.parse("a3X"), Move.parse("f3X"))
    assert player.last_reason == "five"


def test_the_first_move_varies_with_the_seed(player: PerfectOrder) -> None:
    firsts = {player.strategy_move(Board(), random.Random(seed)) for seed in range(40)}
    assert len(firsts) > 4
    assert all(move is not None and to_centre(move.cell) is not None for move in firsts)
    again = {player.strategy_move(Board(), random.Random(seed)) for seed in range(40)}
    assert firsts == again


def random_opening(rng: random.Random, plies: int) -> Board:
    board = Board()
    while board.ply < plies:
        move = rng.choice(board.legal_moves())
        board.push(move)
        if board.is_game_over():
            board.pop()
    return board


def test_off_the_strategy_it_still_plays_legal_moves_in_time(player: PerfectOrder) -> None:
    """Random openings leave the strategy's shape: it solves or searches, and still wins nearly
    always (its time in real games: ``test_ladder``'s real-process games and the tournament)."""
    reasons = set()
    wins = 0
    games = 30
    for seed in range(games):
        rng = random.Random(seed)
        board = random_opening(rng, rng.choice((2, 4, 6, 8)))
        while not board.is_game_over():
            if board.turn is Role.ORDER:
                move = choose_move(player, board, Role.ORDER, rng, 100)
                reasons.add(player.last_reason)
            else:
                move = random_chaos(board, rng)
            board.push(move)
        wins += board.outcome is not None and board.outcome.winner is Role.ORDER
    assert "search" in reasons or "solve" in reasons
    assert wins >= games * 0.9


def makes_five(board: Board, move: Move) -> bool:
    mine = board.bits[move.mark] | 1 << move.cell
    return any(mine & w == w for w in WINDOWS if w >> move.cell & 1)


def test_as_chaos_it_blocks_and_never_makes_five(player: PerfectOrder) -> None:
    board = Board.from_moves(["b3X", "a3O", "c3X", "a1O", "d3X", "f6O", "e3X"])
    assert choose_move(player, board, Role.CHAOS, random.Random(3), 100) == Move.parse("f3O")
    for seed in range(5):
        rng = random.Random(seed)
        board = Board()
        while not board.is_game_over():
            if board.turn is Role.CHAOS:
                move = choose_move(player, board, Role.CHAOS, rng, 100)
                if makes_five(board, move):
                    assert all(makes_five(board, m) for m in board.legal_moves())
            else:
                move = random_chaos(board, rng)
            board.push(move)


# --- the bot as a program ------------------------------------------------------------------------
def load_bot_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("perfect_main", BOT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_bot_speaks_the_protocol_without_a_fallback() -> None:
    """The kit's ``run`` lets any exception in ``choose`` through: none surfaces."""
    bot = load_bot_module()
    lines = b"arena 1\ngame order\nturn " + b"." * 36 + b" - 100\n"
    lines += b"game chaos\nturn " + b"." * 15 + b"X" + b"." * 20 + b" d3X 100\nquit\n"
    out = io.BytesIO()
    run(
        bot.choose,
        name="perfect",
        stdin=io.BytesIO(lines),
        stdout=out,
        rng=random.Random(1),
    )
    replies = out.getvalue().decode().split()
    assert replies[:2] == ["ready", "perfect"]
    first, second = (Move.parse(token) for token in replies[2:])
    assert to_centre(first.cell) is not None
    assert second.cell != parse_cell("d3")


def test_the_bot_loads_its_table_answers_ready_and_quits() -> None:
    """Its table is read before ``ready`` (so no move pays for it); the tournament's
    ``startup_ms`` checks that this is quick, with no fault for it at ``startup`` there."""
    done = subprocess.run(
        [sys.executable, str(BOT)], input=b"arena 1\nquit\n", capture_output=True, timeout=20
    )
    assert done.stdout == b"want match\nready perfect\n", done.stderr
    assert done.returncode == 0


def test_real_games_against_random() -> None:
    perfect = BotSpec.from_path(BOT, name="perfect")
    rival = BotSpec.from_path(ROOT / "bots" / "random", name="random")
    settings = MatchSettings(TimeControl(move_ms=100), sandbox=SandboxMode.NONE)
    records = play_match(perfect, rival, 6, settings, seed=7)
    assert [r.reason.is_fault for r in records] == [False] * 6
    for record in records:
        if record.order == "perfect":
            assert record.winner is Role.ORDER and record.reason is Reason.FIVE


# --- the general centre game (positions off the strategy) -----------------------------------------
def test_shape_of_reads_which_lines_serve_which_mark() -> None:
    # Row 2's pair (a2, f2): a2 holds O, f2 empty: serves O only, half filled with O.
    # Column b's pair (b1, b6): X and X: serves X only. The a1-f6 diagonal: X and O: both.
    board = Board.from_moves(["c3X", "a2O", "b1X", "b6X", "a1X", "f6O"])
    serves_x, serves_o, half, half_o = shape_of(board)
    row2, column_b, diagonal = 0, 4, 8
    assert not serves_x >> row2 & 1 and serves_o >> row2 & 1
    assert half == 1 << row2 and half_o == 1 << row2
    assert serves_x >> column_b & 1 and not serves_o >> column_b & 1
    assert serves_x >> diagonal & 1 and serves_o >> diagonal & 1
    assert shape_of(Board()) == (0x3FF, 0x3FF, 0, 0)


def test_the_general_game_agrees_with_the_solver_on_an_intact_border() -> None:
    rng = random.Random(21)
    plain, general = solver.Solver(solver.MAX_ORDER_MOVES), GeneralCentre()
    full = (0x3FF, 0x3FF, 0, 0)
    for _ in range(60):
        cells = rng.sample(range(16), rng.choice((6, 7, 8, 9)))
        x = sum(1 << c for c in cells[::2])
        o = sum(1 << c for c in cells[1::2])
        if has_four(x) or has_four(o):
            continue
        if len(cells) % 2 == 0:
            assert plain.order_node(x, o) == general.order_node(x, o, full)
        else:
            assert plain.chaos_node(x, o) == general.chaos_node(x, o, full)


def test_the_general_game_stops_on_its_node_budget_and_resumes_from_its_memo() -> None:
    """A work budget (alphabeta's Order spends one) ends an undecided search whatever the clock
    says; the positions it decided stay in the memo, so the same budget later goes further."""
    board = Board.from_moves(["a2O", "c1X"])  # ~11 million nodes to decide from scratch
    general = GeneralCentre()
    with pytest.raises(solver.SearchLimitError):
        general.winning_move(board, nodes=500)
    assert 500 <= general.nodes <= 600 and general.memo
    decided = Board.from_moves(["d2X", "c5X"])  # decided in under 200 nodes
    assert general.winning_move(decided, nodes=10_000) is not None


@pytest.mark.parametrize(
    "opening", ["..................X...X.............", "X........X...O...X.X...X...X......O."]
)
def test_the_general_game_wins_from_a_broken_border(opening: str) -> None:
    """Order playing only fives and the general game's moves wins against the search's Chaos."""
    general = GeneralCentre()
    for seed in range(2):
        rng = random.Random(seed)
        board = Board.from_string(opening)
        while not board.is_game_over():
            if board.turn is Role.ORDER:
                fives = [m for m in board.legal_moves() if makes_five(board, m)]
                move = fives[0] if fives else general.winning_move(board)
                assert move is not None, board
            else:
                move = choose_move(PerfectOrder(table=None), board, Role.CHAOS, rng, 60)
            board.push(move)
        assert board.outcome is not None and board.outcome.winner is Role.ORDER


def test_chaos_games_replay_given_the_seed_and_vary_with_it() -> None:
    """The search ends by its node allowance when the clock leaves it time (a far deadline here,
    as on a machine fast enough), so the game depends on the seed only."""
    player = PerfectOrder(table=None)

    def game(seed: int) -> str:
        rng = random.Random(seed)
        board = Board()
        while not board.is_game_over():
            if board.turn is Role.CHAOS:
                far = time.monotonic() + 1000.0  # only the node allowance stops the search
                move = choose_move(player, board, Role.CHAOS, rng, 200, far)
            else:
                move = random_chaos(board, rng)  # any seeded opponent
            board.push(move)
        return board.board_string()

    assert game(1) == game(1)
    assert len({game(seed) for seed in (1, 2, 3)}) > 1


# --- the 2-ply openings -----------------------------------------------------------------------
def _board_symmetries() -> list[list[int]]:
    """The 8 symmetries of the 6x6 board as cell permutations (written here from the geometry)."""
    perms = []
    for transpose in (False, True):
        for flip_r in (False, True):
            for flip_c in (False, True):
                perm = []
                for cell in range(CELLS):
                    r, c = divmod(cell, SIZE)
                    r, c = (c, r) if transpose else (r, c)
                    perm.append(
                        SIZE * (SIZE - 1 - r if flip_r else r) + (SIZE - 1 - c if flip_c else c)
                    )
                perms.append(perm)
    return perms


def two_ply_openings() -> list[Board]:
    """Every 2-ply opening: 36 x 2 first moves, 35 x 2 replies."""
    return [
        Board.from_moves([Move(first >> 1, Mark(first & 1)), Move(reply >> 1, Mark(reply & 1))])
        for first in range(CELLS * 2)
        for reply in range(CELLS * 2)
        if first >> 1 != reply >> 1
    ]


def two_ply_classes() -> dict[tuple[int, int], tuple[Board, int]]:
    """The 2-ply openings by their position up to the board's 8 symmetries and the X/O swap: one
    board of each class and how many openings lead to it."""
    perms = _board_symmetries()
    classes: dict[tuple[int, int], tuple[Board, int]] = {}
    for board in two_ply_openings():
        images = []
        for perm in perms:
            x, o = (sum(1 << perm[c] for c in range(CELLS) if bits >> c & 1) for bits in board.bits)
            images += [(x, o), (o, x)]
        key = min(images)
        known = classes.get(key)
        classes[key] = (board, 1) if known is None else (known[0], known[1] + 1)
    return classes


Start = tuple[int, int, int, int]
"""A centre position (Order to move) and the line whose pair holds two equal marks with that
mark, ``(-1, -1)`` for none: where ``perfect`` starts playing one of its tables."""


def border_of(board: Board) -> tuple[tuple[int, int], ...]:
    """``(line, mark)`` for each half-filled or equal border pair (``LINE_ENDS`` order), the mark
    negated for a half-filled one: what a position's border holds, up to the filled pairs."""
    shape = []
    for line, (a, b) in enumerate(LINE_ENDS):
        marks = [m for m in (board.mark_at(a), board.mark_at(b)) if m is not None]
        if len(marks) == 1:
            shape.append((line, -1 - marks[0]))
        elif len(marks) == 2 and marks[0] == marks[1]:
            shape.append((line, int(marks[0])))
    return tuple(shape)


def representative(x: int, o: int, border: tuple[tuple[int, int], ...]) -> Board:
    """A board with centre ``(x, o)``, the half-filled and equal pairs of ``border`` (a half
    one's mark at its first end) and every other border pair empty."""
    cells = ["."] * CELLS
    for i, cell in enumerate(CENTRE_CELLS):
        cells[cell] = "X" if x >> i & 1 else "O" if o >> i & 1 else "."
    for line, mark in border:
        a, b = LINE_ENDS[line]
        cells[a] = "XO"[mark if mark >= 0 else -1 - mark]
        if mark >= 0:
            cells[b] = cells[a]
    return Board.from_string("".join(cells))


def table_starts(player: PerfectOrder, openings: list[Board]) -> set[Start]:
    """Where ``perfect``'s tables take over from ``openings`` against every Chaos; fails the test
    where its strategy gives no move before.

    The bot's own steps play Order until a table move (or a five, or a winning four): in between
    it answers the half-filled pairs (the only one, or the one Chaos's last move made). Chaos
    writes either mark in the centre, in an empty border pair or in a half-filled pair's empty
    end. Chaos nodes are searched once, by centre and
    border up to the filled pairs, on a ``representative`` board: one where those pairs are empty
    gives Chaos more moves and the bot the same ones, a five aside (which only ends it sooner).
    """
    rng = random.Random(0)
    starts: set[Start] = set()
    visited: set[tuple[int, int, tuple[tuple[int, int], ...]]] = set()
    stack = [(board, board.history[-1]) for board in openings]  # with Chaos's last move
    while stack:
        board, last = stack.pop()
        move = player.strategy_move(board, rng, last)
        assert move is not None, board
        if player.last_reason == "table":
            equal = [(line, mark) for line, mark in border_of(board) if mark >= 0]
            starts.add((*centre_masks(board.bits), *(equal[0] if equal else (-1, -1))))
        if player.last_reason != "pair":
            continue
        board = board.copy()
        board.push(move)
        key = (*centre_masks(board.bits), border_of(board))
        if key in visited:
            continue
        visited.add(key)
        board = representative(*key)
        for cell in range(CELLS):
            for mark in Mark:
                reply = board.copy()
                if board.mark_at(cell) is None and not reply.push(Move(cell, mark)):
                    stack.append((reply, Move(cell, mark)))  # (one making five loses: no more)
    return starts


@pytest.mark.parametrize(
    ("opening", "equal"),
    [("a1X f6X", True), ("b1X c1O", True), ("c1X c6X", True)]
    + [("b1X b6O", False), ("c3X c1O", False), ("a2O d4X", False)],
)
def test_perfect_reaches_its_tables_from_a_2_ply_opening(
    player: PerfectOrder, opening: str, equal: bool
) -> None:
    """Two equal marks in a pair, two half-filled pairs (Chaos may then make an equal pair): the
    equal pair's table is needed; a pair of X and O, one mark in the border: the centre's."""
    starts = table_starts(player, [Board.from_moves(opening.split())])
    assert starts and all(move_of(player, start)(*start[:2]) for start in starts)
    assert any(line >= 0 for _, _, line, _ in starts) == equal


def move_of(player: PerfectOrder, start: Start) -> Callable[[int, int], tuple[int, int] | None]:
    """The move the bot's table for ``start``'s border gives in a centre position."""
    _, _, line, mark = start
    if line < 0:
        return partial(table_move, player.table)
    assert player.equal is not None
    return partial(lookup, player.equal, line, mark)


@pytest.mark.slow
def test_perfect_wins_from_every_2_ply_opening(player: PerfectOrder) -> None:
    """The 5,040 openings fall in 186 classes; from every opening (all of them, not one per
    class: the Chaos nodes are shared, so it costs little more), the bot's steps reach its tables
    against every Chaos (``table_starts``): the centre table, or the equal pair's once Chaos
    leaves two equal marks in a pair (after both marks in the border, bar a mark and the other
    in partners). Then the tables' strategies win against every Chaos reply (``walk_table``).
    About a minute."""
    classes = two_ply_classes()
    assert len(classes) == 186 and sum(n for _, n in classes.values()) == 5040
    seen: dict[tuple[int, int], dict[tuple[int, int], int]] = {}
    starts = table_starts(player, two_ply_openings())
    for start in starts:
        x, o, line, mark = start
        a, b = LINE_ENDS[line]
        dead = (0, 0) if line < 0 else (line_between(a, b), 1 - mark)
        walk_table(move_of(player, start), x, o, seen.setdefault((line, mark), {}), dead)
    assert len(seen) == 1 + 10 * 2  # the centre's table, and each line's pair holding X or O
    assert len(seen[(-1, -1)]) > 100_000


def line_between(a: int, b: int) -> int:
    """The centre line (16-bit mask) between border cells ``a`` and ``b``, from their rows and
    columns."""
    (ra, ca), (rb, cb) = divmod(a, SIZE), divmod(b, SIZE)
    dr, dc = (rb > ra) - (rb < ra), (cb > ca) - (cb < ca)
    cells = [SIZE * (ra + dr * k) + ca + dc * k for k in range(1, SIZE - 1)]
    return sum(1 << CENTRE_CELLS.index(cell) for cell in cells)
