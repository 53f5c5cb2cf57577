"""The ``arena match`` command, run for real: ``python -m arena match ...`` in a subprocess.

What a user sees: exit code 0 whenever the match was played (whatever its result), a summary with
each bot's wins as Order and as Chaos and every fault with its reason, a ``--record`` file with
one JSON object per game; and for a bot that cannot be used, one line of error and a non-zero
exit code, never a traceback. Bots are copied into the test's temporary folder, so that the
leftover-process check (``conftest.py``) can tell this test's bots from anyone else's.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import TEST_BOTS_DIR, bundled_program, run_arena, wait_until
from independent_referee import assert_record_consistent

from arena.records import GameRecord, Reason

pytestmark = pytest.mark.usefixtures("no_leftover_processes")

REQUIRED_FIELDS = {"order", "chaos", "winner", "reason", "moves", "ms", "detail", "seed"}


def copy(source: Path, folder: Path) -> Path:
    target = folder / source.name
    shutil.copyfile(source, target)
    return target


def read_records(path: Path) -> list[GameRecord]:
    records = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        data = json.loads(line)
        assert isinstance(data, dict), f"line {number} is not a JSON object"
        missing = REQUIRED_FIELDS - data.keys()
        assert not missing, f"line {number} lacks {missing}"
        records.append(GameRecord.from_json(data))
    return records


def test_random_vs_greedy_summary_and_record(tmp_path: Path) -> None:
    """Default 2 games, default sandbox: exit 0, a readable summary, and a valid JSONL record."""
    random_bot = shutil.copyfile(bundled_program("random"), tmp_path / "random_bot.py")
    greedy_bot = shutil.copyfile(bundled_program("greedy"), tmp_path / "greedy_bot.py")
    record = tmp_path / "out" / "games.jsonl"
    result = run_arena(
        "match",
        random_bot,
        greedy_bot,
        "--move-ms",
        500,
        "--seed",
        3,
        "--record",
        record,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    out = result.stdout
    assert re.search(r"^2 games \(\d distinct\)$", out, re.M), out
    for name in ("random_bot", "greedy_bot"):  # beside each, the name it gave with `ready`
        shown = name.removesuffix("_bot")
        line = re.search(
            rf"^\s+{name} \({shown}\)\s+won\s+(\d+)\s+as Order (\d)/1\s+as Chaos (\d)/1$",
            out,
            re.M,
        )
        assert line, out
        assert int(line[1]) == int(line[2]) + int(line[3])
    assert "no faults" in out
    records = read_records(record)
    assert len(records) == 2
    assert (records[0].order, records[0].chaos) == ("random_bot", "greedy_bot")
    assert (records[0].order_display, records[0].chaos_display) == ("random", "greedy")
    assert (records[1].order, records[1].chaos) == ("greedy_bot", "random_bot")
    wins = {"random_bot": 0, "greedy_bot": 0}
    for game in records:
        assert not game.reason.is_fault
        assert game.seed == 3
        assert_record_consistent(game, 500)
        wins[game.winner_name] += 1
    for name, count in wins.items():  # the summary agrees with the record
        assert re.search(rf"^\s+{name} \(\w+\)\s+won\s+{count}\b", out, re.M), out


def test_three_games_with_faults(tmp_path: Path) -> None:
    """``--games 3``: roles alternate (A is Order in games 1 and 3), every fault is listed with
    its reason, and a lost match is still a played match (exit 0)."""
    bad = copy(TEST_BOTS_DIR / "bad_cell.py", tmp_path)
    good = copy(TEST_BOTS_DIR / "instant.py", tmp_path)
    record = tmp_path / "games.jsonl"
    result = run_arena(
        "match",
        bad,
        good,
        "--games",
        3,
        "--move-ms",
        200,
        "--startup-ms",
        3000,
        "--sandbox",
        "none",
        "--record",
        record,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert re.search(r"^3 games \(\d distinct\)$", out, re.M), out
    assert re.search(r"^\s+bad_cell\s+won\s+0\s+as Order 0/2\s+as Chaos 0/1$", out, re.M), out
    assert re.search(r"^\s+instant\s+won\s+3\s+as Order 1/1\s+as Chaos 2/2$", out, re.M), out
    # bad_cell lost every game: its Elo difference is a bound, with no made-up interval.
    assert re.search(
        r"^Elo difference bad_cell - instant: <-\d+ \(bad_cell lost every game", out, re.M
    ), out
    assert "faults (3):" in out
    for number in (1, 2, 3):
        assert f"game {number}: bad_cell lost by illegal: no such cell: z9X" in out, out
    records = read_records(record)
    assert [g.order for g in records] == ["bad_cell", "instant", "bad_cell"]
    assert [g.chaos for g in records] == ["instant", "bad_cell", "instant"]
    assert all(g.reason is Reason.ILLEGAL and g.loser_name == "bad_cell" for g in records)
    for game in records:
        assert_record_consistent(game, 200)


def test_quiet_hides_progress_but_prints_the_summary(tmp_path: Path) -> None:
    good = copy(TEST_BOTS_DIR / "instant.py", tmp_path)
    record = tmp_path / "games.jsonl"
    result = run_arena(
        "match",
        good,
        good,
        "--games",
        2,
        "--quiet",
        "--sandbox",
        "none",
        "--record",
        record,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "game 1/2" not in result.stdout  # no progress
    assert re.search(r"^2 games \(\d distinct\)$", result.stdout, re.M), result.stdout
    assert "no faults" in result.stdout
    records = read_records(record)
    # one bot against itself: the names are told apart as in every command (-A, -B)
    assert [(g.order, g.chaos) for g in records] == [
        ("instant-A", "instant-B"),
        ("instant-B", "instant-A"),
    ]
    assert f"two bots named instant: instant-A is {good}, instant-B is {good}" in result.stdout


def _not_executable(tmp_path: Path) -> Path:
    path = tmp_path / "bot.sh"
    path.write_text("#!/bin/sh\necho ready\n")
    path.chmod(0o644)
    return path


@pytest.mark.parametrize(
    ("make_bot", "second"),
    [
        pytest.param(lambda tmp: tmp / "no" / "such_bot.py", False, id="missing-file-as-A"),
        pytest.param(lambda tmp: tmp / "no" / "such_bot.py", True, id="missing-file-as-B"),
        pytest.param(lambda tmp: "no_such_bundled_bot", False, id="unknown-name"),
        pytest.param(_not_executable, True, id="not-executable"),
        pytest.param(lambda tmp: tmp, False, id="directory"),
    ],
)
def test_unusable_bot_is_one_line_error(make_bot, second: bool, tmp_path: Path) -> None:
    """A bot that cannot be used: non-zero exit, one line on stderr naming it, no traceback."""
    good = copy(TEST_BOTS_DIR / "instant.py", tmp_path)
    bad = make_bot(tmp_path)
    for args in [(good, bad) if second else (bad, good)]:
        result = run_arena("match", *args, "--sandbox", "none", cwd=tmp_path)
        assert result.returncode != 0
        assert "Traceback" not in result.stderr + result.stdout
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("arena: error: "), lines[0]
        assert str(bad) in lines[0] or Path(bad).name in lines[0], lines[0]
        assert result.stdout == ""


def test_ctrl_c_stops_the_match_with_a_summary_and_no_bot_left(
    tmp_path: Path, no_leftover_processes: Path
) -> None:
    """SIGINT (Ctrl-C) mid-match: exit 130, the games so far summed up, the bots gone."""
    import os
    import signal

    sleepy = copy(TEST_BOTS_DIR / "sleepy.py", tmp_path)
    instant = copy(TEST_BOTS_DIR / "instant.py", tmp_path)
    record = tmp_path / "games.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "match", str(sleepy), str(instant), "--games", "1000",
         "--record", str(record), "--sandbox", "none"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    try:

        def recorded() -> bool:
            return record.exists() and len(record.read_text().splitlines()) >= 2

        wait_until(lambda: recorded() or process.poll() is not None, 30, interval=0.05)
        assert process.poll() is None and recorded(), "no games recorded"
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, err
    assert "Traceback" not in out + err
    played = len(record.read_text().splitlines())
    assert re.search(rf"interrupted after {played} of 1000 games", err), err
    assert f"{played} games" in out


def test_summary_gives_the_elo_difference_with_interval_and_superiority(tmp_path: Path) -> None:
    """What a bot author asks after a match (as cutechess-cli answers it): per-role scores,
    the Elo difference with its 95% interval, the likelihood of superiority."""
    random_bot = shutil.copyfile(bundled_program("random"), tmp_path / "random_bot.py")
    result = run_arena(
        "match", random_bot, random_bot, "--games", 8, "--quiet", "--sandbox", "none", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("Elo difference"))
    assert re.fullmatch(
        r"Elo difference random_bot-A - random_bot-B: (?:[+-]\d+ ±\d+ \(95%, Order's advantage "
        r"[+-]\d+ taken out\)|[<>][+-]\d+ \(.*\)); likelihood of superiority \d+\.\d%",
        line,
    ), line


def test_bot_text_is_escaped_in_the_summary(tmp_path: Path) -> None:
    """A crashing bot's last words, quoted in the fault detail, cannot drive the terminal."""
    bot = tmp_path / "hostile.py"
    bot.write_text(
        "import sys\n"
        "sys.stdout.write('ready\\n'); sys.stdout.flush()\n"
        "sys.stdin.readline(); sys.stdin.readline()\n"
        "sys.stderr.write('oops \\x1b[2J\\x1b]0;pwned\\x07 end\\n'); sys.stderr.flush()\n"
        "sys.exit(3)\n"
    )
    good = copy(TEST_BOTS_DIR / "instant.py", tmp_path)
    result = run_arena("match", bot, good, "--games", 1, "--sandbox", "none", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "lost by crash" in result.stdout, result.stdout
    for raw in ("\x1b", "\x07"):
        assert raw not in result.stdout
    assert "oops \\x1b[2J\\x1b]0;pwned\\x07 end" in result.stdout, result.stdout


def test_deterministic_bots_replay_few_distinct_games(tmp_path: Path) -> None:
    """Two deterministic bots: 6 games but only 2 distinct ones (one per role assignment)."""
    good = copy(TEST_BOTS_DIR / "instant.py", tmp_path)
    result = run_arena(
        "match", good, good, "--games", 6, "--quiet", "--sandbox", "none", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert re.search(r"^6 games \(2 distinct\)$", result.stdout, re.M), result.stdout


def test_openings_start_each_pair_from_the_same_position(tmp_path: Path) -> None:
    good = copy(TEST_BOTS_DIR / "instant.py", tmp_path)
    record = tmp_path / "games.jsonl"
    result = run_arena(
        "match", good, good, "--games", 6, "--openings", 4, "--record", record,
        "--quiet", "--sandbox", "none", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    openings = [json.loads(line)["opening"] for line in record.read_text().splitlines()]
    assert all(len(o) == 4 for o in openings)
    assert openings[0] == openings[1] and openings[2] == openings[3] and openings[4] == openings[5]
    assert len({tuple(o) for o in openings}) == 3
    assert re.search(r"^6 games \([3-6] distinct\)$", result.stdout, re.M), result.stdout


def test_openings_option_allows_what_the_schedule_allows() -> None:
    """The CLI states the limit without importing arena.tournament.schedule (a fast --help): kept
    equal."""
    import typer.main

    from arena.cli import app
    from arena.tournament.schedule import MAX_OPENING_PLIES

    match = typer.main.get_command(app).commands["match"]  # type: ignore[attr-defined]
    option = next(p for p in match.params if p.name == "openings")
    assert option.type.max == MAX_OPENING_PLIES


@pytest.mark.skipif(os.geteuid() != 0, reason="the unprivileged bot user exists only for root")
@pytest.mark.parametrize("before", [None, "an earlier record\n"])
def test_a_match_that_fails_to_start_writes_no_record(tmp_path: Path, before: str | None) -> None:
    """The bot's folder is closed to the unprivileged user bots run as (root, no sandbox): the
    match fails before its first game, and ``--record`` neither appears nor loses what it held."""
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    bot = copy(TEST_BOTS_DIR / "instant.py", private)
    record = tmp_path / "out" / "games.jsonl"
    if before is not None:
        record.parent.mkdir()
        record.write_text(before)
    env = {k: v for k, v in os.environ.items() if k != "ARENA_BOTS_AS_ROOT"}
    result = run_arena(
        "match", bot, "random", "--sandbox", "none", "--games", "1", "--record", record, env=env
    )
    assert result.returncode == 2, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    assert "cannot reach its folder" in line
    if before is None:
        assert not record.exists() and not record.parent.exists()
    else:
        assert record.read_text() == before


def test_an_unwritable_record_is_said_before_any_game(tmp_path: Path) -> None:
    (tmp_path / "dir.jsonl").mkdir()
    result = run_arena(
        "match", "random", "random", "--games", "1", "--record", tmp_path / "dir.jsonl"
    )
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert "cannot write the record file" in line and "game 1" not in result.stdout
