"""Where the time of one ply (and of one game) goes in arena, next to the floor (``floor.py``).

Run it from the repository, after ``bench.py`` has built the C bot (``benchmarks/_build/``)::

    python benchmarks/profile_ply.py [--games 2000]

Everything runs in this process, pinned to one core with its bots (as ``arena match`` does with
``affinity auto``), with ``sandbox none``, against the C instant bot. It prints:

1. Layers, in us per ply (best of 5 interleaved rounds):
   - a raw ping-pong: one constant ``turn`` line written, ``poll``, one ``read``: the kernel's and
     the bot's share, with no refereeing at all;
   - the floor referee (``floor.py``): + parsing, legality, bitboards, ``game``/``end`` lines;
   - ``arena.referee.match.Match.play``: arena's referee, game after game, nothing else;
   - ``Match.play`` + the ``--record`` line as ``arena match`` builds it
     (``GameRecord.to_json()`` + ``json.dumps``), and the same with a shallow dict built here
     instead of ``to_json`` (for comparison: ``dataclasses.asdict`` deep-copies every list).
2. ``Match.play`` split by its parts (each method timed by a wrapper; the wrappers cost about
   0.1 us per call), in us per game.
3. Per-game costs outside the referee that a tournament adds: pickling a ``GameDone`` event the
   way the worker's pipe does (``multiprocess`` uses ``dill``) against the standard ``pickle``,
   unpickling it, and ``Store.add_game`` (one transaction per game).

Only arena's public-ish names are used (``Match``, ``MatchSettings``, ``BotSpec``, ``GameRecord``,
``GameDone``, ``Store``); a part that no longer exists is skipped.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pickle
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path

sys.dont_write_bytecode = True  # leave no __pycache__ beside the benchmarks

from floor import FloorBot, measure_floor  # noqa: E402 - a script: its folder is on sys.path
from support import compile_bots, table  # noqa: E402

ROUNDS = 5


def raw_ping_pong(argv: list[str], games: int) -> float:
    """us per ply of write + poll + read with a constant line: no refereeing."""
    bots = [FloorBot(argv), FloorBot(argv)]
    try:
        for bot in bots:
            bot.send(b"arena 1\n")
            bot.line(time.perf_counter_ns() + 5_000_000_000)
        message = b"turn " + b"." * 36 + b" - 100\n"
        started = time.perf_counter_ns()
        for _ in range(games):
            for ply in range(36):
                bot = bots[ply & 1]
                os.write(bot.fd_in, message)
                bot.poller.poll(1000)
                os.read(bot.fd_out, 4096)
        elapsed = time.perf_counter_ns() - started
    finally:
        for bot in bots:
            bot.close()
    return elapsed / 1000 / (games * 36)


def shallow_json(record: object) -> str:
    data = {name: getattr(record, name) for name in record.__dataclass_fields__}
    data["winner"] = record.winner.value
    data["reason"] = record.reason.value
    return json.dumps(data, separators=(",", ":"))


def arena_play(program: str, games: int, record: str | None) -> tuple[float, object]:
    """us per ply of ``Match.play`` game after game (bots started beforehand), plus one record."""
    from arena.botspec import BotSpec
    from arena.limits import SandboxMode
    from arena.referee.match import Match, MatchSettings

    spec = BotSpec.from_path(program)
    settings = MatchSettings(sandbox=SandboxMode.NONE)
    with Match(spec, spec.renamed(spec.name + "-2"), settings, 1, games) as match:
        game = match.play(0)  # starts both bots
        started = time.perf_counter_ns()
        for number in range(games):
            game = match.play(number & 1)
            if record == "to_json":
                json.dumps(game.to_json(), separators=(",", ":"))
            elif record == "shallow":
                shallow_json(game)
        elapsed = time.perf_counter_ns() - started
    return elapsed / 1000 / (games * 36), game


def parts_of_play(program: str, games: int) -> dict[str, float]:
    """us per game in each part of ``Match.play`` (methods wrapped with a timer)."""
    from arena.botspec import BotSpec
    from arena.limits import SandboxMode
    from arena.referee.match import Match, MatchSettings

    spent: collections.Counter[str] = collections.Counter()
    originals = {}
    for name in ("_ensure_ready", "_begin", "_play_plies", "_finish"):
        method = getattr(Match, name, None)
        if method is None:
            continue
        originals[name] = method

        def timed(*args: object, _method: Callable = method, _name: str = name) -> object:
            started = time.perf_counter_ns()
            try:
                return _method(*args)
            finally:
                spent[_name] += time.perf_counter_ns() - started

        setattr(Match, name, timed)
    try:
        spec = BotSpec.from_path(program)
        settings = MatchSettings(sandbox=SandboxMode.NONE)
        with Match(spec, spec.renamed(spec.name + "-2"), settings, 1, games) as match:
            match.play(0)
            spent.clear()
            started = time.perf_counter_ns()
            for number in range(games):
                match.play(number & 1)
            total = time.perf_counter_ns() - started
    finally:
        for name, method in originals.items():
            setattr(Match, name, method)
    parts = {name: ns / 1000 / games for name, ns in spent.items()}
    parts["rest of play() (GameRecord, time.time, ...)"] = (total - sum(spent.values())) / (
        1000 * games
    )
    parts["= Match.play"] = total / 1000 / games
    return parts


def per_game_extras(record: object) -> dict[str, float]:
    """us per game of a tournament's per-game work outside the referee."""
    from arena.store.database import Store
    from arena.tournament.executors import GameDone
    from arena.tournament.schedule import GameSlot

    event = GameDone("a~b#0", GameSlot(0, 3), record)
    results = {}

    def best(call: Callable[[], object], number: int = 2000) -> float:
        return min(timeit.repeat(call, number=number, repeat=5)) / number * 1e6

    try:
        from multiprocess.reduction import ForkingPickler

        data = ForkingPickler.dumps(event)
        results["GameDone pickled by multiprocess (dill)"] = best(
            lambda: ForkingPickler.dumps(event)
        )
        results["GameDone unpickled by multiprocess"] = best(lambda: ForkingPickler.loads(data))
    except ImportError:
        pass
    plain = pickle.dumps(event)
    results["GameDone pickled by the standard pickle"] = best(lambda: pickle.dumps(event))
    results["GameDone unpickled by the standard pickle"] = best(lambda: pickle.loads(plain))
    results["GameRecord.to_json()"] = best(record.to_json)
    results["shallow dict + json.dumps"] = best(lambda: shallow_json(record))
    with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder) / "s.sqlite") as store:
        slots = iter(range(10**9))
        results["Store.add_game (own transaction)"] = best(
            lambda: store.add_game(record, next(slots)), number=1000
        )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games per measurement")
    games = parser.parse_args().games
    program = str(compile_bots()["instant"])
    core = sorted(os.sched_getaffinity(0))[-1]
    os.sched_setaffinity(0, {core})  # this process and, by inheritance, its bots
    print(f"pinned to core {core}; C instant bot; {games} games per measurement; sandbox none")

    layers: dict[str, list[float]] = collections.defaultdict(list)
    game = None
    for _ in range(ROUNDS):
        layers["raw ping-pong (write + poll + read)"].append(raw_ping_pong([program], games))
        layers["floor referee (floor.py)"].append(measure_floor([program], games, core))
        us, game = arena_play(program, games, None)
        layers["arena Match.play"].append(us)
        layers["arena Match.play + to_json() + json.dumps"].append(
            arena_play(program, games, "to_json")[0]
        )
        layers["arena Match.play + shallow dict + json.dumps"].append(
            arena_play(program, games, "shallow")[0]
        )
    print(f"\n1. Layers (us per ply; best and median of {ROUNDS})")
    rows = []
    floor = min(layers["floor referee (floor.py)"])
    for name, values in layers.items():
        ordered = sorted(values)
        rows.append(
            [
                name,
                f"{ordered[0]:.2f}",
                f"{ordered[len(ordered) // 2]:.2f}",
                f"{ordered[0] * 36:.0f}",
                f"{floor / ordered[0]:.2f}",
            ]
        )
    print(table(rows, ["", "best", "median", "us/game", "floor/this"]))

    print("\n2. Match.play by part (us per game; one run)")
    parts = parts_of_play(program, games)
    print(table([[k, f"{v:.1f}", f"{v / 36:.2f}"] for k, v in parts.items()],
                      ["", "us/game", "us/ply"]))  # fmt: skip

    print("\n3. Per-game work outside the referee (us per game, best of 5)")
    extras = per_game_extras(game)
    print(table([[k, f"{v:.1f}", f"{v / 36:.2f}"] for k, v in extras.items()],
                      ["", "us/game", "us/ply"]))  # fmt: skip


if __name__ == "__main__":
    main()
