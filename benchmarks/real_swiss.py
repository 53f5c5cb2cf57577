"""A real course of 40 bots of known strength: Swiss in 10 rounds against a full round robin.

Run it from the repository (CPU-heavy: it keeps 2 workers busy for some minutes)::

    python benchmarks/real_swiss.py              # one seed
    python benchmarks/real_swiss.py --seeds 3    # three seeds, each format once per seed

The bots are ``tests/bots/graded.py`` (a fixture that imports nothing of arena, written for no
tournament): bot ``gNN`` plays a random move with probability NN/39, else a one-ply look at the
board's lines, so that their true order is known. Each format is a whole ``arena tournament``
command (``sandbox: none``, 2 workers, one game per ordered pairing for the round robin, a
game per role per meeting for the Swiss course); the order is the standings of
``arena ratings --json``. It prints, per seed, each format's games, its rank correlation with the
true order, and its time, side by side.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support import PYTHON, ROOT, say, table  # noqa: E402

BOTS = 40
ROUNDS = 10
GRADED = ROOT / "tests" / "bots" / "graded.py"
BOT_PYTHON = "/usr/bin/python3"
"""The bots' interpreter: one that a bot running as another user (arena runs as root) can reach,
which a Python under /root is not; the bots import nothing beyond the standard library."""


def write_config(folder: Path, seed: int, course: bool) -> Path:
    """The tournament file of one format: the graded pool, seeded, in ``folder``."""
    (folder / "bots").mkdir()
    program = folder / "bots" / "graded.py"
    shutil.copyfile(GRADED, program)
    for readable in (folder, folder / "bots", program):  # bots run as another user under root
        readable.chmod(0o755)
    bots = [
        {"name": f"g{i:02d}", "command": [BOT_PYTHON, str(program), f"{i / (BOTS - 1):.4f}"]}
        for i in range(BOTS)
    ]
    data: dict[str, object] = {
        "name": "graded",
        "bots": bots,
        "time_control": {"move_ms": 200, "startup_ms": 5000},
        "sandbox": "none",
        "workers": 2,
        "seed": seed,
        "db": str(folder / "graded.sqlite"),
    }
    data.update({"format": "swiss", "rounds": ROUNDS} if course else {"games_per_pairing": 1})
    path = folder / "graded.yaml"
    path.write_text(json.dumps(data, indent=2))
    return path


def rank_correlation(store: Path) -> tuple[int, float]:
    """The store's games, and the rank correlation of its standings with the true order."""
    shown = subprocess.run(
        [PYTHON, "-m", "arena", "ratings", str(store), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    standings = json.loads(shown.stdout)
    placed = [bot["name"] for bot in standings["bots"]]
    fit_rank = np.array([placed.index(f"g{i:02d}") for i in range(BOTS)])
    rho = float(np.corrcoef(np.arange(BOTS), fit_rank)[0, 1])
    return sum(bot["games"] for bot in standings["bots"]) // 2, rho


def one_format(seed: int, course: bool) -> tuple[int, float, float]:
    """Games, rank correlation and seconds of one whole run."""
    with tempfile.TemporaryDirectory(prefix="real-swiss-") as tmp:
        config = write_config(Path(tmp), seed, course)
        started = time.monotonic()
        done = subprocess.run(
            [PYTHON, "-m", "arena", "tournament", str(config), "--quiet"],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:  # its notes (the bots share a folder) are said only then
            raise SystemExit(done.stdout + done.stderr)
        seconds = time.monotonic() - started
        games, rho = rank_correlation(Path(tmp) / "graded.sqlite")
    return games, rho, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1)
    args = parser.parse_args()
    rows = []
    for seed in range(1, args.seeds + 1):
        rr_games, rr_rho, rr_s = one_format(seed, course=False)
        sw_games, sw_rho, sw_s = one_format(seed, course=True)
        say(f"seed {seed}: round robin rho {rr_rho:.3f}, Swiss rho {sw_rho:.3f}")
        rows.append(
            (
                seed,
                f"{rr_games:,}",
                f"{rr_rho:.3f}",
                f"{rr_s:.0f} s",
                f"{sw_games:,}",
                f"{sw_rho:.3f}",
                f"{sw_s:.0f} s",
                f"{sw_rho - rr_rho:+.3f}",
            )
        )
    header = ("seed", "RR games", "RR rho", "RR time", "Swiss games", "Swiss rho", "Swiss time")
    say(table(rows, (*header, "Swiss - RR")))


if __name__ == "__main__":
    main()
