"""A griefer: a correct bot whose helpers spin only while its opponent is on move.

``griefer.py [HELPERS]``. Why: a bot must not be able to make its opponent late. Each helper is
a process in a session of its own that spins from the moment the bot has written its move until
its next ``turn`` arrives, and idles otherwise (so that the bot itself is never slow). Its moves
fill the board in reading order with a pattern of marks that never makes five, as
``spender.py``'s do. Without helpers it is the control: the same moves, no load.
"""

import mmap
import os
import sys
import time


def helper(flag: mmap.mmap) -> None:
    """Spin while the flag is set; else sleep briefly and look again."""
    os.setsid()
    while True:
        while flag[0]:
            pass
        time.sleep(0.0005)


def main() -> None:
    helpers = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    flag = mmap.mmap(-1, 1)  # shared with the helpers forked below
    for _ in range(helpers):
        if os.fork() == 0:
            helper(flag)
    readline = sys.stdin.buffer.readline
    while True:
        line = readline()
        if not line or line.startswith(b"quit"):
            return
        if line.startswith(b"turn"):
            flag[0] = 0
            cell = line.index(b".", 5) - 5
            mark = "XO"[((cell % 6) // 2 + cell // 6) % 2]
            os.write(1, f"{'abcdef'[cell % 6]}{cell // 6 + 1}{mark}\n".encode())
            flag[0] = 1
        elif line.startswith(b"arena"):
            os.write(1, b"ready griefer\n")
        elif line.startswith(b"end"):
            flag[0] = 0


if __name__ == "__main__":
    main()
