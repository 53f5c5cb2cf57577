"""How bots are named, found and identified."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.botspec import BotSpec, bundled_bot_names
from arena.errors import BotSpecError

ROOT = Path(__file__).resolve().parent.parent


def test_bundled_bots_by_bare_name() -> None:
    assert {"random", "greedy"} <= set(bundled_bot_names())
    spec = BotSpec.resolve("random")
    assert spec.name == "random"
    assert spec.program == ROOT / "bots" / "random_bot.py"
    assert spec.argv[0] == sys.executable


def test_python_file_runs_under_the_harness_python_and_others_must_be_executable(
    tmp_path: Path,
) -> None:
    script = tmp_path / "mine.py"
    script.write_text("print('ready')\n")
    assert BotSpec.from_path(script).argv == (sys.executable, "-u", str(script))
    plain = tmp_path / "plain"
    plain.write_text("#!/bin/sh\n")
    with pytest.raises(BotSpecError, match="not executable"):
        BotSpec.from_path(plain)
    plain.chmod(0o755)
    assert BotSpec.from_path(plain).argv == (str(plain),)
    with pytest.raises(BotSpecError, match="not found"):
        BotSpec.resolve(str(tmp_path / "missing.py"))
    with pytest.raises(BotSpecError, match="no bundled bot"):
        BotSpec.resolve("no-such-bot")


def test_command_with_an_interpreter_finds_the_program_among_its_arguments(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "mybots"
    folder.mkdir()
    (folder / "bot.py").write_text("pass\n")
    spec = BotSpec.from_command(
        ["python3", "mybots/bot.py", "--depth", "2"], "b", base_dir=tmp_path
    )
    assert spec.program == folder / "bot.py"
    assert spec.dir == folder
    assert spec.argv == (sys.executable, "-u", str(folder / "bot.py"), "--depth", "2")


def test_command_given_as_a_path_is_the_program(tmp_path: Path) -> None:
    program = tmp_path / "run.sh"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    (tmp_path / "data.txt").write_text("x")
    spec = BotSpec.from_command(["./run.sh", "data.txt"], "r", base_dir=tmp_path)
    assert spec.program == program
    assert spec.argv == (str(program), str(tmp_path / "data.txt"))


def test_identity_follows_the_program_and_the_command_not_the_location(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for folder in (one, two):
        folder.mkdir()
        (folder / "bot.py").write_text("pass\n")
    a = BotSpec.from_path(one / "bot.py")
    assert a.version() == BotSpec.from_path(two / "bot.py").version()
    before = a.version()
    (one / "bot.py").write_text("pass  # changed\n")
    assert a.version() != before
    command = BotSpec.from_command(["python3", "bot.py", "--fast"], "b", base_dir=two)
    assert (
        command.version()
        != BotSpec.from_command(["python3", "bot.py"], "b", base_dir=two).version()
    )
