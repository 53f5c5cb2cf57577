"""Fault fixture: plays 2 moves of its first game, then exits (status 1) on its 3rd turn.

Why: the harness must notice the exit while waiting for the reply and report ``crash`` at
once, not after the move time. Moves: X in the first empty cell.
"""

import sys


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
            send(b"ready crash_midgame")
        elif words[0] == b"turn":
            moves += 1
            if moves == 3:
                sys.stderr.write("crash_midgame: exiting on my 3rd turn\n")
                sys.exit(1)  # the fault
            send(first_empty(words[1]))
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
