"""Fault fixture: on its 3rd turn, closes its stdout without answering, but keeps running.

Why: the process is alive, yet no reply can ever come; the harness must see end-of-file on the
bot's stdout and report ``crash`` at once rather than wait for the move time. The bot goes on
reading stdin and exits on ``quit`` or end of input. Moves before the fault: X in the first
empty cell.
"""

import os
import sys


def first_empty(board: bytes) -> bytes:
    """The move token for X in the first empty cell of a board string."""
    cell = board.index(b".")
    return f"{'abcdef'[cell % 6]}{cell // 6 + 1}X".encode()


def main() -> None:
    """Play the protocol; exit on ``quit`` or end of input."""
    moves = 0
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            os.write(1, b"ready closes_stdout\n")
        elif words[0] == b"turn":
            moves += 1
            if moves == 3:  # the fault
                os.close(1)
                sys.stderr.write("closes_stdout: stdout closed, still running\n")
                sys.stderr.flush()
            elif moves < 3:
                os.write(1, first_empty(words[1]) + b"\n")
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
