"""The ``bots:`` list with each ``{folder: DIR}`` entry replaced by the bots of that folder.

A folder entry stands for every bot ``arena.botfolder`` finds in it; the run is told which it
found and which entries it skipped, and why. A bot written as a path where a bundled name is
expected gets the mapping to write instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.botfolder import FolderError, bot_name_for, scan_folder
from arena.botspec import BotPartError, BotSpec, bare_name, folder_program
from arena.config.context import Context, item_line, value_line

FOLDER_KEYS = {
    "folder": "alone: every sub-folder and program in that folder is a bot, named after it",
}
"""The key of a folder entry in ``bots:``, with the reference's help."""


@dataclass(frozen=True)
class Entry:
    """One bot of the list: as written, or found in a folder entry."""

    item: Any
    """The list's item as read, or the ``BotSpec`` of a bot found in a folder."""
    path: str
    """Its key path in errors (``bots[2]``; ``bots[2].folder`` for a bot of a folder)."""
    line: int | None
    raw: str | None
    """The item's text as written (a number meant as a name keeps its form)."""
    origin: str | None = None
    """For a bot of a folder: its file or folder as shown (``students/alice``)."""

    @property
    def described(self) -> str:
        """How errors name the entry: its key path, and where a folder's bot came from."""
        return self.path if self.origin is None else f"{self.path} ({self.origin})"


def expand_entries(ctx: Context, seq: Any) -> tuple[list[Entry], list[str]]:
    """The entries of ``bots:`` with each folder entry expanded, and what to tell of each folder
    (none when ``seq`` is no list: the caller says what is wrong)."""
    if not isinstance(seq, list | tuple):
        return [], []
    raws = getattr(seq, "raw", None)
    entries: list[Entry] = []
    notices: list[str] = []
    for i, item in enumerate(seq):
        path, line = f"bots[{i}]", item_line(seq, i)
        if isinstance(item, Mapping) and "folder" in item:
            found, notice = _folder_bots(ctx, item, path)
            entries += found
            notices.append(notice)
        else:
            entries.append(Entry(item, path, line, raws[i] if raws else None))
    return entries, notices


def _folder_bots(ctx: Context, item: Mapping[str, Any], path: str) -> tuple[list[Entry], str]:
    key, line = f"{path}.folder", value_line(item, "folder")
    others = [k for k in item if k != "folder"]
    if others:
        raise ctx.error(
            f"{path}.{others[0]}",
            f"unknown key {others[0]!r} beside 'folder' (a folder entry is {{folder: DIR}} alone;"
            " its bots are named after their folders and files)",
            getattr(item, "key_lines", {}).get(others[0], line),
        )
    text = ctx.path_text(item["folder"], key, line)
    try:
        scan = scan_folder(ctx.resolve(text), text)
    except (FolderError, OSError, RuntimeError) as exc:
        raise ctx.error(key, getattr(exc, "problem", str(exc)), line) from None
    if not scan.bots:
        skipped = "; ".join(f"{entry}: {reason}" for entry, reason in scan.skipped) or "it is empty"
        raise ctx.error(key, f"expected a folder holding bots, found none ({skipped})", line)
    entries = []
    for name, program in scan.bots:
        origin = f"{text.rstrip('/')}/{program.name}"
        try:
            spec = BotSpec.from_path(program, name)
        except BotPartError as exc:
            raise ctx.error(key, f"{origin}: {exc.problem}", line) from None
        entries.append(Entry(spec, key, line, None, origin))
    return entries, f"{path}: {scan.summary()}"


def path_hint(base: Path, given: str) -> str:
    """For a path written where a bot's name is expected: the mapping to write instead (and the
    folder entry when its folder holds several bots), or "" when ``given`` names no path here."""
    if bare_name(given, base):
        return ""
    try:
        where = base / Path(given).expanduser()
        if not where.exists():
            return ""
    except OSError:
        return ""
    if where.is_dir() and folder_program(where) is None:
        return f"; every bot in a folder is entered as {{folder: {given}}}"
    name = bot_name_for(where) or "NAME"
    hint = f"; a bot of your own is a mapping: write {{name: {name}, path: {given}}}"
    parent = Path(given).parent
    if str(parent) not in ("", "."):
        try:
            count = len(scan_folder(base / parent, str(parent)).bots)
        except FolderError:
            count = 0
        if count > 1:
            hint += f", or {{folder: {parent.as_posix()}}} for all {count} bots in {parent}"
    return hint
