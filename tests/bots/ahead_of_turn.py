"""Fault fixture: with its first move of each game, writes a second move line at once, unasked.

Why: any line a bot writes when no reply is due is a fault; the harness must report
``malformed`` (more than one line for one turn) and never take the extra line as the answer to
the next turn.
Moves: X in the first empty cell; the extra line is X in the next empty cell.
"""

import sys


def empty_cell(board: bytes, nth: int) -> bytes:
    """The move token for X in the ``nth`` (0-based) empty cell of a board string."""
    cell = [i for i, ch in enumerate(board) if ch == ord(".")][nth]
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
            send(b"ready ahead_of_turn")
        elif words[0] == b"game":
            moves = 0
        elif words[0] == b"turn":
            moves += 1
            send(empty_cell(words[1], 0))
            if moves == 1:
                send(empty_cell(words[1], 1))  # the fault: a line nobody asked for
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
