"""``arena new-bot``: skeletons that play legal games as written, and never overwrite anything."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import run_arena

from arena.botspec import BotSpec
from arena.commands.new_bot import Language, build_c_bot, create_bot
from arena.errors import ArenaError
from arena.limits import SandboxMode, TimeControl
from arena.referee.match import MatchSettings, play_match
from arena.rules import Reason

SETTINGS = MatchSettings(time_control=TimeControl(move_ms=1000), sandbox=SandboxMode.NONE)


def _program(tmp_path: Path, language: Language) -> Path:
    bot = create_bot("skel", language, tmp_path)
    if language is Language.C:
        if shutil.which("cc") is None:
            pytest.skip("no C compiler")
        return build_c_bot(bot)
    return bot.program


@pytest.mark.parametrize("language", list(Language))
def test_skeleton_plays_legal_games(no_leftover_processes: Path, language: Language) -> None:
    program = _program(no_leftover_processes, language)
    records = play_match(BotSpec.from_path(program), BotSpec.resolve("random"), 4, SETTINGS)
    assert [r.reason for r in records] and all(not r.reason.is_fault for r in records), [
        (r.reason, r.detail) for r in records
    ]
    assert {r.reason for r in records} <= {Reason.FIVE, Reason.FULL}


def test_files_and_layout(tmp_path: Path) -> None:
    python = create_bot("py-bot", "python", tmp_path)
    assert python.folder == tmp_path / "py-bot"
    assert python.program.read_text().count("py-bot") >= 2  # name in the docstring and `ready`
    assert "Strategy goes here" in python.program.read_text()
    c = create_bot("c-bot", "c", tmp_path)
    assert {p.name for p in c.files} == {"main.c", "Makefile"}
    assert c.build is not None and "cc" in c.build
    assert "cc -O2 -o main main.c" in (c.folder / "main.c").read_text()  # the header says how
    sh = create_bot("sh-bot", "sh", tmp_path)
    assert sh.program.stat().st_mode & 0o111
    assert sh.program.read_text().startswith("#!/bin/sh\n")


def test_refuses_to_overwrite(tmp_path: Path) -> None:
    create_bot("mine", "python", tmp_path)
    (tmp_path / "mine" / "main.py").write_text("# my work\n")
    with pytest.raises(ArenaError, match="already exists"):
        create_bot("mine", "c", tmp_path)
    assert (tmp_path / "mine" / "main.py").read_text() == "# my work\n"


@pytest.mark.parametrize("name", ["", "a b", "../up", "-x", "x" * 65])
def test_bad_names(tmp_path: Path, name: str) -> None:
    with pytest.raises(ArenaError, match="bad bot name"):
        create_bot(name, "python", tmp_path)


def test_cli_one_line_errors_and_json(tmp_path: Path) -> None:
    ok = run_arena("new-bot", "b1", "--dir", tmp_path, "--lang", "sh")
    assert ok.returncode == 0, ok.stderr
    assert f"wrote {tmp_path / 'b1' / 'main'}" in ok.stdout and "arena validate " in ok.stdout
    again = run_arena("new-bot", "b1", "--dir", tmp_path)
    assert again.returncode == 2
    assert again.stderr.count("\n") == 1 and "already exists" in again.stderr
    wrong = run_arena("new-bot", "b2", "--dir", tmp_path, "--lang", "rust")
    assert wrong.returncode == 2 and "'rust' is not one of" in wrong.stderr
    data = json.loads(run_arena("new-bot", "b3", "--dir", tmp_path, "--json").stdout)
    assert data["name"] == "b3" and data["lang"] == "python" and data["built"] is False
    assert data["program"] == str(tmp_path / "b3" / "main.py")
    assert data["files"] == [data["program"]]
    assert any(step.startswith("arena validate ") for step in data["next"])


def test_bot_arguments_name_the_folder(tmp_path: Path) -> None:
    from arena.commands.start import resolve_bot

    python = create_bot("alpha", "python", tmp_path)
    sh = create_bot("beta", "sh", tmp_path)
    assert resolve_bot(str(python.folder)).name == "alpha"
    assert resolve_bot(str(python.program)).name == "alpha"  # main.py is named after its folder
    assert resolve_bot(str(sh.folder)).program == sh.program.resolve()
    assert resolve_bot(str(sh.folder), name="b2").name == "b2"
    assert resolve_bot("greedy").name == "greedy"
    c = create_bot("gamma", "c", tmp_path)  # not built yet: no program to run
    with pytest.raises(ArenaError, match="holding main.py or an executable main"):
        resolve_bot(str(c.folder))
