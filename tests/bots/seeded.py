"""Test bot: a random empty cell and mark, from one generator seeded by ``ARENA_SEED`` (and again
at each ``match <seed>``) and kept across games: a game depends on every game its process played
since it was seeded.

Why: a resumed or re-played slot plays the game an unstopped run did only if the games before it
in its chunk are replayed first; a bot that reseeds per game could not tell.
"""

import os
import random
import sys

rng = random.Random(int(os.environ.get("ARENA_SEED", "0")))
for line in iter(sys.stdin.buffer.readline, b""):
    words = line.split() or [b""]
    if words[0] == b"arena":
        os.write(1, b"want match\nready\n")
    elif words[0] == b"match":
        rng = random.Random(int(words[1]))
    elif words[0] == b"turn":
        cell = rng.choice([i for i, c in enumerate(words[1].decode()) if c == "."])
        mark = rng.choice("XO")
        os.write(1, f"{'abcdef'[cell % 6]}{cell // 6 + 1}{mark}\n".encode())
    elif words[0] == b"quit":
        break
