"""``arena sprt`` end to end: real bots in game pairs, a verdict, a resumable store, the output."""

from __future__ import annotations

import functools
import io
import json
import os
import shutil
import signal
from pathlib import Path

import pytest
from conftest import bundled_program, run_arena, start_arena, stored_game_count, wait_until

from arena.botspec import BotSpec
from arena.commands.sprt import Progress
from arena.commands.start import distinct_names as names_for

_arena = functools.partial(run_arena, timeout=300)  # many games


def _bots(folder: Path) -> tuple[str, str]:
    """Copies of greedy and random in the test's folder (for the leftover-process check)."""
    for name in ("greedy", "random"):  # not random.py: that would shadow the stdlib's module
        shutil.copy(bundled_program(name), folder / f"{name}_bot.py")
    return "greedy_bot.py", "random_bot.py"


def test_stronger_bot_accepted_and_resumed(no_leftover_processes: Path) -> None:
    root = no_leftover_processes
    greedy, random = _bots(root)
    args = ("sprt", greedy, random, "--elo0", "0", "--elo1", "50", "--db", "results/t.sqlite")
    first = _arena(*args, "--json", cwd=root)
    assert first.returncode == 0, first.stderr
    result = json.loads(first.stdout)
    assert result["verdict"] == "H1" and result["llr"] >= result["upper"]
    assert result["games"] == 2 * result["pairs"] == 2 * sum(result["pair_counts"])
    assert result["los"] > 0.99 and result["faults"] == 0 and result["resumed_games"] == 0
    assert (
        result["wins"]["greedy_bot"]["order"] + result["wins"]["random_bot"]["chaos"]
        == result["pairs"]
    )
    assert "LLR" in first.stderr and "\r" not in first.stderr  # plain progress lines in a pipe
    again = _arena(*args, cwd=root)  # decided already: nothing is played
    assert again.returncode == 0
    assert f"resuming: {result['games']} games already played" in again.stdout
    assert "H1 accepted: greedy_bot is stronger than random_bot (elo >= 50)" in again.stdout
    assert "LOS" in again.stdout and "(95%)" in again.stdout
    normalized = _arena(*args, "--normalized", "--json", cwd=root)  # the same games, nElo bounds
    assert normalized.returncode == 0
    assert json.loads(normalized.stdout)["model"] == "normalized"


def test_undecided_at_max_games_then_resumed(no_leftover_processes: Path) -> None:
    root = no_leftover_processes
    shutil.copy(bundled_program("random"), root / "r1.py")
    shutil.copy(bundled_program("random"), root / "r2.py")
    store = ("--db", "results/t.sqlite")
    args = ("sprt", "r1.py", "r2.py", "--elo0", "-5", "--elo1", "5", *store, "--json")
    first = _arena(*args, "--max-games", "6", cwd=root)
    assert first.returncode == 1, first.stderr  # no decision within 6 games
    assert json.loads(first.stdout)["verdict"] is None
    second = _arena(*args, "--max-games", "10", cwd=root)
    data = json.loads(second.stdout)
    assert data["resumed_games"] == 6 and data["games"] == 10
    other = _arena(*args, "--max-games", "12", "--move-ms", "50", cwd=root)
    assert other.returncode == 2 and "move_ms: 100 in the store, 50 now" in other.stderr
    assert other.stderr.count("\n") == 1


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_stops_it_like_ctrl_c_and_it_resumes(
    no_leftover_processes: Path, stop: signal.Signals
) -> None:
    """A real ``arena sprt`` run, stopped mid-test: 128 + the signal, the bots gone, whole pairs
    kept, and the same command resumes from them; ``--fresh`` then starts over."""
    root = no_leftover_processes
    shutil.copy(bundled_program("random"), root / "r1.py")
    shutil.copy(bundled_program("random"), root / "r2.py")
    db = root / "results" / "t.sqlite"
    # Bounds 1 Elo apart: two copies of random take thousands of games to tell them apart.
    args = ["sprt", "r1.py", "r2.py", "--elo0", "0", "--elo1", "1", "--db", "results/t.sqlite"]
    process = start_arena(*args, "--json", cwd=root)
    try:
        wait_until(lambda: stored_game_count(db) >= 2 or process.poll() is not None, 60)
        assert process.poll() is None, process.communicate()
        assert stored_game_count(db) >= 2, "no pair stored in time"
        if stop is signal.SIGINT:
            os.killpg(process.pid, signal.SIGINT)  # as Ctrl-C: the whole foreground group
        else:
            os.kill(process.pid, stop)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
    assert process.returncode == 128 + stop, err
    assert "Traceback" not in err and "Exception ignored" not in err
    summary = json.loads(out)
    assert summary["verdict"] is None and summary["games"] >= 2
    assert summary["interrupted"] == stop.name
    assert f"interrupted ({stop.name}) after {summary['games']} games" in err
    stored = stored_game_count(db)
    assert stored == summary["games"] and stored % 2 == 0  # whole pairs only
    # The LLR is that of the pairs kept (it was the one from before the run's games).
    from arena.ratings.sprt import SPRT

    test = SPRT(0, 1, 0.05, 0.05, "logistic")
    assert summary["llr"] == pytest.approx(float(test.llr(summary["pair_counts"])), rel=1e-6)

    resumed = _arena(*args, "--json", "--max-games", str(stored + 2), cwd=root)
    assert resumed.returncode == 1, resumed.stderr  # undecided at --max-games
    again = json.loads(resumed.stdout)
    assert (again["resumed_games"], again["games"]) == (stored, stored + 2)
    assert again["interrupted"] is None
    assert f"resuming: {stored} games already played" in resumed.stderr

    changed = [*args, "--json", "--max-games", "2", "--move-ms", "200"]
    refused = _arena(*changed, cwd=root)
    assert refused.returncode == 2 and "run with --fresh to discard them" in refused.stderr
    fresh = _arena(*changed, "--fresh", cwd=root)
    assert fresh.returncode == 1, fresh.stderr
    assert (json.loads(fresh.stdout)["resumed_games"], stored_game_count(db)) == (0, 2)


def test_sprt_plays_openings(no_leftover_processes: Path) -> None:
    root = no_leftover_processes
    greedy, random = _bots(root)
    run = _arena("sprt", greedy, random, "--elo1", "50", "--openings", "4", "--json", cwd=root)
    assert run.returncode == 0, run.stderr


def test_bad_bounds_are_one_line_errors(tmp_path: Path) -> None:
    run = _arena("sprt", "greedy", "random", "--elo0", "10", "--elo1", "5", cwd=tmp_path)
    assert run.returncode == 2 and run.stderr.count("\n") == 1
    assert "elo0 (10.0) must be below elo1 (5.0)" in run.stderr


def test_two_versions_of_one_bot_get_distinct_names(tmp_path: Path) -> None:
    for version in ("v1", "v2"):
        (tmp_path / version / "mine").mkdir(parents=True)
        (tmp_path / version / "mine" / "main.py").write_text(f"# {version}\n")
    a = BotSpec.from_path(tmp_path / "v1" / "mine" / "main.py", name="mine")
    b = BotSpec.from_path(tmp_path / "v2" / "mine" / "main.py", name="mine")
    x, y = names_for(a, b)
    assert x.name != y.name and x.name.startswith("mine-") and y.name.startswith("mine-")
    same = names_for(a, a)
    assert (same[0].name, same[1].name) == ("mine-A", "mine-B")


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_live_line_on_a_terminal() -> None:
    stream = _Tty()
    progress = Progress(stream, quiet=False)
    progress.show("games 2  LLR +0.10")
    progress.show("games 4  LLR +0.20", final=True)
    text = stream.getvalue()
    assert text.startswith("\rgames 2") and "\rgames 4  LLR +0.20\x1b[K\n" in text
    quiet = _Tty()
    Progress(quiet, quiet=True).show("x", final=True)
    assert quiet.getvalue() == ""
