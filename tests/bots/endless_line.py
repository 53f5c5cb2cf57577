"""Fault fixture: on its first turn, writes an endless line (4 KiB chunks, never a newline).

Why: the harness must not buffer without bound; it must report ``malformed`` once the line is
longer than its limit (``Limits.line_bytes``), or ``timeout`` if it only watches the clock, and
then stop the process. The bot exits when the pipe is closed.
"""

import os
import sys
import time


def main() -> None:
    """Say ``ready``, then flood stdout at the first ``turn``."""
    for line in iter(sys.stdin.buffer.readline, b""):
        words = line.split() or [b""]
        if words[0] == b"arena":
            sys.stdout.buffer.write(b"ready endless_line\n")
            sys.stdout.buffer.flush()
        elif words[0] == b"turn":
            chunk = b"a1X" * 1365 + b"a"  # 4096 bytes, no newline
            try:
                while True:  # the fault
                    os.write(1, chunk)
                    time.sleep(0.001)
            except OSError:  # BrokenPipeError: the harness closed the pipe
                return
        elif words[0] == b"quit":
            return


if __name__ == "__main__":
    main()
