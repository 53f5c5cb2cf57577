"""Fault fixture: on its second move of each game, plays a cell that is already occupied.

Why: the harness must report ``illegal`` (the move is well formed but breaks the rules) and
must not apply it. Other moves: X in the first empty cell.
"""

import sys


def cell_token(cell: int) -> bytes:
    """The move token for X in ``cell``."""
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
            send(b"ready illegal")
        elif words[0] == b"game":
            moves = 0
        elif words[0] == b"turn":
            moves += 1
            board = words[1]
            if moves == 2:  # the fault: by now at least two cells are taken
                send(cell_token(next(i for i, ch in enumerate(board) if ch != ord("."))))
            else:
                send(cell_token(board.index(b".")))
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
