"""Fault fixture: answers every turn with ``z9X``, a move to a cell that does not exist.

Why: the line has the shape of a move but names no cell of the 6x6 board; the harness must
report ``illegal`` (``arena.records.Reason``: a move to a non-existent cell) and never index the
board with it.
"""

import sys


def send(reply: bytes) -> None:
    """Write one line and flush it at once."""
    sys.stdout.buffer.write(reply + b"\n")
    sys.stdout.buffer.flush()


def main() -> None:
    """Play the protocol; exit on ``quit`` or end of input."""
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            send(b"ready bad_cell")
        elif words[0] == b"turn":
            send(b"z9X")  # the fault
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
