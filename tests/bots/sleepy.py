"""A correct bot that sleeps exactly ``ARENA_SLEEP_MS`` milliseconds (default 20) before each move.

Why: the harness measures each move from sending ``turn`` to the arrival of the reply; against
this bot the measured times should be the sleep plus a small, stable overhead, which is how the
timing accuracy is checked. Moves: X in the first empty cell.
"""

import os
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
    pause = int(os.environ.get("ARENA_SLEEP_MS", "20")) / 1000.0
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            send(b"ready sleepy")
        elif words[0] == b"turn":
            time.sleep(pause)
            send(first_empty(words[1]))
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
