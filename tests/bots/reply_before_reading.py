"""Fault fixture: after its first move of each game, writes a move for its *next* turn as soon as
that turn arrives, without reading it, and reads it only 300 ms later.

Why: a line written before the bot read its ``turn`` is not an answer to it, even though it
reaches the harness after the turn was sent (the ahead-of-turn race of a bot that writes an extra
line after its move, made deterministic here). The harness must see that the ``turn`` line was
still unread in the bot's input when the line arrived, and record ``malformed`` (a line when no
reply was due) on that turn, instead of playing the stale line as the bot's move.
Moves: X in the first empty cell; the stale line is X in the cell after it.
"""

import os
import select
import sys
import time


def empty_cell(board: bytes, nth: int) -> bytes:
    """The move token for X in the ``nth`` (0-based) empty cell of a board string."""
    cell = [i for i, ch in enumerate(board) if ch == ord(".")][nth]
    return f"{'abcdef'[cell % 6]}{cell // 6 + 1}X".encode()


def main() -> None:
    """Play the protocol; exit on ``quit`` or end of input."""
    moves = 0
    stdin = sys.stdin.buffer
    for line in iter(stdin.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            os.write(1, b"ready reply_before_reading\n")
        elif words[0] == b"game":
            moves = 0
        elif words[0] == b"turn":
            moves += 1
            os.write(1, empty_cell(words[1], 0) + b"\n")
            # After the first move, wait (bounded) until the next turn is in the pipe, unread.
            if moves == 1 and select.select([stdin], [], [], 10)[0]:
                os.write(1, empty_cell(words[1], 1) + b"\n")  # the fault
                time.sleep(0.3)
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
