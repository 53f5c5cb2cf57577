"""Fault fixture (a hostile probe): at start-up, reads every file under its own folder, then each
absolute path listed in ``snoop-targets.txt`` beside it (if any; a folder is listed), and says on
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
    targets = os.path.join(os.path.dirname(os.path.abspath(__file__)), "snoop-targets.txt")
    if os.path.exists(targets):
        with open(targets) as f:
            for path in f.read().split():
                sys.stderr.write(f"snoop: {path} {peek(path)!r}\n")
    sys.stderr.flush()


def peek(path: str) -> bytes:
    """The first bytes of a file, the names in a folder, or the error."""
    try:
        if os.path.isdir(path):
            return ("listed " + ",".join(sorted(os.listdir(path)))).encode()
        with open(path, "rb") as f:
            return f.read(16)
    except OSError as exc:
        return f"<{exc.strerror}>".encode()


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
