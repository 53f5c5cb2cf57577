"""``arena.boardview``: the positions of a game and their text, which replay, play and the report
share. Checked against the rules engine on random games, and on hand-made positions whose drawing
is written out here in full."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import boardview
from arena.rules import Board, Move, Reason, Role

WIN_ON_ROW_1 = ["a1X", "a2O", "b1X", "b2O", "c1X", "c2O", "d1X", "d2O", "e1X"]


def _random_game(seed: int) -> list[str]:
    rng = random.Random(seed)
    board = Board()
    while not board.is_game_over():
        board.push(rng.choice(board.legal_moves()))
    return [m.token for m in board.history]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), split=st.integers(0, 8))
def test_frames_follow_the_rules(seed: int, split: int) -> None:
    game = _random_game(seed)
    opening, moves = game[:split], game[split:]
    frames = boardview.frames(moves, opening)
    assert len(frames) == len(game) + 1
    board = Board()
    for ply, frame in enumerate(frames):
        if ply:
            board.push(Move.parse(game[ply - 1]))
            assert frame.last == game[ply - 1]
            assert frame.mover is (Role.ORDER if ply % 2 else Role.CHAOS)
            assert frame.in_opening is (ply <= len(opening))
        assert frame.ply == ply
        assert frame.board == board.board_string()
        assert frame.outcome == board.outcome
        assert bool(frame.five) == (board.outcome is not None and board.has_five())
        text = boardview.render(frame)
        assert text == boardview.render_rich(frame).plain
        assert len(text.splitlines()) == 7


def test_a_win_is_drawn_with_the_last_move_and_the_five() -> None:
    frames = boardview.frames(WIN_ON_ROW_1)
    last = frames[-1]
    assert last.outcome is not None and last.outcome.reason is Reason.FIVE
    assert last.five == (0, 1, 2, 3, 4)
    assert boardview.render(last) == (
        "    a  b  c  d  e  f\n"
        " 1 (X)(X)(X)(X)[X] .  1\n"
        " 2  O  O  O  O  .  .  2\n"
        " 3  .  .  .  .  .  .  3\n"
        " 4  .  .  .  .  .  .  4\n"
        " 5  .  .  .  .  .  .  5\n"
        " 6  .  .  .  .  .  .  6"
    )
    assert boardview.describe(last, 9) == (
        "ply 9/9: Order played e1X; Order wins: five in a line a1 b1 c1 d1 e1"
    )
    assert boardview.describe(frames[0], 9) == "ply 0/9: the empty board"
    assert boardview.describe(frames[2], 9) == "ply 2/9: Chaos played a2O"


def test_a_line_of_six_shows_six_cells() -> None:
    moves = ["a1X", "a2O", "b1X", "b2O", "c1X", "c2O", "e1X", "d2O", "f1X", "e2X", "d1X"]
    last = boardview.frames(moves)[-1]
    assert last.five == (0, 1, 2, 3, 4, 5)


def test_a_full_board_is_chaos_win() -> None:
    game = next(g for g in map(_random_game, range(500)) if len(g) == 36)
    last = boardview.frames(game)[-1]
    assert last.outcome is not None and last.outcome.winner is Role.CHAOS
    assert boardview.result_line(last) == "Chaos wins: full board"
    assert last.five == ()


def test_opening_moves_are_told_apart() -> None:
    frames = boardview.frames(["c3O"], opening=["a1X", "b2O"])
    assert [f.in_opening for f in frames[1:]] == [True, True, False]
    assert boardview.describe(frames[1], 3) == "ply 1/3: opening played a1X"
    assert frames[3].opening_cells == {0, 7}
    assert frames[3].to_json()["last_cell"] == 14


@pytest.mark.parametrize(
    ("moves", "problem"),
    [
        (["a1X", "zz"], "ply 2 ('zz'): not a move"),
        (["a1X", "a1O"], "ply 2 ('a1O'): a1 is occupied"),
        ([*WIN_ON_ROW_1, "f6X"], "ply 10 ('f6X'): the game is over"),
    ],
)
def test_a_damaged_game_names_its_ply(moves: list[str], problem: str) -> None:
    with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        boardview.frames(moves)
