"""Fault fixture: at start-up, writes up to 64 MB to ``/dev/shm`` (POSIX shared memory), then plays.

Why: ``/dev/shm`` is a tmpfs too; under bubblewrap it must be bounded with the bot's ``/tmp``
(``limits.tmp_mb``), or a bot fills the host's memory through it. It writes 1 MB files until a
write fails, and says how many MB it wrote on stderr. Moves: X in the first empty cell.
"""

import os
import sys

MB = 1024 * 1024
WANTED_MB = 64


def fill() -> int:
    chunk = b"x" * MB
    for index in range(WANTED_MB):
        try:
            with open(f"/dev/shm/fill-{index}", "wb") as f:
                f.write(chunk)
        except OSError:
            return index
    return WANTED_MB


def main() -> None:
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line or line.startswith(b"quit"):
            return
        if line.startswith(b"arena"):
            os.write(2, b"fill_shm: wrote %d MB\n" % fill())
            os.write(1, b"ready fill_shm\n")
        elif line.startswith(b"turn"):
            board = line.split()[1]
            cell = board.index(b".")
            os.write(1, b"%c%dX\n" % (b"abcdef"[cell % 6], cell // 6 + 1))


if __name__ == "__main__":
    main()
