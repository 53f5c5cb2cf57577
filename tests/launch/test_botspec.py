"""How bots are described, found and identified: one look-up, relocatable specs."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from arena import botspec
from arena.botspec import HARNESS_PYTHON, MAX_BOT_FILES, BotPartError, BotSpec, claim_folders
from arena.errors import BotSpecError


def executable(path: Path, text: str = "#!/bin/sh\n") -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path


def test_python_file_runs_under_the_harness_python_and_others_must_be_executable(
    tmp_path: Path,
) -> None:
    script = tmp_path / "mine.py"
    script.write_text("print('ready')\n")
    spec = BotSpec.from_path(script)
    assert spec.command == (HARNESS_PYTHON, "-u", "./mine.py")
    assert spec.launch_argv() == [sys.executable, "-u", str(script)]
    assert (spec.name, spec.dir, spec.program) == ("mine", tmp_path, script)
    plain = tmp_path / "plain"
    plain.write_text("#!/bin/sh\n")
    with pytest.raises(BotSpecError, match="not executable"):
        BotSpec.from_path(plain)
    plain.chmod(0o755)
    assert BotSpec.from_path(plain).launch_argv() == [str(plain)]
    with pytest.raises(BotSpecError, match="not found"):
        BotSpec.resolve(str(tmp_path / "missing.py"))
    with pytest.raises(BotSpecError, match="no bundled bot"):
        BotSpec.resolve("no-such-bot", bundled=[tmp_path])
    with pytest.raises(BotSpecError, match=r"of that name \(did you mean 'greedy'\?\)"):
        BotSpec.resolve("gredy")


def test_relative_paths_are_taken_from_the_base_folder(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "bot.py").write_text("pass\n")
    spec = BotSpec.from_path("sub/bot.py", "b", base_dir=tmp_path)
    assert spec.program == tmp_path / "sub" / "bot.py"
    with pytest.raises(BotPartError) as info:
        BotSpec.from_path("sub/bot.py", "b", dir="nowhere", base_dir=tmp_path)
    assert info.value.part == "dir" and "expected an existing path" in info.value.problem


def test_a_folder_is_a_bot_when_it_has_a_main(tmp_path: Path) -> None:
    folder = tmp_path / "deep"
    folder.mkdir()
    with pytest.raises(BotPartError, match="folder holding main.py or an executable main"):
        BotSpec.from_path(folder)
    (folder / "main.c").write_text("int main(void) { return 0; }\n")
    with pytest.raises(BotPartError, match=r"build main\.c into an executable main first"):
        BotSpec.from_path(folder)
    (folder / "Makefile").write_text("main: main.c\n")
    with pytest.raises(BotPartError, match=r"it has a Makefile: build the bot first \(make -C "):
        BotSpec.from_path(folder)
    (folder / "main").write_text("#!/bin/sh\n")  # not executable: not a program
    with pytest.raises(BotPartError):
        BotSpec.from_path(folder)
    executable(folder / "main")
    spec = BotSpec.from_path(folder)
    assert (spec.name, spec.dir, spec.command) == ("deep", folder, ("./main",))
    (folder / "main.py").write_text("pass\n")  # main.py comes first
    assert BotSpec.from_path(folder).command == (HARNESS_PYTHON, "-u", "./main.py")
    assert BotSpec.from_path(folder / "main.py").name == "deep"  # its folder's program: the bot
    (folder / "helper.py").write_text("pass\n")
    assert BotSpec.from_path(folder / "helper.py").name == "helper"
    odd = tmp_path / "two words"
    odd.mkdir()
    (odd / "main.py").write_text("pass\n")
    assert BotSpec.resolve(str(odd / "main.py")).name == "main"  # not a bot name: the file's


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
    assert spec.command == (HARNESS_PYTHON, "-u", "./bot.py", "--depth", "2")
    assert spec.launch_argv() == [sys.executable, "-u", str(folder / "bot.py"), "--depth", "2"]


def test_command_given_as_a_path_is_the_program(tmp_path: Path) -> None:
    program = executable(tmp_path / "run.sh")
    (tmp_path / "data.txt").write_text("x")
    spec = BotSpec.from_command(["./run.sh", "data.txt"], "r", base_dir=tmp_path)
    assert spec.program == program
    assert spec.command == ("./run.sh", "./data.txt")
    assert spec.launch_argv() == [str(program), str(tmp_path / "data.txt")]


def test_a_program_on_path_stays_a_name_until_launch(tmp_path: Path) -> None:
    spec = BotSpec.from_command(["sh", "-c", "echo ready"], "s", dir=tmp_path)
    assert spec.command == ("sh", "-c", "echo ready")
    assert spec.launch_argv()[0] == shutil.which("sh")
    with pytest.raises(BotPartError) as info:
        BotSpec.from_command(["no-such-program-xyz"], "s", base_dir=tmp_path)
    assert (info.value.part, info.value.index) == ("command", 0)
    assert "expected a program on PATH or a file" in str(info.value)


def test_files_outside_the_folder_stay_absolute(tmp_path: Path) -> None:
    (tmp_path / "engine").mkdir()
    shared = tmp_path / "shared.txt"
    shared.write_text("x")
    (tmp_path / "engine" / "bot.py").write_text("pass\n")
    spec = BotSpec.from_command(
        ["python3", "engine/bot.py", "shared.txt"], "e", dir="engine", base_dir=tmp_path
    )
    assert spec.command == (HARNESS_PYTHON, "-u", "./bot.py", str(shared))


def test_a_spec_moves_with_its_folder(tmp_path: Path) -> None:
    """A job shipped to another machine: the same bot, its folder elsewhere, same identity."""
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    executable(one / "engine")
    (one / "book.txt").write_text("openings")
    spec = BotSpec.from_command(["./engine", "book.txt"], "e", base_dir=one)
    shutil.copytree(one, two)
    moved = spec.relocated(two)
    assert moved.launch_argv() == [str(two / "engine"), str(two / "book.txt")]
    assert moved.version() == spec.version()
    assert not any(str(tmp_path) in arg for arg in spec.command)


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


# --- a bot is all of its files ------------------------------------------------------------------


def test_a_folder_bot_is_all_of_its_files_but_caches(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "main.py").write_text("import helper\n")
    (folder / "helper.py").write_text("DEPTH = 2\n")
    (folder / "data").mkdir()
    (folder / "data" / "book.txt").write_text("c4X\n")
    spec = BotSpec.from_path(folder)
    assert spec.own_dir is True
    first = spec.version()
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "helper.cpython-311.pyc").write_bytes(b"\0" * 10)
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref")
    assert spec.version() == first  # caches are not the bot
    (folder / "helper.py").write_text("DEPTH = 3\n")
    second = spec.version()
    assert second != first
    (folder / "data" / "book.txt").write_text("d4O\n")
    assert spec.version() != second
    moved = tmp_path / "elsewhere"
    shutil.copytree(folder, moved)
    assert BotSpec.from_path(moved).version() == spec.version()  # not where it lies


def test_every_file_the_command_names_counts_even_in_a_shared_folder(tmp_path: Path) -> None:
    (tmp_path / "adapter.py").write_text("import sys\n")
    engine = executable(tmp_path / "engine", "#!/bin/sh\necho v1\n")
    spec = BotSpec.from_command(["python3", "adapter.py", "./engine"], "a", base_dir=tmp_path)
    assert spec.own_dir is None  # its program's folder, not yet claimed: only named files
    first = spec.version()
    engine.write_text("#!/bin/sh\necho v2\n")  # a rebuilt engine is another bot
    assert spec.version() != first
    (tmp_path / "unrelated.txt").write_text("x")
    assert (
        spec.version()
        == BotSpec.from_command(
            ["python3", "adapter.py", "./engine"], "a", base_dir=tmp_path
        ).version()
    )


def test_a_bot_on_the_library_is_also_the_library_modules_it_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``bots/alphabeta`` plays what ``arena/botlib/alphabeta.py`` says: a change there is a new
    version of the bot (its games are not mixed with the old ones), a change to a module it does
    not import is not."""
    library = tmp_path / "botlib"
    shutil.copytree(Path(botspec.__file__).parent / "botlib", library)
    monkeypatch.setattr(botspec, "_BOTLIB", library)
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "main.py").write_text("from arena.botlib.alphabeta import Searcher\n")
    (folder / "other.py").write_text("from arena.botlib import (clock,\n  engine)\nimport x\n")
    found = {p.name for p in botspec.botlib_modules([folder / "main.py"])}
    assert found >= {"alphabeta.py", "engine.py"}  # engine through alphabeta
    assert "perfect.py" not in found
    in_parentheses = {p.name for p in botspec.botlib_modules([folder / "other.py"])}
    assert in_parentheses >= {"clock.py", "engine.py"}
    spec = BotSpec.from_path(folder)
    first = spec.version()
    (library / "perfect.py").write_text("# changed\n")
    assert spec.version() == first
    (library / "engine.py").write_text((library / "engine.py").read_text() + "# changed\n")
    assert spec.version() != first
    for name in ("alphabeta", "mcts", "perfect", "heuristic"):  # the bundled ladder
        assert botspec.botlib_modules(BotSpec.resolve(name).identity_files()), name


def test_a_single_file_keeps_the_version_it_always_had(tmp_path: Path) -> None:
    import hashlib
    import json

    (tmp_path / "bot.py").write_text("pass\n")
    expected = hashlib.sha256(json.dumps(["-u", "bot.py"]).encode() + b"pass\n").hexdigest()
    assert BotSpec.from_path(tmp_path / "bot.py").version() == expected[:16]


def test_a_folder_too_large_to_hash_is_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "big"
    (folder / "many").mkdir(parents=True)
    (folder / "main.py").write_text("pass\n")
    for i in range(MAX_BOT_FILES + 1):
        (folder / "many" / f"{i}.txt").write_bytes(b"")
    spec = BotSpec.from_path(folder)
    with pytest.raises(BotSpecError, match=f"holds more than {MAX_BOT_FILES} files"):
        spec.version()


def test_a_program_folder_is_the_bots_own_only_when_nothing_else_lives_there(
    tmp_path: Path,
) -> None:
    (tmp_path / "alone").mkdir()
    (tmp_path / "alone" / "bot.py").write_text("pass\n")
    (tmp_path / "alone" / "helper.py").write_text("pass\n")
    (tmp_path / "pair").mkdir()
    for name in ("a.py", "b.py"):
        (tmp_path / "pair" / name).write_text("pass\n")
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "bot.py").write_text("pass\n")
    alone = BotSpec.from_path(tmp_path / "alone" / "bot.py")
    a, b = (BotSpec.from_path(tmp_path / "pair" / n) for n in ("a.py", "b.py"))
    near_store = BotSpec.from_path(tmp_path / "store" / "bot.py")
    claimed, shared = claim_folders(
        [alone, a, b, near_store], reserved=[tmp_path / "store" / "t.sqlite"]
    )
    assert [spec.own_dir for spec in claimed] == [True, False, False, False]
    assert shared == ["a", "b", "bot"]
    assert claimed[0].identity_files() == [
        tmp_path / "alone" / "bot.py",
        tmp_path / "alone" / "helper.py",
    ]
    assert claimed[1].identity_files() == [tmp_path / "pair" / "a.py"]


def test_a_command_without_files_gets_an_empty_folder_not_the_current_one(
    tmp_path: Path,
) -> None:
    (tmp_path / "secret.txt").write_text("results")
    spec = BotSpec.from_command(["sh", "-c", "echo ready"], "s", base_dir=tmp_path)
    assert spec.dir != tmp_path and spec.dir.is_dir()
    assert list(spec.dir.iterdir()) == [] and spec.own_dir is False
    assert spec.identity_files() == []


def test_a_link_to_a_proc_file_is_refused_at_once_not_read_without_end(tmp_path: Path) -> None:
    """``/proc/self/pagemap`` says it holds 0 bytes and reads as ~256 GiB: the version reads
    what a file gives, not what ``stat`` says, and refuses it after a page, in one line."""
    folder = tmp_path / "pm"
    folder.mkdir()
    executable(folder / "main")
    (folder / "pagemap").symlink_to("/proc/self/pagemap")
    spec = BotSpec.from_path(folder)
    started = time.monotonic()
    with pytest.raises(BotSpecError, match=r"pagemap' reads more than its size \(0 bytes\)"):
        spec.version()
    assert time.monotonic() - started < 5


def test_the_folder_bound_counts_the_bytes_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bound holds for the bytes the version reads (files that grew after the walk, say)."""
    folder = tmp_path / "big"
    folder.mkdir()
    executable(folder / "main")
    (folder / "data").write_bytes(b"x" * 100)
    spec = BotSpec.from_path(folder)
    monkeypatch.setattr(botspec, "MAX_BOT_BYTES", 4096)
    walk = botspec.folder_files

    def walk_then_grow(folder: Path, bot: str = "?") -> list[Path]:
        found = walk(folder, bot)  # within the bound when walked
        (folder / "data").write_bytes(b"x" * 5000)
        return found

    monkeypatch.setattr(botspec, "folder_files", walk_then_grow)
    with pytest.raises(BotSpecError, match="its files hold more than"):
        spec.version()


def test_a_fifo_in_the_folder_does_not_block_the_version(tmp_path: Path) -> None:
    folder = tmp_path / "fifo"
    folder.mkdir()
    executable(folder / "main")
    os.mkfifo(folder / "pipe")
    spec = BotSpec.from_path(folder)
    assert spec.version() == spec.version()


def test_a_file_name_that_is_not_utf8_is_hashed_as_bytes(tmp_path: Path) -> None:
    """A name that is not UTF-8 identifies the bot as its bytes (it crashed the version); a name
    in UTF-8 hashes as it always did (the bytes of the name)."""
    folder = tmp_path / "odd"
    folder.mkdir()
    executable(folder / "main")
    plain = BotSpec.from_path(folder).version()
    (folder / os.fsdecode(b"\xffname.txt")).write_bytes(b"x")
    spec = BotSpec.from_path(folder)
    odd = spec.version()
    assert odd != plain and spec.version() == odd
    os.rename(folder / os.fsdecode(b"\xffname.txt"), folder / os.fsdecode(b"\xfename.txt"))
    assert spec.version() != odd  # another name, another bot
    os.remove(folder / os.fsdecode(b"\xfename.txt"))
    (folder / "é.txt").write_bytes(b"x")
    digest = hashlib.sha256(json.dumps(["main"]).encode())  # the version as it was computed
    digest.update(b"#!/bin/sh\n" + b"\0" + "./é.txt".encode() + b"\0" + b"x")
    assert spec.version() == digest.hexdigest()[:16]
