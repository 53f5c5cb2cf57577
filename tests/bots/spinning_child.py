"""A correct bot that leaves a spinning daemon behind: at start-up it double-forks into its own
session a child that spins forever, then plays instantly.

Why: ``freeze_idle`` must stop the whole bot while its opponent thinks, not only its process
group: this daemon is neither in the bot's process group nor its child, and would steal the
opponent's CPU (on a loaded machine, its time) if it kept running.
"""

import os
import sys

REPLY = [f"{'abcdef'[cell % 6]}{cell // 6 + 1}X\n".encode() for cell in range(36)]


def daemonize() -> None:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for fd in (0, 1, 2):
                os.close(fd)
            while True:
                pass
        os._exit(0)
    os.wait()


def main() -> None:
    daemonize()
    readline = sys.stdin.buffer.readline
    while True:
        line = readline()
        if not line or line.startswith(b"quit"):
            return
        if line.startswith(b"turn"):
            os.write(1, REPLY[line.index(b".", 5) - 5])
        elif line.startswith(b"arena"):
            os.write(1, b"ready spinning_child\n")


if __name__ == "__main__":
    main()
