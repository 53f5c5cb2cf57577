"""A correct bot that sleeps the milliseconds given as its first argument before each move.

Why: a tournament that must still be running when a test interrupts it needs games that take a
known, small time; bots get a minimal environment, so the pause comes as a command argument
(default 20 ms). Moves: X in the first empty cell. The second argument, if any, is the name it
gives in ``ready`` (default ``paced``): a live page must show any such name as text.
"""

import os
import sys
import time


def main() -> None:
    """Answer each line; exit on ``quit`` or end of input."""
    pause = (int(sys.argv[1]) if len(sys.argv) > 1 else 20) / 1000.0
    name = sys.argv[2] if len(sys.argv) > 2 else "paced"
    readline = sys.stdin.buffer.readline
    while True:
        line = readline()
        if not line or line.startswith(b"quit"):
            return
        if line.startswith(b"turn"):
            time.sleep(pause)
            cell = line.index(b".", 5) - 5
            os.write(1, f"{'abcdef'[cell % 6]}{cell // 6 + 1}X\n".encode())
        elif line.startswith(b"arena"):
            os.write(1, f"ready {name}\n".encode())


if __name__ == "__main__":
    main()
