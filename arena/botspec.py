"""What a bot *is* before it runs: its name, its command line, its folder and its identity.

A bot is given as a path to a program (a ``.py`` file runs under the harness's own Python; any
other file must be executable), as a bare bundled name (``random`` means ``bots/random_bot.py``),
or as a full command. Its identity (``version``) hashes the program file and the command, so that a
changed bot is never mixed up with its old self.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from arena.errors import BotSpecError

__all__ = ["BotSpec", "BOT_NAME_RE", "bundled_bot_path", "bundled_bot_names"]

BOT_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}")


def _bundled_dirs() -> tuple[Path, ...]:
    package = Path(__file__).resolve().parent
    # A source checkout keeps the bundled bots beside the package; a wheel carries them inside it.
    return (package.parent / "bots", package / "_bundled_bots")


def bundled_bot_path(name: str) -> Path | None:
    """The file ``<name>_bot.py`` of a bundled bot (absolute), or None if there is none."""
    if not isinstance(name, str) or not BOT_NAME_RE.fullmatch(name):
        return None  # also keeps names like "../x" from escaping the folders
    for folder in _bundled_dirs():
        candidate = folder / f"{name}_bot.py"
        try:
            if candidate.is_file():
                return candidate.resolve()
        except OSError:
            continue
    return None


def bundled_bot_names() -> list[str]:
    """The names of the bundled bots, sorted."""
    names: set[str] = set()
    for folder in _bundled_dirs():
        try:
            files = list(folder.glob("*_bot.py")) if folder.is_dir() else []
        except OSError:
            continue
        names.update(f.name[: -len("_bot.py")] for f in files)
    return sorted(n for n in names if BOT_NAME_RE.fullmatch(n))


_PYTHON_NAMES = ("python", "python3")


def _python_command(path: Path) -> tuple[str, ...]:
    # -u: a bot that prints without flushing still answers at once.
    return (sys.executable, "-u", str(path))


@dataclass(frozen=True)
class BotSpec:
    """A runnable bot."""

    name: str
    """The bot's name in results (by default its program file's stem)."""
    argv: tuple[str, ...]
    """The command that starts it."""
    dir: Path
    """Its folder: the working directory, and the only folder of the user's it may read."""
    program: Path | None = None
    """The file whose contents identify the bot (None: the command alone does)."""

    @classmethod
    def from_path(cls, path: str | os.PathLike[str], name: str | None = None) -> BotSpec:
        """A bot from its program file: ``.py`` under this Python, anything else executed."""
        program = Path(path).expanduser()
        if not program.exists():
            raise BotSpecError(f"bot not found: {path}")
        if not program.is_file():
            raise BotSpecError(f"bot is not a file: {path}")
        program = program.resolve()
        if program.suffix == ".py":
            argv = _python_command(program)
        elif os.access(program, os.X_OK):
            argv = (str(program),)
        else:
            raise BotSpecError(f"bot is not executable: {path} (chmod +x it, or give a .py file)")
        return cls(name or program.stem, argv, program.parent, program)

    @classmethod
    def from_command(
        cls,
        command: list[str] | tuple[str, ...],
        name: str,
        dir: str | os.PathLike[str] | None = None,
        base_dir: str | os.PathLike[str] | None = None,
    ) -> BotSpec:
        """A bot from a full command line.

        The program is the command itself when it is given as a path (``./mybot``), and
        otherwise, for an interpreter found on PATH (``python3 bot.py``, ``node bot.js``), the
        first argument naming a file. ``python``/``python3`` mean the harness's own Python.
        Arguments naming files are taken from ``base_dir`` (the config's folder) and made
        absolute, since the bot runs in its own folder. ``dir`` defaults to the program's folder.
        """
        if not command:
            raise BotSpecError(f"bot {name}: empty command")
        base = Path(base_dir) if base_dir is not None else Path.cwd()
        argv = [str(arg) for arg in command]
        if argv[0] in _PYTHON_NAMES:
            # The harness's own Python: a known version, visible inside the sandbox.
            argv[0:1] = [sys.executable, "-u"]
        program: Path | None = None
        first = Path(argv[0]).expanduser()
        if os.sep in argv[0] and argv[0] != sys.executable:
            executable = first if first.is_absolute() else base / first
            if not executable.is_file():
                raise BotSpecError(f"bot {name}: program not found: {command[0]}")
            if not os.access(executable, os.X_OK):
                raise BotSpecError(f"bot {name}: program is not executable: {command[0]}")
            program = executable.resolve()
            argv[0] = str(program)
        elif os.sep not in argv[0]:
            found = shutil.which(argv[0])
            if found is None:
                raise BotSpecError(f"bot {name}: program not found on PATH: {command[0]}")
            argv[0] = found
        for i in range(1, len(argv)):
            candidate = (base / argv[i]).expanduser()
            if not argv[i].startswith("-") and candidate.is_file():
                argv[i] = str(candidate.resolve())
                if program is None:
                    program = candidate.resolve()
        folder = Path(dir).expanduser() if dir is not None else None
        if folder is not None and not folder.is_absolute():
            folder = base / folder
        if folder is None:
            folder = program.parent if program is not None else base
        return cls(name, tuple(argv), folder.resolve(), program)

    @classmethod
    def resolve(cls, arg: str) -> BotSpec:
        """A bot as named on the command line: a path, or a bundled bot's bare name."""
        path = Path(arg).expanduser()
        if path.exists() or os.sep in arg or arg.endswith(".py"):
            return cls.from_path(path)
        bundled = bundled_bot_path(arg)
        if bundled is None:
            known = ", ".join(bundled_bot_names()) or "none"
            raise BotSpecError(f"no bot file {arg!r} and no bundled bot of that name ({known})")
        return cls.from_path(bundled, name=arg)

    def renamed(self, name: str) -> BotSpec:
        return BotSpec(name, self.argv, self.dir, self.program)

    def version(self) -> str:
        """A short hash of the program's contents and the command (stable across runs)."""
        digest = hashlib.sha256()
        # Which Python runs it and where the clone lies are not part of a bot's identity.
        program = str(self.program) if self.program is not None else None
        argv = [Path(a).name if a == program else a for a in self.argv if a != sys.executable]
        digest.update(json.dumps(argv).encode())
        if self.program is not None:
            try:
                digest.update(self.program.read_bytes())
            except OSError as exc:
                raise BotSpecError(f"bot {self.name}: cannot read {self.program}: {exc}") from exc
        return digest.hexdigest()[:16]
