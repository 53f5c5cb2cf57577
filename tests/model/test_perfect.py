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
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
from conftest import REPO_ROOT

from arena.bot import run
from arena.botlib import centre, solver
from arena.botlib.centre import (
    CENTRE_CELLS,
    CENTRE_FULL,
    LINE_ENDS,
    PARTNER,
    CentreTable,
    canonical,
    canonical_with,
    centre_masks,
    map_cell,
    to_centre,
)
from arena.botlib.perfect import PerfectOrder, choose_move
from arena.botlib.repair import GeneralCentre, shape_of
from arena.botspec import BotSpec
from arena.limits import SandboxMode, TimeControl
from arena.referee.match import MatchSettings, play_match
from arena.rules import CELLS, SIZE, WINDOWS, Board, Mark, Move, Reason, Role, cells_of, parse_cell

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


def walk_table(table: CentreTable, x: int, o: int, seen: dict[tuple[int, int], int]) -> int:
    """The table's strategy from ``(x, o)`` (Order to move) played out against every Chaos reply,
    in raw (unreduced) positions: the most Order moves it needs to make four (``seen`` memoises).

    Chaos may write either mark in any empty centre cell (those that make four or ignore a threat
    included); Order answers by the table, as the bot looks it up, or makes four when it can.
    Fails the test where the table has no move or the centre fills without four.
    """
    if (x, o) in seen:
        return seen[(x, o)]
    free = [c for c in range(16) if not (x | o) >> c & 1]
    if any(has_four(x | 1 << c) or has_four(o | 1 << c) for c in free):
        result = 1
    else:
        move = table_move(table, x, o)
        assert move is not None, f"no table move for {x:#06x} {o:#06x}"
        cell, mark = move
        assert cell in free
        nx, no = (x | 1 << cell, o) if mark == 0 else (x, o | 1 << cell)
        replies = [c for c in free if c != cell]
        assert replies, "the centre filled without four"
        result = 1
        for c in replies:
            for cx, co in ((nx | 1 << c, no), (nx, no | 1 << c)):
                if not (has_four(cx) or has_four(co)):  # else Chaos made four: Order wins
                    result = max(result, 1 + walk_table(table, cx, co, seen))
    seen[(x, o)] = result
    return result


def test_every_table_move_is_legal_and_keeps_the_win(table: CentreTable) -> None:
    """From the empty centre, Order makes four within 7 of its moves, every time."""
    seen: dict[tuple[int, int], int] = {}
    assert walk_table(table, 0, 0, seen) == BOUND
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


def test_search_limits_stop_the_search() -> None:
    with pytest.raises(solver.SearchLimitError):
        solver.Solver(BOUND, node_limit=100).order_node(0, 0)
    with pytest.raises(solver.SearchLimitError):
        solver.Solver(BOUND, deadline=time.monotonic() - 1).order_node(0, 0)


# --- the strategy on the whole board, in-process ------------------------------------------------
@pytest.fixture(scope="module")
def player(table: CentreTable) -> PerfectOrder:
    return PerfectOrder(table=table)


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


def two_ply_classes() -> dict[tuple[int, int], tuple[Board, int]]:
    """Every 2-ply opening (36 x 2 first moves, 35 x 2 replies) by its position up to the board's
    8 symmetries and the X/O swap: one board of each class and how many openings lead to it."""
    perms = _board_symmetries()
    classes: dict[tuple[int, int], tuple[Board, int]] = {}
    for first in range(CELLS * 2):
        for reply in range(CELLS * 2):
            if first >> 1 == reply >> 1:
                continue
            board = Board()
            board.push(Move(first >> 1, Mark(first & 1)))
            board.push(Move(reply >> 1, Mark(reply & 1)))
            images = []
            for perm in perms:
                x, o = (
                    sum(1 << perm[c] for c in range(CELLS) if bits >> c & 1) for bits in board.bits
                )
                images += [(x, o), (o, x)]
            key = min(images)
            known = classes.get(key)
            classes[key] = (board, 1) if known is None else (known[0], known[1] + 1)
    return classes


def table_starts(player: PerfectOrder, board: Board) -> list[tuple[int, int]] | None:
    """The centre positions (Order to move) from which ``perfect``'s table must win for it to win
    from ``board`` (a 2-ply opening); None when the bot's strategy gives no move there.

    The bot's own steps decide its first move: the table's move (the start is the centre as it
    stands) or the pairing's answer (the starts are the centre after each Chaos reply in the
    centre: a border reply is answered by the pairing again and changes nothing; a reply making
    four loses). None when the border is out of the pairing's shape: the bot then solves and
    searches in its time.
    """
    rng = random.Random(0)
    move = player.strategy_move(board, rng)
    if move is None:
        return None
    x, o = centre_masks(board.bits)
    if player.last_reason != "pair":
        assert player.last_reason == "table", board
        return [(x, o)]
    board = board.copy()
    board.push(move)
    starts = []
    for cell in cells_of(CENTRE_FULL & ~(x | o)):
        for mark, cx, co in ((Mark.X, x | 1 << cell, o), (Mark.O, x, o | 1 << cell)):
            if not (has_four(cx) or has_four(co)):
                reply = board.copy()
                reply.push(Move(CENTRE_CELLS[cell], mark))
                assert player.strategy_move(reply, rng) is not None, reply
                assert player.last_reason == "table", reply
                starts.append((cx, co))
    return starts


def test_perfect_stays_on_its_table_from_129_of_the_186_2_ply_openings(
    player: PerfectOrder, table: CentreTable
) -> None:
    """The 5,040 openings fall in 186 classes; the bot's table covers 129 (3,560 openings). The
    57 others (1,480) are the openings whose two marks are both in the border, bar a mark and the
    opposite mark in partner cells: a line then serves one mark only, or two pairs are half
    filled, and the bot solves in its time."""
    classes = two_ply_classes()
    assert len(classes) == 186 and sum(n for _, n in classes.values()) == 5040
    covered = {key: table_starts(player, board) for key, (board, _) in classes.items()}
    assert sum(starts is not None for starts in covered.values()) == 129
    assert sum(classes[key][1] for key, starts in covered.items() if starts is not None) == 3560
    for key, starts in covered.items():
        board = classes[key][0]
        border = [m for m in board.history if to_centre(m.cell) is None]
        broken = len(border) == 2 and not (
            PARTNER[border[0].cell] == border[1].cell and border[0].mark != border[1].mark
        )
        assert (starts is None) == broken, board
        for x, o in starts or ():
            assert table_move(table, x, o) is not None


@pytest.mark.slow
def test_perfect_wins_from_the_2_ply_openings_its_table_covers(
    player: PerfectOrder, table: CentreTable
) -> None:
    """The table's strategy from each start of ``table_starts``, against every Chaos reply
    (about 30 s: 400,000 raw centre positions)."""
    seen: dict[tuple[int, int], int] = {}
    for board, _ in two_ply_classes().values():
        for x, o in table_starts(player, board) or ():
            walk_table(table, x, o, seen)
    assert len(seen) > 100_000
