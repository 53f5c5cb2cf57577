"""Order's centre knowledge for the searching bots (``arena.botlib.centre_win``): the opening's
proof made at start-up, the moves read off it, and the ``mcts`` bot's Order that plays them.

Why: ``mcts``'s Order rated below ``alphabeta``'s in the ladder (issue 25) because early in the
game, with more than ``MOST_EMPTY`` centre cells empty, its search alone could leave the won
centre game. The fix proves the centre game once per process (``opening_memo``) and reads each
move off the memo (``Solver.known_moves``): these tests check that the memo holds a whole
winning strategy (played out against random Chaos replies), that reading it searches nothing,
that a game's own solving does not leak into the next game, and the bot's games themselves.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from test_ladder import load, play_in_process

from arena.bot import BotState
from arena.botlib.centre import CENTRE_CELLS, CENTRE_LINES, canonical_small
from arena.botlib.centre_win import CentreWin, opening_memo, repair
from arena.botlib.solver import MAX_ORDER_MOVES, Solver
from arena.rules import Board, Mark, Move, Role, parse_cell
from arena.tournament.schedule import opening_for


def seeded_solver() -> Solver:
    solver = Solver(MAX_ORDER_MOVES, canonical=canonical_small)
    solver.memo = dict(opening_memo())
    return solver


def has_four(x: int, o: int) -> bool:
    return any(x & line == line or o & line == line for line in CENTRE_LINES)


def play_out(solver: Solver, x: int, o: int, rng: random.Random) -> bool:
    """Order keeps to ``known_moves`` (one drawn at random), Chaos plays any random centre move:
    whether a four stands before the centre is full (asserting a known move at every turn)."""
    while True:
        moves = solver.known_moves(x, o)
        assert moves, (hex(x), hex(o))
        c, mark = rng.choice(moves)
        x, o = (x | 1 << c, o) if mark == 0 else (x, o | 1 << c)
        if has_four(x, o):
            return True
        empty = [c for c in range(16) if not (x | o) >> c & 1]
        if not empty:
            return False
        c = rng.choice(empty)
        x, o = (x | 1 << c, o) if rng.getrandbits(1) == 0 else (x, o | 1 << c)
        if has_four(x, o):
            return True


def test_the_opening_memo_holds_a_whole_winning_strategy_read_without_search() -> None:
    solver = seeded_solver()
    rng = random.Random(25)
    starts = [(0, 0)]
    for _ in range(40):  # two centre marks anywhere, as 2-ply openings leave them
        a, b = rng.sample(range(16), 2)
        starts.append(rng.choice([(1 << a | 1 << b, 0), (1 << a, 1 << b), (0, 1 << a | 1 << b)]))
    for x, o in starts:
        for _ in range(10):
            assert play_out(solver, x, o, rng)
    assert solver.nodes == 0, "known_moves searched"
    assert len(solver.memo) == len(opening_memo())


def test_known_moves_is_empty_where_the_memo_does_not_know() -> None:
    solver = Solver(MAX_ORDER_MOVES, canonical=canonical_small)
    assert solver.known_moves(0, 0) == []
    assert solver.nodes == 0
    # an immediate four needs no memo: X on b2, c2, d2 (centre cells 0-2), e2 empty
    assert (3, 0) in solver.known_moves(0b111, 0)


def test_centre_win_answers_on_the_empty_board_and_forgets_each_games_solving() -> None:
    before = dict(opening_memo())
    centre = CentreWin(pairing=True, opening=True)
    move = centre.move(Board(), 100, 1e18, random.Random(1))
    assert move is not None and move.cell in CENTRE_CELLS
    # a border mark still gets the pairing's answer first: a2X -> f2O
    board = Board.from_moves(["c3X", "a2X"])
    assert centre.move(board, 100, 1e18) == Move(parse_cell("f2"), Mark.O)
    assert centre.solver is not None
    centre.solver.memo[-1] = True  # what a game adds to its copy ...
    assert -1 not in opening_memo()  # ... stays out of the process's memo
    assert opening_memo() == before
    assert CentreWin(opening=True).solver is not None
    assert CentreWin().solver is None


def test_repair_answers_a_half_filled_pair_unless_a_pair_holds_equal_marks() -> None:
    # e1O and c1X: two half-filled pairs (columns e and c), the pairing's answers e6X and c6O
    board = Board.from_moves(["e1O", "c1X"])
    answers = {Move(parse_cell("e6"), Mark.X), Move(parse_cell("c6"), Mark.O)}
    assert repair(board) in answers
    assert {repair(board, random.Random(seed)) for seed in range(20)} == answers
    # CentreWin gives it with the centre (nearly) empty, with the opening's proof only
    assert CentreWin(opening=True).move(board, 100, 1e18) in answers
    assert CentreWin().move(board, 100, 1e18) is None
    # a pair of equal marks (e1O, e6O): left to the solvers and the search
    assert repair(Board.from_moves(["e1O", "c1X", "e6O"])) is None
    assert repair(Board()) is None


def test_mcts_order_wins_against_its_own_chaos_from_the_empty_board() -> None:
    """In-process on the 100 ms work budgets (one generator per game, seeds 1-20): before the
    opening's proof the search lost seeds 5, 7 and 15 (14 of seeds 1-100; ``alphabeta``'s
    Order lost one of 160 against this Chaos in ``benchmarks/order_vs_chaos.py``)."""
    mcts = load("mcts")
    lost = [seed for seed in range(1, 21) if not play_in_process(mcts, mcts, seed, 100)]
    assert lost == []


def test_mcts_order_wins_the_2_ply_openings_it_lost_to_its_own_chaos() -> None:
    """``benchmarks/order_vs_chaos.py --games 160`` (seed 1): before, ``mcts``'s Order lost these
    games from the tournaments' 2-ply openings (``opening_for(1, i, 2)``, Order seeded ``1000 +
    i``, Chaos ``1500 + i``), most with both opening marks in the border (``e1O c1X``)."""
    order, chaos = load("mcts"), load("mcts")
    lost = []
    for i in (36, 66, 68, 71, 72, 75, 91, 122, 141, 145):
        order.on_game(Role.ORDER)
        chaos.on_game(Role.CHAOS)
        rngs = {Role.ORDER: random.Random(1000 + i), Role.CHAOS: random.Random(1500 + i)}
        board = Board.from_moves(list(opening_for(1, i, 2)))
        last = board.history[-1]
        while not board.is_game_over():
            role = board.turn
            bot = order if role is Role.ORDER else chaos
            state = BotState(
                board=Board.from_string(board.board_string()),
                role=role,
                last=last,
                ms=100,
                deadline=time.monotonic() + 1000.0,
                rng=rngs[role],
                game=1,
            )
            last = bot.choose(state)
            board.push(last)
        if board.outcome is None or board.outcome.winner is not Role.ORDER:
            lost.append(i)
    assert lost == []


def test_the_memo_kept_beside_mcts_is_the_proof_made_now() -> None:
    """``bots/mcts/opening.bin`` is what ``prove_opening`` makes with this code (write it again
    with ``python -m arena.botlib.centre_win --out bots/mcts/opening.bin`` if the solver
    changes): the bot reads it instead of proving the opening at each start."""
    from arena.botlib.centre_win import prove_opening, read_memo

    kept = read_memo(Path(__file__).resolve().parents[2] / "bots" / "mcts" / "opening.bin")
    assert kept is not None
    assert kept == prove_opening()


def test_a_missing_or_damaged_memo_file_reads_as_none_and_a_written_one_reads_back(
    tmp_path: Path,
) -> None:
    from arena.botlib.centre_win import MEMO_MAGIC, read_memo, write_memo

    memo = {0x10001: True, 0x30000: False, 5: True}
    path = tmp_path / "memo.bin"
    write_memo(memo, path)
    assert read_memo(path) == memo
    data = path.read_bytes()
    assert read_memo(tmp_path / "none.bin") is None
    for damaged in (b"", b"other file\n", data[:-3], MEMO_MAGIC + b"not zlib", data[:-1] + b"x"):
        path.write_bytes(damaged)
        assert read_memo(path) is None, damaged
