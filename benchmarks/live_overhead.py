"""Benchmark: what a live page costs a run (``arena tournament CONFIG --serve``).

Run it from the repository with the venv's Python::

    python benchmarks/live_overhead.py --sandbox none        # the default tournament, 3 rounds
    python benchmarks/live_overhead.py --config tournaments/ladder.yaml --rounds 1

The same tournament is played side by side in turn, ``--rounds`` times each: without a page;
with ``--serve 127.0.0.1:0`` and no client; and with the page while ten clients poll
``/standings.json`` once a second, one event stream is read (as an open page does) and one is
opened and never read (a hostile client). Each run is ``arena tournament CONFIG --fresh
--quiet``, its store in a folder of its own; the games replayed (the machine held a bot back)
are counted. Its
throughput is the stored games over the span from the first game's start to the last one's end
(the run itself), and over the whole command (start-up and the final standings too). The
default tournament is the ladder's searching bots at 20 ms a move (about 15 s a run on two
cores), which use all the CPU they are given: what a page takes from them shows.
"""

from __future__ import annotations

import argparse
import http.client
import re
import select
import socket
import sqlite3
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import yaml
from support import ROOT, arena_command, copy_config, say, section, store_of, table

CLIENTS = 10
POLL_S = 1.0

DEFAULT = {
    "name": "live-overhead",
    "bots": ["greedy", "heuristic", "alphabeta", "mcts"],
    "games_per_pairing": 40,
    "time_control": {"move_ms": 20, "startup_ms": 5000},
    "workers": 2,
    "seed": 1,
}


def _clients(host: str, port: int, stop: threading.Event) -> list[threading.Thread]:
    """Ten pollers, one event stream read, one never read."""

    def poll() -> None:
        while not stop.wait(POLL_S):
            try:
                conn = http.client.HTTPConnection(host, port, timeout=5)
                conn.request("GET", "/standings.json")
                conn.getresponse().read()
                conn.close()
            except (OSError, http.client.HTTPException):
                return  # the run ended and its server with it

    def stream(read: bool) -> None:
        try:
            sock = socket.create_connection((host, port), timeout=5)
        except OSError:
            return
        with sock:
            sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            while not stop.wait(0 if read else 0.5):
                if read:
                    try:
                        if not sock.recv(65536):
                            return
                    except OSError:
                        return

    threads = [threading.Thread(target=poll) for _ in range(CLIENTS)]
    threads += [threading.Thread(target=stream, args=(read,)) for read in (True, False)]
    for thread in threads:
        thread.start()
    return threads


def _address(process: subprocess.Popen[str]) -> tuple[str, int]:
    assert process.stderr is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stderr], [], [], deadline - time.monotonic())
        line = process.stderr.readline() if ready else ""
        found = re.search(r"live page: http://([\d.]+):(\d+)/", line)
        if found:
            return found.group(1), int(found.group(2))
        if not line:
            break
    raise SystemExit("bench: the run never said where its page is")


KINDS = ("no page", "page, no client", "page + 10 polling + 2 streams")


def one_run(arena: str, config: Path, kind: int, extra: list[str]) -> tuple[float, float, int]:
    """(games/s over the run's games, games/s over the whole command, games replayed)."""
    argv = [arena, "tournament", str(config), "--fresh", "--quiet", *extra]
    if kind:
        argv += ["--serve", "127.0.0.1:0"]
    start = time.monotonic()
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    stop = threading.Event()
    address = _address(process) if kind else None
    threads = _clients(*address, stop) if address and kind == 2 else []
    assert process.stderr is not None
    process.stderr.read()
    code = process.wait()
    wall = time.monotonic() - start
    stop.set()
    for thread in threads:
        thread.join(timeout=10)
    if code != 0:
        raise SystemExit(f"bench: {' '.join(argv)} failed ({code})")
    with sqlite3.connect(f"file:{store_of(config)}?mode=ro", uri=True) as conn:
        games, first, last, replayed = conn.execute(
            "SELECT COUNT(*), MIN(started_at), MAX(finished_at),"
            " SUM(detail LIKE '%replayed: %') FROM games"
        ).fetchone()
    return games / (last - first), games / wall, replayed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, help="a tournament YAML (default: a small one)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each kind (default 3)")
    parser.add_argument("--sandbox", help="the runs' --sandbox (default: the config's)")
    args = parser.parse_args()
    arena = arena_command()
    with tempfile.TemporaryDirectory(prefix="arena-live-bench-") as tmp:
        folder = Path(tmp)
        if args.config is None:
            source = folder / "source" / "live-overhead.yaml"
            source.parent.mkdir()
            source.write_text(yaml.safe_dump(DEFAULT, sort_keys=False))
        else:
            source = (ROOT / args.config).resolve()
        config = copy_config(source, folder)
        section(f"live page overhead: {source.name}, {args.rounds} rounds, side by side in turn")
        rates: dict[int, list[tuple[float, float, int]]] = {kind: [] for kind in range(3)}
        extra = [] if args.sandbox is None else ["--sandbox", args.sandbox]
        for round_ in range(args.rounds):
            kinds = (0, 1, 2) if round_ % 2 == 0 else (2, 1, 0)
            for kind in kinds:
                rates[kind].append(one_run(arena, config, kind, extra))
                run, whole, replayed = rates[kind][-1]
                say(f"  {KINDS[kind]}: {run:.1f} games/s in the run, {whole:.1f} over the"
                    f" command, {replayed} replayed")  # fmt: skip
        rows = [
            [
                KINDS[kind],
                f"{statistics.median(r[0] for r in runs):.2f}",
                f"{statistics.median(r[1] for r in runs):.2f}",
                str(sum(r[2] for r in runs)),
            ]
            for kind, runs in rates.items()
        ]
        say(table(rows, ["", "games/s (run, median)", "games/s (command, median)", "replayed"]))
        base = statistics.median(r[0] for r in rates[0])
        for kind in (1, 2):
            served = statistics.median(r[0] for r in rates[kind])
            say(f"{KINDS[kind]}: {100 * (served / base - 1):+.1f}% games/s in the run")


if __name__ == "__main__":
    main()
