"""A bot that touches 2 GiB of memory at start-up (in 16 MiB pages it writes to), then plays.

Why: ``limits.memory_mb`` bounds a bot's resident memory where arena has a memory cgroup for it:
the kernel kills this bot on the way, and its game is lost by ``crash`` naming the limit. (Without
a cgroup, ``RLIMIT_AS`` refuses the allocation: a ``MemoryError``, the same loss.)
"""

import os
import sys

REPLY = [f"{'abcdef'[cell % 6]}{cell // 6 + 1}X\n".encode() for cell in range(36)]


def main() -> None:
    held = []
    for _ in range(128):  # 128 x 16 MiB = 2 GiB, each page written so that it is resident
        held.append(bytearray(16 << 20))
        held[-1][::4096] = b"\1" * len(range(0, 16 << 20, 4096))
    readline = sys.stdin.buffer.readline
    while True:
        line = readline()
        if not line or line.startswith(b"quit"):
            return
        if line.startswith(b"turn"):
            os.write(1, REPLY[line.index(b".", 5) - 5])
        elif line.startswith(b"arena"):
            os.write(1, b"ready touch_memory\n")


if __name__ == "__main__":
    main()
