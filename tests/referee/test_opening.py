"""``arena.referee.position`` agrees with ``arena.rules``: the referee's fast position is the board.

Why: the referee's hot loop and the opening check use the tables of ``arena.referee.position``
instead of ``rules.Board``; if they disagreed, a game would be refereed by other rules than the bots
know.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.referee.position import PLY_MOVES, Position, canonical
from arena.rules import ALL_MOVES, MOVE_BY_TOKEN, Board, Move, Role


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
        ply_move = PLY_MOVES[spelling]
        assert ply_move is canonical(move)
        assert ply_move.text == move.token and ply_move.token == move.token.encode()
        assert ply_move.cell == move.cell and ply_move.mark == move.mark
    assert len({id(m) for m in PLY_MOVES.values()}) == len(ALL_MOVES)


@given(games())
def test_an_opening_gives_the_rules_position_or_is_refused_at_a_five(played: list[Move]) -> None:
    board = Board()
    tokens = [move.token for move in played]
    for move in played:
        if board.push(move):  # a five: no opening may contain it
            with pytest.raises(ValueError, match="five"):
                Position.from_opening(tokens)
            return
    position = Position.from_opening(tokens)
    assert position.board.decode() == board.board_string()
    assert position.bits == board.bits and position.occupied == board.occupied
    assert position.ply == board.ply
    assert (Role.CHAOS if position.ply & 1 else Role.ORDER) is board.turn
    assert position.last == (tokens[-1].encode() if tokens else b"-")


@pytest.mark.parametrize("tokens", [["a1X", "a1O"], ["A1X"], ["z9X"], ["a1"], ["é1X"]])
def test_an_opening_that_breaks_the_rules_is_refused(tokens: list[str]) -> None:
    with pytest.raises(ValueError, match="opening"):
        Position.from_opening(tokens)
