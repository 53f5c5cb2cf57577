"""An opening is checked by the rules (``rules.Board``); the board the referee sends is the board.

Why: the referee's loop sends ``Board.cells`` and ``Board.last_token`` in every ``turn`` and plays
openings with ``opening_board``; if they disagreed with the rules' position, a game would be
refereed by other rules than the bots know.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.referee.match import opening_board
from arena.rules import ALL_MOVES, MOVE_BY_TOKEN, Board, Move


@st.composite
def games(draw: st.DrawFn) -> list[Move]:
    """A legal sequence of moves from the empty board, stopping at the first five (included)."""
    board = Board()
    played: list[Move] = []
    for _ in range(draw(st.integers(0, 36))):
        moves = board.legal_moves()
        if not moves:
            break
        move = draw(st.sampled_from(moves))
        played.append(move)
        board.push(move)
    return played


def test_every_spelling_maps_to_its_canonical_move() -> None:
    for spelling, move in MOVE_BY_TOKEN.items():
        assert move.token.encode().lower() == spelling.lower()
        assert MOVE_BY_TOKEN[move.token.encode()] is move
    assert len({id(m) for m in MOVE_BY_TOKEN.values()}) == len(ALL_MOVES)


@given(games())
def test_the_protocol_board_follows_every_push_and_pop(played: list[Move]) -> None:
    board = Board()
    for move in played:
        board.push(move)
        assert board.cells.decode() == "".join(
            "X" if board.mark_at(c) == 0 else "O" if board.mark_at(c) == 1 else "."
            for c in range(36)
        )
        assert board.last_token == move.token.encode()
        assert board.copy().cells == board.cells
    assert Board.from_string(board.board_string()).cells == board.cells
    while board.history:
        board.pop()
    assert board.cells == Board().cells and board.last_token == b"-"


@given(games())
def test_an_opening_gives_the_rules_position_or_is_refused_at_a_five(played: list[Move]) -> None:
    board = Board()
    tokens = [move.token for move in played]
    for move in played:
        if board.push(move):  # a five: no opening may contain it
            with pytest.raises(ValueError, match="five"):
                opening_board(tokens)
            return
    opened = opening_board(tokens)
    assert opened == board and opened.history == board.history
    assert opened.board_string() == board.board_string()
    assert opened.last_token == (tokens[-1].encode() if tokens else b"-")


@pytest.mark.parametrize("tokens", [["a1X", "a1O"], ["A1X"], ["z9X"], ["a1"], ["é1X"]])
def test_an_opening_that_breaks_the_rules_is_refused(tokens: list[str]) -> None:
    with pytest.raises(ValueError, match="opening"):
        opening_board(tokens)
