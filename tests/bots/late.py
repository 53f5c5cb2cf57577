"""Fault fixture: a correct bot that sleeps 0.3 s before each move.

Why: with a move time below 300 ms the harness must report a ``timeout`` on its first turn (and
discard the late reply); with a larger move time it plays normally. Moves: X in the first empty
cell.
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
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            send(b"ready late")
        elif words[0] == b"turn":
            time.sleep(0.3)  # the fault
            send(first_empty(words[1]))
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
