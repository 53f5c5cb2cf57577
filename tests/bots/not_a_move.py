"""Fault fixture: answers every turn with ``hello``, which is not a move.

Why: the harness must report ``malformed`` (not ``illegal``: the line is not a move at all) and
record the line it got.
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
            send(b"ready not_a_move")
        elif words[0] == b"turn":
            send(b"hello")  # the fault
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
