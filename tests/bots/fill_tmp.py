"""Fault fixture: at start-up, writes up to 300 MB to its private temporary folder, then plays.

Why: a bot must not be able to fill the host's disk or memory through ``/tmp``; the harness bounds
the bot's private ``/tmp`` (``limits.tmp_mb``) and records filling it as the bot's fault. It
writes 1 MB files (each under the file-size rlimit) into ``$TMPDIR`` until a write fails, and says
how many MB it wrote on stderr. Moves: X in the first empty cell.
"""

import os
import sys

MB = 1024 * 1024
WANTED_MB = 300


def fill() -> int:
    folder = os.environ.get("TMPDIR", "/tmp")
    chunk = b"x" * MB
    for index in range(WANTED_MB):
        try:
            with open(os.path.join(folder, f"fill-{index}"), "wb") as f:
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
            os.write(2, b"fill_tmp: wrote %d MB\n" % fill())
            os.write(1, b"ready fill_tmp\n")
        elif line.startswith(b"turn"):
            board = line.split()[1]
            cell = board.index(b".")
            os.write(1, b"%c%dX\n" % (b"abcdef"[cell % 6], cell // 6 + 1))


if __name__ == "__main__":
    main()
