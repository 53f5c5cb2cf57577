"""A folder of submissions as bots: each sub-folder, and each program directly in it, is one.

An organiser collects one folder per student (or one program file each) in a folder and enters
them all at once. What counts as a bot is what ``arena.botspec`` runs: a folder holding
``main.py`` or an executable ``main``, a ``.py`` file, or an executable file. Each bot is named
after its folder or file, made into a valid bot name. Everything else is skipped with the reason,
so that the organiser sees at once which submission is missing and why.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from arena.botspec import BOT_NAME_RE, build_hint, folder_program
from arena.errors import BotSpecError

_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_.+-]+")
_CACHES = frozenset({"__pycache__", "node_modules"})


class FolderError(BotSpecError):
    """A folder that cannot be entered as a folder of bots; ``problem`` says what was expected."""

    def __init__(self, shown: str, problem: str) -> None:
        self.problem = problem
        super().__init__(f"{shown}: {problem}")


@dataclass(frozen=True)
class FolderScan:
    """What a folder of submissions holds: its bots, and the entries that are not bots."""

    shown: str
    """The folder as the user wrote it (entries are shown under it: ``students/alice``)."""
    bots: list[tuple[str, Path]] = field(default_factory=list)
    """Each bot's name and its program file or folder, sorted by name."""
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """Each entry that is no bot, as shown, with the reason."""

    def summary(self) -> str:
        """One line: the bots found and the entries skipped, each with its reason."""
        names = ", ".join(name for name, _path in self.bots)
        text = f"{self.shown}: {len(self.bots)} bots found ({names})"
        if self.skipped:
            reasons = "; ".join(f"{entry}: {reason}" for entry, reason in self.skipped)
            text += f"; {len(self.skipped)} skipped: {reasons}"
        return text


def usable_name(text: str) -> str | None:
    """``text`` made into a bot name (accents dropped, other characters as ``-``), or None."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    name = _NOT_IN_NAME.sub("-", plain).lstrip("_.+-")[:64].rstrip("-")
    return name if BOT_NAME_RE.fullmatch(name) else None


def bot_name_for(path: Path) -> str | None:
    """The name a bot at ``path`` gets by default, as ``BotSpec.from_path`` gives it (its folder's
    name for a folder or its ``main``; else the file's stem), made usable."""
    if path.is_dir() or (path.name in ("main", "main.py") and folder_program(path.parent) == path):
        return usable_name(path.resolve().name if path.is_dir() else path.parent.resolve().name)
    return usable_name(path.stem)


def scan_folder(folder: Path, shown: str) -> FolderScan:
    """The bots in ``folder`` (``shown`` as the user wrote it); a ``FolderError`` when it is no
    folder, is a bot itself, or two entries would get one name."""
    try:
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
    except NotADirectoryError:
        raise FolderError(shown, f"expected a folder of bots, got a file ({folder})") from None
    except FileNotFoundError:
        raise FolderError(shown, f"expected an existing folder, got {shown!r} ({folder})") from None
    except OSError as exc:
        raise FolderError(shown, f"expected a readable folder ({folder}: {exc.strerror})") from None
    program = folder_program(folder)
    if program is not None:
        own = usable_name(folder.name) or "NAME"
        raise FolderError(
            shown,
            f"expected a folder of bots, got a bot's own folder (it holds {program.name}):"
            f" write {{name: {own}, path: {shown}}}",
        )
    scan = FolderScan(shown)
    first_of: dict[str, str] = {}
    for entry in entries:
        where = f"{shown.rstrip('/')}/{entry.name}"
        reason = _not_a_bot(entry)
        name = usable_name(entry.stem if entry.is_file() else entry.name)
        if reason is None and name is None:
            reason = "no letter or digit to name the bot after"
        if reason is not None:
            scan.skipped.append((where, reason))
            continue
        assert name is not None
        if name in first_of:
            raise FolderError(
                shown,
                f"expected one entry per bot name, got {first_of[name]} and {where}, both"
                f" named {name!r} (rename one)",
            )
        first_of[name] = where
        scan.bots.append((name, entry))
    scan.bots.sort(key=lambda bot: (bot[0].lower(), bot[0]))
    return scan


def _not_a_bot(entry: Path) -> str | None:
    """Why ``entry`` of a folder of submissions is not a bot (None: it is one)."""
    if entry.name.startswith("."):
        return "hidden"
    if entry.name in _CACHES:
        return "a cache"
    try:
        if entry.is_dir():
            return _not_a_bot_folder(entry)
        if not entry.is_file():
            return "not a file or a folder"
        if entry.suffix == ".py" or os.access(entry, os.X_OK):
            return None
    except OSError as exc:
        return f"unreadable ({exc.strerror})"
    return "not a program (a .py file or an executable file)"


def _not_a_bot_folder(folder: Path) -> str | None:
    if folder_program(folder) is not None:
        return None
    if (folder / "main").is_file():
        return "its main is not executable (chmod +x it)"
    hint = build_hint(folder).removeprefix("; ")
    return "no main.py or executable main" + (f" ({hint})" if hint else "")
