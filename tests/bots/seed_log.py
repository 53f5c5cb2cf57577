"""Test bot: asks for the ``match`` extension (not with ``--no-match``) and appends to a log file
(its first argument) ``start <pid> <ARENA_SEED>`` when it starts and ``match <pid> <seed>`` at
each ``match`` line; plays X in the first empty cell (after ``--pause-ms N`` milliseconds).

Why: which processes served a bot, and which seeds a kept one was told (``keep_bots: auto``).
"""

import os
import sys
import time

log = sys.argv[1]
asks = "--no-match" not in sys.argv[2:]
pause_s = 0.0
if "--pause-ms" in sys.argv[2:]:
    pause_s = int(sys.argv[sys.argv.index("--pause-ms") + 1]) / 1000


def note(text: str) -> None:
    with open(log, "a") as file:
        file.write(f"{text}\n")


note(f"start {os.getpid()} {os.environ.get('ARENA_SEED', '')}")
for line in iter(sys.stdin.buffer.readline, b""):
    words = line.split() or [b""]
    if words[0] == b"arena":
        os.write(1, b"want match\nready\n" if asks else b"ready\n")
    elif words[0] == b"match":
        note(f"match {os.getpid()} {words[1].decode()}")
    elif words[0] == b"turn":
        cell = words[1].index(b".")
        time.sleep(pause_s)
        os.write(1, f"{'abcdef'[cell % 6]}{cell // 6 + 1}X\n".encode())
    elif words[0] == b"quit":
        break
