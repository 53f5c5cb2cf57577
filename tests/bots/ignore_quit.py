"""Fault fixture: plays correctly, but ignores ``quit``, end of input and SIGTERM, sleeping on.

Why: the harness must not hang waiting for a bot to leave; after a grace period it must escalate
to SIGKILL (of the whole process group). Moves: X in the first empty cell.
"""

import signal
import sys
import time


def first_empty(board: bytes) -> bytes:
    """The move token for X in the first empty cell of a board string."""
    cell = board.index(b".")
    return f"{'abcdef'[cell % 6]}{cell // 6 + 1}X".encode()


def send(reply: bytes) -> None:
    """Write one line and flush it at once."""
    sys.stdout.buffer.write(reply + b"\n")
    sys.stdout.buffer.flush()


def main() -> None:
    """Play the protocol; on ``quit`` or end of input, sleep forever."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the fault, part 1
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            send(b"ready ignore_quit")
        elif words[0] == b"turn":
            send(first_empty(words[1]))
        elif words[0] == b"quit":
            break
    while True:  # the fault, part 2
        time.sleep(3600)


if __name__ == "__main__":
    main()
