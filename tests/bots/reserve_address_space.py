"""A bot that reserves 8 GiB of address space at start-up but touches only 10 MiB of it, then plays.

Why: a JVM or a Go runtime reserves large ranges it never uses. Address space is not memory:
where a memory cgroup bounds the bot's resident memory, such a bot plays normally under a
``limits.memory_mb`` far below what it reserves.
"""

import mmap
import os
import sys

REPLY = [f"{'abcdef'[cell % 6]}{cell // 6 + 1}X\n".encode() for cell in range(36)]


def main() -> None:
    reserved = mmap.mmap(-1, 8 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    for offset in range(0, 10 << 20, 4096):  # 10 MiB resident
        reserved[offset] = 1
    readline = sys.stdin.buffer.readline
    while True:
        line = readline()
        if not line or line.startswith(b"quit"):
            return
        if line.startswith(b"turn"):
            os.write(1, REPLY[line.index(b".", 5) - 5])
        elif line.startswith(b"arena"):
            os.write(1, b"ready reserve_address_space\n")


if __name__ == "__main__":
    main()
