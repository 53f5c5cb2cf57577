"""Fault fixture: on its 3rd turn, forks a child that keeps the pipes open, and the parent exits.

Why: end-of-file never comes, since the child still holds stdout and stderr open. A harness
that watches only the pipes sees silence until the move time runs out (``timeout``); one that also
watches the process can report ``crash`` at once. Either way it must kill the whole process group
so that the child does not linger. The child writes its pid to stderr and sleeps 60 s (bounded,
so that a harness bug leaks a process for a minute only). Moves before the fault: X in the first
empty cell.
"""

import os
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
    """Play the protocol; exit on ``quit`` or end of input."""
    moves = 0
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            send(b"ready fork_and_exit")
        elif words[0] == b"turn":
            moves += 1
            if moves == 3:  # the fault
                said, say = os.pipe()
                if os.fork() == 0:
                    sys.stderr.write(f"fork_and_exit: child {os.getpid()} keeps the pipes\n")
                    sys.stderr.flush()
                    os.write(say, b"!")
                    time.sleep(60)
                    os._exit(0)
                # Exit only once the child has spoken: under bubblewrap the parent's exit ends
                # the sandbox's PID namespace, and with it a child that had not written yet.
                os.read(said, 1)
                os._exit(1)
            send(first_empty(words[1]))
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
