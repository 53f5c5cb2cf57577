"""Fault fixture (a hostile probe): at start-up, reads every file under its own folder and says on
stderr what it found (``snoop: <path> <first bytes>``), then plays X in the first empty cell.

Why: a bot's folder may hold things no bot may see (the config, the results store and its
folder); under the sandbox they must not be readable even from inside the bot's own folder.
"""

import os
import sys


def snoop() -> None:
    for top, _folders, files in os.walk("."):
        for name in files:
            path = os.path.join(top, name)
            try:
                with open(path, "rb") as f:
                    head = f.read(16)
            except OSError as exc:
                head = f"<{exc.strerror}>".encode()
            sys.stderr.write(f"snoop: {path} {head!r}\n")
    sys.stderr.flush()


def main() -> None:
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line or line.startswith(b"quit"):
            return
        if line.startswith(b"arena"):
            snoop()
            os.write(1, b"ready snoop\n")
        elif line.startswith(b"turn"):
            board = line.split()[1]
            cell = board.index(b".")
            os.write(1, b"%c%dX\n" % (b"abcdef"[cell % 6], cell // 6 + 1))


if __name__ == "__main__":
    main()
