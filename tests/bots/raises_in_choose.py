"""Fault fixture: a bot on the author's kit whose ``choose`` raises on its second turn of a game.

Why: the kit must not hide an author's bug (it once played a random move instead, so that such a
bot was rated like ``random`` with "no faults"): the bot must crash, and the harness must record
a ``crash`` whose detail names the exception. Moves: X in the first empty cell.
"""

from arena.bot import BotState, run
from arena.rules import Mark, Move, Role

turns = 0


def new_game(role: Role) -> None:
    """Count turns per game."""
    global turns
    turns = 0


def choose(state: BotState) -> Move:
    """X in the first empty cell, until the bug strikes."""
    global turns
    turns += 1
    if turns == 2:
        raise ValueError("no idea what to play here")
    return Move(next(state.board.empty_cells()), Mark.X)


if __name__ == "__main__":
    run(choose, name="raises in choose", on_game=new_game)
