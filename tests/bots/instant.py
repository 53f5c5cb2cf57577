"""The fastest correct bot: plays X in the first empty cell, with no work beyond that.

Why: a baseline for the harness's own overhead; timing a game against it measures the referee,
not the bot. It reads with ``sys.stdin.buffer.readline`` and writes with ``os.write`` on fd 1
(no buffering layer to flush) and looks the reply up in a precomputed table.
"""

import os
import sys

REPLY = [f"{'abcdef'[cell % 6]}{cell // 6 + 1}X\n".encode() for cell in range(36)]


def main() -> None:
    """Answer each line; exit on ``quit`` or end of input."""
    readline = sys.stdin.buffer.readline
    write = os.write
    while True:
        line = readline()
        if not line or line.startswith(b"quit"):
            return
        if line.startswith(b"turn"):
            write(1, REPLY[line.index(b".", 5) - 5])
        elif line.startswith(b"arena"):
            write(1, b"ready instant\n")


if __name__ == "__main__":
    main()
