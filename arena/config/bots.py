"""The ``bots:`` key: each entry checked and built into a ``BotSpec``, each folder decided.

Bots are built by ``arena.botspec`` (the one look-up of programs and bundled bots); its errors
come back here as ``BotPartError``s and leave as ``ConfigError``s at the key and line of the part
that is wrong.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.botspec import (
    BOT_NAME_RE,
    BotPartError,
    BotSpec,
    bare_name,
    bundled_bot_names,
    bundled_bot_path,
    claim_folders,
    did_you_mean,
)
from arena.config.context import (
    Context,
    describe,
    item_line,
    key_line,
    start_line,
    text_of,
    value_line,
)
from arena.config.folders import FOLDER_KEYS, Entry, path_hint
from arena.config.model import in_store_folder, store_folder_problem
from arena.errors import BotSpecError
from arena.limits import SandboxMode

BOT_KEYS = {
    "name": "the bot's name in the standings: 1 to 64 letters, digits or `_.+-`",
    "path": "a program, a folder (its `main.py` or executable `main`) or a bundled bot's name",
    "command": "instead of `path`: a list of words, or one string split as a shell would",
    "dir": "the folder the bot may read (default: its program's folder)",
}
"""The keys of a bot's mapping in ``bots:``, with the reference's help of each."""

_BOT_NAME_RULE = "1 to 64 letters, digits or '_.+-', starting with a letter or a digit"


def parse_bots(
    ctx: Context,
    top: Mapping[str, Any],
    entries: list[Entry],
    reserved: dict[Path, str],
    db: Path,
    sandbox: SandboxMode,
) -> tuple[tuple[BotSpec, ...], list[str]]:
    """The bots of ``entries`` (folder entries expanded), each folder decided (its own or
    shared), and what to tell about folders: a bot in the store's folder is refused unless no
    sandbox is asked for (then only told)."""
    seq = top["bots"]
    line = value_line(top, "bots")
    if not isinstance(seq, list | tuple):
        raise ctx.error("bots", f"expected a list of bots, got {describe(seq)}", line)
    if len(entries) < 2:
        raise ctx.error(
            "bots", f"expected at least 2 bots, got {len(entries)}", key_line(top, "bots") or line
        )
    specs = _distinct_bots(ctx, entries, reserved, db, sandbox)
    claimed, shared = claim_folders(specs, reserved)
    return tuple(claimed), _folder_notices(specs, claimed, shared, db)


def _distinct_bots(
    ctx: Context, entries: list[Entry], reserved: dict[Path, str], db: Path, sandbox: SandboxMode
) -> list[BotSpec]:
    """The bot of each entry, in order; a name given twice is refused where it is repeated."""
    specs: list[BotSpec] = []
    seen: dict[str, Entry] = {}
    for entry in entries:
        spec = _entry_bot(ctx, entry, reserved, db, sandbox)
        if spec.name in seen:
            item = entry.item
            where = entry.path if not isinstance(item, Mapping) else f"{entry.path}.name"
            name_line = value_line(item, "name") if isinstance(item, Mapping) else entry.line
            raise ctx.error(
                where if entry.origin is None else entry.described,
                f"duplicate bot name {spec.name!r} (already used by {seen[spec.name].described})",
                name_line,
            )
        seen[spec.name] = entry
        specs.append(spec)
    return specs


def _folder_notices(
    specs: list[BotSpec], claimed: list[BotSpec], shared: list[str], db: Path
) -> list[str]:
    """What to tell of the bots' folders: the store's folder, shared ones, crowded ones."""
    notices = []
    exposed = [spec.name for spec in specs if in_store_folder(spec, db)]
    if exposed:  # without a sandbox nothing is hidden from a bot anyway (docs/sandbox.md)
        notices.append(
            f"bots {', '.join(exposed)}: their folder holds the results store, which they may"
            " read (no sandbox here): give each a folder of its own, or the store another (db:)"
        )
    if shared:
        notices.append(
            f"bots {', '.join(shared)}: their folder is not their own (it holds other bots,"
            " the config or the store, or too many files): only the files their commands name"
            " identify them; give each a folder of its own (or dir:) to cover helpers and data"
        )
    crowded = [
        spec.name
        for spec in claimed
        if spec.own_dir
        and any(
            other.program is not None
            and other.program != spec.program
            and spec.dir in other.program.parents
            for other in claimed
        )
    ]
    if crowded:
        notices.append(
            f"bots {', '.join(crowded)}: their folder holds other bots' programs, which they"
            " may read and which are part of their version"
        )
    return notices


def _entry_bot(
    ctx: Context, entry: Entry, reserved: dict[Path, str], db: Path, sandbox: SandboxMode
) -> BotSpec:
    """The bot of one entry, its folder checked: none may hold the results or the config."""
    item, path = entry.item, entry.path
    spec = _bot(ctx, item, path, entry.line, entry.raw)
    if spec.own_dir and isinstance(item, Mapping) and "dir" in item:
        _check_own_folder(ctx, spec, reserved, f"{path}.dir", value_line(item, "dir"))
    elif spec.own_dir and entry.origin is not None:
        _check_own_folder(ctx, spec, reserved, entry.described, entry.line)
    if sandbox is not SandboxMode.NONE and in_store_folder(spec, db):
        raise ctx.error(entry.described, store_folder_problem(spec, db), entry.line)
    return spec


def _check_own_folder(
    ctx: Context, spec: BotSpec, reserved: dict[Path, str], path: str, line: int | None
) -> None:
    """A folder given as a bot's is exposed to it and hashed: it must not hold the results."""
    for held, what in reserved.items():
        if spec.dir == held or spec.dir in held.parents:
            raise ctx.error(
                path,
                f"expected a folder of the bot's own, got {spec.dir} (it holds {what}, {held},"
                " which the bot could then read)",
                line,
            )


def _check_bot_name(ctx: Context, name: str | None, got: Any, path: str, line: int | None) -> str:
    if name is None or not BOT_NAME_RE.fullmatch(name):
        raise ctx.error(path, f"expected a bot name of {_BOT_NAME_RULE}, got {describe(got)}", line)
    return name


def _bot(ctx: Context, item: Any, path: str, line: int | None, raw: str | None) -> BotSpec:
    if isinstance(item, BotSpec):
        _check_bot_name(ctx, item.name, item.name, f"{path}.name", line)
        return item
    if isinstance(item, Mapping):
        return _bot_mapping(ctx, item, path, line)
    name = text_of(item, raw)
    if name is None:
        raise ctx.error(
            path,
            "expected a bot: a mapping with 'name' and 'path' or 'command', {folder: DIR}, or"
            f" the name of a bundled bot, got {describe(item)}",
            line,
        )
    if hint := path_hint(ctx.base_dir, name):
        raise ctx.error(path, f"expected a bundled bot's name, got the path {name!r}{hint}", line)
    _check_bot_name(ctx, name, item, path, line)
    bundled = bundled_bot_path(name)
    if bundled is None:
        known = bundled_bot_names()
        listed = ", ".join(known) if known else "none"
        raise ctx.error(
            path,
            f"unknown bundled bot {name!r}{did_you_mean(name, known)} (bundled bots: {listed});"
            " give your own bot as {name: ..., path: ...}",
            line,
        )
    try:
        spec = BotSpec.bundled(name)
    except BotSpecError as exc:  # e.g. a bundled bot that lost its executable bit
        raise ctx.error(path, f"expected a usable bundled bot ({exc})", line) from None
    assert spec is not None  # found just above
    return spec


def _bot_mapping(ctx: Context, item: Mapping[str, Any], path: str, line: int | None) -> BotSpec:
    ctx.check_keys(item, (*BOT_KEYS, *FOLDER_KEYS), path)  # a misspelt 'folder' is told so
    raws = getattr(item, "raw", {})
    if "name" not in item:
        raise ctx.error(path, "missing required key 'name'", start_line(item) or line)
    name = _check_bot_name(
        ctx,
        text_of(item["name"], raws.get("name")),
        item["name"],
        f"{path}.name",
        value_line(item, "name"),
    )
    has_path, has_command = "path" in item, "command" in item
    if has_path == has_command:
        got = "both" if has_path else "neither"
        hint = ""
        if not has_path and bundled_bot_path(name) is not None:
            hint = f" (or write just '- {name}' for the bundled bot)"
        raise ctx.error(
            path,
            f"expected exactly one of 'path' or 'command', got {got}{hint}",
            start_line(item) or line,
        )
    folder = None
    if "dir" in item:
        folder = ctx.path_text(item["dir"], f"{path}.dir", value_line(item, "dir"))
    arg_lines: list[int | None] = []
    try:
        if has_path:
            program = ctx.path_text(item["path"], f"{path}.path", value_line(item, "path"))
            bundled = _bundled_by_bare_name(ctx, program)
            if bundled is not None:
                if folder is not None:
                    raise ctx.error(
                        f"{path}.dir",
                        f"expected no 'dir' for the bundled bot {program!r} (it runs in its"
                        " own folder)",
                        value_line(item, "dir"),
                    )
                return bundled.renamed(name)
            return BotSpec.from_path(program, name, dir=folder, base_dir=ctx.base_dir)
        argv, arg_lines = _command(ctx, item, f"{path}.command")
        return BotSpec.from_command(argv, name, dir=folder, base_dir=ctx.base_dir)
    except BotPartError as exc:
        key = f"{path}.{exc.part}" + ("" if exc.index is None else f"[{exc.index}]")
        at = value_line(item, exc.part)
        if exc.index is not None and exc.index < len(arg_lines):
            at = arg_lines[exc.index]
        problem = exc.problem
        given = item.get("path") if exc.part == "path" else None
        if (
            isinstance(given, str)
            and bare_name(given, ctx.base_dir)
            and bundled_bot_path(given) is None
        ):  # a bare name found nowhere: perhaps a bundled bot's, misspelt
            known = bundled_bot_names()
            hint = did_you_mean(given, known)
            problem += f", nor a bundled bot's name{hint} ({', '.join(known)})"
        raise ctx.error(key, problem, at) from None


def _bundled_by_bare_name(ctx: Context, program: str) -> BotSpec | None:
    """The bundled bot a mapping's ``path`` names by its bare name (``{name: baseline, path:
    greedy}``), as ``arena match greedy`` does: only when no file or folder of that name stands
    beside the config, which would be the bot instead. None when ``program`` is not such a name.
    """
    if not bare_name(program, ctx.base_dir):
        return None
    return BotSpec.bundled(program)


def _command(
    ctx: Context, item: Mapping[str, Any], path: str
) -> tuple[list[str], list[int | None]]:
    """The command's arguments and the line of each (a string is split like a shell)."""
    value = item["command"]
    line = value_line(item, "command")
    lines: list[int | None]
    if isinstance(value, str):
        try:
            argv = shlex.split(value)
        except ValueError as exc:
            raise ctx.error(
                path, f"expected a command line, got {describe(value)} ({exc})", line
            ) from None
        lines = [line] * len(argv)
    elif isinstance(value, list | tuple):
        argv = []
        raws = getattr(value, "raw", None)
        for i, arg in enumerate(value):
            text = text_of(arg, raws[i] if raws else None)
            if text is None:
                raise ctx.error(
                    f"{path}[{i}]",
                    f"expected a string, got {describe(arg)}",
                    item_line(value, i) or line,
                )
            argv.append(text)
        lines = [item_line(value, i) or line for i in range(len(argv))]
    else:
        raise ctx.error(
            path, f"expected a list of strings or a string, got {describe(value)}", line
        )
    if not argv:
        raise ctx.error(path, "expected a non-empty command", line)
    for i, arg in enumerate(argv):
        if "\0" in arg:
            raise ctx.error(f"{path}[{i}]", "expected a string without NUL characters", lines[i])
    return argv, lines
