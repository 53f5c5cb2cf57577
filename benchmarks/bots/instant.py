"""An instant "arena 1" bot in Python: the same moves as ``instant.c``, for the harness benchmark.

On each ``turn`` it writes a mark in the first empty cell, the mark fixed by the cell: X if
``row + col // 2`` is even, else O. That pattern has no five in a line anywhere on the board, so
every game lasts the full 36 plies. Reads with ``readline`` on the raw stdin buffer, replies with
one ``os.write`` on fd 1 (nothing to flush), looks the reply up in a precomputed table.
"""

import os
import sys

REPLY = [
    f"{'abcdef'[c % 6]}{c // 6 + 1}{'XO'[(c // 6 + c % 6 // 2) % 2]}\n".encode() for c in range(36)
]


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
            write(1, b"ready instant-py\n")


if __name__ == "__main__":
    main()
