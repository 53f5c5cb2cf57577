"""Test bot of graded strength: ``graded.py P`` plays a random move with probability P, else the
move a one-ply look at the 32 five-cell lines prefers (Order keeps lines of one mark growing,
Chaos spoils the fullest ones). P = 0 is its strongest, P = 1 plays at random.

Why: benchmarks and placement tests need a family of bots whose true order is known in advance
and that the project's bots did not shape. It imports nothing of arena, and its moves follow its
seed (``ARENA_SEED``, then each ``match <seed>``), as ``seeded.py``'s do.
"""

import os
import random
import sys

SIDE = 6
LENGTH = 5


def _lines() -> list[tuple[int, ...]]:
    steps = ((1, 0), (0, 1), (1, 1), (1, -1))
    found = []
    for row in range(SIDE):
        for col in range(SIDE):
            for dr, dc in steps:
                end_row, end_col = row + dr * (LENGTH - 1), col + dc * (LENGTH - 1)
                if 0 <= end_row < SIDE and 0 <= end_col < SIDE:
                    found.append(tuple((row + dr * k) * SIDE + col + dc * k for k in range(LENGTH)))
    return found


LINES = _lines()


def promise(board: list[str]) -> float:
    """Order's prospects: each line still holding one mark only, weighted by how full it is."""
    total = 0.0
    for line in LINES:
        marks = {board[cell] for cell in line} - {"."}
        if len(marks) <= 1:
            filled = sum(board[cell] != "." for cell in line)
            total += 1000.0 if filled == LENGTH else 4.0**filled
    return total


def best_move(board: list[str], order: bool, rng: random.Random) -> tuple[int, str]:
    moves = [(cell, mark) for cell, c in enumerate(board) if c == "." for mark in "XO"]
    rng.shuffle(moves)  # ties broken by the seed
    scored = []
    for cell, mark in moves:
        board[cell] = mark
        value = promise(board)
        board[cell] = "."
        scored.append((value if order else -value, cell, mark))
    _, cell, mark = max(scored, key=lambda move: move[0])
    return cell, mark


def main() -> None:
    randomness = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    rng = random.Random(int(os.environ.get("ARENA_SEED", "0")))
    order = True
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            os.write(1, b"want match\nready\n")
        elif words[0] == b"match":
            rng = random.Random(int(words[1]))
        elif words[0] == b"game":
            order = words[1] == b"order"
        elif words[0] == b"turn":
            board = list(words[1].decode())
            if rng.random() < randomness:
                cell = rng.choice([i for i, c in enumerate(board) if c == "."])
                mark = rng.choice("XO")
            else:
                cell, mark = best_move(board, order, rng)
            os.write(1, f"{'abcdef'[cell % SIDE]}{cell // SIDE + 1}{mark}\n".encode())
        elif words[0] == b"quit":
            break


main()
