"""Courses through the command: a Swiss course plays its rounds (every bot once a round, both
roles, no pair twice while avoidable), its budget or stopping rule ends it sooner, the end says
which, and the stored games are the same with 1 or 2 workers and after Ctrl-C and a resume.

The bots are copies of ``tests/bots/seeded.py`` (random moves that follow each match's seed), and
for the stopping rule the bundled ``greedy``, which beats them (no sandbox: it imports arena).
"""

from __future__ import annotations

import contextlib
import json
import re
import signal
import sqlite3
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from conftest import interrupted_when, run_arena, start_arena, stored_game_count
from factories import copy_bot, games_of, write_config


def course_config(
    folder: Path, bots: int, workers: int = 2, format: str = "swiss", **fields: object
) -> Path:
    program = copy_bot(folder / "bots", "seeded.py")
    entries = [{"name": f"s{i:02d}", "path": str(program)} for i in range(bots)]
    path = write_config(folder, entries, workers=workers, format=format, **fields)
    text = path.read_text().replace('  "games_per_pairing": 2,\n', "")  # a course has none
    path.write_text(text)
    return path


def greedy_config(folder: Path, seeded: int, **fields: object) -> Path:
    """``seeded`` random bots and the bundled ``greedy``, which beats them (no sandbox: it
    imports arena, which a worktree's bubblewrap does not show)."""
    program = copy_bot(folder / "bots", "seeded.py")
    entries: list[Any] = [{"name": f"s{i}", "path": str(program)} for i in range(seeded)]
    return write_config(folder, [*entries, "greedy"], sandbox="none", **fields)


def rounds_of(db: Path) -> dict[int, list[tuple[str, str]]]:
    """The stored games by round (a course's slot is its round less one), as (Order, Chaos)."""
    rounds: dict[int, list[tuple[str, str]]] = defaultdict(list)
    with contextlib.closing(sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)) as conn:
        for order, chaos, slot in conn.execute("SELECT order_name, chaos_name, slot FROM games"):
            rounds[int(slot) + 1].append((order, chaos))
    return dict(rounds)


def test_a_swiss_course_plays_its_rounds_without_repeats_and_says_what_stopped_it(
    tmp_path: Path,
) -> None:
    config = course_config(tmp_path, bots=8, rounds=4)
    done = run_arena("tournament", config, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "The Swiss course stopped after 4 rounds: all its rounds are played" in done.stdout
    rounds = rounds_of(tmp_path / "t.sqlite")
    assert sorted(rounds) == [1, 2, 3, 4]
    meetings: Counter[frozenset[str]] = Counter()
    for games in rounds.values():
        assert len(games) == 8  # four pairings, both roles each
        assert Counter(order for order, _ in games) == Counter(chaos for _, chaos in games)
        assert all(n == 1 for n in Counter(order for order, _ in games).values())
        meetings.update({frozenset(game) for game in games})
    assert max(meetings.values()) == 1, meetings  # 8 bots, 4 rounds: a repeat is avoidable


def test_a_budget_stops_a_course_in_whole_meetings(tmp_path: Path) -> None:
    config = course_config(tmp_path, bots=8, rounds=4, budget={"games": 11})
    done = run_arena("tournament", config, "--quiet", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "stopped after 2 rounds: its budget of 11 games is spent" in done.stdout
    rounds = rounds_of(tmp_path / "t.sqlite")
    assert {number: len(games) for number, games in rounds.items()} == {1: 8, 2: 2}


def test_the_stopping_rule_ends_a_course_once_its_top_is_separated(tmp_path: Path) -> None:
    config = greedy_config(tmp_path, 5, format="swiss", rounds=12, until={"top": 1, "los": 0.9})
    config.write_text(config.read_text().replace('  "games_per_pairing": 2,\n', ""))
    done = run_arena("tournament", config, "--quiet", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "its stopping rule holds: each of the top 1 ahead of the next" in done.stdout
    played = rounds_of(tmp_path / "t.sqlite")
    assert len(played) < 12 and all(len(games) == 6 for games in played.values())


def test_a_stopped_course_resumes_to_the_games_of_an_unstopped_one_whatever_the_workers(
    tmp_path: Path,
) -> None:
    """Nine bots (a bye each round), six rounds of four meetings: 48 games."""
    total = 6 * 4 * 2
    stopped = course_config(tmp_path / "stopped", bots=9, workers=2, rounds=6)
    db = tmp_path / "stopped" / "t.sqlite"
    process = start_arena("tournament", stopped, "--quiet")
    output = interrupted_when(process, lambda: stored_game_count(db) >= 19, 120, "part way")
    assert process.returncode == 128 + signal.SIGINT, output
    assert 19 <= stored_game_count(db) < total
    resumed = run_arena("tournament", stopped, "--quiet", timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "stopped after 6 rounds" in resumed.stdout
    unstopped = course_config(tmp_path / "unstopped", bots=9, workers=1, rounds=6)
    whole = run_arena("tournament", unstopped, "--quiet", timeout=300)
    assert whole.returncode == 0, whole.stdout + whole.stderr
    games = games_of(db)
    assert len(games) == total and games == games_of(tmp_path / "unstopped" / "t.sqlite")
    assert_swiss_standings(db)


def assert_swiss_standings(db: Path) -> None:
    """Each bot's Swiss score is its games won and a point a bye, and its rank interval holds
    its place, in ``arena ratings --json`` and in the table."""
    shown = run_arena("ratings", db, "--json")
    assert shown.returncode == 0, shown.stderr
    bots = json.loads(shown.stdout)["bots"]
    names = {bot["name"] for bot in bots}
    byes = Counter(
        bye
        for games in rounds_of(db).values()
        for bye in names - {name for game in games for name in game}
    )
    for bot in bots:
        assert bot["swiss_score"] == bot["wins"] + byes[bot["name"]], bot
        low, high = bot["rank_interval"]
        assert 1 <= low <= bot["rank"] <= high <= len(bots), bot
    table = run_arena("ratings", db)
    assert table.returncode == 0, table.stderr
    header = next(line for line in table.stdout.splitlines() if line.startswith("#"))
    assert header.split()[:6] == ["#", "bot", "score", "ranks", "Swiss", "Elo"], header


def test_a_budget_stops_a_round_robin_at_whole_meetings_and_a_resume_stays_stopped(
    tmp_path: Path,
) -> None:
    """Six bots, two games per ordered pairing: a meeting is 4 games, a round 12."""
    program = copy_bot(tmp_path / "bots", "seeded.py")
    entries = [{"name": f"s{i}", "path": str(program)} for i in range(6)]
    config = write_config(tmp_path, entries, budget={"games": 30})
    done = run_arena("tournament", config, "--quiet", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "The round robin stopped after 28 games: its budget of 30 games is spent" in done.stdout
    games = games_of(tmp_path / "t.sqlite")
    assert len(games) == 28  # two rounds, and one meeting of the third
    meetings = Counter(frozenset((order, chaos)) for order, chaos, _ in games)
    assert set(meetings.values()) == {4}
    again = run_arena("tournament", config, "--quiet", timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "0 games played this run" in again.stdout and games_of(tmp_path / "t.sqlite") == games


def test_the_stopping_rule_ends_a_round_robin_at_a_round(tmp_path: Path) -> None:
    config = greedy_config(tmp_path, 6, until={"top": 1, "los": 0.9})
    done = run_arena("tournament", config, "--quiet", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "its stopping rule holds: each of the top 1 ahead of the next" in done.stdout
    stored = len(games_of(tmp_path / "t.sqlite"))
    assert 0 < stored < 2 * 2 * 21 and stored % 4 == 0, stored  # whole meetings


def test_a_contested_course_spends_its_budget_and_plays_the_same_games_whatever_the_workers(
    tmp_path: Path,
) -> None:
    """Eight bots, two Swiss rounds before the top's doubts get games of their own."""
    stored = []
    for workers in (1, 2):
        folder = tmp_path / f"w{workers}"
        fields: dict[str, Any] = {"rounds": 2, "until": {"top": 2}, "budget": {"games": 40}}
        config = course_config(folder, bots=8, workers=workers, format="contested", **fields)
        done = run_arena("tournament", config, "--quiet", timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "The contested course stopped after" in done.stdout, done.stdout
        assert "its budget of 40 games is spent" in done.stdout
        stored.append(games_of(folder / "t.sqlite"))
    assert 32 < len(stored[0]) <= 40 and stored[0] == stored[1]
    assert len(rounds_of(tmp_path / "w1" / "t.sqlite")) > 2  # past its Swiss rounds


def test_a_course_refuses_a_pool_without_one_of_its_bots_in_one_line(tmp_path: Path) -> None:
    config = course_config(tmp_path, bots=4, rounds=1)
    done = run_arena("tournament", config, "--quiet", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    games = games_of(tmp_path / "t.sqlite")
    data = json.loads(config.read_text())
    data["bots"].pop()
    config.write_text(json.dumps(data))
    refused = run_arena("tournament", config, "--quiet", timeout=300)
    assert refused.returncode != 0
    assert refused.stderr.count("\n") == 1, refused.stderr
    assert "the swiss course began with another pool (gone: s03)" in refused.stderr
    assert games_of(tmp_path / "t.sqlite") == games


GRADED = 12
"""The pool of the placement tests: ``graded.py`` bots from P = 0 (g00, the strongest) to 1."""


def graded_config(folder: Path, workers: int = 2) -> Path:
    """A Swiss course of its default rounds (8 for 12 bots) among ``GRADED`` graded bots."""
    program = copy_bot(folder / "bots", "graded.py", executable=True)
    entries = [
        {"name": f"g{i:02d}", "command": [str(program), f"{i / (GRADED - 1):.3f}"]}
        for i in range(GRADED)
    ]
    path = write_config(folder, entries, workers=workers, format="swiss")
    path.write_text(path.read_text().replace('  "games_per_pairing": 2,\n', ""))
    return path


def late_entry(folder: Path, randomness: float) -> Path:
    """A folder bot playing ``graded.py`` at ``randomness``, for ``arena submit``."""
    copy_bot(folder, "graded.py")
    wrapper = f"import sys\n\nsys.argv[1:] = ['{randomness}']\nimport graded\n"
    (folder / "main.py").write_text(wrapper)
    return folder


def test_submit_places_a_late_entry_near_its_true_place_in_few_games(tmp_path: Path) -> None:
    """The entry (P = 0.32, between g03 and g04: fifth in truth) plays its placement meetings
    after the course's rounds, far fewer than a game per role against every bot."""
    config = graded_config(tmp_path)
    done = run_arena("tournament", config, "--quiet", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    course = games_of(tmp_path / "t.sqlite")
    assert len(course) == 8 * GRADED
    placed = run_arena("submit", late_entry(tmp_path / "late", 0.32), config, timeout=300)
    assert placed.returncode == 0, placed.stdout + placed.stderr
    games = games_of(tmp_path / "t.sqlite")
    own = {key: game for key, game in games.items() if "late" in key[:2]}
    assert set(games) == set(course) | set(own)  # the course's games untouched
    assert 4 <= len(own) <= GRADED and {slot for _, _, slot in own} == {0}, sorted(own)
    assert f"placed in {len(own)} games (a game per role against every bot: 24)" in placed.stdout
    rank = int(placed.stdout.split("late: #", 1)[1].split()[0])
    assert abs(rank - 5) <= 2, placed.stdout
    shown = run_arena("ratings", tmp_path / "t.sqlite", "--json")
    bots = {bot["name"]: bot for bot in json.loads(shown.stdout)["bots"]}
    assert bots["late"].get("swiss_score") is None  # placed after the rounds, in none of them
    assert all(bots[f"g{i:02d}"]["swiss_score"] is not None for i in range(GRADED))


def test_a_stopped_placement_resumes_to_the_games_of_an_unstopped_one(tmp_path: Path) -> None:
    stopped, whole = tmp_path / "stopped", tmp_path / "whole"
    for folder, workers in ((stopped, 2), (whole, 1)):
        config = graded_config(folder, workers)
        done = run_arena("tournament", config, "--quiet", timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    db = stopped / "t.sqlite"
    process = start_arena("submit", late_entry(tmp_path / "late", 0.32), stopped / "t.yaml")
    placing = lambda: stored_game_count(db) >= 8 * GRADED + 4  # noqa: E731
    output = interrupted_when(process, placing, 120, "placement games")
    assert process.returncode == 128 + signal.SIGINT, output
    resumed = run_arena("tournament", stopped / "t.yaml", "--quiet", timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    unstopped = run_arena("submit", tmp_path / "late", whole / "t.yaml", timeout=300)
    assert unstopped.returncode == 0, unstopped.stdout + unstopped.stderr
    games = games_of(db)
    assert len(games) > 8 * GRADED + 4 and games == games_of(whole / "t.sqlite")


def progress_lines(output: str) -> list[tuple[int, int]]:
    """The (done, total) of each ``games D/T`` line a run printed."""
    found = re.findall(r"^games (\d+)/(\d+) ", output, flags=re.MULTILINE)
    return [(int(done), int(total)) for done, total in found]


def test_placement_games_count_in_the_progress_total_as_they_are_decided(
    tmp_path: Path,
) -> None:
    config = graded_config(tmp_path)
    done = run_arena("tournament", config, "--quiet", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    placed = run_arena("submit", late_entry(tmp_path / "late", 0.32), config, timeout=300)
    assert placed.returncode == 0, placed.stdout + placed.stderr
    lines = progress_lines(placed.stdout)
    stored = len(games_of(tmp_path / "t.sqlite"))
    assert lines and all(done <= total for done, total in lines), placed.stdout
    assert lines[-1] == (stored, stored) and stored > 8 * GRADED, placed.stdout


def test_placement_games_count_in_the_budget_and_the_end_says_who_is_not_placed(
    tmp_path: Path,
) -> None:
    """The budget leaves two meetings after the course's 8 rounds: fewer than a placement
    needs, so the entry is left unplaced with the games played its budget."""
    config = graded_config(tmp_path)
    data = json.loads(config.read_text())
    data["budget"] = {"games": 8 * GRADED + 4}
    config.write_text(json.dumps(data))
    done = run_arena("tournament", config, "--quiet", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    placed = run_arena("submit", late_entry(tmp_path / "late", 0.32), config, timeout=300)
    assert placed.returncode == 0, placed.stdout + placed.stderr
    assert len(games_of(tmp_path / "t.sqlite")) == 8 * GRADED + 4
    note = "Not placed: late; the budget of 100 games, in which a late entry's placement games"
    assert note in placed.stdout and "placed in" not in placed.stdout, placed.stdout
    again = run_arena("tournament", config, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "all its rounds are played. " + note in again.stdout.replace("\n", " "), again.stdout
    assert len(games_of(tmp_path / "t.sqlite")) == 8 * GRADED + 4
