"""Fair by construction: a bot cannot be the load that makes its opponent late, and a game the
machine spoiled is played again so that the stored games are those of a run without trouble.

Why: the stored games of a config must be a function of the config alone, whatever the machine
and whatever a hostile bot does; a replay must never re-roll a game, or a bot that can force
replays could choose its results. Real bot processes, real tournaments, real SQLite stores.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from conftest import bundled_program, hogs, run_arena
from factories import copy_bot, games_of
from test_sharing import randomised

from arena.referee.blame import MachineFault
from arena.referee.match import REPLAYED, Match
from arena.store.database import Store
from arena.tournament.run import run_tournament

pytestmark = pytest.mark.usefixtures("no_leftover_processes")


def outcomes(db: Path) -> dict[tuple[str, str, int], tuple[str, str, str]]:
    """Every stored game by its slot: its moves, winner and reason (not the detail, which says
    whether it was replayed)."""
    return {slot: game[:3] for slot, game in games_of(db).items()}


def griefer_config(folder: Path, helpers: int) -> Path:
    """A tournament of the griefer (with ``helpers`` spinning helpers), a bot that thinks 40 ms
    of CPU of its 200 ms a move, and the bundled ``random``: the defaults otherwise."""
    griefer = copy_bot(folder, "griefer.py")
    thinker = copy_bot(folder, "spender.py")
    random_bot = copy_bot(folder, bundled_program("random"), name="random_bot.py")
    config = {
        "name": "griefing",
        "bots": [
            {"name": "griefer", "command": [sys.executable, str(griefer), str(helpers)]},
            {"name": "thinker", "command": [sys.executable, str(thinker), "40", "burn"]},
            {"name": "random", "path": str(random_bot)},
        ],
        "games_per_pairing": 2,
        "time_control": {"move_ms": 200},
        "workers": 2,
        "seed": 5,
    }
    path = folder / "t.yaml"
    path.write_text(json.dumps(config))
    return path


def test_a_griefer_cannot_keep_its_games_out_of_the_store(tmp_path: Path) -> None:
    """Helpers that spin while the opponent thinks, on the match's own core: the opponent is
    charged its own CPU time and the griefer is frozen while it is not on move, so every game
    is stored, and they are the games of the run without the helpers."""
    stored = {}
    for helpers in (0, 3):
        path = griefer_config(tmp_path / str(helpers), helpers)
        result = run_arena("tournament", path, "--quiet", timeout=300)
        assert result.returncode == 0, result.stdout + result.stderr
        db = path.parent / "results" / "griefing.sqlite"
        stored[helpers] = outcomes(db)
        assert len(stored[helpers]) == 12, result.stdout
        assert all(reason != "timeout" for _moves, _winner, reason in stored[helpers].values())
    assert stored[3] == stored[0]


def test_the_same_games_idle_and_beside_cpu_hogs(tmp_path: Path) -> None:
    """The same config, once as it is and once beside two CPU hogs a core: the same games."""
    stored = []
    for loaded in (False, True):
        path = griefer_config(tmp_path / str(loaded), 0)
        with hogs(2 * len(os.sched_getaffinity(0)) if loaded else 0, None):
            result = run_arena("tournament", path, "--quiet", timeout=300)
        assert result.returncode == 0, result.stdout + result.stderr
        stored.append(outcomes(path.parent / "results" / "griefing.sqlite"))
    assert len(stored[0]) == 12 and stored[1] == stored[0]


def test_a_game_the_machine_spoiled_is_played_again_as_if_nothing_had_happened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 4th game of every match is spoiled once (``MachineFault``, as when a bot was held
    back past its wall cap): the match restarts both bots afresh and plays its first three games
    again, unrecorded, before it. The stored games are those of the run without the trouble,
    and the spoiled ones say they were replayed."""
    clean = randomised(tmp_path / "clean", 2)
    with Store.open(clean.db) as store:
        assert run_tournament(clean.plan(), store).complete
    marks = tmp_path / "marks"
    marks.mkdir()
    play_game = Match._play_game

    def spoil_once(self: Match, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if len(self._since_fresh) == 3:
            names = "~".join(seat.spec.name for seat in self.seats)
            try:  # once per match, in whichever worker process plays it
                os.close(os.open(marks / f"{names}-{self._fresh_seed}", os.O_CREAT | os.O_EXCL))
            except FileExistsError:
                pass
            else:
                raise MachineFault("spoiled by the test")
        return play_game(self, *args, **kwargs)

    monkeypatch.setattr(Match, "_play_game", spoil_once)  # the forked workers inherit it
    config = randomised(tmp_path / "spoiled", 2)
    with Store.open(config.db) as store:
        result_run = run_tournament(config.plan(), store)
    assert result_run.complete and not result_run.harness_errors
    assert result_run.replayed == len(list(marks.iterdir())) > 0
    assert outcomes(config.db) == outcomes(clean.db)
    details = [game[3] for game in games_of(config.db).values()]
    assert sum(REPLAYED in detail for detail in details) == result_run.replayed


def test_the_new_bot_skeleton_loses_nothing_on_time_beside_cpu_hogs(tmp_path: Path) -> None:
    """A class tournament on a busy machine, with the defaults: the unmodified ``new-bot``
    skeleton, ``random`` and ``greedy``, 10 games a pairing, beside two CPU hogs: all 60 games
    stored, none lost on time."""
    assert run_arena("new-bot", "skeleton", "--dir", tmp_path).returncode == 0
    config = {
        "name": "class",
        "bots": ["random", "greedy", {"name": "skeleton", "path": str(tmp_path / "skeleton")}],
        "games_per_pairing": 10,
    }
    path = tmp_path / "class.yaml"
    path.write_text(json.dumps(config))
    with hogs(2, None):
        result = run_arena("tournament", path, "--quiet", timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    games = games_of(tmp_path / "results" / "class.sqlite")
    assert len(games) == 60
    assert [game for game in games.values() if game[2] == "timeout"] == []
