"""The bot library's bytecode, written by the harness for bots that may not write it."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

from arena.launch import bytecode

COMPILE = "import sys; from pathlib import Path; from arena.launch import bytecode; " + (
    "bytecode.compile_sources([Path(p) for p in sys.argv[1:]])"
)

CLEAN_ENV = {"PATH": "/usr/bin:/bin"}
"""A child's environment without ``PYTHONDONTWRITEBYTECODE``, whatever the test's has."""


def library_copy(folder: Path) -> list[Path]:
    """A copy of the bot library's files and folder, without bytecode."""
    copies = []
    for source in bytecode.BOT_LIBRARY:
        target = folder / source.name
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copyfile(source, target)
        copies.append(target)
    return copies


def sources(paths: list[Path]) -> list[Path]:
    return [p for path in paths for p in ([*path.glob("*.py")] if path.is_dir() else [path])]


def compile_in_child(paths: list[Path], *flags: str) -> None:
    command = [sys.executable, *flags, "-c", COMPILE, *map(str, paths)]
    subprocess.run(command, check=True, timeout=60, env=CLEAN_ENV)


def test_the_library_lists_what_a_bot_imports_of_arena() -> None:
    """Every arena module a bundled bot imports is in ``BOT_LIBRARY`` (else it would compile it
    at every start)."""
    bot = Path(__file__).resolve().parents[2] / "bots" / "mcts" / "main.py"
    result = subprocess.run(
        [sys.executable, "-X", "importtime", str(bot)],
        input=b"arena 1\nquit\n",
        capture_output=True,
        timeout=60,
        check=True,
    )
    imported = {line.split("|")[-1].strip() for line in result.stderr.decode().splitlines()}
    arena = {name for name in imported if name.split(".")[0] == "arena"}
    assert "arena.botlib.mcts" in arena
    covered = {p.stem if p.is_file() else p.name for p in bytecode.BOT_LIBRARY}
    for name in arena:
        parts = name.split(".")
        assert len(parts) == 1 or parts[1] in covered, name


def test_missing_bytecode_is_written_and_then_left_alone(tmp_path: Path) -> None:
    copies = library_copy(tmp_path)
    files = sources(copies)
    assert len(files) > 10
    compile_in_child(copies)
    cached = [Path(importlib.util.cache_from_source(str(f))) for f in files]
    assert all(c.is_file() for c in cached)
    stamps = [c.stat().st_mtime_ns for c in cached]
    compile_in_child(copies)  # up to date: nothing rewritten
    assert [c.stat().st_mtime_ns for c in cached] == stamps


def test_no_bytecode_where_the_user_turned_it_off(tmp_path: Path) -> None:
    copies = library_copy(tmp_path)
    compile_in_child(copies, "-B")
    assert not list(tmp_path.rglob("__pycache__"))


def test_what_cannot_be_compiled_is_left_without_a_word(tmp_path: Path) -> None:
    """A file that does not compile, or a path that is not there, stops nothing and prints
    nothing (the bot then reports its own error when it starts)."""
    copies = library_copy(tmp_path)
    broken = tmp_path / "botlib" / "broken.py"
    broken.write_text("def (:\n")
    command = [sys.executable, "-c", COMPILE, *map(str, copies), str(tmp_path / "gone")]
    result = subprocess.run(command, capture_output=True, timeout=60, check=True, env=CLEAN_ENV)
    assert result.stdout == b"" and result.stderr == b""
    assert not Path(importlib.util.cache_from_source(str(broken))).exists()
    assert Path(importlib.util.cache_from_source(str(tmp_path / "bot.py"))).is_file()
