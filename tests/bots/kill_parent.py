"""Fault fixture: on its first turn, SIGKILLs its parent process, then plays on.

Why: without a sandbox the parent is the harness's worker process, which must be allowed to die
without stalling or killing the tournament: the harness records a harness error (never a game
lost by either bot) and replays the match in a new worker. Given a file path as its argument, it
does this only if that file does not exist yet (creating it first), so that the replay is played
normally. Inside bubblewrap its parent is the sandbox's init, which a signal from inside the
sandbox cannot kill: the bot then simply plays on. Moves: X in the first empty cell.
"""

import contextlib
import os
import signal
import sys


def first_empty(board: bytes) -> bytes:
    """The move token for X in the first empty cell of a board string."""
    cell = board.index(b".")
    return f"{'abcdef'[cell % 6]}{cell // 6 + 1}X".encode()


def strike() -> None:
    """Kill the parent process (once, when a marker file is given)."""
    if len(sys.argv) > 1:
        try:
            os.close(os.open(sys.argv[1], os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except OSError:  # done before, or not writable here (inside the sandbox)
            return
    with contextlib.suppress(OSError):
        os.kill(os.getppid(), signal.SIGKILL)  # the fault


def main() -> None:
    """Play the protocol; exit on ``quit`` or end of input."""
    struck = False
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            os.write(1, b"ready kill_parent\n")
        elif words[0] == b"turn":
            if not struck:
                struck = True
                strike()
            os.write(1, first_empty(words[1]) + b"\n")
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
