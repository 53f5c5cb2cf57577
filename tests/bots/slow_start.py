"""Fault fixture: sleeps 1 s before answering ``ready``, then plays correctly.

Why: with a generous start-up allowance (say 5 s) it must play normally; with a small one
(say 200 ms) the harness must report a ``startup`` fault. Moves: X in the first empty cell.
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
            time.sleep(1.0)  # the fault
            send(b"ready slow_start")
        elif words[0] == b"turn":
            send(first_empty(words[1]))
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
