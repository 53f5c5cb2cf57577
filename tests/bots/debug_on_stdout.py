"""Fault fixture: on its first turn of each game, writes a debug line on stdout before its move.

Why: the commonest mistake of a new bot author. The harness must say ``malformed`` *and* quote
what the bot wrote (``wrote more than one line for one turn: "debug: thinking...", then "a1X"``),
so that the author sees at once which line was wrong. Both lines go out in one ``write``, so that
they arrive together. Moves: X in the first empty cell.
"""

import os
import sys


def first_empty(board: bytes) -> bytes:
    """The move token for X in the first empty cell of a board string."""
    cell = board.index(b".")
    return f"{'abcdef'[cell % 6]}{cell // 6 + 1}X".encode()


def main() -> None:
    """Play the protocol; exit on ``quit`` or end of input."""
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            os.write(1, b"ready debug_on_stdout\n")
        elif words[0] == b"turn":
            os.write(1, b"debug: thinking...\n" + first_empty(words[1]) + b"\n")
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
