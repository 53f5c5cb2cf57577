"""Fault fixture: writes a Go runtime panic's stderr on its 2nd turn, then exits (status 2).

Why: Go is not installed here, yet Go bots are common; a Go panic puts its cause on the
``panic:`` line and ends in the goroutine's stack frames (``main.go:103 +0x40f``), so the line
kept in the fault's detail must be the ``panic:`` one, not the last. The text is a real panic's
shape: the panic line, a blank line, ``goroutine 1 [running]:`` and its frames, each a call
and a tab-indented ``file:line +offset``. Moves: X in the first empty cell.
"""

import os
import sys

PANIC = """panic: runtime error: index out of range [36] with length 36

goroutine 1 [running]:
main.bestMove({0xc000014090, 0x24}, 0x1)
\t/home/student/bot/strategy.go:57 +0x1d9
main.choose(...)
\t/home/student/bot/main.go:88
main.main()
\t/home/student/bot/main.go:103 +0x40f
"""


def main() -> None:
    """Play the protocol; panic on the second turn of a game."""
    turns = 0
    for line in iter(sys.stdin.buffer.readline, b""):
        if line.startswith(b"arena"):
            os.write(1, b"ready go_panic\n")
        elif line.startswith(b"game"):
            turns = 0
        elif line.startswith(b"turn"):
            turns += 1
            if turns == 2:
                sys.stderr.write(PANIC)
                sys.stderr.flush()
                os._exit(2)  # Go's exit status after a panic
            cell = line.index(b".", 5) - 5
            os.write(1, f"{'abcdef'[cell % 6]}{cell // 6 + 1}X\n".encode())
        elif line.startswith(b"quit"):
            return


if __name__ == "__main__":
    main()
