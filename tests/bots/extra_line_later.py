"""Fault fixture: answers its first turn of each game, then 50 ms later writes another move.

Why: the extra line reaches the harness while the *opponent* is on move, so the harness must
charge this bot (``malformed``: a line when no reply was due) and must also deal with the reply
the opponent still owes for that turn: it must not be read in the next game, neither as the
opponent's answer to its next turn nor as an unsolicited line charged to it. Against a slow
opponent (``late.py``, 300 ms per move) the timing is deterministic. Moves: X in the first empty
cell; the extra line is X in the next empty cell.
"""

import sys
import time


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
            send(b"ready extra_line_later")
        elif words[0] == b"game":
            moves = 0
        elif words[0] == b"turn":
            moves += 1
            send(empty_cell(words[1], 0))
            if moves == 1:
                time.sleep(0.05)
                send(empty_cell(words[1], 1))  # the fault: a line nobody asked for
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
