"""A correct bot that ends its lines with ``\\r\\n`` and writes its marks in lower case.

Why: the protocol allows both (a bot written on Windows, a bot that lowercases everything); the
harness must accept them and must not report ``malformed``. Moves: x in the first empty cell.
"""

import sys


def first_empty(board: bytes) -> bytes:
    """The move token for x (lower case) in the first empty cell of a board string."""
    cell = board.index(b".")
    return f"{'abcdef'[cell % 6]}{cell // 6 + 1}x".encode()


def send(reply: bytes) -> None:
    """Write one line ending in CRLF and flush it at once."""
    sys.stdout.buffer.write(reply + b"\r\n")
    sys.stdout.buffer.flush()


def main() -> None:
    """Play the protocol; exit on ``quit`` or end of input."""
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            send(b"ready crlf")
        elif words[0] == b"turn":
            send(first_empty(words[1]))
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
