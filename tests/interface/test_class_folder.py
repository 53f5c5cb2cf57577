"""A class entered by one line: ``- {folder: students}`` is every bot in the folder.

Each sub-folder with a program, and each program directly in the folder, is a bot named after it;
the run says which it found and which entries it skipped, and why. A bot written as a path where
a name is expected gets the mapping to write. ``arena validate`` on the folder prints one table.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest
from conftest import TEST_BOTS_DIR, run_arena, start_arena
from factories import write_config

from arena.botspec import BotSpec
from arena.commands.validate.batch import validate_many
from arena.commands.validate.report import Report
from arena.config import config_from_dict, load_config
from arena.errors import ConfigError

CORRECT = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan"]
BROKEN = {"mallory": "crash_midgame.py", "oscar": "go_panic.py", "trudy": "illegal.py"}


def _folder_bot(folder: Path, name: str, fixture: str = "instant.py") -> Path:
    (folder / name).mkdir(parents=True)
    shutil.copyfile(TEST_BOTS_DIR / fixture, folder / name / "main.py")
    return folder / name


def _class(root: Path) -> Path:
    """``root/students``: 12 submissions (3 broken) as folders and single files, and what a
    class folder also holds: notes, a hidden folder, a folder not built yet."""
    students = root / "students"
    for name in CORRECT[:6]:
        _folder_bot(students, name)
    for name in CORRECT[6:]:
        shutil.copyfile(TEST_BOTS_DIR / "instant.py", students / f"{name}.py")
    _folder_bot(students, "oscar", BROKEN["oscar"])
    shutil.copyfile(TEST_BOTS_DIR / BROKEN["mallory"], students / "mallory.py")
    shutil.copyfile(TEST_BOTS_DIR / BROKEN["trudy"], students / "trudy.py")
    (students / "notes.txt").write_text("grades\n")
    (students / ".git").mkdir()
    (students / "peggy").mkdir()
    (students / "peggy" / "main.c").write_text("int main(void) { return 0; }\n")
    return students


def test_a_folder_entry_is_every_bot_in_it_and_says_what_it_skipped(tmp_path: Path) -> None:
    _class(tmp_path)
    (tmp_path / "students" / "Zoë Ng.py").write_text("print('ready')\n")
    config = load_config(write_config(tmp_path, ["random", {"folder": "students"}]))
    names = [spec.name for spec in config.bots]
    assert names == ["random", *sorted([*CORRECT, *BROKEN, "Zoe-Ng"], key=str.lower)]
    bob = next(spec for spec in config.bots if spec.name == "bob")
    assert bob.own_dir and bob.dir == tmp_path / "students" / "bob"
    found = config.notices[0]
    assert found.startswith("bots[1]: students: 13 bots found (alice, bob, carol, ")
    assert "3 skipped: students/.git: hidden; students/notes.txt: not a program" in found
    assert "students/peggy: no main.py or executable main (build main.c into an executable" in found


def _error(tmp_path: Path, bots: list[object]) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(write_config(tmp_path, bots, file="t.yaml"))
    return str(caught.value)


def _line_of(config: Path, text: str) -> int:
    return next(i for i, line in enumerate(config.read_text().splitlines(), 1) if text in line)


def test_folder_errors_name_the_file_line_and_key(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    missing = _error(tmp_path, ["random", {"folder": "nowhere"}])
    line = _line_of(config, '"folder"')
    assert missing.startswith(f"{config}:{line}: bots[1].folder: expected an existing folder")
    (tmp_path / "one").mkdir()
    shutil.copyfile(TEST_BOTS_DIR / "instant.py", tmp_path / "one" / "main.py")
    own = _error(tmp_path, ["random", {"folder": "one"}])
    assert "got a bot's own folder (it holds main.py): write {name: one, path: one}" in own
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "readme.md").write_text("soon\n")
    empty = _error(tmp_path, ["random", {"folder": "empty"}])
    assert "expected a folder holding bots, found none (empty/readme.md: not a program" in empty
    extra = _error(tmp_path, ["random", {"folder": "one", "name": "x"}])
    assert "bots[1].name: unknown key 'name' beside 'folder'" in extra
    typo = _error(tmp_path, ["random", {"fodler": "one"}])
    assert "bots[1].fodler: unknown key 'fodler' (did you mean 'folder'?)" in typo


def test_two_bots_of_one_name_are_an_error_naming_both(tmp_path: Path) -> None:
    students = tmp_path / "students"
    _folder_bot(students, "alice")
    shutil.copyfile(TEST_BOTS_DIR / "instant.py", students / "alice.py")
    clash = _error(tmp_path, ["random", {"folder": "students"}])
    assert clash.endswith(
        "bots[1].folder: expected one entry per bot name, got students/alice and"
        " students/alice.py, both named 'alice' (rename one)"
    )
    (students / "alice.py").unlink()
    _folder_bot(students, "random")
    again = _error(tmp_path, ["random", {"folder": "students"}])
    assert again.endswith(
        "bots[1].folder (students/random): duplicate bot name 'random' (already used by bots[0])"
    )


def test_a_path_where_a_name_is_expected_gets_the_mapping_to_write(tmp_path: Path) -> None:
    _class(tmp_path)
    given = _error(tmp_path, ["random", "students/alice"])
    assert given.endswith(
        "bots[1]: expected a bundled bot's name, got the path 'students/alice'; a bot of your own"
        " is a mapping: write {name: alice, path: students/alice}, or {folder: students} for all"
        " 12 bots in students"
    )
    file = _error(tmp_path, ["random", "students/grace.py"])
    assert "write {name: grace, path: students/grace.py}, or {folder: students}" in file
    whole = _error(tmp_path, ["random", "students"])
    assert whole.endswith("; every bot in a folder is entered as {folder: students}")
    shutil.copyfile(TEST_BOTS_DIR / "instant.py", tmp_path / "solo.py")
    alone = _error(tmp_path, ["random", "solo.py"])
    assert alone.endswith("write {name: solo, path: solo.py}")


def test_a_folder_entry_works_from_python_too(tmp_path: Path) -> None:
    _class(tmp_path)
    config = config_from_dict({"bots": [{"folder": "students"}]}, base_dir=tmp_path)
    assert len(config.bots) == 12


def test_a_class_of_twelve_with_three_broken_is_found_played_and_named(
    no_leftover_processes: Path,
) -> None:
    root = no_leftover_processes
    _class(root)
    config = write_config(
        root,
        [{"folder": "students"}],
        games_per_pairing=1,
        sandbox="none",
        time_control={"move_ms": 300, "startup_ms": 3000},
    )
    run = run_arena("tournament", config, cwd=root, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "note: bots[0]: students: 12 bots found (alice, bob, carol, dave, erin, " in run.stdout
    assert "3 skipped: students/.git: hidden; students/notes.txt" in run.stdout
    assert "132 games played this run" in run.stdout
    for name in [*CORRECT, *BROKEN]:
        assert re.search(rf"^\s*\d+\s+{name}\s", run.stdout, re.MULTILINE), name
    faults = run_arena("faults", root / "t.sqlite", "--json", cwd=root)
    assert faults.returncode == 0, faults.stderr
    at_fault = {game["bot"] for game in json.loads(faults.stdout)}
    assert at_fault == set(BROKEN)
    panics = run_arena("faults", root / "t.sqlite", "--bot", "oscar", "--json", cwd=root)
    details = {game["detail"] for game in json.loads(panics.stdout)}
    assert details == {
        "exited with code 2; on stderr: panic: runtime error: index out of range [36] with"
        " length 36"
    }


def test_validate_on_the_folder_prints_one_table_and_fails_for_the_broken_three(
    no_leftover_processes: Path,
) -> None:
    students = _class(no_leftover_processes)
    run = run_arena(
        "validate",
        students,
        "--games",
        "1",
        "--sandbox",
        "none",
        cwd=no_leftover_processes,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert run.returncode == 1, run.stderr
    lines = run.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("bot "))
    rows = {line.split()[0]: line.split()[1] for line in lines[header + 1 : header + 13]}
    assert rows == {**dict.fromkeys(CORRECT, "PASS"), **dict.fromkeys(BROKEN, "FAIL")}
    assert lines[header + 13] == "FAIL: 3 of 12 bots did not pass: mallory, oscar, trudy"
    oscar = next(line for line in lines if line.startswith("oscar "))
    assert "stays up" in oscar and "on stderr: panic: runtime error" in oscar
    assert "students/peggy: no main.py or executable main" in run.stdout


def test_submit_adds_a_late_entry_beside_a_folder_entry(no_leftover_processes: Path) -> None:
    root = no_leftover_processes
    students = root / "students"
    for name in ("alice", "bob"):
        _folder_bot(students, name)
    config = write_config(root, [{"folder": "students"}], sandbox="none", workers=1)
    assert run_arena("tournament", config, "--quiet", cwd=root).returncode == 0
    late = _folder_bot(root / "late", "zed")
    added = run_arena("submit", late, config, cwd=root)
    assert added.returncode == 0, added.stderr
    assert "note: bots[0]: students: 2 bots found (alice, bob)" in added.stdout
    assert "zed: #" in added.stdout and "added zed to" in added.stdout
    assert [spec.name for spec in load_config(config).bots] == ["alice", "bob", "zed"]
    inside = _folder_bot(students, "carol")
    again = run_arena("submit", inside, config, cwd=root)
    assert (
        again.returncode == 2 and "a bot named carol is already in the tournament" in again.stderr
    )


def _report(spec: BotSpec) -> Report:
    return Report(spec.name, list(spec.argv), 100, 1000, "none")


def test_checks_run_no_more_at_once_than_the_workers(tmp_path: Path) -> None:
    spec = BotSpec.from_path(shutil.copyfile(TEST_BOTS_DIR / "instant.py", tmp_path / "a.py"))
    running, most, lock = [0], [0], threading.Lock()

    def check(bot: BotSpec) -> Report:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)  # work that overlaps with the others' when they run at once
        with lock:
            running[0] -= 1
        return _report(bot)

    specs = [spec.renamed(f"b{i}") for i in range(6)]
    rows = validate_many(specs, check, workers=2, total_s=60)
    assert [row.bot for row in rows] == [f"b{i}" for i in range(6)]
    assert {row.status for row in rows} == {"PASS"} and most[0] == 2


def test_bots_not_started_within_the_bound_are_not_checked(tmp_path: Path) -> None:
    spec = BotSpec.from_path(shutil.copyfile(TEST_BOTS_DIR / "instant.py", tmp_path / "a.py"))

    def check(bot: BotSpec) -> Report:
        time.sleep(0.6)  # longer than the batch's bound
        return _report(bot)

    rows = validate_many(
        [spec.renamed("first"), spec.renamed("late")], check, workers=1, total_s=0.5
    )
    assert [(row.bot, row.status) for row in rows] == [("first", "PASS"), ("late", "not checked")]
    assert rows[1].check == "the batch's 0.5 s were used up"


def test_several_bots_named_one_by_one_make_one_table_and_json(
    no_leftover_processes: Path,
) -> None:
    root = no_leftover_processes
    good = _folder_bot(root, "good")
    bad = _folder_bot(root, "bad", "not_a_move.py")
    run = run_arena("validate", good, bad, "--games", "1", "--sandbox", "none", "--json", cwd=root)
    assert run.returncode == 1, run.stderr
    data = json.loads(run.stdout)
    assert data["ok"] is False
    assert [(b["bot"], b["status"], b["check"]) for b in data["bots"]] == [
        ("good", "PASS", None),
        ("bad", "FAIL", "every reply is one well-formed move line"),
    ]
    assert data["bots"][1]["validation"]["checks"][1]["status"] == "fail"
    one = run_arena("validate", good, bad, "--transcript", cwd=root)
    assert one.returncode == 2 and "--transcript shows one bot's lines: give one bot" in one.stderr


def test_ctrl_c_stops_a_batch_leaving_no_bot_running(no_leftover_processes: Path) -> None:
    """SIGINT once the first bot's row is in: no bot is started any more, those being checked
    end within their bounds, and the command exits with 128 + 2, no table and no process left."""
    root = no_leftover_processes
    students = root / "students"
    for name in ("a", "b", "c", "d", "e", "f"):
        _folder_bot(students, name)
    process = start_arena("validate", "students", "--sandbox", "none", cwd=root)
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    reader = threading.Thread(target=lambda: [lines.put(line) for line in process.stdout])
    reader.start()
    try:
        seen = [lines.get(timeout=60) for _ in range(3)]  # found, validating, a first row
        assert seen[2].rstrip().endswith(": PASS"), seen
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)  # its stderr is a few lines: the pipe cannot fill
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
    reader.join(timeout=10)
    out = "".join(seen) + "".join(lines.get() for _ in range(lines.qsize()))
    assert process.stderr is not None
    err = process.stderr.read()
    assert process.returncode == 128 + signal.SIGINT, err
    assert "arena: validation interrupted (SIGINT)" in err and "Traceback" not in err
    assert "first failing check" not in out and len(out.splitlines()) < 2 + 6
