"""Fixture (a harness fault, not the bot's): on its second turn, stops its parent process, the
referee, for one second with SIGSTOP, and answers at once.

Why: a reply that arrives while the referee itself is not scheduled (a stopped or starved worker)
must not be charged to the bot as a ``timeout``: the referee cannot tell when it arrived, so it
replays the game. Given a file path as its argument, it does this only if that file does not exist
yet (creating it first), so that the replay is played normally. A child sends SIGCONT after one
second, then exits. Without a sandbox only (inside bubblewrap the parent is the sandbox's init).
Moves: X in the first empty cell.
"""

import os
import signal
import sys
import time


def first_empty(board: bytes) -> bytes:
    """The move token for X in the first empty cell of a board string."""
    cell = board.index(b".")
    return f"{'abcdef'[cell % 6]}{cell // 6 + 1}X".encode()


def stall_parent() -> None:
    """Stop the parent for one second (once, when a marker file is given)."""
    if len(sys.argv) > 1:
        try:
            os.close(os.open(sys.argv[1], os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except OSError:  # done before
            return
    parent = os.getppid()
    if os.fork() == 0:  # the child wakes the parent up, whatever happens to this process
        time.sleep(1.0)
        os.kill(parent, signal.SIGCONT)
        os._exit(0)
    os.kill(parent, signal.SIGSTOP)


def main() -> None:
    """Play the protocol; exit on ``quit`` or end of input."""
    turns = 0
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            os.write(1, b"ready stops_referee\n")
        elif words[0] == b"turn":
            turns += 1
            if turns == 2:
                stall_parent()
            os.write(1, first_empty(words[1]) + b"\n")
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
