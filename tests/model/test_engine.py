"""Property tests of the bots' engine and searches against ``arena.rules.Board`` and naive recounts.

Why: every bundled bot above ``greedy`` trusts ``arena.botlib`` for the rules (fives, legal moves,
threats, dead windows); a slip there would make a bot play illegal or losing moves that no game
between bots would pin down. Each property compares the fast code with the plain rules, on
positions drawn by hypothesis from random games.
"""

from __future__ import annotations

import random
import time

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arena.botlib import engine
from arena.botlib.alphabeta import (
    CENTRE_LINES,
    CENTRE_WEIGHTS,
    PARTNER,
    WEIGHTS,
    Searcher,
    centre_value,
    evaluate,
    pairing_reply,
    threat_eval,
)
from arena.botlib.heuristic import one_ply
from arena.rules import CELLS, WINDOWS, Board, Mark, Move

WIN_HALF = 500_000  # alphabeta.WIN // 2: a threat the evaluation counts as won

# A game prefix: a seed for the moves and a number of plies.
positions = st.tuples(st.integers(0, 2**32), st.integers(0, 35))


def random_position(seed: int, plies: int, stop_at_five: bool = True) -> Board:
    """The position after up to ``plies`` uniformly random moves (stops at a five)."""
    rng = random.Random(seed)
    board = Board()
    for _ in range(plies):
        if board.is_game_over():
            break
        board.push(rng.choice(board.legal_moves()))
    return board


def naive_live(board: Board) -> list[int]:
    x, o = board.bits
    return [w for w in WINDOWS if not (x & w and o & w)]


def naive_completes(board: Board, cell: int, mark: Mark) -> bool:
    """Whether writing ``mark`` in ``cell`` makes five, by the rules."""
    copy = board.copy()
    return copy.push(Move(cell, mark))


@settings(max_examples=300, deadline=None)
@given(positions)
def test_five_detection_matches_the_rules(position: tuple[int, int]) -> None:
    board = random_position(*position)
    x, o = board.bits
    assert engine.has_five(x, o) == board.has_five()
    if board.history and board.has_five():
        last = board.history[-1]  # from_moves order is the play order here
        bits = board.bits[last.mark]
        assert engine.five_through(bits, last.cell) == board.has_five()


@settings(max_examples=300, deadline=None)
@given(positions)
def test_win_check_through_a_cell_matches_push(position: tuple[int, int]) -> None:
    board = random_position(*position)
    if board.is_game_over():
        return
    for cell in board.empty_cells():
        for mark in Mark:
            bits = board.bits[mark] | 1 << cell
            assert engine.five_through(bits, cell) == naive_completes(board, cell, mark)


@settings(max_examples=300, deadline=None)
@given(positions)
def test_live_and_dead_cells_and_legal_moves(position: tuple[int, int]) -> None:
    board = random_position(*position)
    x, o = board.bits
    live = engine.live_windows(x, o)
    naive = naive_live(board)
    assert [w for i, w in enumerate(WINDOWS) if live >> i & 1] == naive
    covered = 0
    for w in naive:
        covered |= w
    assert engine.window_union(live) == covered
    empty = {c for c in range(CELLS) if board.is_empty(c)}
    live_cells = set(engine.cells_of(engine.live_cells(x, o, live)))
    dead_cells = set(engine.cells_of(engine.dead_cells(x, o, live)))
    assert live_cells | dead_cells == empty and not live_cells & dead_cells
    assert all(any(w >> c & 1 for w in naive) for c in live_cells)
    assert not any(w >> c & 1 for c in dead_cells for w in naive)
    if not board.is_game_over():  # every legal move is a live cell, a dead cell, or both
        assert {m.cell for m in board.legal_moves()} == empty


@settings(max_examples=300, deadline=None)
@given(positions)
def test_threats_match_a_naive_recount(position: tuple[int, int]) -> None:
    board = random_position(*position)
    if board.is_game_over():
        return
    tx, to = engine.threats(*board.bits)
    for cell in board.empty_cells():
        assert bool(tx >> cell & 1) == naive_completes(board, cell, Mark.X)
        assert bool(to >> cell & 1) == naive_completes(board, cell, Mark.O)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 20))
def test_a_random_game_ends_in_five_exactly_when_its_filled_board_has_one(
    seed: int, plies: int
) -> None:
    """The argument behind ``random_winner``: play the cells of a random order with random marks
    one by one under the rules; the game ends in five iff the board filled with those marks
    holds five."""
    board = random_position(seed, plies)
    if board.is_game_over():
        return
    rng = random.Random(seed + 1)
    cells = list(board.empty_cells())
    rng.shuffle(cells)
    marks = {c: Mark(rng.randrange(2)) for c in cells}
    x, o = board.bits
    for c in cells:
        if marks[c] is Mark.X:
            x |= 1 << c
        else:
            o |= 1 << c
    game = board.copy()
    for c in cells:
        if game.push(Move(c, marks[c])):
            break
    assert game.has_five() == engine.has_five(x, o)


@settings(max_examples=100, deadline=None)
@given(positions, st.integers(0, 2**32))
def test_playouts_play_legal_games(position: tuple[int, int], seed: int) -> None:
    board = random_position(*position)
    if board.is_game_over():
        return
    x, o = board.bits
    empty = CELLS - board.ply
    rng = random.Random(seed)
    result = engine.random_game(x, o, rng)
    assert 1 <= abs(result) <= empty and (result > 0) == (abs(result) == empty) or result < 0
    if not any(engine.threats(x, o)):
        for game in (engine.heuristic_game, engine.smart_game):
            result = game(x, o, board.ply % 2 == 0, rng)
            assert 1 <= abs(result) <= empty + 1 or (result == 0 and not engine.live_windows(x, o))


def test_whole_board_playouts_give_the_rules_share_of_wins() -> None:
    """From the empty board Order wins about 81% of uniformly random games (Board API, 2,000
    games); the whole-board playouts agree within sampling error."""
    rng = random.Random(7)
    board_wins = 0
    n = 2000
    for _ in range(n):
        board = Board()
        while not board.is_game_over():
            board.push(rng.choice(board.legal_moves()))
        board_wins += board.has_five()
    fill = engine.random_winner_count(0, 0, 100_000, rng) / 100_000
    # standard error of the Board share is ~0.9 points: 5 points is more than 5 sigma
    assert abs(board_wins / n - fill) < 0.05


@settings(max_examples=150, deadline=None)
@given(positions)
def test_children_are_the_positions_after_each_move(position: tuple[int, int]) -> None:
    board = random_position(*position)
    if board.is_game_over():
        return
    x, o = board.bits
    live = engine.live_windows(x, o)
    tx, to = engine.threats(x, o)
    ev = evaluate(x, o, live)
    children = Searcher.children(x, o, live, tx, to, ev)
    seen = set()
    for _key, cell, mark, cx, co, clive, ctx, cto, cev in children:
        assert board.is_empty(cell)
        seen.add(cell)
        after = board.copy()
        assert not after.push(Move(cell, Mark(mark))), "a child never completes a five"
        assert (cx, co) == tuple(after.bits)
        assert clive == engine.live_windows(cx, co)
        assert (ctx, cto) == engine.threats(cx, co)
        assert cev == evaluate(cx, co, clive)
    live_cells = set(engine.cells_of(engine.live_cells(x, o, live)))
    fatal = set(engine.cells_of(tx & to))  # both marks complete a five there
    assert live_cells - fatal <= seen
    assert len(seen - live_cells) <= 1  # at most one tempo move for all the dead cells


def naive_order_wins(board: Board) -> bool:
    """Plain minimax over every legal move, by the rules."""
    if board.is_game_over():
        return board.has_five()
    order = board.ply % 2 == 0
    for move in board.legal_moves():
        board.push(move)
        result = naive_order_wins(board)
        board.pop()
        if result == order:
            return order
    return not order


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(29, 31))
def test_the_exact_solver_agrees_with_plain_minimax(seed: int, plies: int) -> None:
    board = random_position(seed, plies)
    if board.is_game_over():
        return
    x, o = board.bits
    live = engine.live_windows(x, o)
    tx, to = engine.threats(x, o)
    searcher = Searcher(random.Random(seed))
    searcher.deadline = time.monotonic() + 60.0
    assert searcher.solve(x, o, live, tx, to) == naive_order_wins(board.copy())


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32), st.integers(8, 24))
def test_a_win_by_fours_is_a_win(seed: int, plies: int) -> None:
    board = random_position(seed, plies * 2)  # Order to move
    x, o = board.bits
    if board.is_game_over() or any(engine.threats(x, o)):
        return
    live = engine.live_windows(x, o)
    code = Searcher.vcf(x, o, live, 4)
    if code < 0:
        return
    cell, mark = divmod(code, 2)
    assert board.is_empty(cell)
    after = board.copy()
    after.push(Move(cell, Mark(mark)))
    ax, ao = after.bits
    searcher = Searcher()
    searcher.deadline = time.monotonic() + 60.0
    assert searcher.solve(ax, ao, engine.live_windows(ax, ao), *engine.threats(ax, ao))


@settings(max_examples=60, deadline=None)
@given(positions, st.integers(0, 2**32))
def test_searches_return_legal_moves_that_take_a_five_and_block_a_four(
    position: tuple[int, int], seed: int
) -> None:
    board = random_position(*position)
    if board.is_game_over():
        return
    x, o = board.bits
    tx, to = engine.threats(x, o)
    one = one_ply(x, o, random.Random(seed))
    # heuristic's two-ply Chaos past its stop (a loaded machine) falls back to one ply, exactly
    assert one_ply(x, o, random.Random(seed), 3, stop=time.monotonic() - 1) == one
    for cell, mark in (
        one,
        one_ply(x, o, random.Random(seed), 3),
        _best(Searcher(random.Random(seed)), x, o),
    ):
        assert board.is_legal(Move(cell, Mark(mark)))
        after = board.copy()
        made_five = after.push(Move(cell, Mark(mark)))
        t = tx | to
        if board.ply % 2 == 0 and t:
            assert made_five, "Order takes a five when it has one"
        if board.ply % 2 == 1 and t and not (t & (t - 1) or tx & to):
            assert not made_five and t >> cell & 1, "Chaos blocks a lone four"


def _best(searcher: Searcher, x: int, o: int) -> tuple[int, int]:
    searcher.beam = 8
    result = searcher.best_move(x, o, time.monotonic() + 10.0, max_nodes=300)
    return result.cell, result.mark


def test_weights_make_one_fuller_window_outweigh_any_number_of_shorter_ones() -> None:
    assert all(WEIGHTS[k + 1] > 7 * WEIGHTS[k] for k in range(1, len(WEIGHTS) - 1))


def test_the_border_pairs_are_the_ends_of_the_lines_through_the_centre() -> None:
    """Every border cell has a partner (the pairing is an involution on the 20 border cells), and
    each pair is the two ends of a line of six whose middle four are centre cells."""
    border = [c for c in range(CELLS) if PARTNER[c] >= 0]
    assert len(border) == 20 and all(PARTNER[PARTNER[c]] == c != PARTNER[c] for c in border)
    centre = {c for c in range(CELLS) if PARTNER[c] < 0}
    assert centre == {6 * r + k for r in range(1, 5) for k in range(1, 5)}
    for a in border:
        b = PARTNER[a]
        (ra, ka), (rb, kb) = divmod(a, 6), divmod(b, 6)
        dr, dk = (rb - ra) // 5, (kb - ka) // 5
        assert (rb - ra, kb - ka) == (5 * dr, 5 * dk)  # a straight line of six cells
        assert all(6 * (ra + i * dr) + ka + i * dk in centre for i in range(1, 5))


@settings(max_examples=200, deadline=None)
@given(positions)
def test_the_pairing_answer_writes_the_opposite_mark_in_the_partner(
    position: tuple[int, int],
) -> None:
    """After a mark in a border cell whose partner is empty (the rest of the pairs intact), the
    answer is the opposite mark in the partner; an intact pairing gives -1, a broken one -2."""
    board = random_position(*position)
    x, o = board.bits
    occ = x | o
    half = [
        c for c in range(CELLS) if PARTNER[c] >= 0 and occ >> c & 1 and not occ >> PARTNER[c] & 1
    ]
    same = [
        c
        for c in range(CELLS)
        if PARTNER[c] > c
        and occ >> c & 1
        and occ >> PARTNER[c] & 1
        and (x >> c & 1) == (x >> PARTNER[c] & 1)
    ]
    reply = pairing_reply(x, o)
    if same or len(half) > 1:
        assert reply == -2
    elif not half:
        assert reply == -1
    else:
        (c,) = half
        assert reply == PARTNER[c] * 2 + (1 if x >> c & 1 else 0)


def test_alphabeta_with_the_pairing_answers_in_the_border_unless_it_wins_by_fours() -> None:
    """Order with ``pairing`` on answers a border mark in the partner; with a four of its own it
    takes the five instead (the search's immediate decisions come first)."""
    board = Board()
    for token in ("c3X", "a1X"):
        board.push(Move.parse(token))
    searcher = Searcher(random.Random(1))
    searcher.pairing = True
    result = searcher.best_move(*board.bits, time.monotonic() + 10.0, max_nodes=300)
    assert (result.cell, result.mark) == (Move.parse("f6O").cell, 1)
    board = Board()
    for token in ("b3X", "a6O", "c3X", "a2O", "d3X", "f1X", "e3X", "a1O"):
        board.push(Move.parse(token))  # X X X X in row 3 and Chaos just wrote in a1
    result = searcher.best_move(*board.bits, time.monotonic() + 10.0, max_nodes=300)
    assert board.copy().push(Move(result.cell, Mark(result.mark))), "Order takes its five"


def test_the_centre_lines_are_the_middles_of_the_lines_through_paired_ends() -> None:
    """Each centre line is the middle four of a line of six whose ends are partners."""
    assert len(set(CENTRE_LINES)) == 10
    for line in CENTRE_LINES:
        cells = [c for c in range(CELLS) if line >> c & 1]
        assert len(cells) == 4
        step = cells[1] - cells[0]
        assert all(b - a == step for a, b in zip(cells, cells[1:], strict=False))
        assert PARTNER[cells[0] - step] == cells[-1] + step


@settings(max_examples=200, deadline=None)
@given(positions)
def test_the_centre_value_counts_the_centre_lines_of_one_mark(position: tuple[int, int]) -> None:
    board = random_position(*position)
    x, o = board.bits
    expected = 0
    for line in CENTRE_LINES:
        kx, ko = (x & line).bit_count(), (o & line).bit_count()
        if not (kx and ko):
            expected += CENTRE_WEIGHTS[kx + ko]
    assert centre_value(x, o) == expected
    if not board.is_game_over() and not any(engine.threats(x, o)):
        # the centre leaves keep the threats: they differ from the window leaves only below them
        plain, centre = threat_eval(x, o), threat_eval(x, o, centre=True)
        assert (abs(plain) >= WIN_HALF) == (abs(centre) >= WIN_HALF)


@settings(max_examples=200, deadline=None)
@given(positions)
def test_the_line_sum_weights_each_window_without_both_marks(position: tuple[int, int]) -> None:
    x, o = random_position(*position).bits
    weights = (1, 8, 60, 600, 6000, 60000)
    marks_in_live = [
        (x & w).bit_count() + (o & w).bit_count() for w in WINDOWS if not x & w or not o & w
    ]
    expected = sum(weights[k] for k in marks_in_live)
    live = engine.live_windows(x, o).bit_count()
    assert engine.line_sum(x, o, weights) == (expected, live) and len(marks_in_live) == live


@settings(max_examples=300, deadline=None)
@given(positions)
def test_mcts_move_gains_are_the_searchers_children_in_the_same_order(
    position: tuple[int, int],
) -> None:
    """``mcts.move_gains`` is a second, faster generator of ``Searcher.children``'s moves (their
    ordering keys, without the child positions): the same codes, keys and order, or the search's
    moves, seeded as ever, would change."""
    from arena.botlib.mcts import move_gains

    board = random_position(*position)
    assume(not board.is_game_over())  # the search never expands a position with a five
    x, o = board.bits
    live = engine.live_windows(x, o)
    tx, to = engine.threats(x, o)
    kids = Searcher.children(x, o, live, tx, to, 0)
    gains, codes = move_gains(x, o, live, tx, to)
    assert codes == [2 * kid[1] + kid[2] for kid in kids]
    assert gains == [kid[0] for kid in kids]


@settings(max_examples=300, deadline=None)
@given(positions)
def test_mcts_window_chance_is_the_window_curve_and_threat_eval_exactly(
    position: tuple[int, int],
) -> None:
    """``mcts.window_chance`` computes a leaf's window curve and its ``threat_eval`` in one pass:
    the same two numbers, to the last bit, as the functions it stands for."""
    from arena.botlib.mcts import WINDOW_VALUE_WEIGHTS, window_chance, window_win_probability

    board = random_position(*position)
    assume(not board.is_game_over())  # a leaf with a five is proven, never valued
    x, o = board.bits
    expected = (window_win_probability(x, o, WINDOW_VALUE_WEIGHTS), threat_eval(x, o))
    assert window_chance(x, o, WINDOW_VALUE_WEIGHTS) == expected
