"""``arena tournament``, ``arena ratings`` and ``arena export`` end to end, through the real CLI.

Every test runs ``python -m arena`` in a subprocess (with a timeout) on configs written into
``tmp_path``, with copies of the bots there too, so that a scan of ``/proc`` for ``tmp_path``
finds every process a tournament started: the harness, its workers and the bots (bwrap's command
line names the bot as well). Waits poll with a deadline; nothing sleeps for luck.
"""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import re
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import (
    REPO_ROOT,
    bundled_program,
    run_arena,
    stored_game_count,
    wait_for_no_leftovers,
    wait_until,
)
from factories import bot_entries, copy_bot, write_config

from arena.export.formats import CSV_FIELDS

ROOT = REPO_ROOT
TEST_BOTS = ROOT / "tests" / "bots"
BUNDLED = ROOT / "bots"
CORES = len(os.sched_getaffinity(0))


# --- helpers -----------------------------------------------------------------------------------


def owed(names: Sequence[str], games: int) -> Counter[tuple[str, str, int]]:
    return Counter((a, b, i) for a in names for b in names if a != b for i in range(games))


def stored_slots(db: Path) -> Counter[tuple[str, str, int]]:
    """Every stored game's (order, chaos, slot), from the file (read-only), active or not."""
    with sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT order_name, chaos_name, slot FROM games").fetchall()
    conn.close()
    return Counter(tuple(row) for row in rows)


def integrity(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def has_five(board: dict[tuple[int, int], str]) -> bool:
    for row in range(6):
        for col in range(6):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(row + k * dr, col + k * dc) for k in range(5)]
                if all(0 <= r < 6 and 0 <= c < 6 for r, c in cells):
                    marks = {board.get(cell) for cell in cells}
                    if len(marks) == 1 and None not in marks:
                        return True
    return False


def check_record(record: dict) -> None:
    """Replay a game on a naive board: legal moves, and the result the rules give."""
    board: dict[tuple[int, int], str] = {}
    moves = record["moves"]
    assert len(record["ms"]) == len(moves)
    for ply, token in enumerate(moves):
        assert re.fullmatch(r"[a-f][1-6][XO]", token), token
        cell = (int(token[1]) - 1, "abcdef".index(token[0]))
        assert cell not in board, f"{token}: occupied"
        board[cell] = token[2]
        if has_five(board):
            assert ply == len(moves) - 1, "the game went on after a five"
    if record["reason"] == "five":
        assert has_five(board) and record["winner"] == "order"
    elif record["reason"] == "full":
        assert len(moves) == 36 and not has_five(board) and record["winner"] == "chaos"
    else:  # a fault: the game stopped early, before any five
        assert not has_five(board) and len(moves) < 36


def no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stdout + result.stderr, result.stderr


# --- a finished round-robin, shared by the tests that only read it ------------------------------

NAMES = ("instant", "random", "paced")


Finished = tuple[Path, subprocess.CompletedProcess[str]]
"""The store of a finished round-robin, and the output of the command that ran it."""


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Finished:
    """A round-robin of 3 bots with 2 workers, 4 games per ordered pairing, run through the CLI."""
    tmp_path = tmp_path_factory.mktemp("finished")
    config = write_config(tmp_path, bot_entries(tmp_path, NAMES), games_per_pairing=4)
    result = run_arena("tournament", config)
    assert result.returncode == 0, result.stdout + result.stderr
    return tmp_path / "t.sqlite", result


def test_round_robin_plays_every_slot_once(finished: Finished) -> None:
    db, result = finished
    assert stored_slots(db) == owed(NAMES, 4)
    assert integrity(db) == "ok"
    assert "24 games played this run, 0 resumed; 0 harness errors" in result.stdout
    assert "Standings" in result.stdout
    no_traceback(result)

    exported = run_arena("export", db, "--format", "jsonl")
    assert exported.returncode == 0, exported.stderr
    records = [json.loads(line) for line in exported.stdout.splitlines()]
    assert len(records) == 24
    for record in records:
        check_record(record)
    distinct = {(r["order"], r["chaos"], tuple(r["moves"])) for r in records}
    assert f"{len(distinct)} distinct games of 24" in result.stdout
    as_order = Counter(r["order"] for r in records)
    as_chaos = Counter(r["chaos"] for r in records)
    assert as_order == as_chaos == dict.fromkeys(NAMES, 8)  # roles balanced

    ratings = run_arena("ratings", db, "--json")
    assert ratings.returncode == 0, ratings.stderr
    data = json.loads(ratings.stdout)
    assert sorted(bot["name"] for bot in data["bots"]) == sorted(NAMES)
    for bot in data["bots"]:
        assert bot["games"] == 16
        assert {"wins", "elo", "elo_order", "elo_chaos"} <= bot.keys()
    wins = sum(bot["wins"] for bot in data["bots"])
    assert wins == 24


def test_output_off_a_terminal_is_plain_progress_lines(finished: Finished) -> None:
    _db, result = finished
    assert re.search(r"^games 24/24 .*games/s.*faults \d+", result.stdout, re.MULTILINE)
    assert "\x1b" not in result.stdout and "\r" not in result.stdout


def test_export_formats(finished: Finished, tmp_path: Path) -> None:
    db, _result = finished
    bot = copy_bot(tmp_path / "bots", "instant.py")
    record_file = tmp_path / "match.jsonl"
    match = run_arena("match", bot, bot, "--games", "2", "--record", record_file, "--quiet")
    assert match.returncode == 0, match.stderr
    record_keys = {frozenset(json.loads(line)) for line in record_file.read_text().splitlines()}

    out = tmp_path / "games.jsonl"
    jsonl = run_arena("export", db, "--format", "jsonl", "--out", out)
    assert jsonl.returncode == 0 and jsonl.stdout == "", jsonl.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 24
    assert {frozenset(r) for r in records} == record_keys

    table = run_arena("export", db, "--format", "csv")
    assert table.returncode == 0, table.stderr
    rows = list(csv.reader(io.StringIO(table.stdout)))
    assert tuple(rows[0]) == CSV_FIELDS
    assert len(rows) == 25
    assert [(row[0], row[1], row[2], row[3]) for row in rows[1:]] == [
        (str(r["game"]), r["order"], r["chaos"], r["winner"]) for r in records
    ]

    pgn = run_arena("export", db, "--format", "pgn")
    assert pgn.returncode == 0, pgn.stderr
    tags = re.findall(r'^\[(White|Black|Result) "([^"]*)"\]$', pgn.stdout, re.MULTILINE)
    games = [tags[i : i + 3] for i in range(0, len(tags), 3)]
    expected = [
        [("White", r["order"]), ("Black", r["chaos"]),
         ("Result", "1-0" if r["winner"] == "order" else "0-1")]
        for r in records
    ]  # fmt: skip
    assert games == expected


@pytest.mark.parametrize("command", [["export"], ["export", "--format", "pgn"], ["ratings"]])
def test_missing_store_is_a_clean_error(tmp_path: Path, command: list[str]) -> None:
    missing = tmp_path / "nope.sqlite"
    result = run_arena(*command[:1], missing, *command[1:])
    assert result.returncode != 0
    assert str(missing) in result.stderr and "no such store" in result.stderr
    no_traceback(result)
    assert not missing.exists()


def test_unknown_export_format_is_a_clean_error(finished: Finished) -> None:
    db, _result = finished
    result = run_arena("export", db, "--format", "xml")
    assert result.returncode != 0 and "jsonl, csv, pgn" in result.stderr
    no_traceback(result)


# --- output modes -------------------------------------------------------------------------------


def test_quiet_hides_the_progress_but_prints_the_standings(tmp_path: Path) -> None:
    config = write_config(tmp_path, bot_entries(tmp_path, ["instant", "paced"]))
    result = run_arena("tournament", config, "--quiet", "--workers", CORES + 1)
    assert result.returncode == 0, result.stderr
    assert "games 4/4" not in result.stdout and "eta" not in result.stdout  # no progress
    assert "workers asked are used" not in result.stdout  # notes go to stderr when quiet
    assert "Standings: 4 games" in result.stdout, result.stdout
    assert re.search(r"^\d\s+instant\s", result.stdout, re.M), result.stdout
    assert re.search(r"^\d\s+paced\s", result.stdout, re.M), result.stdout
    assert "4 games played this run, 0 resumed; 0 harness errors" in result.stdout
    assert stored_slots(tmp_path / "t.sqlite") == owed(["instant", "paced"], 2)


def test_too_many_workers_are_capped_unless_forced(tmp_path: Path) -> None:
    # More pairings (a match each) than the workers asked, which are more than the cores.
    asked = 2 * CORES + 2
    names = ["instant", "paced"]
    while len(names) * (len(names) - 1) // 2 < asked:
        names.append(f"paced{len(names)}")
    config = write_config(tmp_path, bot_entries(tmp_path, names), games_per_pairing=1)
    result = run_arena("tournament", config, "--workers", asked, "--fresh")
    assert result.returncode == 0, result.stderr
    assert f"workers asked are used: the machine has {CORES} core" in result.stdout
    assert f"of the {asked} workers" in result.stdout
    assert "warning" not in result.stdout
    forced = run_arena("tournament", config, "--workers", asked, "--force-workers", "--fresh")
    assert forced.returncode == 0, forced.stderr
    assert f"warning: {asked} workers on {CORES} cores" in forced.stdout
    assert "workers asked are used" not in forced.stdout


def test_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    config = write_config(tmp_path, bot_entries(tmp_path, ["instant", "paced"]))
    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "120"}
    with subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", str(config)],
        stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env,
    ) as process:  # fmt: skip
        os.close(slave)
        output = b""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: the other side is closed
                    break
                if not data:
                    break
                output += data
            elif process.poll() is not None:
                break
        os.close(master)
        assert process.wait(timeout=30) == 0, output.decode(errors="replace")
    text = output.decode(errors="replace")
    assert "━" in text and "4/4" in text  # the bar, games done of owed
    assert not re.search(r"^games \d+/\d+ ", text, re.MULTILINE)  # no plain progress lines


# --- resuming -----------------------------------------------------------------------------------


def test_adding_a_bot_plays_only_its_games(tmp_path: Path) -> None:
    bots = bot_entries(tmp_path, ["instant", "random", "paced"])
    config = write_config(tmp_path, bots[:2])
    first = run_arena("tournament", config)
    assert first.returncode == 0, first.stderr
    assert stored_slots(tmp_path / "t.sqlite") == owed(["instant", "random"], 2)

    write_config(tmp_path, bots)
    second = run_arena("tournament", config)
    assert second.returncode == 0, second.stderr
    assert "resuming: 4 of 12 games already played" in second.stdout
    assert "8 games played this run, 4 resumed" in second.stdout
    assert stored_slots(tmp_path / "t.sqlite") == owed(["instant", "random", "paced"], 2)

    third = run_arena("tournament", config, "--quiet")
    assert third.returncode == 0, third.stderr
    assert "resuming" not in third.stdout and "0 games played this run, 12 resumed" in third.stdout
    assert sum(stored_slots(tmp_path / "t.sqlite").values()) == 12


def test_a_changed_bot_is_replayed_and_its_old_games_set_aside(tmp_path: Path) -> None:
    bots = bot_entries(tmp_path, ["instant", "random", "paced"])
    config = write_config(tmp_path, bots)
    db = tmp_path / "t.sqlite"
    first = run_arena("tournament", config)
    assert first.returncode == 0, first.stderr

    with open(bots[0]["path"], "a") as f:
        f.write("# a comment changes the bot's identity\n")
    second = run_arena("tournament", config)
    assert second.returncode == 0, second.stderr
    assert "bot instant changed since the last run: its 8 earlier games are set aside" in (
        second.stdout
    )
    assert "8 games played this run, 4 resumed" in second.stdout
    # Said before the games, so that a run stopped midway has said it too.
    assert second.stdout.index("since the last run") < second.stdout.index("games 5/12")
    assert sum(stored_slots(db).values()) == 20  # the old games are kept, not counted

    ratings = json.loads(run_arena("ratings", db, "--json").stdout)
    assert {bot["name"]: bot["games"] for bot in ratings["bots"]} == {
        "instant": 8, "random": 8, "paced": 8,
    }  # fmt: skip
    exported = run_arena("export", db).stdout.splitlines()
    versions = {
        json.loads(line)["order_version"] for line in exported if '"order":"instant"' in line
    }
    assert len(exported) == 12 and len(versions) == 1

    third = run_arena("tournament", config)  # said once: the store now knows the new version
    assert third.returncode == 0 and "since the last run" not in third.stdout


def test_fresh_starts_over(tmp_path: Path) -> None:
    config = write_config(tmp_path, bot_entries(tmp_path, ["instant", "paced"]))
    assert run_arena("tournament", config, "--quiet").returncode == 0
    before = stored_slots(tmp_path / "t.sqlite")
    again = run_arena("tournament", config, "--fresh")
    assert again.returncode == 0, again.stderr
    assert "4 games played this run, 0 resumed" in again.stdout
    assert stored_slots(tmp_path / "t.sqlite") == owed(["instant", "paced"], 2)
    said = re.search(r"--fresh: 4 games discarded, kept in (\S+) ", again.stdout)
    assert said is not None, again.stdout
    backup = Path(said[1])
    assert backup.parent == tmp_path and backup.name.startswith("t.before-fresh-")
    assert stored_slots(backup) == before == owed(["instant", "paced"], 2)


def test_paths_are_printed_as_they_are(tmp_path: Path) -> None:
    """Brackets in a path are not rich markup: neither dropped nor a crash."""
    db = tmp_path / "[" / "]cup[b].sqlite"
    config = write_config(tmp_path, bot_entries(tmp_path, ["instant", "paced"]), db=str(db))
    result = run_arena("tournament", config)
    assert result.returncode == 0, result.stderr
    assert f"Results: {db}" in result.stdout
    no_traceback(result)


INTERRUPTED_BOTS = ("instant", "random", "paced1", "paced2")
INTERRUPTED_GAMES = 6


def start_and_stop(tmp_path: Path, stop: signal.Signals) -> tuple[Path, Path, str]:
    """Start a tournament, wait until it has stored a game, then send ``stop``.

    SIGINT goes to the harness's process group (as Ctrl-C would); SIGKILL to its main process
    only. Returns the config, the store and what the harness printed.
    """
    config = write_config(
        tmp_path,
        bot_entries(tmp_path, INTERRUPTED_BOTS, pace_ms=10),
        games_per_pairing=INTERRUPTED_GAMES,
    )
    db = tmp_path / "t.sqlite"
    total = sum(owed(INTERRUPTED_BOTS, INTERRUPTED_GAMES).values())
    scratch = tmp_path / "tmp"  # the harness's temporary folders: none may be left behind
    scratch.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", str(config)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        env={**os.environ, "TMPDIR": str(scratch)},
    )
    try:
        wait_until(lambda: stored_game_count(db) >= 1 or process.poll() is not None, 30)
        assert process.poll() is None, process.communicate()[0]
        assert (stored := stored_game_count(db)) >= 1, "no game stored in time"
        assert stored < total  # still running
        if stop is signal.SIGINT:
            os.killpg(process.pid, signal.SIGINT)
        else:
            os.kill(process.pid, stop)
        stopped = time.monotonic()
        output, _ = process.communicate(timeout=30)
        assert time.monotonic() - stopped < 4, "slow to stop: a worker ignored its SIGTERM?"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
    if stop is signal.SIGKILL:
        assert process.returncode == -signal.SIGKILL
    else:
        assert process.returncode == 128 + stop, output
    assert wait_for_no_leftovers([str(tmp_path)], timeout=10) == []  # no worker, no bot left
    assert sorted(p.name for p in scratch.iterdir()) == []  # nor their temporary folders
    assert integrity(db) == "ok"
    slots = stored_slots(db)
    assert 0 < sum(slots.values()) < total
    assert max(slots.values()) == 1 and set(slots) <= set(owed(INTERRUPTED_BOTS, INTERRUPTED_GAMES))
    return config, db, output


def resume_completes(config: Path, db: Path) -> None:
    already = sum(stored_slots(db).values())
    total = sum(owed(INTERRUPTED_BOTS, INTERRUPTED_GAMES).values())
    result = run_arena("tournament", config)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"resuming: {already} of {total} games already played" in result.stdout
    played = total - already
    games = "game" if played == 1 else "games"
    assert f"{played} {games} played this run, {already} resumed" in result.stdout
    assert stored_slots(db) == owed(INTERRUPTED_BOTS, INTERRUPTED_GAMES)
    assert integrity(db) == "ok"


def test_ctrl_c_stops_cleanly_and_the_rerun_resumes(tmp_path: Path) -> None:
    config, db, output = start_and_stop(tmp_path, signal.SIGINT)
    assert "Resume with:" in output and f"arena tournament {config}" in output
    assert "Traceback" not in output and "Exception ignored" not in output
    reported = int(re.search(r"interrupted \(SIGINT\): (\d+) games? stored", output).group(1))
    assert reported <= sum(stored_slots(db).values())
    resume_completes(config, db)


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_stop_like_ctrl_c(tmp_path: Path, stop: signal.Signals) -> None:
    config, db, output = start_and_stop(tmp_path, stop)
    assert f"interrupted ({stop.name})" in output and "Resume with:" in output
    assert "Traceback" not in output and "Exception ignored" not in output
    resume_completes(config, db)


def test_sigkill_of_the_harness_leaves_nothing_running_and_the_rerun_resumes(
    tmp_path: Path,
) -> None:
    config, db, _output = start_and_stop(tmp_path, signal.SIGKILL)
    resume_completes(config, db)


# --- the example and bad configs ----------------------------------------------------------------


def test_the_example_tournament_runs_to_completion(tmp_path: Path) -> None:
    text = (ROOT / "tournaments" / "example.yaml").read_text()
    assert "../bots/shell" in text
    config = tmp_path / "example.yaml"
    config.write_text(text.replace("../bots/shell", str(BUNDLED / "shell")))
    result = run_arena("tournament", config, "--workers", min(CORES, 2))
    assert result.returncode == 0, result.stdout + result.stderr
    db = tmp_path / "results" / "example.sqlite"
    assert stored_slots(db) == owed(["random", "greedy", "shell"], 10)
    assert "60 games played this run, 0 resumed; 0 harness errors" in result.stdout
    no_traceback(result)


BAD_CONFIGS = {
    "unknown key": ("game_per_pairing: 3\n", "game_per_pairing", 5, "did you mean"),
    "wrong type": ("games_per_pairing: ten\n", "games_per_pairing", 5, "positive integer"),
    "bad section value": (
        "time_control: {move_ms: -5}\n",
        "time_control.move_ms",
        5,
        "positive integer",
    ),
    "missing bot file": ("", "bots[1].path", 4, "not found"),
    "bad yaml": ("workers: [1, 2\n", None, None, "invalid YAML"),
    "bad format": ("format: knockout\n", "format", 5, "round-robin"),
}


@pytest.mark.parametrize("case", list(BAD_CONFIGS))
def test_a_wrong_config_gets_one_clear_message(tmp_path: Path, case: str) -> None:
    extra, key, line, expected = BAD_CONFIGS[case]
    instant = copy_bot(tmp_path / "bots", "instant.py")
    second = "nope.py" if case == "missing bot file" else instant
    config = tmp_path / "bad.yaml"
    config.write_text(
        f"bots:\n  - {{name: a, path: {instant}}}\n  - name: b\n    path: {second}\n{extra}"
    )
    result = run_arena("tournament", config)
    assert result.returncode != 0
    no_traceback(result)
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1, message
    assert str(config) in message and expected in message
    if key is not None:
        assert f"{key}:" in message
    if line is not None:
        assert f"{config}:{line}:" in message
    assert not (tmp_path / "results").exists()  # nothing created


def test_a_missing_config_file_is_a_clean_error(tmp_path: Path) -> None:
    result = run_arena("tournament", tmp_path / "missing.yaml")
    assert result.returncode != 0 and "missing.yaml: file not found" in result.stderr
    no_traceback(result)


def _folder_bot(tmp_path: Path, name: str) -> Path:
    """A folder bot: the bundled random bot as its ``main.py``."""
    folder = tmp_path / name
    folder.mkdir()
    shutil.copyfile(bundled_program("random"), folder / "main.py")
    return folder


def test_a_link_to_a_proc_file_in_a_bots_folder_is_one_line_at_once(tmp_path: Path) -> None:
    """``/proc/self/pagemap`` (0 bytes by ``stat``, ~256 GiB read) in a bot's folder: the
    tournament says so in one line, in seconds (it hashed for minutes), and stores no game."""
    odd = _folder_bot(tmp_path, "proc")
    (odd / "pagemap").symlink_to("/proc/self/pagemap")
    bots = [*bot_entries(tmp_path, ["instant"]), {"name": "proc", "path": str(odd)}]
    started = time.monotonic()
    result = run_arena("tournament", write_config(tmp_path, bots), timeout=60)
    assert time.monotonic() - started < 30
    assert result.returncode != 0
    no_traceback(result)
    assert "pagemap' reads more than its size (0 bytes)" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_file_name_that_is_not_utf8_in_a_bots_folder_is_hashed(tmp_path: Path) -> None:
    """A file name that is not UTF-8 in a bot's folder: the tournament plays (it crashed with
    ``UnicodeEncodeError`` at the version hash)."""
    odd = _folder_bot(tmp_path, "odd")
    (odd / os.fsdecode(b"notes-\xff.txt")).write_bytes(b"x")
    bots = [*bot_entries(tmp_path, ["instant"]), {"name": "odd", "path": str(odd)}]
    result = run_arena("tournament", write_config(tmp_path, bots), timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    no_traceback(result)
    assert stored_slots(tmp_path / "t.sqlite") == owed(["instant", "odd"], 2)


def test_a_run_that_ends_owing_games_says_so_beside_its_standings(tmp_path: Path) -> None:
    """A bot that kills its worker every time: its games stay owed after every replay, and the
    standings at the end name the pairings and the harness error, not "No faults" alone."""
    killer = copy_bot(tmp_path / "bots", "kill_parent.py", executable=True)
    bots = [
        *bot_entries(tmp_path, ["instant", "paced"]),
        {"name": "killer", "command": [str(killer)]},
    ]
    config = write_config(tmp_path, bots, sandbox="none", games_per_pairing=1)
    result = run_arena("tournament", config)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "arena: incomplete: 4 games are still owed" in result.stderr
    text = " ".join(result.stdout.split())
    assert "INCOMPLETE: 4 games are still owed, in 2 pairings: instant~killer 2 (3 harness" in text
    assert "paced~killer 2 (3 harness errors, the last: worker process died" in text
    assert "No faults in the games stored" in text and "No faults." not in text
