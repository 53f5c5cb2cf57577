"""How `arena report` copes with a big tournament: a synthetic 300-bot store, the report timed.

    python benchmarks/report_scale.py [--bots 300] [--pairs 1] [--keep DIR]

Builds a real SQLite store through ``arena.store.database.Store`` (300 bots: every ordered pairing
once, 89,700 games), then runs the ``arena report`` command on it as a user would and prints the
wall and CPU time, the peak memory and the size of the page. A benchmark, not a test: nothing here
asserts a time (``tests/test_report.py`` builds a smaller store with ``build_store`` and checks that
the page stays a few MB).

The games are synthetic but legal and consistent, so that every chart and the viewer have real
work: each bot has a hidden strength, Order's winner is drawn from it, an Order win ends on the
move that completes a five (and no five before), a Chaos win is a full board without a five,
and one game in fifty (``fault_share``) is a fault (timeout or crash, with a detail) after a few
moves.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import tempfile
import time
from pathlib import Path

from arena.records import GameRecord
from arena.rules import WINDOWS, Reason, Role
from arena.store.database import BotVersion, Store

FULL = (1 << 36) - 1


def _has_five(x_bits: int, o_bits: int) -> bool:
    return any(x_bits & w == w or o_bits & w == w for w in WINDOWS)


def _token(cell: int, mark: int) -> str:
    return f"{'abcdef'[cell % 6]}{cell // 6 + 1}{'XO'[mark]}"


def _order_win(rng: random.Random) -> list[tuple[int, int]]:
    """Moves of a game Order wins by a five on its last move (no five earlier)."""
    while True:
        plies = rng.randrange(9, 36, 2)  # odd: Order (moving first) makes the last move
        window = rng.choice(WINDOWS)
        mark = rng.randrange(2)
        line = [c for c in range(36) if window >> c & 1]
        rng.shuffle(line)
        others = [c for c in range(36) if not window >> c & 1]
        rng.shuffle(others)
        order_plies = list(range(0, plies - 1, 2))
        at = set(rng.sample(order_plies, 4)) | {plies - 1}
        moves, bits = [], [0, 0]
        for ply in range(plies):
            if ply in at:
                cell, m = line.pop(), mark
            else:
                cell, m = others.pop(), rng.randrange(2)
            moves.append((cell, m))
            bits[m] |= 1 << cell
            if ply < plies - 1 and _has_five(*bits):
                break
        else:
            return moves


def _full_board(rng: random.Random) -> list[tuple[int, int]]:
    """Moves of a game Chaos wins: 36 marks, never a five."""
    while True:
        x_bits = rng.getrandbits(36)
        if not _has_five(x_bits, FULL ^ x_bits):
            cells = list(range(36))
            rng.shuffle(cells)
            return [(c, 0 if x_bits >> c & 1 else 1) for c in cells]


def _fault(rng: random.Random) -> list[tuple[int, int]]:
    """A few moves without a five, before a bot's fault."""
    while True:
        moves = [(c, rng.randrange(2)) for c in rng.sample(range(36), rng.randrange(0, 12))]
        bits = [0, 0]
        for c, m in moves:
            bits[m] |= 1 << c
        if not _has_five(*bits):
            return moves


def build_store(
    path: Path,
    bots: int,
    *,
    pairs: int = 1,
    seed: int = 1,
    names: list[str] | None = None,
    detail: str = "no reply within 100 ms",
    fault_share: float = 0.02,
) -> int:
    """Write a store at ``path``: ``bots`` bots (or ``names``), each ordered pairing played
    ``pairs`` times; a ``fault_share`` of the games are faults, with ``detail``. Returns the
    number of games."""
    rng = random.Random(seed)
    names = names or [f"bot{i:03d}" for i in range(bots)]
    strength = {name: rng.gauss(0, 1.5) for name in names}
    count = 0
    with Store.open(path) as store:
        store.set_meta("name", f"synthetic {len(names)} bots")
        store.register_bots([BotVersion(n, "v1", ("python3", f"bots/{n}.py")) for n in names])
        batch = []
        for slot in range(pairs):
            for order in names:
                for chaos in names:
                    if order == chaos:
                        continue
                    p = 1 / (1 + math.exp(strength[chaos] - strength[order] - 0.5))
                    at_fault = rng.random() < fault_share
                    order_won = rng.random() < p
                    if at_fault:
                        moves = _fault(rng)
                        reason = rng.choice([Reason.TIMEOUT, Reason.CRASH])
                    elif order_won:
                        moves, reason = _order_win(rng), Reason.FIVE
                    else:
                        moves, reason = _full_board(rng), Reason.FULL
                    batch.append(
                        (
                            GameRecord(
                                order=order,
                                chaos=chaos,
                                winner=Role.ORDER if order_won else Role.CHAOS,
                                reason=reason,
                                moves=[_token(c, m) for c, m in moves],
                                ms=[1.0] * len(moves),
                                detail=detail if at_fault else "",
                                seed=slot,
                                order_version="v1",
                                chaos_version="v1",
                            ),
                            slot,
                        )
                    )
                    if len(batch) >= 5000:
                        count += sum(store.add_games(batch))
                        batch = []
        count += sum(store.add_games(batch))
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", type=int, default=300)
    parser.add_argument("--pairs", type=int, default=1, help="games per ordered pairing")
    parser.add_argument("--keep", type=Path, help="write the store and the page here (kept)")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from support import arena_command, run, say, section

    with tempfile.TemporaryDirectory(prefix="report-scale-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        db, out = folder / "scale.sqlite", folder / "scale.html"
        for stale in (db, out):
            stale.unlink(missing_ok=True)
        started = time.perf_counter()
        games = build_store(db, args.bots, pairs=args.pairs)
        built = time.perf_counter() - started
        say(f"store: {args.bots} bots, {games} games, built in {built:.1f} s")
        section("arena report")
        result = run([arena_command(), "report", str(db), "--out", str(out)])
        say(f"  {result.out.strip()}")
        say(
            f"  wall {result.wall:.1f} s, CPU {result.user + result.system:.1f} s,"
            f" peak RSS {result.peak_kb / 1024:.0f} MB, page {out.stat().st_size / 1e6:.2f} MB"
        )


if __name__ == "__main__":
    main()
