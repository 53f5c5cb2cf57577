"""A correct bot that thinks on its opponent's time: after each move it spins until its next line.

Why: to test ``freeze_idle``: such a bot is always running between its turns unless the harness
stops it. On each turn it first writes ``spins=N`` to stderr, the spins it made meanwhile.
"""

import os
import select
import sys

REPLY = [f"{'abcdef'[cell % 6]}{cell // 6 + 1}".encode() for cell in range(36)]


def main() -> None:
    spins = 0
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line or line.startswith(b"quit"):
            return
        if line.startswith(b"arena"):
            os.write(1, b"ready ponder\n")
        elif line.startswith(b"turn"):
            os.write(2, b"spins=%d\n" % spins)
            spins = 0
            board = line.split()[1]
            cell = board.index(b".")
            mark = b"XO"[(cell // 6 + cell % 6 // 2) % 2 : (cell // 6 + cell % 6 // 2) % 2 + 1]
            os.write(1, REPLY[cell] + mark + b"\n")
            while not select.select([stdin], [], [], 0)[0]:
                spins += 1


if __name__ == "__main__":
    main()
