"""What a bot *is* before it runs: its name, its command line, its folder and its identity.

A bot is given as a path to a program (a ``.py`` file runs under the harness's own Python; any
other file must be executable; a folder holding ``main.py`` or an executable ``main`` runs that),
as a bare bundled name (``random`` means ``bots/random/main.py`` or ``bots/random_bot.py``), or as
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
import shlex
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.errors import BotSpecError

__all__ = ["BotSpec", "BotPartError", "bundled_bot_path", "bundled_bot_names"]

BOT_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}")
"""What a bot name must match (as a whole)."""

HARNESS_PYTHON = "{python}"
"""The harness's own Python in a portable command (``sys.executable`` of whoever launches)."""

_LOCAL = "./"
"""Prefix of a portable command's arguments that name a file inside the bot's folder."""

_PYTHON_NAMES = ("python", "python3")

MAX_BOT_FILES = 2000
"""The most files a bot's own folder may hold (caches skipped): its version reads them all."""
MAX_BOT_BYTES = 512 * 1024 * 1024
"""The most bytes a bot's own folder may hold."""
_CACHE_DIRS = frozenset(
    {"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache", ".ruff_cache"}
)
_CACHE_SUFFIXES = (".pyc", ".pyo", ".swp")


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


def bare_name(given: str, base: Path) -> bool:
    """Whether ``given`` names a bot by a bare name rather than a path: no file or folder of that
    name stands in ``base``, it has no slash and is no ``.py`` file. Such a name can only be a
    bundled bot's (``BotSpec.resolve`` on the command line, a config's ``path``)."""
    if os.sep in given or "/" in given or given.endswith(".py"):
        return False
    return not (base / Path(given).expanduser()).exists()


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the one of ``known`` closest to a misspelt ``word``, or ""."""
    import difflib

    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


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


_BOTLIB = Path(__file__).resolve().parent / "botlib"
"""The strategies the bundled bots share (``arena.botlib``): part of what those bots play."""
_BOTLIB_IMPORT = re.compile(
    rb"^[ \t]*(?:from[ \t]+arena\.botlib\.(\w+)[ \t]+import"
    rb"|from[ \t]+arena\.botlib[ \t]+import[ \t]+(?:\(([\w,\s]+)\)|([\w, \t]+))"
    rb"|import[ \t]+arena\.botlib\.(\w+))",
    re.M,
)


def botlib_modules(sources: Iterable[Path]) -> list[Path]:
    """The modules of ``arena.botlib`` that the Python files ``sources`` import, directly or
    through each other (sorted).

    A bot built on the library plays what the library's code says: when ``alphabeta.py`` changes,
    so do the games of ``bots/alphabeta``, though no file of its folder changed. The imports are
    found by reading the files (``from arena.botlib.engine import ...``, ``from arena.botlib
    import engine``, ``import arena.botlib.engine``), not by running them."""
    found: set[Path] = set()
    todo = [path for path in sources if path.suffix == ".py"]
    while todo:
        try:
            text = todo.pop().read_bytes()
        except OSError:
            continue
        for match in _BOTLIB_IMPORT.finditer(text):
            names = b" ".join(group for group in match.groups() if group).decode()
            for name in re.split(r"[\s,]+", names.strip()):
                module = _BOTLIB / f"{name}.py"
                if name and module not in found and module.is_file():
                    found.add(module)
                    todo.append(module)
    return sorted(found)


_SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".rs", ".go", ".zig", ".nim", ".f90")
"""Source files a folder bot's ``main`` may be built from."""


def build_hint(folder: Path) -> str:
    """What to do about a folder bot whose program is not built yet (a Makefile, sources)."""
    if any((folder / name).is_file() for name in ("Makefile", "makefile", "GNUmakefile")):
        return f"; it has a Makefile: build the bot first (make -C {shlex.quote(str(folder))})"
    sources = sorted(p.name for p in folder.glob("main.*") if p.suffix in _SOURCE_SUFFIXES)
    if sources:
        return f"; build {sources[0]} into an executable main first"
    return ""


def _is_harness_python(program: str) -> bool:
    try:
        return os.path.isabs(program) and os.path.samefile(program, sys.executable)
    except OSError:
        return False


def _file_in(base: Path, given: str) -> Path | None:
    """The file ``given`` names, relative to ``base``; None when it names no file."""
    try:
        candidate = (base / Path(given).expanduser()).resolve()
        return candidate if candidate.is_file() else None
    except (OSError, RuntimeError, ValueError):
        return None


def _executable(first: str, base: Path, bot: str) -> Path:
    """The program a command's first word names as a file: it must exist and be executable."""
    executable = _file_in(base, first)
    if executable is None:
        looks_like_path = "/" in first or first.startswith("~")
        where = "a file" if looks_like_path else "a program on PATH or a file"
        problem = f"expected {where} (relative to {base}), got {first!r} (not found)"
        raise BotPartError(bot, "command", problem, 0)
    if not os.access(executable, os.X_OK):
        problem = f"expected an executable file, got {first!r} (not executable: {executable})"
        raise BotPartError(bot, "command", problem, 0)
    return executable


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
    portable_program: str | None = None
    """The program file, portable like the command's files (None: the command names no file,
    e.g. a program found on PATH with plain arguments); ``program`` is its path here."""
    files: tuple[str, ...] = ()
    """The command's arguments that named files when the bot was described (portable): part of
    its identity. (An argument naming a file made later, such as an output, is not.)"""
    own_dir: bool | None = None
    """Whether every file of ``dir`` is part of the bot (its version covers them all): True for
    a folder given as the bot's (``dir``, a folder bot); False for a folder that is not its own
    (shared with other bots, the config or the store; an empty default): only the files its
    command names count. None: its program's folder, not yet looked at (``claim_folders``
    decides; until then, as False). A sandbox should expose no more than the bot's own."""

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
        is_folder_bot = program.is_dir()
        if is_folder_bot:
            main = folder_program(program)
            if main is None:
                raise BotPartError(
                    shown,
                    "path",
                    f"expected a bot file or a folder holding main.py or an executable main,"
                    f" got {given!r} (a folder without either: {program}){build_hint(program)}",
                )
            default_name, program = program.name, main
        elif not program.is_file():
            raise BotPartError(shown, "path", f"expected a bot file, got {given!r} ({program})")
        elif folder_program(program.parent) == program and BOT_NAME_RE.fullmatch(
            program.parent.name
        ):  # bots/x/main.py is the bot x, as the folder bots/x is
            default_name = program.parent.name
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
        own = True if dir is not None or is_folder_bot else None
        return cls(name or default_name, command, folder, local, (local,), own)

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
        files: dict[int, Path] = {}
        first = argv[0]
        if not first.strip():
            raise BotPartError(name, "command", "expected a program, got an empty string", 0)
        if first in _PYTHON_NAMES or _is_harness_python(first):
            # The harness's own Python: a known version, visible inside the sandbox.
            argv[0:1] = [HARNESS_PYTHON, "-u"]
        elif "/" in first or first.startswith("~") or shutil.which(first) is None:
            files[0] = _executable(first, base, name)
        for i in range(1, len(argv)):
            arg = argv[i]
            if arg.startswith("-") or not arg or arg == HARNESS_PYTHON:
                continue
            if (file := _file_in(base, arg)) is not None:
                files[i] = file
        program = files[min(files)] if files else None
        own: bool | None
        if dir is not None:
            folder, own = cls._folder(dir, base, name), True
        elif program is not None:
            folder, own = program.parent, None
        else:  # nothing of the user's to read: not the config's folder, an empty one
            folder, own = empty_folder(), False
        for i, file in files.items():
            argv[i] = _portable(file, folder)
        local = _portable(program, folder) if program is not None else None
        named = tuple(argv[i] for i in sorted(files))
        return cls(name, tuple(argv), folder, local, named, own)

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
        if not bare_name(arg, Path.cwd()):
            return cls.from_path(Path(arg).expanduser())
        spec = cls.bundled(arg, bundled)
        if spec is None:
            names = bundled_bot_names(bundled)
            known = ", ".join(names) or "none"
            raise BotSpecError(
                f"no bot file {arg!r} and no bundled bot of that name{did_you_mean(arg, names)}"
                f" ({known})"
            )
        return spec

    @classmethod
    def bundled(cls, name: str, folders: Sequence[Path] | None = None) -> BotSpec | None:
        """Bundled bot ``name`` (None if there is none): a folder bot owns its folder; a single
        file shares ``bots/`` with the others, and only its file identifies it."""
        found = bundled_bot_path(name, folders)
        if found is None:
            return None
        is_folder = found.name in ("main", "main.py") and found.parent.name == name
        return dataclasses.replace(cls.from_path(found, name=name), own_dir=is_folder)

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
    def program(self) -> Path | None:
        """The program file on this machine (None: the command names no file)."""
        if self.portable_program is None:
            return None
        return self.local_path(self.portable_program)

    @property
    def argv(self) -> tuple[str, ...]:
        """The command with this machine's paths (what ``launch_argv`` makes, as a tuple)."""
        return tuple(self.launch_argv())

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

    def named_files(self) -> list[Path]:
        """The files the command names (the program among them), as paths on this machine."""
        found: list[Path] = []
        for arg in self.files:
            path = self.local_path(arg)
            if path not in found:
                found.append(path)
        program = self.program
        if program is not None and program not in found:
            found.insert(0, program)
        return found

    def identity_files(self) -> list[Path]:
        """The files the version covers: those the command names, and every file of the
        bot's own folder (caches skipped), bounded by ``MAX_BOT_FILES``/``MAX_BOT_BYTES``."""
        files = self.named_files()
        if self.own_dir:
            files += [f for f in folder_files(self.dir, self.name) if f not in files]
        return files

    def version(self) -> str:
        """A short hash of the bot's files and command (stable across runs and machines).

        Which Python runs it and where the bot lies are not part of its identity: the command is
        hashed in its portable form, without the Python, the program by its file name, and the
        other files by their paths within the folder. A bot identified by its program alone
        keeps the hash it had before other files were covered. The ``arena.botlib`` modules its
        Python files import are covered too (:func:`botlib_modules`)."""
        digest = hashlib.sha256()
        argv = [
            Path(arg).name if arg == self.portable_program else arg
            for arg in self.command
            if arg != HARNESS_PYTHON
        ]
        digest.update(json.dumps(argv).encode())
        program = self.program
        files = self.identity_files()
        named = {path: _portable(path, self.dir) for path in files}
        named.update({m: f"arena/botlib/{m.name}" for m in botlib_modules(files) if m not in named})
        budget = MAX_BOT_BYTES
        for path, name in named.items():
            if path != program:  # the program without its name: renaming it keeps the version
                # As bytes: a name that is not UTF-8 is hashed as it is (fsencode undoes the
                # surrogates it was decoded with).
                digest.update(b"\0" + os.fsencode(name) + b"\0")
            budget -= _hash_file(digest, path, budget, self.name)
        return digest.hexdigest()[:16]


def _hash_file(digest: hashlib._Hash, path: Path, budget: int, bot: str) -> int:
    """Feed a regular file to ``digest``; the bytes read (at most ``budget``, else an error).

    What bounds the work is what is read, not what ``stat`` says: a ``/proc`` or ``/sys`` file
    (``/proc/self/pagemap``, through a link, say) claims 0 bytes and reads without end. So
    at most a page more than the file's size is read, and a file that gives more is refused, as
    is anything that is not a regular file (opened without blocking: a FIFO would hang)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise BotSpecError(f"bot {bot}: cannot read {os.fsdecode(path)!r}: {exc.strerror}") from exc
    with open(fd, "rb", buffering=0) as f:
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise BotSpecError(
                    f"bot {bot}: {os.fsdecode(path)!r} is not a regular file: only files identify"
                    " a bot (remove it from the bot's folder)"
                )
            size, read = info.st_size, 0
            while chunk := f.read(min(1 << 20, size - read + 4096)):
                read += len(chunk)
                if read > size:
                    raise BotSpecError(
                        f"bot {bot}: {os.fsdecode(path)!r} reads more than its size ({size}"
                        " bytes): a /proc or /sys file, or one being written, cannot identify a"
                        " bot (remove it, or the link to it, from the bot's folder)"
                    )
                if read > budget:
                    raise BotSpecError(
                        f"bot {bot}: its files hold more than {MAX_BOT_BYTES >> 20} MiB, all of"
                        " which would identify it: give the bot a folder with only its files"
                    )
                digest.update(chunk)
        except OSError as exc:
            raise BotSpecError(
                f"bot {bot}: cannot read {os.fsdecode(path)!r}: {exc.strerror}"
            ) from exc
    return read


def folder_files(folder: Path, bot: str = "?") -> list[Path]:
    """Every file under ``folder`` but caches, sorted; a ``BotSpecError`` beyond the bounds."""
    files: list[Path] = []
    size = 0
    for root, dirs, names in os.walk(folder, onerror=None, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in _CACHE_DIRS)
        for name in sorted(names):
            if name.endswith(_CACHE_SUFFIXES):
                continue
            path = Path(root) / name
            try:
                if not path.is_file():
                    continue
                size += path.stat().st_size
            except OSError:
                continue
            files.append(path)
            if len(files) > MAX_BOT_FILES or size > MAX_BOT_BYTES:
                raise BotSpecError(
                    f"bot {bot}: its folder {folder} holds more than"
                    f" {MAX_BOT_FILES} files or {MAX_BOT_BYTES >> 20} MiB (caches skipped),"
                    " all of which would identify it: give the bot a folder with only its files"
                )
    return files


def empty_folder() -> Path:
    """An empty folder: the working folder of a command bot that names no file of its own.

    Never the config's folder (a bot may read its folder). Made on first use, read-only."""
    for parent in (Path(__file__).resolve().parent, Path(tempfile.gettempdir())):
        # In the package (exposed to sandboxed bots anyway), else a hidden folder in the tmp.
        name = "_empty_bot_dir" if parent.name == "arena" else f".arena-empty-{os.getuid()}"
        folder = parent / name
        try:
            folder.mkdir(mode=0o555, exist_ok=True)
        except OSError:
            continue
        if folder.is_dir() and not any(folder.iterdir()):
            return folder
    raise BotSpecError("no empty folder could be made for a bot that names no file")


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def claim_folders(
    specs: Sequence[BotSpec], reserved: Iterable[Path] = ()
) -> tuple[list[BotSpec], list[str]]:
    """Decide, for each bot still in its program's folder, whether that folder is its own.

    It is not when it holds (at any depth) another bot's program or folder, or one of
    ``reserved`` (the config, the store); nor when it is too large to hash. Returns the bots
    with ``own_dir`` decided, and the names of those whose folder is not their own."""
    reserved = [p.resolve() for p in reserved]
    result: list[BotSpec] = []
    shared: list[str] = []
    for spec in specs:
        if spec.own_dir is not None:
            result.append(spec)
            continue
        others: list[Path] = []
        for other in specs:
            if other is spec:
                continue
            if other.program is not None and other.program != spec.program:
                others.append(other.program)
            if other.own_dir and other.dir != spec.dir:
                others.append(other.dir)
        own = not any(_within(p, spec.dir) for p in [*others, *reserved])
        if own:
            try:
                folder_files(spec.dir, spec.name)
            except BotSpecError:
                own = False
        if not own:
            shared.append(spec.name)
        result.append(dataclasses.replace(spec, own_dir=own))
    return result, shared
