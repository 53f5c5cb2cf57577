"""When the bundled Chaos's lost games were decided, against a reference's Order (issue 25).

Run it from the repository with the Python that has ``arena`` installed::

    python benchmarks/chaos_decided.py --bot mcts --ref ref_ab3w4 --seeds 1 2 3

Why: the survival target ("at least 5 plies longer than that program's own Chaos against a
depth-3 Order") asks the Chaos to lose fewer games to an imperfect Order; this tells how far back
a better move would have had to come. It plays the games of ``chaos_survival.py`` (the same
openings and seeds, in-process on the bundled bot's work budget) and, for every game the Chaos
lost, reads two things with the project's win-by-fours search (``Searcher.vcf``, up to ``FOURS``
successive fours, each answered by its only block):

- its **decisive move**: the last Chaos move at which some move still left Order no win by fours;
- whether, at that move, any move also left Order no **killer**: a reply after which every Chaos
  reply loses to a win by fours. When none did, the game was lost (against exact play) before
  its decisive move, beyond what a reading of three plies and the fours could see: no other
  choice there would have saved it, only a different game earlier.

It prints, per lost game, its length, the decisive ply, and how many moves there escaped a killer;
then how many losses were decided before their decisive move.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator

from ladder_vs_refs import make, opening_for, play

from arena.botlib.alphabeta import Searcher
from arena.botlib.engine import FULL_MASK, has_five, live_windows, threats
from arena.rules import Board, Role

FOURS = 10
"""The longest win by successive fours read for Order."""


def children(x: int, o: int) -> Iterator[tuple[str, int, int]]:
    """Every move from ``(x, o)`` (its text and the position after it), both marks per cell."""
    free = ~(x | o) & FULL_MASK
    while free:
        bit = free & -free
        free ^= bit
        cell = bit.bit_length() - 1
        name = f"{'abcdef'[cell % 6]}{cell // 6 + 1}"
        yield f"{name}X", x | bit, o
        yield f"{name}O", x, o | bit


def order_wins_by_fours(x: int, o: int) -> bool:
    """Order to move: a five on the board or open, or a win by at most ``FOURS`` fours."""
    if has_five(x, o):
        return True
    tx, to = threats(x, o)
    return bool(tx | to) or Searcher.vcf(x, o, live_windows(x, o), FOURS) >= 0


def first_escape(x: int, o: int) -> str | None:
    """Chaos to move: a move that leaves Order no win by fours (a five written is none), or
    None. The first found: most replies escape, so this is cheap where it is asked most."""
    for text, x1, o1 in children(x, o):
        if not has_five(x1, o1) and not order_wins_by_fours(x1, o1):
            return text
    return None


def has_killer(x: int, o: int) -> bool:
    """Order to move: a win by fours, or a reply after which no Chaos move escapes one."""
    if order_wins_by_fours(x, o):
        return True
    return any(has_five(x1, o1) or first_escape(x1, o1) is None for _, x1, o1 in children(x, o))


Positions = list[tuple[int, int, int]]
"""Chaos's positions in one game: ``(x, o, ply)`` before each of its moves."""


def lost_games(
    bot: str, ref: str, seed: int, games: int, ms: int
) -> Iterator[tuple[int, Positions]]:
    """The games ``ref``'s Order won against ``bot``'s Chaos: (length, Chaos's positions)."""
    order, chaos = make(ref, ms), make(bot, ms)
    for i in range(games):
        positions: Positions = []

        def seen(board: Board, positions: Positions = positions) -> None:
            if board.turn is Role.CHAOS:
                positions.append((*board.bits, len(board.history)))

        seeds = (seed * 1000 + 500 + i, seed * 1000 + i)
        result = play(order, chaos, opening_for(seed, i, 2), seeds, seen)
        if result.order_won:
            yield result.plies, positions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bot", default="mcts")
    parser.add_argument("--ref", default="ref_ab3w4")
    parser.add_argument("--seeds", nargs="*", type=int, default=[1])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--ms", type=int, default=100, help="the bundled bot's move time")
    args = parser.parse_args()
    started = time.monotonic()
    lost = earlier = 0
    decisive_plies: list[int] = []
    for seed in args.seeds:
        for length, positions in lost_games(args.bot, args.ref, seed, args.games, args.ms):
            lost += 1
            decisive = next((p for p in reversed(positions) if first_escape(p[0], p[1])), None)
            if decisive is None:
                print(f"  seed {seed}: lost at ply {length}, no escape from its first move")
                earlier += 1
                continue
            x, o, ply = decisive
            safe = [
                text
                for text, x1, o1 in children(x, o)
                if not has_five(x1, o1) and not has_killer(x1, o1)
            ]
            earlier += not safe
            decisive_plies.append(ply + 1)
            print(
                f"  seed {seed}: lost at ply {length}; decisive move: ply {ply + 1}, "
                f"{len(safe)} moves there escaped every killer"
            )
    mean = sum(decisive_plies) / len(decisive_plies) if decisive_plies else float("nan")
    print(
        f"{args.ref}'s Order against {args.bot}'s Chaos, seeds {args.seeds}: {lost} games lost; "
        f"decisive move at ply {mean:.1f} on average; {earlier} of {lost} decided before it "
        f"({time.monotonic() - started:.0f} s)"
    )


if __name__ == "__main__":
    main()
