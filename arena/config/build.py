"""Checking a tournament's data key by key and building the ``TournamentConfig``.

The data comes from the YAML reader (with lines) or from plain Python (``config_from_dict``).
Bots are built by ``arena.botspec`` (the one look-up of programs and bundled bots); its errors
come back here as ``BotPartError``s and leave as ``ConfigError``s at the key and line of the part
that is wrong.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

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
    field_kind,
    item_line,
    join,
    key_line,
    start_line,
    text_of,
    value_line,
)
from arena.config.course import COURSE_KEYS, course_keys
from arena.config.folders import FOLDER_KEYS, Entry, expand_entries, path_hint
from arena.config.model import TournamentConfig, in_store_folder, store_folder_problem
from arena.errors import BotSpecError
from arena.limits import (
    AffinityMode,
    KeepBots,
    Limits,
    Measure,
    SandboxMode,
    TimeControl,
    minimum_of,
)
from arena.tournament.affinity import core_count
from arena.tournament.course import COURSE_FORMATS
from arena.tournament.executors import DEFAULT_EXECUTOR, executor_names
from arena.tournament.schedule import FORMATS, MAX_GAMES, MAX_OPENING_PLIES, pairing_count

__all__ = ["TOP_KEYS", "BOT_KEYS", "build", "section_hint"]

TOP_KEYS = (
    "name",
    "bots",
    "format",
    "games_per_pairing",
    "time_control",
    "limits",
    "workers",
    "seed",
    "db",
    "sandbox",
    "affinity",
    "freeze_idle",
    "executor",
    "cluster",
    "trusted_bots",
    "keep_bots",
    "openings",
    *COURSE_KEYS,
)
OPENING_KEYS = ("random_plies",)
BOT_KEYS = ("name", "path", "command", "dir")

MAX_WORKERS = 1024
"""More worker processes than any machine runs fairly (the run caps them further)."""

_BOT_NAME_RULE = "1 to 64 letters, digits or '_.+-', starting with a letter or a digit"
_MAX_SEED = 2**63 - 1

_Section = TypeVar("_Section", TimeControl, Limits)


def section_hint(key: str) -> str:
    """For an unknown top-level key that is a key of a section: where it belongs."""
    for section, cls in (("time_control", TimeControl), ("limits", Limits)):
        if key in {f.name for f in dataclasses.fields(cls)}:
            return f" (did you mean {section}.{key}, under {section!r}?)"
    return ""


def _keep_bots(ctx: Context, top: Mapping[str, Any]) -> KeepBots:
    """``keep_bots:``: ``auto`` (absent), ``true`` or ``false`` (YAML's booleans or words)."""
    if "keep_bots" not in top:
        return KeepBots.AUTO
    value = top["keep_bots"]
    if isinstance(value, bool):
        return KeepBots.ALL if value else KeepBots.OFF
    if isinstance(value, str) and value in {m.value for m in KeepBots}:
        return KeepBots(value)
    raise ctx.error(
        "keep_bots",
        f"expected auto, true or false, got {describe(value)}",
        value_line(top, "keep_bots"),
    )


def build(
    ctx: Context, top: Mapping[str, Any], *, default_name: str, config_path: Path | None
) -> TournamentConfig:
    """The config ``top`` describes; the first problem raises a located ``ConfigError``."""
    ctx.check_keys(top, TOP_KEYS, "")

    name = _tournament_name(ctx, top, default_name)
    db = _db(ctx, top, name)
    reserved = {db: "the results store"}
    if config_path is not None:
        reserved[config_path] = "the config"
    formats = (*FORMATS, *COURSE_FORMATS)
    fmt = ctx.choice(top, "format", "format", formats) if "format" in top else "round-robin"
    entries, found = expand_entries(ctx, top.get("bots"))  # folders: bots to count, not run
    course = course_keys(ctx, top, fmt, len(entries))
    games = 1 if fmt in COURSE_FORMATS else 10  # a course's meeting: one game per role
    if len(entries) >= 2 and fmt not in COURSE_FORMATS:  # else _bots says what is wrong
        # Before any bot is looked at: a pool too large to plan is refused at once.
        games = _games_per_pairing(ctx, top, len(entries), fmt)
    sandbox = SandboxMode.AUTO
    if "sandbox" in top:
        sandbox = SandboxMode(ctx.choice(top, "sandbox", "sandbox", [m.value for m in SandboxMode]))
    bots, notices = _bots(ctx, top, entries, reserved, db, sandbox)
    time_control = _section(ctx, top, "time_control", TimeControl)
    limits = _section(ctx, top, "limits", Limits)
    workers = core_count()
    if "workers" in top:
        workers = ctx.integer(top, "workers", "workers", maximum=MAX_WORKERS)
    seed = ctx.integer(top, "seed", "seed", minimum=0, maximum=_MAX_SEED) if "seed" in top else 1

    affinity = AffinityMode.AUTO
    if "affinity" in top:
        value = top["affinity"]
        if isinstance(value, bool):  # YAML 1.1 reads a bare on/off as true/false
            affinity = AffinityMode.ON if value else AffinityMode.OFF
        else:
            affinity = AffinityMode(
                ctx.choice(top, "affinity", "affinity", [m.value for m in AffinityMode])
            )

    freeze_idle = ctx.flag(top, "freeze_idle", "freeze_idle") if "freeze_idle" in top else True

    executor = DEFAULT_EXECUTOR
    if "executor" in top:
        executor = ctx.choice(top, "executor", "executor", executor_names())
    cluster = _cluster(ctx, top, executor)
    if cluster is not None:
        executor = "cluster"

    trusted_bots = ctx.flag(top, "trusted_bots", "trusted_bots") if "trusted_bots" in top else False

    keep_bots = _keep_bots(ctx, top)
    opening_plies = _opening_plies(ctx, top)

    return TournamentConfig(
        name=name,
        path=config_path,
        bots=bots,
        format=fmt,
        games_per_pairing=games,
        time_control=time_control,
        limits=limits,
        workers=workers,
        seed=seed,
        db=db,
        sandbox=sandbox,
        affinity=affinity,
        freeze_idle=freeze_idle,
        executor=executor,
        notices=tuple(found + notices),
        opening_plies=opening_plies,
        cluster=cluster,
        trusted_bots=trusted_bots,
        keep_bots=keep_bots,
        rounds=course.rounds,
        until=course.until,
        budget=course.budget,
    )


def _cluster(ctx: Context, top: Mapping[str, Any], executor: str) -> str | None:
    """``cluster:``, a Dask scheduler's address or ``local:N``; it implies the cluster executor."""
    if "cluster" not in top:
        return None
    from arena.tournament.executors.cluster import (
        parse_cluster,  # no Dask import: only the address's form
    )

    try:
        cluster = parse_cluster(top["cluster"])
    except ValueError as exc:
        raise ctx.error("cluster", str(exc), value_line(top, "cluster")) from None
    if "executor" in top and executor != "cluster":
        raise ctx.error(
            "executor",
            f"expected 'cluster' (or no executor) with cluster: {cluster}, got {executor!r}",
            value_line(top, "executor"),
        )
    return cluster


def _opening_plies(ctx: Context, top: Mapping[str, Any]) -> int:
    if "openings" not in top:
        return 0
    value = top["openings"]
    if not isinstance(value, Mapping):
        raise ctx.error(
            "openings",
            f"expected a mapping such as {{random_plies: 4}}, got {describe(value)}",
            value_line(top, "openings"),
        )
    ctx.check_keys(value, OPENING_KEYS, "openings")
    if "random_plies" not in value:
        return 0
    return ctx.integer(
        value,
        "random_plies",
        "openings.random_plies",
        minimum=0,
        maximum=MAX_OPENING_PLIES,
        why="random moves before the bots play; the rest of the board is theirs",
    )


def _games_per_pairing(ctx: Context, top: Mapping[str, Any], bots: int, fmt: str) -> int:
    """Bounded before anything is planned or created: the schedule lists every game it owes."""
    pairs = max(1, pairing_count(bots, fmt))
    most = MAX_GAMES // (2 * pairs)
    made = f"make {pairs:,} pairs" if pairs != 1 else "make 1 pair"
    why = f"at most {MAX_GAMES:,} games in all; {bots} bots in a {fmt} {made}"
    if "games_per_pairing" in top:
        return ctx.integer(top, "games_per_pairing", "games_per_pairing", maximum=most, why=why)
    if most < 10:
        line = key_line(top, "bots") or value_line(top, "bots")
        raise ctx.error("bots", f"expected fewer bots ({why})", line)
    return 10


def _tournament_name(ctx: Context, top: Mapping[str, Any], default: str) -> str:
    rule = "a name without '/', '\\' or control characters, at most 100 characters"
    if "name" in top:
        name = text_of(top["name"], getattr(top, "raw", {}).get("name"))
        line = value_line(top, "name")
        got = describe(top["name"])
    else:
        name, line, got = default, None, f"{default!r} (the file's name; set 'name')"
    if (
        name is None
        or not name.strip()
        or name in (".", "..")
        or len(name) > 100
        or any(c in name for c in "/\\")
        or any(ord(c) < 32 or ord(c) == 127 for c in name)
    ):
        raise ctx.error("name", f"expected {rule}, got {got}", line)
    return name


def _db(ctx: Context, top: Mapping[str, Any], name: str) -> Path:
    if "db" not in top:
        return (ctx.base_dir / "results" / f"{name}.sqlite").resolve()
    line = value_line(top, "db")
    text = ctx.path_text(top["db"], "db", line)
    try:
        db = ctx.resolve(text)
        is_dir = db.is_dir()
        exists = db.exists()
        special = exists and not is_dir and not db.is_file()
        # The store's own file may be reached through a link; a new one is made only at a path
        # of its own, never in the (empty or missing) file a link leads to (see Store).
        linked = (ctx.base_dir / Path(text).expanduser()).is_symlink()
        empty_target = linked and (not exists or (db.is_file() and db.stat().st_size == 0))
    except (OSError, RuntimeError, ValueError) as exc:
        raise ctx.error("db", f"expected a usable file path, got {text!r} ({exc})", line) from None
    if is_dir:
        raise ctx.error("db", f"expected a database file, got a directory ({db})", line)
    if special:
        raise ctx.error("db", f"expected a database file, got a device or a pipe ({db})", line)
    if empty_target:
        what = "an empty file" if exists else "a file that does not exist"
        raise ctx.error(
            "db",
            f"expected a store, or a new path of its own, got a link to {what} ({db})",
            line,
        )
    return db


def _section(ctx: Context, top: Mapping[str, Any], key: str, cls: type[_Section]) -> _Section:
    if key not in top:
        return cls()
    value = top[key]
    if isinstance(value, cls):
        return value
    if not isinstance(value, Mapping):
        raise ctx.error(key, f"expected a mapping, got {describe(value)}", value_line(top, key))
    fields = {f.name: f for f in dataclasses.fields(cls)}
    ctx.check_keys(value, fields, key)
    values: dict[str, Any] = {}
    for name, item in value.items():
        kind, nullable = field_kind(fields[name])
        path = join(key, name)
        if kind == "int" and not (nullable and item is None):
            least, why = minimum_of(fields[name])
            values[name] = ctx.integer(value, name, path, minimum=least, nullable=nullable, why=why)
        elif name == "measure" and cls is TimeControl:
            values[name] = Measure(ctx.choice(value, name, path, [m.value for m in Measure]))
        elif kind == "bool" and not isinstance(item, bool) and not (nullable and item is None):
            raise ctx.error(
                path, f"expected true or false, got {describe(item)}", value_line(value, name)
            )
        else:
            values[name] = item
    if cls is TimeControl:
        _check_clock(ctx, value)
    return cls(**values)


def _check_clock(ctx: Context, section: Mapping[str, Any]) -> None:
    """A time control is a time per move or a clock, not both; an increment needs a clock."""
    clock = section.get("clock_ms")
    if clock is not None and "move_ms" in section:
        raise ctx.error(
            "time_control.move_ms",
            "move_ms or clock_ms, not both (a clock replaces the fixed time per move)",
            value_line(section, "move_ms"),
        )
    if clock is None and section.get("increment_ms"):
        raise ctx.error(
            "time_control.increment_ms",
            "an increment needs a clock: set time_control.clock_ms too",
            value_line(section, "increment_ms"),
        )


# --- bots --------------------------------------------------------------------------------------


def _bots(
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
    if "bots" not in top:
        raise ctx.error("bots", "missing (expected a list of at least 2 bots)", start_line(top))
    seq = top["bots"]
    line = value_line(top, "bots")
    if not isinstance(seq, list | tuple):
        raise ctx.error("bots", f"expected a list of bots, got {describe(seq)}", line)
    if len(entries) < 2:
        raise ctx.error(
            "bots", f"expected at least 2 bots, got {len(entries)}", key_line(top, "bots") or line
        )
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
    claimed, shared = claim_folders(specs, reserved)
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
    return tuple(claimed), notices


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
