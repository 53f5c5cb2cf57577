"""Fault fixture: raises on its 2nd turn of a game; its exit handler logs a line after the
traceback.

Why: a Python bot's cause of death is the exception line ending its traceback, but a line
logged afterwards (an ``atexit`` handler, a finally block) is the last on stderr: the fault's
detail must keep ``ValueError: ...``, not the goodbye. Moves: X in the first empty cell.
"""

import atexit
import os
import sys

atexit.register(lambda: sys.stderr.write("bot: shutting down, state saved\n"))


def best_move(board: bytes, turns: int) -> bytes:
    """X in the first empty cell, until the bug strikes."""
    if turns == 2:
        raise ValueError(f"no idea what to play on {board[:6].decode()}")
    cell = board.index(b".")
    return f"{'abcdef'[cell % 6]}{cell // 6 + 1}X\n".encode()


def main() -> None:
    """Play the protocol; the exception ends the process (status 1)."""
    turns = 0
    for line in iter(sys.stdin.buffer.readline, b""):
        if line.startswith(b"arena"):
            os.write(1, b"ready traceback_then_log\n")
        elif line.startswith(b"game"):
            turns = 0
        elif line.startswith(b"turn"):
            turns += 1
            os.write(1, best_move(line.split()[1], turns))
        elif line.startswith(b"quit"):
            return


if __name__ == "__main__":
    main()
