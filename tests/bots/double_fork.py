"""A correct bot that leaves a daemon behind: at start-up it double-forks into its own session.

Why: the daemon is no longer in the bot's process group, nor its child; the harness must still
find and kill it when the bot is stopped. It sleeps with its pipes closed, so nothing else gives
it away.
"""

import os
import sys
import time


def daemonize() -> None:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for fd in (0, 1, 2):
                os.close(fd)
            time.sleep(120)
        os._exit(0)
    os.wait()


def main() -> None:
    daemonize()
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line or line.startswith(b"quit"):
            return
        if line.startswith(b"arena"):
            os.write(1, b"ready\n")
        elif line.startswith(b"turn"):
            board = line.split()[1]
            cell = board.index(b".")
            os.write(1, b"%c%dX\n" % (b"abcdef"[cell % 6], cell // 6 + 1))


if __name__ == "__main__":
    main()
