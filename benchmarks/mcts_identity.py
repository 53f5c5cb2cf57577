"""Whether a change to the search code left the bots' moves bit-identical, and what it saved.

Run it from the repository with the Python that has ``arena`` installed; to run an older version
of the code, point ``PYTHONPATH`` at a copy of it (``git archive main arena | tar -x -C
/tmp/old``)::

    PYTHONPATH=/tmp/old python benchmarks/mcts_identity.py record /tmp/old.json
    python benchmarks/mcts_identity.py record /tmp/new.json
    python benchmarks/mcts_identity.py compare /tmp/old.json /tmp/new.json
    python benchmarks/mcts_identity.py time /tmp/old .

Why: ``mcts``'s games are deterministic given the seed (a budget of simulations), so a change
meant only to make a simulation cheaper must leave every move as it was; so must one to
``alphabeta``'s move generator or ``threat_eval``, which ``mcts``, ``alphabeta`` and ``heuristic``
share. ``record`` plays 20 games (``ref_ab3w4``'s Order against ``mcts``'s Chaos from the
tournaments' 2-ply openings, seeds 1 and 11, 8 games each; ``greedy``'s Order against it from the
empty board, 4 games), takes every position before a move (both roles; 584) and writes, for
each: ``Searcher.children``, ``threat_eval`` (three ways) of it and of its children, the two value
curves and their features (as exact hex floats), ``vcf`` at three depths, the priors, the moves
of ``budgeted_move`` (two seeds, with and without ``perfect``'s centre opening, both simulation
budgets pinned at 3 a ms) and of five ``Mcts`` searches of other options and budgets (with their
simulation counts and the generator's next number: the same consumption of random numbers),
``alphabeta``'s searches as its bot configures them for each role and a plain one, and
``heuristic``'s moves. ``compare`` says whether two such files are equal, and where they first
differ. ``time`` plays the Chaos positions of 10 games (``ref_ab3w4``'s Order, seed 3) through
``budgeted_move`` of two checkouts loaded in this one process, interleaved position by position
(the load of a shared machine hits both alike), and prints the CPU per move of each, on the early
moves (plies 3-9) and on all. Measured for the cheaper simulations (``arena.botlib.mcts``,
``SIMULATIONS_PER_MS``) against the code before them: identical on all 584 positions; 19.0 ms ->
14.2 ms of CPU a move early, 9.1 -> 7.1 over all (3 rounds).
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

FAR = 1e6
"""Seconds to a deadline that never comes: the work budgets alone stop the searches."""


def game_positions(games: list[tuple[str, int, int, bool]]) -> list[tuple[int, int]]:
    """The distinct positions before each move of ``games``: ``(order, seed, count, 2-ply)``,
    ``mcts`` as Chaos (the seeds as ``benchmarks/ladder_vs_refs.py`` gives them)."""
    from ladder_vs_refs import make, play

    from arena.rules import Board
    from arena.tournament.schedule import opening_for

    seen: dict[tuple[int, int], None] = {}

    def note(board: Board) -> None:
        x, o = board.bits
        seen.setdefault((x, o))

    for order_name, seed, count, two_ply in games:
        order, chaos = make(order_name, 100), make("mcts", 100)
        for i in range(count):
            opening = opening_for(seed, i, 2) if two_ply else ()
            seeds = (seed * 1000 + 500 + i, seed * 1000 + i)
            play(order, chaos, opening, seeds, note)
    return list(seen)


def _hex(v: float) -> str:
    return v.hex()


def record(out: Path) -> None:
    """Write what the code gives on the positions of ``game_positions`` (see the docstring)."""
    import arena.botlib.alphabeta as ab
    import arena.botlib.heuristic as heuristic
    import arena.botlib.mcts as mcts
    from arena.botlib.engine import FULL_MASK, live_windows, threats

    mcts.SIMULATIONS_PER_MS = 3.0  # the budgets pinned: a later change of them is no change
    if hasattr(mcts, "CHAOS_SIMULATIONS_PER_MS"):
        mcts.CHAOS_SIMULATIONS_PER_MS = 3.0
    positions = game_positions(
        [("ref_ab3w4", 1, 8, True), ("ref_ab3w4", 11, 8, True), ("greedy", 3, 4, False)]
    )
    weights = mcts.WINDOW_VALUE_WEIGHTS
    deadline = time.monotonic() + FAR
    rows: list[dict[str, Any]] = []
    for index, (x, o) in enumerate(positions):
        row: dict[str, Any] = {"x": x, "o": o}
        live = live_windows(x, o)
        tx, to = threats(x, o)
        kids = ab.Searcher.children(x, o, live, tx, to, ab.evaluate(x, o, live))
        row["children"] = kids
        row["threat_eval"] = [ab.threat_eval(x, o), ab.threat_eval(x, o, 0, False)]
        row["threat_eval_centre"] = ab.threat_eval(x, o, ab.VCF_DEPTH, True)
        row["children_eval"] = [ab.threat_eval(k[3], k[4]) for k in kids]
        gains = [k[0] for k in kids]
        row["priors"] = [_hex(p) for p in mcts.priors(gains, True) + mcts.priors(gains, False)]
        if not tx | to:
            e = max(0, ab.threat_eval(x, o))
            row["curves"] = [
                _hex(mcts.order_win_probability(x, o)),
                _hex(mcts.window_win_probability(x, o, weights)),
                *(_hex(float(f)) for f in mcts.window_features(x, o, e)),
                *(_hex(mcts.window_win_probability(k[3], k[4])) for k in kids if not k[6] | k[7]),
            ]
            row["vcf"] = [ab.Searcher.vcf(x, o, live, depth) for depth in (1, 3, 8)]
        if (x | o) != FULL_MASK:
            moves: list[Any] = []
            for seed in (1, 7):
                for centre in (0, mcts.CENTRE_OPENING):
                    rng = random.Random(seed + centre)
                    moves += [mcts.budgeted_move(x, o, rng, 100, deadline, centre), rng.random()]
            for seed, budget, options in (
                (3, 50, {}),
                (4, 137, {"centre_opening": 2}),
                (5, 300, {"window_weights": weights}),
                (6, 250, {"window_weights": weights, "window_anywhere": True}),
                (8, 600, {"window_weights": weights, "root_temperature": 1.0, "root_mix": 0.3}),
            ):
                rng = random.Random(seed)
                search = mcts.Mcts(rng, **options)  # type: ignore[arg-type]
                moves += [search.best_move(x, o, deadline, budget), search.playouts]
                moves.append(rng.random())
            row["mcts"] = [_hex(m) if isinstance(m, float) else m for m in moves]
            searches = []
            for as_order in (True, False):  # as bots/alphabeta/main.py sets it up per role
                searcher = ab.Searcher(random.Random(index))
                searcher.tiers, searcher.root_vcf, searcher.pairing = True, 8, as_order
                searcher.beam, searcher.leaf_threats = 8, as_order
                searcher.leaf_vcf = 3 if as_order else 0
                budget = 1000 if as_order else 2500
                searches.append(repr(searcher.best_move(x, o, deadline, max_nodes=budget)))
            plain = ab.Searcher(random.Random(index))
            searches.append(repr(plain.best_move(x, o, deadline, max_nodes=800)))
            row["alphabeta"] = searches
            row["heuristic"] = [
                heuristic.one_ply(x, o, random.Random(index)),
                heuristic.one_ply(x, o, random.Random(index), 2),
            ]
        rows.append(row)
    out.write_text(json.dumps(rows))
    print(f"{len(rows)} positions ({mcts.__file__}) -> {out}")


def compare(a: Path, b: Path) -> None:
    """Whether two ``record`` files hold the same numbers; the first difference if not."""
    rows_a, rows_b = json.loads(a.read_text()), json.loads(b.read_text())
    if len(rows_a) != len(rows_b):
        raise SystemExit(f"different positions: {len(rows_a)} and {len(rows_b)}")
    for i, (ra, rb) in enumerate(zip(rows_a, rows_b, strict=True)):
        for key in ra.keys() | rb.keys():
            if ra.get(key) != rb.get(key):
                raise SystemExit(f"position {i} ({ra['x']}, {ra['o']}): {key} differs")
    print(f"identical: {len(rows_a)} positions")


def _load(root: Path) -> ModuleType:
    """``arena.botlib.mcts`` from the checkout at ``root``, beside any already loaded."""
    for name in [n for n in sys.modules if n == "arena" or n.startswith("arena.")]:
        del sys.modules[name]
    sys.path.insert(0, str(root))
    try:
        module = importlib.import_module("arena.botlib.mcts")
    finally:
        sys.path.remove(str(root))
    if not str(module.__file__).startswith(str(root)):
        raise SystemExit(f"{root}: arena came from {module.__file__}")
    return module


def time_moves(old: Path, new: Path, rounds: int) -> None:
    """CPU per ``budgeted_move`` of two checkouts, interleaved (see the docstring)."""
    moves = [_load(old.resolve()).budgeted_move, _load(new.resolve()).budgeted_move]
    import arena.botlib.mcts as current  # the new one: it plays the games

    positions: list[tuple[int, int]] = []
    original = current.budgeted_move

    def recorded(x: int, o: int, *args: Any, **kwargs: Any) -> tuple[int, int]:
        positions.append((x, o))
        return original(x, o, *args, **kwargs)

    current.budgeted_move = recorded  # type: ignore[assignment]
    from ladder_vs_refs import pairing

    patched = [m for m in sys.modules.values() if getattr(m, "budgeted_move", None) is original]
    for module in patched:
        module.budgeted_move = recorded
    pairing(("ref_ab3w4", "mcts", 10, 3, 100))
    for module in patched:
        module.budgeted_move = original
    clock = time.process_time
    spent: dict[tuple[int, str], list[float]] = {}
    for r in range(rounds):
        for i, (x, o) in enumerate(positions):
            ply = (x | o).bit_count()
            for j in (0, 1) if (i + r) % 2 else (1, 0):
                start = clock()
                moves[j](x, o, random.Random(1), 100, time.monotonic() + FAR)
                ms = (clock() - start) * 1000
                for label in ("early" if ply <= 9 else "late", "all"):
                    spent.setdefault((j, label), []).append(ms)
    for label in ("early", "all"):
        a, b = (sum(spent[j, label]) / len(spent[j, label]) for j in (0, 1))
        count = len(spent[0, label]) // rounds
        print(f"{label} ({count} moves): {a:.2f} ms -> {b:.2f} ms of CPU a move ({b / a:.3f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("record").add_argument("out", type=Path)
    pair = sub.add_parser("compare")
    pair.add_argument("a", type=Path)
    pair.add_argument("b", type=Path)
    timing = sub.add_parser("time")
    timing.add_argument("old", type=Path)
    timing.add_argument("new", type=Path)
    timing.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.command == "record":
        record(args.out)
    elif args.command == "compare":
        compare(args.a, args.b)
    else:
        time_moves(args.old, args.new, args.rounds)


if __name__ == "__main__":
    main()
