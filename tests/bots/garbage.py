"""Fault fixture: answers the first turn of each game with non-UTF-8 bytes and a newline.

Why: the harness must report ``malformed`` for bytes that are not text, without a decoding
error of its own, and record what it got. Later turns (if any) are answered correctly.
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
    moves = 0
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            send(b"ready garbage")
        elif words[0] == b"game":
            moves = 0
        elif words[0] == b"turn":
            moves += 1
            send(b"\xff\xfe\x80\xc3\x28\x00\x9f" if moves == 1 else first_empty(words[1]))
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
