"""A round robin played in rounds, through the command: stopped with Ctrl-C at about half its
games, the games per bot are level (within one meeting plus those in flight), and resumed it has
the games of a run never stopped, whatever the workers.

Twenty copies of ``tests/bots/seeded.py`` (random moves that follow each chunk's seed), two
games per ordered pairing: 760 games, 4 per meeting.
"""

from __future__ import annotations

import contextlib
import signal
import sqlite3
from collections import Counter
from pathlib import Path

from conftest import interrupted_when, run_arena, start_arena, stored_game_count
from factories import copy_bot, games_of, write_config

BOTS = [f"s{i:02d}" for i in range(20)]
GAMES = 2 * 20 * 19
MEETING = 2 * 2
"""Games of one meeting: both role assignments, 2 games each."""
IN_FLIGHT = 4
"""At most one meeting's games between stored ones: two workers, each in one meeting."""


def class_config(folder: Path, workers: int) -> Path:
    program = copy_bot(folder / "bots", "seeded.py")
    bots = [{"name": name, "path": str(program)} for name in BOTS]
    return write_config(folder, bots, workers=workers)


def games_per_bot(db: Path) -> Counter[str]:
    counts: Counter[str] = Counter({name: 0 for name in BOTS})
    with contextlib.closing(sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)) as conn:
        for order, chaos in conn.execute("SELECT order_name, chaos_name FROM games"):
            counts[order] += 1
            counts[chaos] += 1
    return counts


def failed_matches(db: Path) -> int:
    """Chunks that failed for the harness (a loaded machine): each is played again at the end
    of its round (the executor's attempts), its two bots a meeting behind until then."""
    with contextlib.closing(sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM harness_errors").fetchone()[0])


def spread(db: Path) -> int:
    counts = games_per_bot(db).values()
    return max(counts) - min(counts)


def test_a_stopped_round_robin_is_level_and_resumes_to_the_games_of_an_unstopped_one(
    tmp_path: Path,
) -> None:
    stopped = class_config(tmp_path / "stopped", workers=2)
    db = tmp_path / "stopped" / "t.sqlite"
    process = start_arena("tournament", stopped, "--quiet")
    spreads = []

    def half_way() -> bool:
        stored = stored_game_count(db)
        if stored:
            spreads.append(spread(db))
        return stored >= GAMES // 2

    output = interrupted_when(process, half_way, 120, "half way")
    assert process.returncode == 128 + signal.SIGINT, output
    stored = stored_game_count(db)
    assert GAMES // 2 <= stored < GAMES
    lag = MEETING * failed_matches(db)  # none unless the machine is overloaded
    assert spread(db) <= 2 * MEETING + lag, games_per_bot(db)  # the bound: 8
    assert max(spreads) <= MEETING + IN_FLIGHT + lag, spreads  # and at every look during the run
    resumed = run_arena("tournament", stopped, "--quiet", timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    unstopped = class_config(tmp_path / "unstopped", workers=1)
    whole = run_arena("tournament", unstopped, "--quiet", timeout=300)
    assert whole.returncode == 0, whole.stdout + whole.stderr
    games = games_of(db)
    assert len(games) == GAMES and games == games_of(tmp_path / "unstopped" / "t.sqlite")
