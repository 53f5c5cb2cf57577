"""Property tests of ``arena.rules`` against a naive referee written independently here.

Why: the engine is bitboards with precomputed windows, fast but easy to get subtly wrong (a
missed diagonal, an off-by-one in a mask). The naive referee below uses a 2-D list and plain
loops over rows, columns and diagonals, and shares no code or tables with the engine, so the two
agreeing on many random games is real evidence that the engine is right.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.rules import (
    ALL_MOVES,
    CELLS,
    MOVE_BY_TOKEN,
    WINDOWS,
    WINDOWS_THROUGH,
    Board,
    IllegalMoveError,
    Mark,
    Move,
    Role,
    cell_name,
    parse_cell,
)

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- the naive referee ---------------------------------------------------------------------------
class NaiveBoard:
    """A 6x6 grid of ``None``/``"X"``/``"O"`` with a brute-force scan for five in a line."""

    def __init__(self) -> None:
        self.grid: list[list[str | None]] = [[None] * 6 for _ in range(6)]
        self.moves = 0

    def place(self, row: int, column: int, mark: str) -> None:
        assert self.grid[row][column] is None
        self.grid[row][column] = mark
        self.moves += 1

    @staticmethod
    def lines_of_five() -> list[list[tuple[int, int]]]:
        """Every run of 5 in-board cells in a straight line (rows, columns, both diagonals)."""
        lines = []
        for row in range(6):
            for column in range(6):
                for d_row, d_column in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = [(row + d_row * k, column + d_column * k) for k in range(5)]
                    if all(0 <= r < 6 and 0 <= c < 6 for r, c in cells):
                        lines.append(cells)
        return lines

    def has_five(self) -> bool:
        for cells in NAIVE_LINES:
            marks = [self.grid[r][c] for r, c in cells]
            if marks[0] is not None and all(m == marks[0] for m in marks):
                return True
        return False

    def is_full(self) -> bool:
        return all(cell is not None for row in self.grid for cell in row)

    def text(self) -> str:
        return "".join(cell or "." for row in self.grid for cell in row)

    def legal(self) -> list[tuple[int, str]]:
        """(row * 6 + column, mark) for every empty cell and both marks, unless the game is over."""
        if self.has_five() or self.is_full():
            return []
        return [
            (r * 6 + c, mark)
            for r in range(6)
            for c in range(6)
            if self.grid[r][c] is None
            for mark in "XO"
        ]


NAIVE_LINES = NaiveBoard.lines_of_five()


def to_move(cell: int, mark: str) -> Move:
    return Move(cell, Mark.X if mark == "X" else Mark.O)


def state(board: Board) -> tuple[object, ...]:
    """Everything observable about a Board, to compare before and after an operation."""
    return (
        tuple(board.bits),
        tuple(board.history),
        board.outcome,
        board.board_string(),
        board.turn,
        board.is_game_over(),
    )


# A game: an order in which to visit the cells and the mark to write at each step; it is played
# until five in a line or a full board. Random marks end about 3 games in 4 with a five.
games = st.tuples(
    st.permutations(range(CELLS)),
    st.lists(st.sampled_from("XO"), min_size=CELLS, max_size=CELLS),
)


def play(game: tuple[list[int], list[str]]):
    """Yield (engine board, naive board, result of push) after each move of the game."""
    order, marks = game
    board = Board()
    naive = NaiveBoard()
    for cell, mark in zip(order, marks, strict=True):
        made_five = board.push(to_move(cell, mark))
        naive.place(cell // 6, cell % 6, mark)
        yield board, naive, made_five
        if made_five:
            return


# --- random games --------------------------------------------------------------------------------
@SETTINGS
@given(games)
def test_five_detection_matches_a_full_naive_scan(game: tuple[list[int], list[str]]) -> None:
    for board, naive, made_five in play(game):
        five = naive.has_five()
        assert made_five == five, board
        assert board.has_five() == five
        assert board.is_full() == naive.is_full()
        assert board.is_game_over() == (five or naive.is_full())
        expected = None
        if five:
            expected = (Role.ORDER, "five")
        elif naive.is_full():
            expected = (Role.CHAOS, "full")
        outcome = board.outcome
        assert (None if outcome is None else (outcome.winner, outcome.reason)) == expected
        assert board.turn == (Role.ORDER if naive.moves % 2 == 0 else Role.CHAOS)


@SETTINGS
@given(games)
def test_board_string_round_trips(game: tuple[list[int], list[str]]) -> None:
    for board, naive, _ in play(game):
        text = board.board_string()
        assert text == naive.text()
        again = Board.from_string(text)
        assert again == board
        assert again.board_string() == text
        assert again.outcome == board.outcome
        assert again.turn == board.turn
        assert Board.from_string(text.lower()) == board


@SETTINGS
@given(games)
def test_push_then_pop_restores_the_exact_state(game: tuple[list[int], list[str]]) -> None:
    for board, _naive, _ in play(game):
        before = state(board)
        for move in board.legal_moves()[::7]:  # a spread of moves, both marks
            board.push(move)
            assert board.pop() == move
            assert state(board) == before
        if board.is_game_over():
            # Taking back the last move of a finished game reopens it, then replaying restores it.
            last = board.pop()
            assert not board.is_game_over()
            board.push(last)
            assert state(board) == before


@SETTINGS
@given(games)
def test_legal_moves_equal_the_naive_list(game: tuple[list[int], list[str]]) -> None:
    board = Board()
    assert sorted(board.legal_moves()) == sorted(to_move(c, m) for c, m in NaiveBoard().legal())
    for board, naive, _ in play(game):
        expected = sorted(to_move(c, m) for c, m in naive.legal())
        assert sorted(board.legal_moves()) == expected
        assert len(set(board.legal_moves())) == len(expected)
        legal = set(expected)
        for move in ALL_MOVES:
            assert board.is_legal(move) == (move in legal)


@SETTINGS
@given(games, st.lists(st.integers(0, CELLS - 1), min_size=CELLS, max_size=CELLS))
def test_illegal_pushes_raise_and_leave_the_board_unchanged(
    game: tuple[list[int], list[str]], picks: list[int]
) -> None:
    for board, _, _ in play(game):
        before = state(board)
        occupied = [c for c in range(CELLS) if not board.is_empty(c)]
        cell = occupied[picks[board.ply - 1] % len(occupied)]
        for mark in Mark:
            with pytest.raises(IllegalMoveError):
                board.push(Move(cell, mark))
            assert state(board) == before
        for cell in (-1, CELLS, 99):
            with pytest.raises(IllegalMoveError):
                board.push(Move(cell, Mark.X))
            assert state(board) == before
    if board.is_game_over():
        before = state(board)
        for move in ALL_MOVES:
            with pytest.raises(IllegalMoveError):
                board.push(move)
        assert state(board) == before
        assert board.legal_moves() == []


# --- moves, cells, windows -----------------------------------------------------------------------
def test_move_tokens_round_trip_for_all_72_moves_in_both_cases() -> None:
    assert len(ALL_MOVES) == 72
    seen = set()
    for move in ALL_MOVES:
        token = move.token
        assert len(token) == 3 and token[2] in "XO"
        assert str(move) == token
        assert Move.parse(token) == move
        assert Move.parse(token[:2] + token[2].lower()) == move
        seen.add(token)
    assert len(seen) == 72
    assert len(MOVE_BY_TOKEN) == 144
    assert Move.parse("c4X") == Move(3 * 6 + 2, Mark.X)
    assert Move.parse("f6o") == Move(35, Mark.O)


VALID_SPELLINGS = {
    f"{column}{row}{mark}" for column in "abcdef" for row in "123456" for mark in "XOxo"
}


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(
        st.text(),
        st.text(alphabet="abcdefgxyzXOo0123456789 \r\n\t-", max_size=5),
        st.sampled_from(sorted(VALID_SPELLINGS)).map(lambda t: t + " "),
        st.sampled_from(sorted(VALID_SPELLINGS)).map(str.upper),
    )
)
def test_move_parse_rejects_everything_but_a_move(text: str) -> None:
    if text in VALID_SPELLINGS:
        assert Move.parse(text).token == text[:2] + text[2].upper()
    else:
        with pytest.raises(ValueError):
            Move.parse(text)


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "a1",
        "a1XX",
        "a0X",
        "g1X",
        "a7X",
        "z9X",
        "a1Z",
        "hello",
        "-",
        "a1\u0416",
        "\u00e11X",
        " a1X",
        "a1X\n",
        "A1X",
    ],
)
def test_move_parse_rejects_known_junk(junk: str) -> None:
    with pytest.raises(ValueError):
        Move.parse(junk)


def test_cell_naming() -> None:
    assert [parse_cell(name) for name in ("a1", "f1", "a6", "f6")] == [0, 5, 30, 35]
    assert (cell_name(0), cell_name(5), cell_name(30), cell_name(35)) == ("a1", "f1", "a6", "f6")
    assert parse_cell("c4") == 3 * 6 + 2
    for cell in range(CELLS):
        name = cell_name(cell)
        assert name == "abcdef"[cell % 6] + str(cell // 6 + 1)
        assert parse_cell(name) == cell
        assert parse_cell(name.upper()) == cell
    for bad in (-1, 36):
        with pytest.raises(ValueError):
            cell_name(bad)


@given(st.text(alphabet=string.printable + "\u00e9", max_size=4))
def test_parse_cell_rejects_junk(text: str) -> None:
    valid = {f"{c}{r}" for c in "abcdefABCDEF" for r in "123456"}
    if text in valid:
        assert 0 <= parse_cell(text) < CELLS
    else:
        with pytest.raises(ValueError):
            parse_cell(text)


def test_there_are_exactly_32_windows_and_they_are_the_naive_lines() -> None:
    assert len(WINDOWS) == 32
    naive = set()
    for cells in NaiveBoard().lines_of_five():
        naive.add(sum(1 << (r * 6 + c) for r, c in cells))
    assert len(naive) == 32
    assert set(WINDOWS) == naive
    for cell in range(CELLS):
        assert set(WINDOWS_THROUGH[cell]) == {w for w in naive if w >> cell & 1}
        assert 1 <= len(WINDOWS_THROUGH[cell]) <= 7


@pytest.mark.parametrize(
    "cells",
    [
        [0, 1, 2, 3, 4, 5],  # row 1
        [4, 10, 16, 22, 28, 34],  # column e
        [0, 7, 14, 21, 28, 35],  # main diagonal a1-f6
        [5, 10, 15, 20, 25, 30],  # anti-diagonal f1-a6
    ],
)
@pytest.mark.parametrize("gap", [1, 2, 3, 4])
def test_a_line_of_six_counts_as_a_win(cells: list[int], gap: int) -> None:
    """Filling an inner gap of a six-cell line (``O O . O O O``) wins: no five stood before it."""
    board = Board()
    for cell in cells:
        if cell != cells[gap]:
            assert not board.push(Move(cell, Mark.O))
    assert not board.has_five() and board.outcome is None
    assert board.push(Move(cells[gap], Mark.O))
    assert board.outcome is not None and board.outcome.winner is Role.ORDER
    text = "".join("O" if c in cells else "." for c in range(CELLS))
    assert board.board_string() == text
    assert Board.from_string(text).outcome == board.outcome


@pytest.mark.parametrize(
    "text", ["", "." * 35, "." * 37, "." * 35 + "Z", "." * 35 + "0", "x" * 35 + "\u00d7"]
)
def test_from_string_rejects_what_is_not_a_board(text: str) -> None:
    with pytest.raises(ValueError):
        Board.from_string(text)


def test_pop_on_a_board_from_a_string_keeps_a_five_that_still_stands() -> None:
    """``from_string`` invents a history in cell order, so ``pop`` may take back a move that is
    not the one that made the five; the position must still count as won (a regression test:
    ``Board.pop`` once reset the five flag unconditionally)."""
    board = Board.from_string("XXXXX." + "." * 29 + "O")
    board.pop()  # takes back f6, not part of the five in row 1
    assert board.has_five()
    assert board.outcome is not None
    with pytest.raises(IllegalMoveError):
        board.push(Move(5, Mark.O))
