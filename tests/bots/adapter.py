"""A correct bot that is an adapter: it starts its engine (this file, run with ``--engine``) as a
child process on its first turn, and relays each turn to it; the engine spends about 20 ms of CPU
per move.

Why: ``freeze_idle`` records the CPU time of each move, which must count the bot's whole process
tree (the engine does the work, the adapter next to nothing), at the kernel's resolution.
Moves (the engine's): X in the first empty cell.
"""

import os
import subprocess
import sys
import time


def engine() -> None:
    """Burn about 20 ms of CPU per turn, then answer."""
    for line in iter(sys.stdin.buffer.readline, b""):
        spent = time.process_time() + 0.02
        while time.process_time() < spent:
            pass
        cell = line.split()[1].index(b".")
        os.write(1, f"{'abcdef'[cell % 6]}{cell // 6 + 1}X\n".encode())


def adapter() -> None:
    """Play the protocol, asking the engine (started lazily) for every move."""
    child = None
    for line in iter(sys.stdin.buffer.readline, b""):
        if line.startswith(b"arena"):
            os.write(1, b"ready adapter\n")
        elif line.startswith(b"turn"):
            if child is None:
                child = subprocess.Popen(
                    [sys.executable, __file__, "--engine"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                )
            assert child.stdin is not None and child.stdout is not None
            child.stdin.write(line)
            child.stdin.flush()
            os.write(1, child.stdout.readline())
        elif line.startswith(b"quit"):
            break
    if child is not None:
        child.kill()
        child.wait()


if __name__ == "__main__":
    if sys.argv[1:] == ["--engine"]:
        engine()
    else:
        adapter()
