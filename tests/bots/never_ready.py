"""Fault fixture: reads every line it is sent and never answers, not even ``arena 1``.

Why: the harness must give up after the start-up allowance (``startup`` fault) and then stop
the process. It exits quietly at end of input, like any well-behaved program.
"""

import sys

if __name__ == "__main__":
    while sys.stdin.buffer.readline():
        pass
