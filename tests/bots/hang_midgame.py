"""Fault fixture: plays its first 3 moves of each game correctly, then sleeps forever on the 4th.

Why: the harness must report a ``timeout`` for the 4th move even though the process is alive and
silent, and must then be able to stop it. Moves: X in the first empty cell.
"""

import sys
import time


def first_empty(board: bytes) -> bytes:
    """The move token for X in the first empty cell of a board string."""
    cell = board.index(b".")
    return f"{'abcdef'[cell % 6]}{cell // 6 + 1}X".encode()


def send(reply: bytes) -> None:
    """Write one line and flush it at once."""
    sys.stdout.buffer.write(reply + b"\n")
    sys.stdout.buffer.flush()


def main() -> None:
    """Play the protocol; exit on ``quit`` or end of input."""
    moves = 0
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            send(b"ready hang_midgame")
        elif words[0] == b"game":
            moves = 0
        elif words[0] == b"turn":
            moves += 1
            if moves == 4:
                while True:  # the fault
                    time.sleep(3600)
            send(first_empty(words[1]))
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
