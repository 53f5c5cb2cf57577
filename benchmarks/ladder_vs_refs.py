"""The bundled ladder against references written apart from it (``benchmarks/bots/ref_*.py``).

Run it from the repository with the Python that has ``arena`` installed::

    python benchmarks/ladder_vs_refs.py --markdown --games 20 --ms 100 --jobs 2   # the README's
    python benchmarks/ladder_vs_refs.py --bots alphabeta --refs ref_ab3w4 --games 10

Why: the ladder's order holds inside the ladder, but an Order tuned against one program can lose
to another. The references (``benchmarks/bots/``: fixed-depth alpha-beta at depths 3 and 4 with
two window weightings, flat Monte Carlo with 1,000 and 10,000 playouts, hand-written pattern
players) use only the standard library and the rules; their work is fixed (depth, playouts), so
their strength does not depend on the clock. Some were used while tuning the bundled bots
(``TUNED``), the others are held out (``HELD_OUT``): the table marks which.

How: every game is played in this process, with ``choose`` of both sides called directly and the
bundled bot's deadline far away, so that only its work budget for ``--ms`` counts: each game is an
exact function of the seed and the result does not depend on the load of the machine. The exception
is ``perfect``'s Order (``CLOCKED``): off its table it solves within a third of the move's time,
so it gets the real deadline and its figures as Order move a little with the load (its Chaos is
``mcts``'s budgeted search, exact like the others). For each bundled bot, each
reference and each role, ``--games`` games (default 20), game ``i`` starting from the random 2-ply
opening ``arena.tournament.schedule.opening_for(seed, i, 2)`` (the tournaments' openings), the
bundled bot seeded ``seed * 1000 + i`` and the reference ``seed * 1000 + 500 + i``. It prints, per
pairing, the bundled bot's wins and, as Chaos, the mean plies of the games it lost (survival); then
each reference's own Chaos against the depth-3 references' Orders, for comparison (how long "that
program's own Chaos" survives); last, the ladder table's columns against the references, one row a
bundled bot: its wins as Order against the references' Chaos together, as Chaos against their
Orders together, and its Chaos's plies survived against each depth-3 Order (the mean length of all
its games there: a Chaos that wins fills the board, 36) next to that Order's own Chaos.
``--markdown`` prints the tables as the README's Markdown. ``--jobs N`` spreads the pairings over N
processes (the results do not change).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
REFS_DIR = HERE / "bots"
sys.path.insert(0, str(REFS_DIR))
sys.path.insert(0, str(ROOT))

from arena.bot import BotState  # noqa: E402
from arena.rules import Board, Move, Role  # noqa: E402
from arena.tournament.schedule import opening_for  # noqa: E402

TUNED = ("ref_ab3w4", "ref_mc1k", "ref_patchaos")
"""References the bundled bots were tuned against (with ``depth3.py``)."""
HELD_OUT = ("ref_ab3w2", "ref_ab4w4", "ref_ab4w2", "ref_mc10k", "ref_patorder")
"""References kept out of the tuning: they measure whether the tuning carries over."""
BUNDLED = ("random", "greedy", "heuristic", "alphabeta", "mcts", "perfect")
DEPTH3 = ("ref_ab3w4", "ref_ab3w2")
"""The depth-3 Orders whose own Chaos a bundled Chaos's survival is compared with."""


def load_file(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CLOCKED = ("perfect",)
"""Bundled bots whose Order stops on the clock, not on a work budget: ``perfect``'s solves an
off-table position within a third of ``<ms>``. As Order they get the real deadline (so those
games depend on the load of the machine); as Chaos (``perfect``'s is ``mcts``'s budgeted search)
and for the others, one far away."""


class Bundled:
    """A bundled bot (``bots/<name>/main.py``) driven in-process on its work budget."""

    def __init__(self, name: str, ms: int) -> None:
        self.name = name
        self.module = load_file(ROOT / "bots" / name / "main.py", f"bundled_{name}")
        self.ms = ms
        self.clocked = name in CLOCKED
        """Whether its Order gets the real deadline (else one far away: its work budget
        alone)."""

    def start(self, role: Role, seed: int) -> None:
        self.rng = random.Random(seed)
        on_game = getattr(self.module, "on_game", None)
        if on_game is not None:
            on_game(role)

    def move(self, board: Board, last: Move | None, role: Role) -> Move:
        order = role is Role.ORDER
        state = BotState(
            board=Board.from_string(board.board_string()),
            role=role,
            last=last,
            ms=self.ms,
            deadline=time.monotonic() + (self.ms / 1000 if self.clocked and order else 1000.0),
            rng=self.rng,
            game=1,
        )
        answer: Any = self.module.choose(state)
        return Move.parse(answer) if isinstance(answer, str) else answer


class Reference:
    """A reference bot (``benchmarks/bots/<name>.py``): ``choose(x, o, last, rng)``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.module = load_file(REFS_DIR / f"{name}.py", name)

    def start(self, role: Role, seed: int) -> None:
        del role
        self.rng = random.Random(seed)

    def move(self, board: Board, last: Move | None, role: Role) -> Move:
        del role
        x, o = board.bits
        token: str = self.module.choose(x, o, -1 if last is None else last.cell, self.rng)
        return Move.parse(token)


@dataclass(frozen=True)
class Result:
    order_won: bool
    plies: int


def play(
    order: Any,
    chaos: Any,
    opening: Sequence[str],
    seeds: tuple[int, int],
    before_move: Callable[[Board], None] | None = None,
) -> Result:
    """One game from ``opening``; ``seeds``: Order's and Chaos's generators. ``before_move`` is
    shown the board before each of the bots' moves (to record positions)."""
    order.start(Role.ORDER, seeds[0])
    chaos.start(Role.CHAOS, seeds[1])
    board = Board()
    last: Move | None = None
    for token in opening:
        last = Move.parse(token)
        board.push(last)
    while not board.is_game_over():
        if before_move is not None:
            before_move(board)
        role = board.turn
        player = order if role is Role.ORDER else chaos
        last = player.move(board, last, role)
        if not board.is_legal(last):
            raise SystemExit(f"{player.name}: illegal move {last.token} in {board.board_string()}")
        board.push(last)
    outcome = board.outcome
    assert outcome is not None
    return Result(outcome.winner is Role.ORDER, len(board.history))


def make(name: str, ms: int) -> Any:
    """The player named ``name``: a reference (``ref_*``, in ``benchmarks/bots``) or a bundled
    bot (``bots/<name>``); an unknown name ends the script in one line that lists the known."""
    reference = name.startswith("ref_")
    if not (REFS_DIR / f"{name}.py" if reference else ROOT / "bots" / name / "main.py").is_file():
        known = [*BUNDLED, *sorted(p.stem for p in REFS_DIR.glob("ref_*.py"))]
        raise SystemExit(f"unknown bot {name!r}: expected one of {', '.join(known)}")
    return Reference(name) if reference else Bundled(name, ms)


def pairing(task: tuple[str, str, int, int, int]) -> tuple[str, str, list[Result]]:
    """``games`` games of ``order`` against ``chaos`` (either may be a reference)."""
    order_name, chaos_name, games, seed, ms = task
    order, chaos = make(order_name, ms), make(chaos_name, ms)
    results = []
    for i in range(games):
        bot_seed, ref_seed = seed * 1000 + i, seed * 1000 + 500 + i
        seeds = (ref_seed, bot_seed) if order_name.startswith("ref_") else (bot_seed, ref_seed)
        results.append(play(order, chaos, opening_for(seed, i, 2), seeds))
    return order_name, chaos_name, results


def survival(results: list[Result]) -> str:
    lost = [r.plies for r in results if r.order_won]
    return f"{sum(lost) / len(lost):.1f}" if lost else "-"


def plies_survived(results: list[Result]) -> float:
    """The mean length of the games, the Chaos's wins included (they fill the board)."""
    return sum(r.plies for r in results) / len(results)


def share(wins: int, games: int) -> str:
    return f"{wins}/{games} ({100 * wins / games:.0f}%)"


def ladder_columns(
    found: dict[tuple[str, str], list[Result]], bots: list[str], refs: list[str], markdown: bool
) -> None:
    """The ladder table's columns against the references, one row a bundled bot."""
    depth3 = [r for r in DEPTH3 if r in refs]
    heads = ["bot", "as Order vs the refs' Chaos", "as Chaos vs the refs' Orders"]
    heads += [f"Chaos plies vs {r}'s Order (its own Chaos)" for r in depth3]
    rows = []
    for bot in bots:
        as_order = [found[bot, r] for r in refs]
        as_chaos = [found[r, bot] for r in refs]
        row = [f"`{bot}`" if markdown else bot]
        row.append(share(sum(x.order_won for g in as_order for x in g), sum(map(len, as_order))))
        row.append(
            share(sum(not x.order_won for g in as_chaos for x in g), sum(map(len, as_chaos)))
        )
        for r in depth3:
            own = f" ({plies_survived(found[r, r]):.1f})" if (r, r) in found else ""
            row.append(f"{plies_survived(found[r, bot]):.1f}{own}")
        rows.append(row)
    if markdown:
        print("| " + " | ".join(heads) + " |")
        print("|" + "---|" * len(heads))
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(line[i]) for line in [heads, *rows]) for i in range(len(heads))]
    for line in [heads, *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", nargs="*", default=list(BUNDLED))
    parser.add_argument("--refs", nargs="*", default=[*TUNED, *HELD_OUT])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument(
        "--deep-games", type=int, default=None, help="games against depth 4 (default: --games)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ms", type=int, default=200, help="the bundled bots' move time")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--no-refs-vs-refs", action="store_true")
    parser.add_argument("--markdown", action="store_true", help="the tables as Markdown")
    args = parser.parse_args()
    deep = args.games if args.deep_games is None else args.deep_games

    def games(*names: str) -> int:
        return deep if any(n.startswith("ref_ab4") for n in names) else args.games

    tasks = []
    for bot in args.bots:
        for ref in args.refs:
            tasks.append((bot, ref, games(ref), args.seed, args.ms))
            tasks.append((ref, bot, games(ref), args.seed, args.ms))
    if not args.no_refs_vs_refs:
        orders = [r for r in args.refs if r.startswith("ref_ab3")]
        chaoses = [r for r in args.refs if r != "ref_patorder"]
        tasks += [(a, b, games(a, b), args.seed, args.ms) for a in orders for b in chaoses]
    print(
        f"{len(tasks)} pairings x {args.games} games ({deep} against depth 4) "
        f"from 2-ply openings (seed {args.seed}), "
        f"bundled bots at {args.ms} ms (work budget), in-process",
        flush=True,
    )
    started = time.monotonic()
    found: dict[tuple[str, str], list[Result]] = {}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for order_name, chaos_name, results in pool.map(pairing, tasks):
            found[order_name, chaos_name] = results
            wins = sum(r.order_won for r in results)
            print(
                f"  {order_name:>12} (Order) vs {chaos_name:<12} Order {wins:>2}/{len(results)}"
                f"  Chaos survival {survival(results)}",
                flush=True,
            )
    print(f"({time.monotonic() - started:.0f} s)\n")
    print("Each cell: the bundled bot's wins as Order, then as Chaos, of the games per role:")
    mark = {r: ("tuned" if r in TUNED else "held out") for r in args.refs}
    print("| bot | " + " | ".join(f"`{r}` ({mark[r]})" for r in args.refs) + " |")
    print("|" + "---|" * (len(args.refs) + 1))
    for bot in args.bots:
        as_order = [sum(x.order_won for x in found[bot, r]) for r in args.refs]
        as_chaos = [sum(not x.order_won for x in found[r, bot]) for r in args.refs]
        played = [len(found[bot, r]) for r in args.refs]
        cells = [f"{a} · {c} /{n}" for a, c, n in zip(as_order, as_chaos, played, strict=True)]
        print(f"| `{bot}` | " + " | ".join(cells) + " |")
    if not args.no_refs_vs_refs:
        print("\nReferences' own Chaos against the depth-3 Orders (Chaos wins, survival):")
        for a in [r for r in args.refs if r.startswith("ref_ab3")]:
            row = [
                f"{b}: {sum(not x.order_won for x in found[a, b])} ({survival(found[a, b])})"
                for b in args.refs
                if b != "ref_patorder"
            ]
            print(f"  {a} Order vs  " + ", ".join(row))
    print("\nChaos survival against ref_ab3w4's and ref_ab3w2's Order (mean plies when lost):")
    for bot in args.bots:
        row = [f"{r}: {survival(found[r, bot])}" for r in args.refs if r.startswith("ref_ab3")]
        print(f"  {bot}: " + ", ".join(row))
    print(
        f"\nThe ladder table's columns against the references ({' '.join(sys.argv[1:])}; "
        f"seed {args.seed}, {args.games} games per ordered pairing, {deep} against depth 4):"
    )
    ladder_columns(found, args.bots, args.refs, args.markdown)


if __name__ == "__main__":
    main()
