"""What a bot *is* before it runs: its name, its command line, its folder and its identity.

A bot is given as a path to a program (a ``.py`` file runs under the harness's own Python; any
other file must be executable; a folder holding ``main.py`` or an executable ``main`` runs that),
as a bare bundled name (``random`` means ``bots/random_bot.py`` or ``bots/random/main.py``), or as
a full command. This module is the one place where such descriptions are looked up: the CLI and
the config both build their ``BotSpec`` here.

A ``BotSpec`` is *relocatable*: its command names the files inside the bot's folder relative to
it (``./bot.py``) and the harness's Python by a symbol, so that a match job can be shipped to a
machine where the folder lies elsewhere (``relocated``). Absolute paths are made only when the bot
is launched (``launch_argv``). Its identity (``version``) does not depend on where it lies.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.errors import BotSpecError

__all__ = [
    "BotSpec",
    "BotPartError",
    "BOT_NAME_RE",
    "HARNESS_PYTHON",
    "bundled_dirs",
    "bundled_bot_path",
    "bundled_bot_names",
    "folder_program",
]

BOT_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}")
"""What a bot name must match (as a whole)."""

HARNESS_PYTHON = "{python}"
"""The harness's own Python in a portable command (``sys.executable`` of whoever launches)."""

_LOCAL = "./"
"""Prefix of a portable command's arguments that name a file inside the bot's folder."""

_PYTHON_NAMES = ("python", "python3")


class BotPartError(BotSpecError):
    """A part of a bot's description that cannot be used.

    Carries which part (``path``, ``command`` and the argument's index, ``dir``) and what was
    expected, so that the config can point at the exact key and line of its file, while the CLI
    prints the whole message.
    """

    def __init__(self, bot: str, part: str, problem: str, index: int | None = None) -> None:
        self.bot = bot
        self.part = part
        self.index = index
        self.problem = problem
        where = part if index is None else f"{part}[{index}]"
        super().__init__(f"bot {bot}: {where}: {problem}")


# --- bundled bots -----------------------------------------------------------------------------


def bundled_dirs() -> tuple[Path, ...]:
    """Where bundled bots lie: beside the package in a checkout, inside it in a wheel."""
    package = Path(__file__).resolve().parent
    return (package.parent / "bots", package / "_bundled_bots")


def folder_program(folder: Path) -> Path | None:
    """The program of a bot that is a folder: its ``main.py``, or else an executable ``main``."""
    for name in ("main.py", "main"):
        candidate = folder / name
        try:
            if candidate.is_file() and (name == "main.py" or os.access(candidate, os.X_OK)):
                return candidate
        except OSError:
            continue
    return None


def bundled_bot_path(name: str, folders: Sequence[Path] | None = None) -> Path | None:
    """The program of bundled bot ``name`` (absolute), or None if there is none.

    ``<folder>/<name>_bot.py`` or ``<folder>/<name>/main.py`` (or an executable ``main``), in the
    first of ``folders`` (default: :func:`bundled_dirs`) that has one.
    """
    if not isinstance(name, str) or not BOT_NAME_RE.fullmatch(name):
        return None  # also keeps names like "../x" from escaping the folders
    for folder in bundled_dirs() if folders is None else folders:
        try:
            single = folder / f"{name}_bot.py"
            if single.is_file():
                return single.resolve()
            if (folder / name).is_dir() and (main := folder_program(folder / name)) is not None:
                return main.resolve()
        except OSError:
            continue
    return None


def bundled_bot_names(folders: Sequence[Path] | None = None) -> list[str]:
    """The names of the bundled bots (single files and folders), sorted."""
    names: set[str] = set()
    for folder in bundled_dirs() if folders is None else folders:
        try:
            entries = list(folder.iterdir()) if folder.is_dir() else []
        except OSError:
            continue
        for entry in entries:
            if entry.name.endswith("_bot.py") and entry.is_file():
                names.add(entry.name[: -len("_bot.py")])
            elif entry.is_dir() and folder_program(entry) is not None:
                names.add(entry.name)
    return sorted(n for n in names if BOT_NAME_RE.fullmatch(n))


# --- portable paths -----------------------------------------------------------------------------


def _portable(file: Path, folder: Path) -> str:
    """``./relative/path`` for a file inside ``folder``, else the absolute path."""
    try:
        return _LOCAL + file.relative_to(folder).as_posix()
    except ValueError:
        return str(file)


def _is_harness_python(program: str) -> bool:
    try:
        return os.path.isabs(program) and os.path.samefile(program, sys.executable)
    except OSError:
        return False


def _base(base_dir: str | os.PathLike[str] | None) -> Path:
    return Path(base_dir).expanduser() if base_dir is not None else Path.cwd()


def _existing(given: str, base: Path, bot: str, part: str, index: int | None = None) -> Path:
    try:
        path = (base / Path(given).expanduser()).resolve()
        exists = path.exists()
    except (OSError, RuntimeError, ValueError) as exc:
        raise BotPartError(
            bot, part, f"expected a usable path, got {given!r} ({exc})", index
        ) from None
    if not exists:
        raise BotPartError(
            bot, part, f"expected an existing path, got {given!r} (not found: {path})", index
        )
    return path


@dataclass(frozen=True)
class BotSpec:
    """A runnable bot, relocatable: see the module's docstring."""

    name: str
    """The bot's name in results (by default its program file's stem, or its folder's name)."""
    command: tuple[str, ...]
    """The command that starts it, portable: ``./path`` for a file inside ``dir``,
    :data:`HARNESS_PYTHON` for the harness's Python, a bare name for a program on PATH; any
    other file named by an absolute path."""
    dir: Path
    """Its folder on this machine: the working directory, and the only folder of the user's
    that it may read."""
    program: str | None = None
    """The file whose contents identify the bot, portable like the command's files (None: the
    command alone does)."""

    # --- building --------------------------------------------------------------------------------
    @classmethod
    def from_path(
        cls,
        path: str | os.PathLike[str],
        name: str | None = None,
        *,
        dir: str | os.PathLike[str] | None = None,
        base_dir: str | os.PathLike[str] | None = None,
    ) -> BotSpec:
        """A bot from its program file (or its folder): ``.py`` under this Python, else executed.

        Relative paths are taken from ``base_dir`` (default: the current folder); ``dir`` is the
        bot's folder (default: the program's)."""
        given = os.fspath(path)
        shown = name or Path(given).stem or given
        base = _base(base_dir)
        program = _existing(given, base, shown, "path")
        if program.is_dir():
            main = folder_program(program)
            if main is None:
                raise BotPartError(
                    shown,
                    "path",
                    f"expected a bot file or a folder holding main.py or an executable main,"
                    f" got {given!r} (a folder without either: {program})",
                )
            default_name, program = program.name, main
        elif not program.is_file():
            raise BotPartError(shown, "path", f"expected a bot file, got {given!r} ({program})")
        else:
            default_name = program.stem
        if program.suffix != ".py" and not os.access(program, os.X_OK):
            raise BotPartError(
                shown,
                "path",
                f"expected a .py file or an executable file, got {given!r} (not executable:"
                f" {program}; chmod +x it)",
            )
        folder = program.parent if dir is None else cls._folder(dir, base, shown)
        local = _portable(program, folder)
        command = (HARNESS_PYTHON, "-u", local) if program.suffix == ".py" else (local,)
        return cls(name or default_name, command, folder, local)

    @classmethod
    def from_command(
        cls,
        command: Sequence[str],
        name: str,
        dir: str | os.PathLike[str] | None = None,
        base_dir: str | os.PathLike[str] | None = None,
    ) -> BotSpec:
        """A bot from a full command line.

        The program is the command itself when it names a file (``./mybot``, or a name not on
        PATH but a file in ``base_dir``), and otherwise, for an interpreter found on PATH
        (``python3 bot.py``, ``node bot.js``), the first argument naming a file.
        ``python``/``python3`` mean the harness's own Python (``-u`` added: unbuffered).
        Arguments naming files are taken from ``base_dir`` (the config's folder; default: the
        current folder). ``dir`` defaults to the program's folder.
        """
        argv = [str(arg) for arg in command]
        if not argv:
            raise BotPartError(name, "command", "expected a non-empty command")
        base = _base(base_dir)
        program: Path | None = None
        files: dict[int, Path] = {}
        first = argv[0]
        if not first.strip():
            raise BotPartError(name, "command", "expected a program, got an empty string", 0)
        looks_like_path = "/" in first or first.startswith("~")
        if first in _PYTHON_NAMES or _is_harness_python(first):
            # The harness's own Python: a known version, visible inside the sandbox.
            argv[0:1] = [HARNESS_PYTHON, "-u"]
        elif looks_like_path or shutil.which(first) is None:
            try:
                executable = (base / Path(first).expanduser()).resolve()
                is_file = executable.is_file()
            except (OSError, RuntimeError, ValueError):
                is_file = False
            if not is_file:
                where = "a file" if looks_like_path else "a program on PATH or a file"
                raise BotPartError(
                    name,
                    "command",
                    f"expected {where} (relative to {base}), got {first!r} (not found)",
                    0,
                )
            if not os.access(executable, os.X_OK):
                raise BotPartError(
                    name,
                    "command",
                    f"expected an executable file, got {first!r} (not executable: {executable})",
                    0,
                )
            program = files[0] = executable
        for i in range(1, len(argv)):
            arg = argv[i]
            if arg.startswith("-") or not arg or arg == HARNESS_PYTHON:
                continue
            try:
                candidate = (base / Path(arg).expanduser()).resolve()
                is_file = candidate.is_file()
            except (OSError, RuntimeError, ValueError):
                is_file = False
            if is_file:
                files[i] = candidate
                if program is None:
                    program = candidate
        if dir is not None:
            folder = cls._folder(dir, base, name)
        elif program is not None:
            folder = program.parent
        else:
            folder = base.resolve()
        for i, file in files.items():
            argv[i] = _portable(file, folder)
        local = _portable(program, folder) if program is not None else None
        return cls(name, tuple(argv), folder, local)

    @staticmethod
    def _folder(dir: str | os.PathLike[str], base: Path, bot: str) -> Path:
        given = os.fspath(dir)
        folder = _existing(given, base, bot, "dir")
        if not folder.is_dir():
            raise BotPartError(
                bot, "dir", f"expected a folder, got {given!r} (not a folder: {folder})"
            )
        return folder

    @classmethod
    def resolve(cls, arg: str, bundled: Sequence[Path] | None = None) -> BotSpec:
        """A bot as named on the command line: a path, or a bundled bot's bare name.

        ``bundled``: the folders of bundled bots (default: :func:`bundled_dirs`)."""
        path = Path(arg).expanduser()
        if path.exists() or os.sep in arg or "/" in arg or arg.endswith(".py"):
            return cls.from_path(path)
        found = bundled_bot_path(arg, bundled)
        if found is None:
            known = ", ".join(bundled_bot_names(bundled)) or "none"
            raise BotSpecError(f"no bot file {arg!r} and no bundled bot of that name ({known})")
        return cls.from_path(found, name=arg)

    # --- using -----------------------------------------------------------------------------------
    def renamed(self, name: str) -> BotSpec:
        """The same bot under another name."""
        return dataclasses.replace(self, name=name)

    def relocated(self, folder: str | os.PathLike[str]) -> BotSpec:
        """The same bot with its folder at ``folder`` (e.g. a copy on a cluster's worker)."""
        return dataclasses.replace(self, dir=Path(folder))

    def local_path(self, portable: str) -> Path:
        """A file of the command (or the program) as a path on this machine."""
        if portable.startswith(_LOCAL):
            return self.dir / portable[len(_LOCAL) :]
        return Path(portable)

    @property
    def program_path(self) -> Path | None:
        """The identifying file on this machine (None: the command alone identifies the bot)."""
        return None if self.program is None else self.local_path(self.program)

    def launch_argv(self) -> list[str]:
        """The command with this machine's paths: what is executed (the only place they are made).

        A program named bare is looked up on this machine's PATH (left bare if it is not there:
        starting it then fails, as a start-up fault)."""
        argv = []
        for i, arg in enumerate(self.command):
            if arg == HARNESS_PYTHON:
                argv.append(sys.executable)
            elif arg.startswith(_LOCAL):
                argv.append(str(self.local_path(arg)))
            elif i == 0 and "/" not in arg:
                argv.append(shutil.which(arg) or arg)
            else:
                argv.append(arg)
        return argv

    def version(self) -> str:
        """A short hash of the program's contents and the command (stable across runs).

        Which Python runs it and where the bot lies are not part of its identity: the command is
        hashed in its portable form, without the Python, the program by its file name."""
        digest = hashlib.sha256()
        argv = [
            Path(arg).name if arg == self.program else arg
            for arg in self.command
            if arg != HARNESS_PYTHON
        ]
        digest.update(json.dumps(argv).encode())
        program = self.program_path
        if program is not None:
            try:
                digest.update(program.read_bytes())
            except OSError as exc:
                raise BotSpecError(f"bot {self.name}: cannot read {program}: {exc}") from exc
        return digest.hexdigest()[:16]
