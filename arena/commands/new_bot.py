"""``arena new-bot``: write a working, commented bot skeleton to start from.

A skeleton is a folder ``<dir>/<name>/`` (the whole folder is the bot: the sandbox lets it read that
folder and nothing else of yours): ``python`` (``main.py`` on the kit ``arena.bot``), ``c``
(``main.c`` and a ``Makefile``; the program is ``main``) or ``sh`` (``main``, a POSIX shell script).
Every skeleton plays legal moves, shows where the strategy goes, and passes ``arena validate`` as
written. Nothing is ever overwritten: an existing folder is an error.
"""

from __future__ import annotations

import enum
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from arena.botspec import BOT_NAME_RE
from arena.errors import ArenaError

NAME_MARKER = "__NAME__"


class Language(enum.StrEnum):
    """The languages ``arena new-bot`` has a skeleton for."""

    PYTHON = "python"
    C = "c"
    SH = "sh"


# language -> (template file, file written, executable?) for each file of the skeleton
_FILES: dict[Language, tuple[tuple[str, str, bool], ...]] = {
    Language.PYTHON: (("python_main.py.tmpl", "main.py", False),),
    Language.C: (("c_main.c.tmpl", "main.c", False), ("c_Makefile.tmpl", "Makefile", False)),
    Language.SH: (("sh_main.tmpl", "main", True),),
}
# language -> the file to run (and to give to `arena validate`)
_PROGRAM = {Language.PYTHON: "main.py", Language.C: "main", Language.SH: "main"}


@dataclass(frozen=True)
class NewBot:
    """What ``create_bot`` wrote."""

    folder: Path
    """The bot's folder."""
    language: Language
    """The skeleton's language."""
    files: tuple[Path, ...]
    """The files written."""
    program: Path
    """The program to run (for C: to build first)."""
    build: str | None
    """The command that builds the program (C), or None."""


def _template(name: str) -> str:
    return resources.files("arena").joinpath("templates", name).read_text(encoding="utf-8")


def create_bot(
    name: str, language: Language | str = Language.PYTHON, parent: Path = Path(".")
) -> NewBot:
    """Write the skeleton of bot ``name`` in ``language`` into ``parent/name/``.

    Raises ArenaError (one line) for a bad name, an existing folder or an unwritable place.
    """
    if not BOT_NAME_RE.fullmatch(name):
        raise ArenaError(
            f"bad bot name {name!r}: 1 to 64 letters, digits or '_.+-', starting with a letter "
            "or a digit"
        )
    try:
        language = Language(language)
    except ValueError:
        known = ", ".join(str(lang) for lang in Language)
        raise ArenaError(f"--lang {language!r}: expected one of {known}") from None
    folder = parent / name
    if folder.exists() or folder.is_symlink():
        raise ArenaError(f"{folder} already exists: not overwriting it (choose another name)")
    try:
        folder.mkdir(parents=True)
    except OSError as exc:
        raise ArenaError(f"cannot create {folder}: {exc.strerror or exc}") from None
    written = []
    try:
        for template, target, executable in _FILES[language]:
            path = folder / target
            path.write_text(_template(template).replace(NAME_MARKER, name), encoding="utf-8")
            if executable:
                path.chmod(path.stat().st_mode | 0o111)
            written.append(path)
    except OSError as exc:  # pragma: no cover - a full disk between mkdir and write
        shutil.rmtree(folder, ignore_errors=True)
        raise ArenaError(f"cannot write {folder}: {exc.strerror or exc}") from None
    build = f"cc -O2 -o {folder / 'main'} {folder / 'main.c'}" if language is Language.C else None
    return NewBot(folder, language, tuple(written), folder / _PROGRAM[language], build)


def build_c_bot(bot: NewBot) -> Path:
    """Compile a C skeleton with the system's ``cc``; the program. ArenaError if it fails."""
    compiler = shutil.which("cc")
    if compiler is None:
        raise ArenaError("no C compiler (cc) on PATH: install one, or build the bot yourself")
    result = subprocess.run(
        [compiler, "-O2", "-o", "main", "main.c"],
        cwd=bot.folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise ArenaError(f"cc failed on {bot.folder / 'main.c'}: {last}")
    return bot.program


def run_new_bot(
    name: str, language: str, parent: Path, *, build: bool = True, json_output: bool = False
) -> NewBot:
    """The command: write the skeleton, build it if asked (C, when ``cc`` exists), and say what
    to do next (``json_output``: as one JSON object)."""
    bot = create_bot(name, language, parent)
    built = False
    if bot.build is not None and build and shutil.which("cc") is not None:
        build_c_bot(bot)
        built = True
    folder = os.path.relpath(bot.folder)
    steps = [
        f"arena validate {folder}",
        f"arena match {folder} greedy --games 20",
        f"arena submit {folder} CONFIG.yaml",
    ]
    if bot.build is not None and not built:
        steps.insert(0, f"cd {folder} && make   (or: {bot.build})")
    if json_output:
        data = {
            "name": name,
            "lang": str(bot.language),
            "folder": str(bot.folder),
            "files": [str(path) for path in bot.files],
            "program": str(bot.program),
            "build": bot.build,
            "built": built,
            "next": steps,
        }
        print(json.dumps(data, indent=2))
        return bot
    for path in bot.files:
        print(f"wrote {path}")
    if built:
        print(f"built {os.path.relpath(bot.program)}")
    print("next:")
    for step in steps:
        print(f"  {step}")
    return bot
