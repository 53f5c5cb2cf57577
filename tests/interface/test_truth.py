"""End to end: the commands a new user runs tell the truth about each bot.

A tournament is run through the real ``arena`` command, from bot files written into a fresh folder
as a user would have them: ``random`` (a bundled bot's folder), a bot on the kit whose ``choose``
raises, a bot that writes a debug line on stdout, a bot in a folder of its own whose moves come
from a helper module, an adapter in a shared folder whose data file is named in its command, and
a bot that answers with PGN syntax. Then ``ratings`` (terminal and ``--json``), ``faults``
(``--bot``, ``--reason``, ``--json``) and ``export`` (csv, pgn, jsonl) are read and checked
against the store itself, read with ``sqlite3`` (not through arena). The helper and the data file
are then changed and the tournament run again: those bots' games must be played again.
A second store of the same tournament, played on one worker instead of two, must give the same
ratings (the same games, scheduled differently).
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import sqlite3
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import TEST_BOTS_DIR, bundled_program, run_arena
from pgn_readers import read_pgn, read_pgn_lines

FAULTING = {"raiser": "crash", "debugger": "malformed", "forger": "malformed"}
"""The bots that lose by their own fault, and the one reason each of them faults with."""

MULTI_MAIN = '''"""A bot in a folder of its own: its moves come from the helper module beside it."""
import sys

from helper import reply

for line in iter(sys.stdin.buffer.readline, b""):
    words = line.split() or [b""]
    if words[0] == b"arena":
        sys.stdout.write("ready multi\\n")
        sys.stdout.flush()
    elif words[0] == b"turn":
        sys.stdout.write(reply(words[1].decode()) + "\\n")
        sys.stdout.flush()
    elif words[0] == b"quit":
        break
'''

HELPER = """MARK = "{mark}"


def reply(board):
    cell = board.index(".")
    return "abcdef"[cell % 6] + str(cell // 6 + 1) + MARK
"""

ADAPTER = '''"""An adapter whose engine is the data file its command names: it plays that mark."""
import sys

mark = open(sys.argv[1]).read().strip()
for line in iter(sys.stdin.buffer.readline, b""):
    words = line.split() or [b""]
    if words[0] == b"arena":
        print("ready adapter", flush=True)
    elif words[0] == b"turn":
        cell = words[1].index(b".")
        print("abcdef"[cell % 6] + str(cell // 6 + 1) + mark, flush=True)
    elif words[0] == b"quit":
        break
'''

FORGER = """import sys
for line in sys.stdin:
    if line.startswith("arena"):
        print("ready forger", flush=True)
    elif line.startswith("turn"):
        sys.stderr.write('} [Result "1-0"]\\n[White "x"]\\n')
        print('} [Result "1-0"] {', flush=True)
    elif line.startswith("quit"):
        break
"""

EVENT = 'truth "event" }'
"""The tournament's name: with a quote and a brace, which the PGN must escape in [Event]."""


def _write_bots(folder: Path) -> None:
    bots = folder / "bots"
    (bots / "random").mkdir(parents=True)
    shutil.copy(bundled_program("random"), bots / "random" / "main.py")
    shutil.copy(TEST_BOTS_DIR / "raises_in_choose.py", bots / "raiser.py")
    shutil.copy(TEST_BOTS_DIR / "debug_on_stdout.py", bots / "debugger.py")
    (bots / "forger.py").write_text(FORGER)
    (bots / "multi").mkdir()
    (bots / "multi" / "main.py").write_text(MULTI_MAIN)
    (bots / "multi" / "helper.py").write_text(HELPER.format(mark="X"))
    (bots / "adapter.py").write_text(ADAPTER)
    (bots / "engine.txt").write_text("O\n")


def _config(folder: Path, db: str) -> Path:
    bots = folder / "bots"
    data = {
        "name": EVENT,
        "bots": [
            {"name": "random", "path": str(bots / "random")},
            {"name": "raiser", "path": str(bots / "raiser.py")},
            {"name": "debugger", "path": str(bots / "debugger.py")},
            {"name": "multi", "path": str(bots / "multi")},
            {
                "name": "adapter",
                "command": [sys.executable, str(bots / "adapter.py"), str(bots / "engine.txt")],
            },
            {"name": "forger", "path": str(bots / "forger.py")},
        ],
        "games_per_pairing": 1,
        "time_control": {"move_ms": 500, "startup_ms": 5000},
        "seed": 7,
        "db": str(folder / db),
    }
    path = folder / f"{db}.yaml"
    path.write_text(json.dumps(data, indent=2) + "\n")  # JSON is YAML
    return path


@dataclass
class Truth:
    """Everything the user saw, and where the store is."""

    folder: Path
    db: Path
    first: str
    """The first run's output (stdout and stderr)."""
    ratings: dict[str, Any]
    """``arena ratings --json`` after the first run."""
    one_worker: dict[str, Any]
    """``arena ratings --json`` of the same tournament played on one worker."""
    rerun: str
    """The output of the run after the helper and the data file changed (``--quiet``)."""
    table: str
    """``arena ratings`` after that run."""


def _ok(*args: object, timeout: float = 180) -> str:
    result = run_arena(*map(str, args), timeout=timeout)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "Traceback" not in result.stderr, output
    return result.stdout


@pytest.fixture(scope="module")
def truth(tmp_path_factory: pytest.TempPathFactory) -> Truth:
    folder = tmp_path_factory.mktemp("truth")
    _write_bots(folder)
    first = run_arena("tournament", _config(folder, "t.sqlite"), "--workers", "2", timeout=180)
    assert first.returncode == 0, first.stdout + first.stderr
    ratings = json.loads(_ok("ratings", folder / "t.sqlite", "--json"))
    _ok("tournament", _config(folder, "one.sqlite"), "--workers", "1", "--quiet")
    one_worker = json.loads(_ok("ratings", folder / "one.sqlite", "--json"))
    (folder / "bots" / "multi" / "helper.py").write_text(HELPER.format(mark="O"))
    (folder / "bots" / "engine.txt").write_text("X\n")
    rerun = run_arena("tournament", folder / "t.sqlite.yaml", "--quiet", timeout=180)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    table = _ok("ratings", folder / "t.sqlite")
    return Truth(
        folder, folder / "t.sqlite", first.stdout + first.stderr, ratings, one_worker,
        rerun.stdout + rerun.stderr, table,
    )  # fmt: skip


def _games(db: Path) -> list[sqlite3.Row]:
    """The games of the bots' current versions, read from the file itself."""
    conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute(
            "SELECT * FROM games WHERE"
            " (order_name, order_version) IN (SELECT name, version FROM bots WHERE active)"
            " AND (chaos_name, chaos_version) IN (SELECT name, version FROM bots WHERE active)"
            " ORDER BY id"
        ).fetchall()
    finally:
        conn.close()


def _loser(game: sqlite3.Row) -> str:
    return str(game["chaos_name"] if game["winner"] == "order" else game["order_name"])


def _faults(db: Path) -> Counter[tuple[str, str]]:
    """(bot at fault, reason) -> games, from the store."""
    return Counter(
        (_loser(g), g["reason"]) for g in _games(db) if g["reason"] not in ("five", "full")
    )


# --- faults must be visible ----------------------------------------------------------------------


def test_the_store_holds_the_faults_each_bot_was_written_to_make(truth: Truth) -> None:
    """The scenario itself: each faulting bot faults, with its one reason, and no other does."""
    faults = _faults(truth.db)
    assert {bot for bot, _ in faults} == set(FAULTING)
    assert all(FAULTING[bot] == reason for bot, reason in faults)


def test_the_standings_show_each_bots_faults_by_reason(truth: Truth) -> None:
    """In the table's faults column and the footer, as the tournament ends and in ``ratings``."""
    first = {b["name"]: b["fault_total"] for b in truth.ratings["bots"]}
    for output, counts in ((truth.first, first), (truth.table, None)):
        flat = " ".join(output.split())
        for bot, reason in FAULTING.items():
            count = _faults(truth.db)[bot, reason] if counts is None else counts[bot]
            assert count > 0
            assert f"{bot} {count} ({count} {reason})" in flat
            row = next(
                line for line in output.splitlines() if re.match(rf"\s*\d+=?\s+{bot}\b", line)
            )
            assert row.split()[-1] == str(count), row  # the table's faults column
        assert f"arena faults {truth.db}" in output


def test_ratings_json_has_faults_per_bot_and_reason(truth: Truth) -> None:
    faults = _faults(truth.db)
    ratings = json.loads(_ok("ratings", truth.db, "--json"))
    for bot in ratings["bots"]:
        expected = {r: faults[bot["name"], r] for r in bot["faults"]}
        assert bot["faults"] == expected
        assert set(bot["faults"]) == {"timeout", "illegal", "malformed", "crash", "startup"}
        assert bot["fault_total"] == sum(expected.values())


def test_faults_lists_each_faulted_game_with_what_the_bot_wrote(truth: Truth) -> None:
    faults = _faults(truth.db)
    raiser = _ok("faults", truth.db, "--bot", "raiser")
    assert raiser.count("raiser as ") == faults["raiser", "crash"]
    # the kit's exception is a crash that names it, and the traceback is in the stderr lines
    assert (
        raiser.count("last on stderr: ValueError: no idea what to play here")
        == (faults["raiser", "crash"])
    )
    assert 'raise ValueError("no idea what to play here")' in raiser

    malformed = _ok("faults", truth.db, "--reason", "malformed")
    assert "raiser" not in malformed.replace("vs raiser", "")
    # the debug line is quoted, then the move
    assert 'wrote more than one line for one turn: "debug: thinking...", then "a1X"' in malformed
    assert not any(ch in malformed for ch in "\x1b\r")

    rows = json.loads(_ok("faults", truth.db, "--bot", "forger", "--reason", "malformed", "--json"))
    assert len(rows) == faults["forger", "malformed"] > 0
    for row in rows:
        assert row["bot"] == "forger" and row["reason"] == "malformed"
        assert row["detail"] == r'not a move: "} [Result \"1-0\"] {"'  # quoted, escaped
        assert row["stderr"] == ['} [Result "1-0"]', '[White "x"]']


def test_a_bot_that_raises_is_not_rated_like_random(truth: Truth) -> None:
    """The kit surfaces the author's bug: no silent random move, so no random-like rating."""
    bots = {b["name"]: b for b in truth.ratings["bots"]}
    assert bots["raiser"]["faults"]["crash"] > 0
    assert bots["raiser"]["wins"] < bots["random"]["wins"]


def test_match_tells_an_unflushed_bot_and_a_raising_one_what_went_wrong(tmp_path: Path) -> None:
    unflushed = shutil.copy(TEST_BOTS_DIR / "unflushed.py", tmp_path / "unflushed.py")
    raiser = shutil.copy(TEST_BOTS_DIR / "raises_in_choose.py", tmp_path / "raiser.py")
    output = _ok("match", unflushed, "random", "--games", "1", "--startup-ms", "1000")
    assert "nothing arrived on stdout" in output and "flush" in output
    output = _ok("match", raiser, "random", "--games", "2")
    assert "no faults" not in output
    assert "crash" in output and "ValueError: no idea what to play here" in output


# --- a bot is all of its files -------------------------------------------------------------------


def test_a_changed_helper_or_data_file_replays_the_bot(truth: Truth) -> None:
    assert "bot multi changed" in truth.rerun
    assert "bot adapter changed" in truth.rerun
    for other in ("random", "raiser", "debugger", "forger"):
        assert f"bot {other} changed" not in truth.rerun
    assert "Standings:" in truth.rerun  # --quiet hides the progress only
    # the current games are the new versions': multi plays O now, the adapter X
    for game in _games(truth.db):
        moves = json.loads(game["moves"])
        for role in ("order", "chaos"):
            mine = moves[0 if role == "order" else 1 :: 2]
            if game[f"{role}_name"] == "multi":
                assert all(m.endswith("O") for m in mine), mine
            if game[f"{role}_name"] == "adapter":
                assert all(m.endswith("X") for m in mine), mine


def test_shared_folders_are_said_once_and_old_versions_named_apart(truth: Truth) -> None:
    notes = [line for line in truth.first.splitlines() if "not their own" in line]
    assert len(notes) == 1
    for bot in ("raiser", "debugger", "forger"):
        assert bot in notes[0]
    assert "multi" not in notes[0] and "random" not in notes[0]
    every = json.loads(_ok("ratings", truth.db, "--json", "--all-versions"))
    names = [b["name"] for b in every["bots"]]
    assert len([n for n in names if n.startswith("multi@")]) == 2
    assert len([n for n in names if n.startswith("adapter@")]) == 2
    exported = _ok("export", truth.db, "--format", "csv", "--all-versions")
    assert len({row["order"] for row in csv.DictReader(io.StringIO(exported))}) == len(names)


# --- exports must be safe ------------------------------------------------------------------------


def _expected(db: Path) -> list[tuple[str, str, str]]:
    return [
        (g["order_name"], g["chaos_name"], "1-0" if g["winner"] == "order" else "0-1")
        for g in _games(db)
    ]


def test_pgn_results_are_the_stores_whatever_the_bots_wrote(truth: Truth) -> None:
    text = _ok("export", truth.db, "--format", "pgn")
    expected = _expected(truth.db)
    assert Counter(read_pgn_lines(text)) == Counter(expected)  # as Ordo reads it
    games = read_pgn(text)  # as the standard reads it: nothing after a result token
    assert Counter((g.tags["White"], g.tags["Black"], g.result) for g in games) == Counter(expected)
    assert all(g.tags["Event"] == EVENT for g in games)
    assert any("Result" in comment for g in games for comment in g.comments)


def test_csv_and_jsonl_carry_the_details_as_stored(truth: Truth) -> None:
    stored = Counter((g["order_name"], g["chaos_name"], g["detail"]) for g in _games(truth.db))
    rows = list(csv.DictReader(io.StringIO(_ok("export", truth.db, "--format", "csv"))))
    assert Counter((r["order"], r["chaos"], r["detail"]) for r in rows) == stored
    lines = _ok("export", truth.db, "--format", "jsonl").splitlines()
    records = [json.loads(line) for line in lines]
    assert Counter((r["order"], r["chaos"], r["detail"]) for r in records) == stored


# --- ratings that say what they are --------------------------------------------------------------


def test_the_same_games_give_the_same_ratings_however_scheduled(truth: Truth) -> None:
    def figures(ratings: dict[str, Any]) -> dict[str, tuple[float, float]]:
        return {b["name"]: (b["elo"], b["elo_sequential"]) for b in ratings["bots"]}

    two, one = figures(truth.ratings), figures(truth.one_worker)
    assert two.keys() == one.keys()
    for name in two:
        assert two[name] == pytest.approx(one[name], abs=1e-6), name


def test_ratings_json_says_what_the_numbers_are(truth: Truth) -> None:
    ratings = truth.ratings
    assert ratings["converged"] is True and ratings["fit"]["converged"] is True
    assert ratings["sequential_elo"]["k"] > 0 and ratings["sequential_elo"]["initial"] > 0
    assert ratings["distinct_games"] <= ratings["games"]
    bots = {b["name"]: b for b in ratings["bots"]}
    # a bot that lost every game as Order has a bound there, not an estimate
    assert bots["forger"]["order"]["bound"] == "<" and bots["forger"]["order"]["ci95"] is None


def test_the_standings_fit_80_columns_with_full_names(truth: Truth) -> None:
    output = truth.table
    lines = [line for line in output.splitlines() if str(truth.db) not in line]  # a long path
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    for bot in ("random", "raiser", "debugger", "multi", "adapter", "forger"):
        assert re.search(rf"^\d+\s+{bot}\b", output, re.MULTILINE), bot
