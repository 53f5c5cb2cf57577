"""An Order and Chaos bot in plain Python, written from docs/protocol.md alone.

It imports nothing of arena: it speaks "arena 1" on stdin/stdout itself, flushes every line,
plays a legal move seeded by ARENA_SEED, completes a five when it can as Order and avoids
completing one as Chaos, and logs to stderr only.
"""

import os
import random
import sys

LINES = [
    [(r + dr * k) * 6 + c + dc * k for k in range(5)]
    for r in range(6)
    for c in range(6)
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1))
    if 0 <= r + 4 * dr < 6 and 0 <= c + 4 * dc < 6
]


def makes_five(board: str, cell: int, mark: str) -> bool:
    return any(cell in line and all(i == cell or board[i] == mark for i in line) for line in LINES)


def choose(board: str, role: str, rng: random.Random) -> str:
    moves = [(cell, mark) for cell in range(36) if board[cell] == "." for mark in "XO"]
    wins = [m for m in moves if makes_five(board, *m)]
    safe = [m for m in moves if not makes_five(board, *m)]
    pool = wins if role == "order" and wins else safe if role == "chaos" and safe else moves
    cell, mark = rng.choice(pool)
    return f"{'abcdef'[cell % 6]}{cell // 6 + 1}{mark}"


def main() -> None:
    rng = random.Random(int(os.environ.get("ARENA_SEED", "1")))
    role = "order"
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "arena":
            print("ready python doc bot", flush=True)
        elif words[0] == "game":
            role = words[1]
        elif words[0] == "turn":
            board, _last, ms = words[1], words[2], int(words[3])  # ms: read on every turn
            print(f"turn with {ms} ms", file=sys.stderr)
            print(choose(board, role, rng), flush=True)
        elif words[0] == "quit":
            return


if __name__ == "__main__":
    main()
