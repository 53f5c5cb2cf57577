"""Fault fixture: asks for `match` (the promise to reset there) but ignores it.

Why: a tournament keeps the process of a bot that asks for `match` between matches; one that does
not reset at `match <seed>` carries its random state on, and its games then depend on which
matches it played before. `arena validate` must catch that. It plays random legal X/O moves from
a generator seeded once, from ARENA_SEED.
"""

import os
import random
import sys


def main() -> None:
    """Play the protocol; exit on ``quit`` or end of input."""
    rng = random.Random(int(os.environ.get("ARENA_SEED", "0")))
    out = sys.stdout
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "arena":
            out.write("want match\nready no_reset\n")
        elif words[0] == "turn":
            empty = [i for i, c in enumerate(words[1]) if c == "."]
            cell = rng.choice(empty)
            out.write(f"{'abcdef'[cell % 6]}{cell // 6 + 1}{rng.choice('XO')}\n")
        elif words[0] == "quit":
            return
        out.flush()


if __name__ == "__main__":
    main()
