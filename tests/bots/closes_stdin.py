"""Fault fixture: after answering its 2nd turn, closes its stdin, but keeps running (30 s at most).

Why: the process is alive, yet it can never read another turn; the harness must see that its
input has no reader when it writes the next ``turn`` and report ``crash`` at once, with or
without the sandbox, rather than wait for the move time. Moves: X in the first empty cell.
"""

import os
import sys
import time


def main() -> None:
    moves = 0
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            os.write(1, b"ready closes_stdin\n")
        elif words[0] == b"turn":
            moves += 1
            cell = words[1].index(b".")
            os.write(1, b"%c%dX\n" % (b"abcdef"[cell % 6], cell // 6 + 1))
            if moves == 2:  # the fault
                os.close(0)
                time.sleep(30)
                return
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
