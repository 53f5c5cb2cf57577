"""``benchmarks/botshare.py``: the bot share ``bench.py`` reports, and where the rest goes.

Why: the share of a tournament's core-time during which a bot is on move is one of issue 24's
targets; its breakdown must add up to workers x wall (or it explains nothing), a match's games
must stay on one worker's timeline when the games are laid back onto timelines, and the
measurement must run on a real tournament (so that the benchmark cannot rot unnoticed).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import yaml

ROOT = Path(__file__).resolve().parents[2]


def botshare() -> ModuleType:
    sys.path.insert(0, str(ROOT / "benchmarks"))  # its sibling modules import one another
    try:
        return importlib.import_module("botshare")
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def test_games_are_laid_onto_timelines_a_match_on_one_and_the_rows_add_up() -> None:
    """Two workers, two matches of two games each, the second games starting when both workers
    are free: each goes to the worker of its pair's first game, and the rows make 2 x wall."""
    bench = botshare()
    ab, cd = frozenset({"a", "b"}), frozenset({"c", "d"})
    games = [
        bench.Game(ab, 1.0, 2.0, 0.9),
        bench.Game(cd, 1.1, 2.1, 0.9),
        bench.Game(cd, 2.15, 3.0, 0.8),
        bench.Game(ab, 2.2, 3.2, 0.9),
    ]
    lines = bench.timelines(games, 2, 0.0)
    assert {tuple(g.pair for g in line) for line in lines} == {(ab, ab), (cd, cd)}
    watched = bench.Watched(
        wall=4.0, began=0.0, ended=4.0, parent_cpu=0.0, worker_cpu=0.0, bot_starts=4
    )
    rows, matches = bench.breakdown(games, 2, watched)
    assert matches == 2
    assert abs(sum(rows.values()) - 8.0) < 1e-9
    assert abs(rows[bench.ON_MOVE] - 3.5) < 1e-9
    assert abs(rows["start-up before the first game"] - 2.1) < 1e-9


def test_a_real_tournament_is_measured_and_its_breakdown_adds_up(tmp_path: Path) -> None:
    """Two bundled bots, 4 games on 2 workers: the share is a fraction, the rows add up to
    2 x the wall time, and both bots' processes were seen starting."""
    bench = botshare()
    source = tmp_path / "source" / "pair.yaml"
    source.parent.mkdir()
    config = {
        "name": "pair",
        "bots": ["random", "greedy"],
        "games_per_pairing": 2,
        "time_control": {"move_ms": 100, "startup_ms": 5000},
        "seed": 1,
    }
    source.write_text(yaml.safe_dump(config))
    folder = tmp_path / "run"
    folder.mkdir()
    share = bench.measure(
        bench.arena_command(), source, folder, 2, timeout=120, games_per_pairing=2
    )
    assert share.games == 4
    assert 0 < share.share < 1
    assert abs(sum(share.rows.values()) - share.core_time) < 1e-6
    assert share.watched.bot_starts >= 2
    assert share.watched.parent_cpu > 0
