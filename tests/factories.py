"""What tests build over and over: copies of bots, tournament files, game records.

``copy_bot`` copies a bot program into a test's own folder: the folder is the marker by which
``conftest`` finds every process of the test in ``/proc`` (and what bwrap exposes of the bot).
``bot_entries`` and ``write_config`` write a tournament file (JSON, which is YAML) with short time
controls and its store beside it. ``make_record`` is a finished, legal game with every field set.
``logged_bots`` are bots that log their starts and the matches they were told of (``keep_bots``).
``games_of`` reads a store's games back by slot (to compare two runs' games).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

from conftest import TEST_BOTS_DIR, bundled_program

from arena.botspec import BotSpec
from arena.records import GameRecord, Reason
from arena.rules import Role


def copy_bot(
    folder: Path, source: str | Path, *, name: str | None = None, executable: bool = False
) -> Path:
    """A copy of a bot program in ``folder`` (made if missing), named ``name`` (default: the
    source's name). ``source``: a path, or the file name of a fixture bot of ``tests/bots``.
    ``executable``: with a ``#!`` line naming this Python and mode 0755, so that it runs by
    itself (for a ``command`` entry, or a bot started without an interpreter)."""
    path = TEST_BOTS_DIR / source if isinstance(source, str) else source
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / (name or path.name)
    shutil.copyfile(path, target)
    if executable:
        target.write_text(f"#!{sys.executable}\n" + target.read_text())
        target.chmod(0o755)
    return target


def bot_entries(folder: Path, names: Sequence[str], pace_ms: int = 1) -> list[dict[str, object]]:
    """Bots for a tournament file, copied into ``folder/bots``: ``instant`` and ``random`` (the
    bundled one) by path, any other name a command running ``paced.py`` (``pace_ms`` per move)."""
    bots = folder / "bots"
    entries: list[dict[str, object]] = []
    for name in names:
        if name == "instant":
            entries.append({"name": name, "path": str(copy_bot(bots, "instant.py"))})
        elif name == "random":
            path = copy_bot(bots, bundled_program("random"), name="random_bot.py")
            entries.append({"name": name, "path": str(path)})
        else:
            paced = copy_bot(bots, "paced.py", executable=True)
            entries.append({"name": name, "command": [str(paced), str(pace_ms)]})
    return entries


def write_config(
    folder: Path, bots: Sequence[dict[str, object]], file: str = "t.yaml", **fields: object
) -> Path:
    """``folder/file``: a tournament named ``t`` of ``bots`` (2 games per pairing, 200 ms a move,
    2 workers), its store ``folder/t.sqlite``; ``fields`` replace or add top-level keys."""
    data: dict[str, object] = {
        "name": "t",
        "bots": list(bots),
        "games_per_pairing": 2,
        "time_control": {"move_ms": 200, "startup_ms": 2000},
        "workers": 2,
        "db": str(folder / "t.sqlite"),
    }
    data.update(fields)
    path = folder / file
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


def make_record(order: str = "alpha", chaos: str = "beta", **changes: object) -> GameRecord:
    """A finished game of ``order`` against ``chaos``: Order's five on its 5th move, every move
    legal (exports replay it), versions ``<name>-v1``; ``changes`` replace fields."""
    fields: dict[str, object] = {
        "order": order,
        "chaos": chaos,
        "winner": Role.ORDER,
        "reason": Reason.FIVE,
        "moves": ["c4X", "a1O", "c3X", "b1O", "c2X", "f6O", "c1X", "e6O", "c5X"],
        "ms": [1.5, 2.25, 0.5, 3.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        "seed": 7,
        "started_at": 1_700_000_000.5,
        "finished_at": 1_700_000_001.25,
        "order_version": f"{order}-v1",
        "chaos_version": f"{chaos}-v1",
    }
    fields.update(changes)
    return GameRecord(**fields)  # type: ignore[arg-type]


def logged_bots(folder: Path, count: int, *args: str) -> list[BotSpec]:
    """``count`` bots ``s0``... running ``seed_log.py`` (with ``args``), each logging to
    ``folder/<name>.log``: its starts and the ``match`` lines it was told. Their folder is
    ``folder/bot``, which holds the program alone (a cluster ships it; the logs stay here)."""
    program = copy_bot(folder / "bot", "seed_log.py")
    return [
        BotSpec.from_command(
            ["python3", str(program), str(folder / f"s{i}.log"), *args], f"s{i}", dir=program.parent
        )
        for i in range(count)
    ]


def log_of(folder: Path, name: str) -> list[tuple[str, int, int]]:
    """A ``seed_log.py`` log: (``start`` or ``match``, process id, seed), in order."""
    lines = (folder / f"{name}.log").read_text().split("\n")
    return [(kind, int(pid), int(seed)) for kind, pid, seed in (x.split() for x in lines if x)]


def games_of(db: Path) -> dict[tuple[str, str, int], tuple[str, str, str, str]]:
    """Every stored game by its slot: its moves, winner, reason and detail."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        rows = conn.execute(
            "SELECT order_name, chaos_name, slot, moves, winner, reason, detail FROM games"
        ).fetchall()
    return {(o, c, int(slot)): (moves, w, r, d) for o, c, slot, moves, w, r, d in rows}
