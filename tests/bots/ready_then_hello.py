"""Test bot: says ready and, in the same write, another line; then plays."""

import os
import sys

for line in iter(sys.stdin.buffer.readline, b""):
    if line.startswith(b"arena"):
        os.write(1, b"ready\nhello\n")
    elif line.startswith(b"turn"):
        cell = line.split()[1].index(b".")
        os.write(1, f"{'abcdef'[cell % 6]}{cell // 6 + 1}X\n".encode())
    elif line.startswith(b"quit"):
        break
