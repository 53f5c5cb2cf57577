"""Fault fixture: at start-up, forks up to 300 children (each sleeps 30 s), then plays correctly.

Why: a bot must not be able to exhaust the host's processes; the harness bounds the processes of
each bot (``limits.processes``) and records hitting that bound as the bot's fault. The bot writes
how many forks succeeded and failed to stderr. Moves: X in the first empty cell.
"""

import os
import sys
import time

WANTED = 300


def bomb() -> tuple[int, int]:
    made = failed = 0
    for _ in range(WANTED):
        try:
            pid = os.fork()
        except OSError:
            failed += 1
            continue
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        made += 1
    return made, failed


def main() -> None:
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line or line.startswith(b"quit"):
            return
        if line.startswith(b"arena"):
            made, failed = bomb()
            os.write(2, b"fork_bomb: %d forks made, %d refused\n" % (made, failed))
            os.write(1, b"ready fork_bomb\n")
        elif line.startswith(b"turn"):
            board = line.split()[1]
            cell = board.index(b".")
            os.write(1, b"%c%dX\n" % (b"abcdef"[cell % 6], cell // 6 + 1))


if __name__ == "__main__":
    main()
