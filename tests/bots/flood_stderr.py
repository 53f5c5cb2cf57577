"""A correct bot that writes about 1 MB to stderr on every turn before answering it.

Why: the harness must drain stderr continuously (keeping only the tail), or this bot blocks on
a full pipe and is wrongly charged a ``timeout``. It must play and win or lose normally.
Moves: X in the first empty cell.
"""

import sys


def first_empty(board: bytes) -> bytes:
    """The move token for X in the first empty cell of a board string."""
    cell = board.index(b".")
    return f"{'abcdef'[cell % 6]}{cell // 6 + 1}X".encode()


def send(reply: bytes) -> None:
    """Write one line and flush it at once."""
    sys.stdout.buffer.write(reply + b"\n")
    sys.stdout.buffer.flush()


def main() -> None:
    """Play the protocol; exit on ``quit`` or end of input."""
    noise = (b"flood_stderr: thinking very loudly " + b"." * 28 + b"\n") * 16384  # 1 MiB
    turns = 0
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            send(b"ready flood_stderr")
        elif words[0] == b"turn":
            turns += 1
            sys.stderr.buffer.write(noise)
            sys.stderr.buffer.write(f"flood_stderr: end of turn {turns}\n".encode())
            sys.stderr.buffer.flush()
            send(first_empty(words[1]))
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
