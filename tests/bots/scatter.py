"""Fault fixture: at start-up, hides 20 children from the harness, then plays correctly.

Why: every child leaves the bot's process group in its own way (``setsid``, ``setpgid``, or a
double fork into a new session) and re-executes itself with an *empty* environment, so that neither
``killpg`` nor an environment marker finds it. The harness must still kill all of them when the bot
is stopped, and when the harness itself is stopped by any signal. Each child sleeps 60 s (bounded,
so that a harness bug leaks processes for a minute only) with its pipes closed; its command line
ends with ``--hidden`` so that tests can count them. Moves: X in the first empty cell, after 5 ms
of sleep (so that a long match is still running when a test stops its harness).
"""

import os
import sys
import time

CHILDREN = 20


def hide(index: int) -> None:
    """In a fresh child: leave the process group, clear the environment, sleep as ``--hidden``."""
    if index % 3 == 0:
        os.setsid()
    elif index % 3 == 1:
        os.setpgid(0, 0)
    else:  # double fork: the grandchild is nobody's child and leads a session of its own
        if os.fork() != 0:
            os._exit(0)
        os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.execve(sys.executable, [sys.executable, os.path.abspath(__file__), "--hidden"], {})


def scatter() -> None:
    for index in range(CHILDREN):
        if os.fork() == 0:
            try:
                hide(index)
            finally:
                os._exit(1)


def main() -> None:
    if sys.argv[1:] == ["--hidden"]:
        time.sleep(60)
        return
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line or line.startswith(b"quit"):
            return
        if line.startswith(b"arena"):
            scatter()
            os.write(1, b"ready scatter\n")
        elif line.startswith(b"turn"):
            time.sleep(0.005)
            board = line.split()[1]
            cell = board.index(b".")
            os.write(1, b"%c%dX\n" % (b"abcdef"[cell % 6], cell // 6 + 1))


if __name__ == "__main__":
    main()
