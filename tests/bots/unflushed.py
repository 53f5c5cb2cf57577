"""Fault fixture: a correct bot except that it never flushes its output (block-buffered stdout).

Why: the second commonest mistake of a new bot author. Nothing reaches the harness, so the bot
fails to start; the harness must say that *nothing at all* arrived and suggest flushing, instead
of a bare "no ready within 5000 ms". (``python -u``, which the harness uses for ``.py`` bots,
does not help a program that opens its own buffered stream on fd 1.)
"""

import os
import sys


def main() -> None:
    """Play the protocol, writing through an 8 KiB buffer that is never flushed."""
    out = os.fdopen(1, "w", buffering=8192, closefd=False)
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            out.write("ready unflushed\n")
        elif words[0] == b"turn":
            cell = words[1].index(b".")
            out.write(f"{'abcdef'[cell % 6]}{cell // 6 + 1}X\n")
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
