"""Tournament files: load and validate a YAML file into frozen dataclasses, with clear errors.

A tournament file looks like this (every key but ``bots`` is optional)::

    name: ladder                      # default: the file's stem
    bots:
      - random                        # a bundled bot: bots/random_bot.py
      - name: mine
        path: ../bots/mine.py         # relative paths are relative to the file's folder
      - name: greedy-v2
        command: [python3, mybots/greedy.py, --depth, "2"]   # or one string, split like a shell
        dir: mybots                   # the bot's folder (the sandbox exposes it read-only)
    format: round-robin               # round-robin | gauntlet (the first bot against each other)
    games_per_pairing: 10             # games per ordered pair (A as Order against B as Chaos)
    time_control: {move_ms: 100, startup_ms: 5000}
    limits: {memory_mb: 1024}         # any field of arena.limits.Limits
    workers: 2                        # default: the number of usable cores
    seed: 1
    db: results/ladder.sqlite         # default: results/<name>.sqlite beside the file
    sandbox: auto                     # auto | bwrap | none
    affinity: auto                    # auto | on | off
    freeze_idle: false                # SIGSTOP the bot that is not on move

Every problem raises :class:`arena.errors.ConfigError` naming the file, the key path (such as
``bots[2].path``), the line where the file gives one and what was expected; no YAML exception or
traceback escapes. Unknown keys are errors (with the closest known key as a suggestion), and so
are duplicate keys, which YAML itself would silently accept.

Null is accepted only where it means something (``limits.cpu_seconds`` and ``limits.processes``).
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import shlex
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from arena.botspec import BOT_NAME_RE, bundled_bot_names, bundled_bot_path
from arena.errors import ConfigError
from arena.limits import AffinityMode, Limits, SandboxMode, TimeControl

__all__ = [
    "BotEntry",
    "TournamentConfig",
    "FORMATS",
    "BOT_NAME_RE",
    "load_config",
    "config_from_dict",
    "bundled_bot_path",
    "bundled_bot_names",
]

FORMATS = ("round-robin", "gauntlet")
"""The tournament formats: every ordered pair, or the first bot against each of the others."""

"""What a bot name must match (as a whole)."""

_BOT_NAME_RULE = "1 to 64 letters, digits or '_.+-', starting with a letter or a digit"
_MAX_INT = 2**31 - 1  # keeps rlimits, timeouts and counts far from any C overflow downstream
_MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class BotEntry:
    """One bot of a tournament, as the file gives it (paths absolute and resolved)."""

    name: str
    """Unique within the tournament; matches :data:`BOT_NAME_RE`."""
    path: Path | None = None
    """The bot's program file (a ``.py`` file, or an executable); None when ``command`` is set."""
    command: tuple[str, ...] | None = None
    """The full command line; None when ``path`` is set. The first element is an absolute path when
    it names a file (given relative to the config's folder), or else a program found on PATH."""
    dir: Path | None = None
    """The bot's folder (exposed read-only by the sandbox); None when not given."""


@dataclass(frozen=True)
class TournamentConfig:
    """A validated tournament file."""

    name: str
    """The tournament's name (default: the file's stem)."""
    path: Path | None
    """The config file, resolved (None for :func:`config_from_dict`)."""
    bots: tuple[BotEntry, ...]
    """At least two bots, in the file's order (a gauntlet's first bot is its challenger)."""
    format: str = "round-robin"
    """One of :data:`FORMATS`."""
    games_per_pairing: int = 10
    """Games per *ordered* pair: A as Order against B as Chaos (and as many the other way round)."""
    time_control: TimeControl = dataclasses.field(default_factory=TimeControl)
    """Per-move and startup time."""
    limits: Limits = dataclasses.field(default_factory=Limits)
    """Resource limits of each bot process."""
    workers: int = 1
    """Matches played at once (the file's default: the number of usable cores)."""
    seed: int = 1
    """Seed of everything random in the tournament (0 to 2**63 - 1)."""
    db: Path = Path("results/tournament.sqlite")
    """The results store, absolute (default: ``results/<name>.sqlite`` beside the file)."""
    sandbox: SandboxMode = SandboxMode.AUTO
    """How bots are isolated."""
    affinity: AffinityMode = AffinityMode.AUTO
    """Whether each match is pinned to one core."""
    freeze_idle: bool = False
    """SIGSTOP the bot that is not on move."""


# --------------------------------------------------------------------------------------------
# Bundled bots


# --------------------------------------------------------------------------------------------
# YAML with line numbers


class _Map(dict):
    """A mapping read from YAML, remembering the line of each key and value."""

    def __init__(self, line: int) -> None:
        super().__init__()
        self.line = line
        self.key_lines: dict[str, int] = {}
        self.value_lines: dict[str, int] = {}
        self.raw: dict[str, str | None] = {}  # the source text of plain scalar values


class _Seq(list):
    """A sequence read from YAML, remembering the line of each item."""

    def __init__(self, line: int) -> None:
        super().__init__()
        self.line = line
        self.item_lines: list[int] = []
        self.raw: list[str | None] = []


_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MERGE_TAG = "tag:yaml.org,2002:merge"


def _line_of(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _plain_text(node: yaml.Node) -> str | None:
    if isinstance(node, yaml.ScalarNode) and node.style is None:
        return node.value
    return None


class _Reader:
    """Turns composed YAML nodes into ``_Map``/``_Seq``/scalars, rejecting duplicate keys."""

    def __init__(self, ctx: _Context) -> None:
        self.ctx = ctx
        self.constructor = yaml.constructor.SafeConstructor()
        self.done: dict[int, Any] = {}
        self.active: set[int] = set()

    def read(self, node: yaml.Node, path: str) -> Any:
        if isinstance(node, yaml.ScalarNode):
            if node.tag not in self.constructor.yaml_constructors:
                raise self.ctx.error(
                    path or None, f"expected no YAML tag, got {node.tag!r}", _line_of(node)
                )
            try:
                return self.constructor.construct_object(node, deep=True)
            except yaml.YAMLError as exc:
                problem = getattr(exc, "problem", None) or str(exc)
                raise self.ctx.error(
                    path or None, f"expected a plain value, {problem}", _line_of(node)
                ) from None
        key = id(node)
        if key in self.done:
            return self.done[key]
        if key in self.active:
            raise self.ctx.error(
                path or None, "expected a value, got a recursive alias", _line_of(node)
            )
        self.active.add(key)
        try:
            if isinstance(node, yaml.SequenceNode):
                value: Any = self._sequence(node, path)
            elif isinstance(node, yaml.MappingNode):
                value = self._mapping(node, path)
            else:  # pragma: no cover - the composer makes nothing else
                raise self.ctx.error(path or None, "expected a value", _line_of(node))
        finally:
            self.active.discard(key)
        self.done[key] = value
        return value

    def _check_tag(self, node: yaml.Node, tag: str, path: str) -> None:
        if node.tag != tag:
            raise self.ctx.error(
                path or None, f"expected no YAML tag, got {node.tag!r}", _line_of(node)
            )

    def _sequence(self, node: yaml.SequenceNode, path: str) -> _Seq:
        self._check_tag(node, _SEQ_TAG, path)
        seq = _Seq(_line_of(node))
        for i, item in enumerate(node.value):
            seq.append(self.read(item, f"{path}[{i}]"))
            seq.item_lines.append(_line_of(item))
            seq.raw.append(_plain_text(item))
        return seq

    def _mapping(self, node: yaml.MappingNode, path: str) -> _Map:
        self._check_tag(node, _MAP_TAG, path)
        own = _Map(_line_of(node))
        merged: list[_Map] = []
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:  # "<<: *defaults"
                sources = (
                    value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                )
                for source in sources:
                    if not isinstance(source, yaml.MappingNode):
                        raise self.ctx.error(
                            path or None,
                            "expected a mapping (or a list of mappings) after '<<'",
                            _line_of(source),
                        )
                    merged.append(self.read(source, path))
                continue
            key = self.read(key_node, path)
            if not isinstance(key, str):
                raise self.ctx.error(
                    path or None,
                    f"expected a string key, got {_describe(key)}",
                    _line_of(key_node),
                )
            key_path = _join(path, key)
            if key in own:
                raise self.ctx.error(
                    key_path,
                    f"duplicate key {key!r} (first given at line {own.key_lines[key]})",
                    _line_of(key_node),
                )
            own[key] = self.read(value_node, key_path)
            own.key_lines[key] = _line_of(key_node)
            own.value_lines[key] = _line_of(value_node)
            own.raw[key] = _plain_text(value_node)
        if not merged:
            return own
        result = _Map(own.line)
        # Earlier merge sources win over later ones, and the mapping's own keys over all of them.
        for source in [*reversed(merged), own]:
            for key, value in source.items():
                result[key] = value
                result.key_lines[key] = source.key_lines[key]
                result.value_lines[key] = source.value_lines[key]
                result.raw[key] = source.raw[key]
        return result


# --------------------------------------------------------------------------------------------
# Helpers


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = repr(value)
        return text if len(text) <= 60 else text[:56] + "...'"
    if isinstance(value, int | float):
        text = repr(value)
        return text if len(text) <= 40 else f"an integer of {len(text)} digits"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return f"a {type(value).__name__}"


def _key_line(container: Any, key: str) -> int | None:
    return getattr(container, "key_lines", {}).get(key)


def _value_line(container: Any, key: str) -> int | None:
    return getattr(container, "value_lines", {}).get(key)


def _item_line(container: Any, index: int) -> int | None:
    lines = getattr(container, "item_lines", None)
    return lines[index] if lines is not None and index < len(lines) else None


def _start_line(container: Any) -> int | None:
    return getattr(container, "line", None)


def _suggest(word: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _text(value: Any, raw: str | None) -> str | None:
    """A string, or a number written where a string was meant (as it was written)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return raw if raw is not None else str(value)
    return None


def _field_kind(field: dataclasses.Field[Any]) -> tuple[str, bool]:
    """('int' | 'bool' | 'other', nullable) from a field's (string) annotation."""
    annotation = str(field.type).replace(" ", "")
    parts = set(annotation.split("|"))
    nullable = "None" in parts or annotation.startswith("Optional[")
    parts.discard("None")
    if parts == {"int"}:
        return "int", nullable
    if parts == {"bool"}:
        return "bool", nullable
    return "other", nullable


def _usable_cores() -> int:
    count = getattr(os, "process_cpu_count", None)  # Python >= 3.13
    if count is not None:
        n = count()
    elif hasattr(os, "sched_getaffinity"):
        n = len(os.sched_getaffinity(0))
    else:  # pragma: no cover - not Linux
        n = os.cpu_count()
    return max(1, n or 1)


class _Context:
    """The file being read and its folder; makes the errors."""

    def __init__(self, source: str, base_dir: Path) -> None:
        self.source = source
        self.base_dir = base_dir

    def error(self, key: str | None, expected: str, line: int | None = None) -> ConfigError:
        return ConfigError(self.source, key, expected, line)

    def check_keys(self, mapping: Mapping[Any, Any], known: Iterable[str], path: str) -> None:
        known = list(known)
        for key in mapping:
            if not isinstance(key, str):
                raise self.error(path or None, f"expected a string key, got {_describe(key)}")
            if key not in known:
                hint = _suggest(key, known)
                if not hint and not path:
                    hint = _section_hint(key)
                raise self.error(
                    _join(path, key), f"unknown key {key!r}{hint}", _key_line(mapping, key)
                )

    def integer(
        self,
        mapping: Mapping[str, Any],
        key: str,
        path: str,
        *,
        minimum: int = 1,
        maximum: int = _MAX_INT,
        nullable: bool = False,
    ) -> int:
        """The integer at ``mapping[key]`` (the caller handles a null that is allowed)."""
        value = mapping[key]
        if isinstance(value, int) and not isinstance(value, bool) and minimum <= value <= maximum:
            return value
        what = {1: "a positive integer", 0: "a non-negative integer"}.get(
            minimum, f"an integer >= {minimum}"
        )
        if isinstance(value, int) and not isinstance(value, bool) and value > maximum:
            what += f" no larger than {maximum}"
        if nullable:
            what += " or null"
        raise self.error(
            path, f"expected {what}, got {_describe(value)}", _value_line(mapping, key)
        )

    def choice(
        self, mapping: Mapping[str, Any], key: str, path: str, choices: Iterable[str]
    ) -> str:
        value = mapping[key]
        choices = list(choices)
        if isinstance(value, str) and value in choices:
            return str(value)
        listed = ", ".join(repr(c) for c in choices)
        hint = _suggest(value, choices) if isinstance(value, str) else ""
        raise self.error(
            path,
            f"expected one of {listed}, got {_describe(value)}{hint}",
            _value_line(mapping, key),
        )

    def resolve(self, text: str) -> Path:
        return (self.base_dir / Path(text).expanduser()).resolve()

    def path_text(self, value: Any, path: str, line: int | None) -> str:
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        if not isinstance(value, str) or not value.strip():
            raise self.error(path, f"expected a path, got {_describe(value)}", line)
        if "\0" in value:
            raise self.error(path, "expected a path, got a string with a NUL character", line)
        return value


def _section_hint(key: str) -> str:
    for section, cls in (("time_control", TimeControl), ("limits", Limits)):
        if key in {f.name for f in dataclasses.fields(cls)}:
            return f" (did you mean {section}.{key}, under {section!r}?)"
    return ""


_TOP_KEYS = (
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
)
_BOT_KEYS = ("name", "path", "command", "dir")


# --------------------------------------------------------------------------------------------
# Public API


def load_config(path: str | os.PathLike[str]) -> TournamentConfig:
    """Read and validate a tournament file; every problem raises :class:`ConfigError`."""
    try:
        source = os.fsdecode(path)
    except TypeError:
        raise ConfigError(repr(path), None, "expected the path of a tournament file") from None
    ctx = _Context(source, Path.cwd())
    file = Path(source).expanduser()
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise ctx.error(None, "file not found") from None
    except IsADirectoryError:
        raise ctx.error(None, "expected a YAML file, got a directory") from None
    except PermissionError:
        raise ctx.error(None, "file not readable (permission denied)") from None
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise ctx.error(None, f"file not readable ({reason})") from None
    try:
        resolved = file.resolve()
    except (OSError, RuntimeError):  # pragma: no cover - it was just read
        resolved = file.absolute()
    ctx.base_dir = resolved.parent

    try:
        root = yaml.compose(data, Loader=yaml.SafeLoader)
        top = None if root is None else _Reader(ctx).read(root, "")
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        detail = "; ".join(str(p) for p in (exc.context, exc.problem) if p)
        raise ctx.error(
            None, f"invalid YAML: {detail}", None if mark is None else mark.line + 1
        ) from None
    except yaml.reader.ReaderError as exc:  # bad encoding or a control character
        detail = str(exc).splitlines()[0]
        raise ctx.error(None, f"invalid YAML: {detail}", _reader_line(data, exc.position)) from None
    except yaml.YAMLError as exc:
        detail = " ".join(str(exc).split())
        raise ctx.error(None, f"invalid YAML: {detail}") from None
    except RecursionError:
        raise ctx.error(None, "invalid YAML: nested too deeply") from None

    if root is None:
        raise ctx.error(None, "expected a mapping at the top level, got an empty file", 1)
    if not isinstance(top, Mapping):
        raise ctx.error(
            None, f"expected a mapping at the top level, got {_describe(top)}", _line_of(root)
        )
    return _build(ctx, top, default_name=resolved.stem, config_path=resolved)


def _reader_line(data: bytes, position: int) -> int:
    try:
        text: str | bytes = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data  # the position is then a byte offset
    newline = "\n" if isinstance(text, str) else b"\n"
    return text[:position].count(newline) + 1  # type: ignore[arg-type]


def config_from_dict(
    data: Mapping[str, Any],
    source: str = "<dict>",
    base_dir: str | os.PathLike[str] | None = None,
) -> TournamentConfig:
    """Validate a tournament given as plain data (the same keys as the file).

    Relative paths are taken from ``base_dir`` (default: the current directory); ``source`` names
    the data in errors. Besides the file's plain values, ``time_control``/``limits`` may be
    :class:`TimeControl`/:class:`Limits`, bots may be :class:`BotEntry`, and paths ``Path``.
    """
    base = Path.cwd() if base_dir is None else Path(base_dir).expanduser().resolve()
    ctx = _Context(source, base)
    if not isinstance(data, Mapping):
        raise ctx.error(None, f"expected a mapping at the top level, got {_describe(data)}")
    default_name = "tournament" if source.startswith("<") else Path(source).stem
    return _build(ctx, data, default_name=default_name, config_path=None)


# --------------------------------------------------------------------------------------------
# Validation


def _build(
    ctx: _Context, top: Mapping[str, Any], *, default_name: str, config_path: Path | None
) -> TournamentConfig:
    ctx.check_keys(top, _TOP_KEYS, "")

    name = _tournament_name(ctx, top, default_name)
    bots = _bots(ctx, top)
    fmt = ctx.choice(top, "format", "format", FORMATS) if "format" in top else "round-robin"
    games = 10
    if "games_per_pairing" in top:
        games = ctx.integer(top, "games_per_pairing", "games_per_pairing")
    time_control = _section(ctx, top, "time_control", TimeControl)
    limits = _section(ctx, top, "limits", Limits)
    workers = ctx.integer(top, "workers", "workers") if "workers" in top else _usable_cores()
    seed = ctx.integer(top, "seed", "seed", minimum=0, maximum=_MAX_SEED) if "seed" in top else 1
    db = _db(ctx, top, name)

    sandbox = SandboxMode.AUTO
    if "sandbox" in top:
        sandbox = SandboxMode(ctx.choice(top, "sandbox", "sandbox", [m.value for m in SandboxMode]))

    affinity = AffinityMode.AUTO
    if "affinity" in top:
        value = top["affinity"]
        if isinstance(value, bool):  # YAML 1.1 reads a bare on/off as true/false
            affinity = AffinityMode.ON if value else AffinityMode.OFF
        else:
            affinity = AffinityMode(
                ctx.choice(top, "affinity", "affinity", [m.value for m in AffinityMode])
            )

    freeze_idle = False
    if "freeze_idle" in top:
        freeze_idle = top["freeze_idle"]
        if not isinstance(freeze_idle, bool):
            raise ctx.error(
                "freeze_idle",
                f"expected true or false, got {_describe(freeze_idle)}",
                _value_line(top, "freeze_idle"),
            )

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
    )


def _tournament_name(ctx: _Context, top: Mapping[str, Any], default: str) -> str:
    rule = "a name without '/', '\\' or control characters, at most 100 characters"
    if "name" in top:
        name = _text(top["name"], getattr(top, "raw", {}).get("name"))
        line = _value_line(top, "name")
        got = _describe(top["name"])
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


def _db(ctx: _Context, top: Mapping[str, Any], name: str) -> Path:
    if "db" not in top:
        return (ctx.base_dir / "results" / f"{name}.sqlite").resolve()
    line = _value_line(top, "db")
    text = ctx.path_text(top["db"], "db", line)
    try:
        db = ctx.resolve(text)
        is_dir = db.is_dir()
    except (OSError, RuntimeError, ValueError) as exc:
        raise ctx.error("db", f"expected a usable file path, got {text!r} ({exc})", line) from None
    if is_dir:
        raise ctx.error("db", f"expected a database file, got a directory ({db})", line)
    return db


def _section(ctx: _Context, top: Mapping[str, Any], key: str, cls: type) -> Any:
    if key not in top:
        return cls()
    value = top[key]
    if isinstance(value, cls):
        return value
    if not isinstance(value, Mapping):
        raise ctx.error(key, f"expected a mapping, got {_describe(value)}", _value_line(top, key))
    fields = {f.name: f for f in dataclasses.fields(cls)}
    ctx.check_keys(value, fields, key)
    values: dict[str, Any] = {}
    for name, item in value.items():
        kind, nullable = _field_kind(fields[name])
        path = _join(key, name)
        if kind == "int" and not (nullable and item is None):
            values[name] = ctx.integer(value, name, path, nullable=nullable)
        elif kind == "bool" and not isinstance(item, bool) and not (nullable and item is None):
            raise ctx.error(
                path, f"expected true or false, got {_describe(item)}", _value_line(value, name)
            )
        else:
            values[name] = item
    return cls(**values)


def _bots(ctx: _Context, top: Mapping[str, Any]) -> tuple[BotEntry, ...]:
    if "bots" not in top:
        raise ctx.error("bots", "missing (expected a list of at least 2 bots)", _start_line(top))
    seq = top["bots"]
    line = _value_line(top, "bots")
    if not isinstance(seq, list | tuple):
        raise ctx.error("bots", f"expected a list of bots, got {_describe(seq)}", line)
    if len(seq) < 2:
        raise ctx.error(
            "bots", f"expected at least 2 bots, got {len(seq)}", _key_line(top, "bots") or line
        )
    entries: list[BotEntry] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(seq):
        path = f"bots[{i}]"
        item_line = _item_line(seq, i)
        raw = getattr(seq, "raw", None)
        entry = _bot(ctx, item, path, item_line, raw[i] if raw else None)
        if entry.name in seen:
            where = path if not isinstance(item, Mapping) else f"{path}.name"
            name_line = _value_line(item, "name") if isinstance(item, Mapping) else item_line
            raise ctx.error(
                where,
                f"duplicate bot name {entry.name!r} (already used by bots[{seen[entry.name]}])",
                name_line,
            )
        seen[entry.name] = i
        entries.append(entry)
    return tuple(entries)


def _check_bot_name(ctx: _Context, name: str | None, got: Any, path: str, line: int | None) -> str:
    if name is None or not BOT_NAME_RE.fullmatch(name):
        raise ctx.error(
            path, f"expected a bot name of {_BOT_NAME_RULE}, got {_describe(got)}", line
        )
    return name


def _bot(ctx: _Context, item: Any, path: str, line: int | None, raw: str | None) -> BotEntry:
    if isinstance(item, BotEntry):
        _check_bot_name(ctx, item.name, item.name, f"{path}.name", line)
        return item
    if isinstance(item, Mapping):
        return _bot_mapping(ctx, item, path, line)
    name = _text(item, raw)
    if name is None:
        raise ctx.error(
            path,
            "expected a bot: a mapping with 'name' and 'path' or 'command', or the name of a"
            f" bundled bot, got {_describe(item)}",
            line,
        )
    _check_bot_name(ctx, name, item, path, line)
    bundled = bundled_bot_path(name)
    if bundled is None:
        known = bundled_bot_names()
        listed = ", ".join(known) if known else "none"
        raise ctx.error(
            path,
            f"unknown bundled bot {name!r}{_suggest(name, known)} (bundled bots: {listed});"
            " give your own bot as {name: ..., path: ...}",
            line,
        )
    return BotEntry(name=name, path=bundled)


def _bot_mapping(ctx: _Context, item: Mapping[str, Any], path: str, line: int | None) -> BotEntry:
    ctx.check_keys(item, _BOT_KEYS, path)
    raws = getattr(item, "raw", {})
    if "name" not in item:
        raise ctx.error(path, "missing required key 'name'", _start_line(item) or line)
    name = _check_bot_name(
        ctx,
        _text(item["name"], raws.get("name")),
        item["name"],
        f"{path}.name",
        _value_line(item, "name"),
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
            _start_line(item) or line,
        )
    bot_path = command = None
    if has_path:
        bot_path = _bot_file(ctx, item["path"], f"{path}.path", _value_line(item, "path"))
    else:
        command = _command(ctx, item, f"{path}.command")
    bot_dir = None
    if "dir" in item:
        bot_dir = _bot_dir(ctx, item["dir"], f"{path}.dir", _value_line(item, "dir"))
    return BotEntry(name=name, path=bot_path, command=command, dir=bot_dir)


def _existing(ctx: _Context, text: str, path: str, line: int | None) -> Path:
    try:
        resolved = ctx.resolve(text)
        exists = resolved.exists()
    except (OSError, RuntimeError, ValueError) as exc:
        raise ctx.error(path, f"expected a usable path, got {text!r} ({exc})", line) from None
    if not exists:
        raise ctx.error(
            path, f"expected an existing path, got {text!r} (not found: {resolved})", line
        )
    return resolved


def _bot_file(ctx: _Context, value: Any, path: str, line: int | None) -> Path:
    text = ctx.path_text(value, path, line)
    file = _existing(ctx, text, path, line)
    if not file.is_file():
        raise ctx.error(path, f"expected a bot file, got {text!r} (not a file: {file})", line)
    if file.suffix != ".py" and not os.access(file, os.X_OK):
        raise ctx.error(
            path,
            f"expected a .py file or an executable file, got {text!r} (not executable: {file})",
            line,
        )
    return file


def _bot_dir(ctx: _Context, value: Any, path: str, line: int | None) -> Path:
    text = ctx.path_text(value, path, line)
    folder = _existing(ctx, text, path, line)
    if not folder.is_dir():
        raise ctx.error(path, f"expected a folder, got {text!r} (not a folder: {folder})", line)
    return folder


def _command(ctx: _Context, item: Mapping[str, Any], path: str) -> tuple[str, ...]:
    value = item["command"]
    line = _value_line(item, "command")
    lines: list[int | None]
    if isinstance(value, str):
        try:
            argv = shlex.split(value)
        except ValueError as exc:
            raise ctx.error(
                path, f"expected a command line, got {_describe(value)} ({exc})", line
            ) from None
        lines = [line] * len(argv)
    elif isinstance(value, list | tuple):
        argv = []
        raws = getattr(value, "raw", None)
        for i, arg in enumerate(value):
            text = _text(arg, raws[i] if raws else None)
            if text is None:
                raise ctx.error(
                    f"{path}[{i}]",
                    f"expected a string, got {_describe(arg)}",
                    _item_line(value, i) or line,
                )
            argv.append(text)
        lines = [_item_line(value, i) or line for i in range(len(argv))]
    else:
        raise ctx.error(
            path, f"expected a list of strings or a string, got {_describe(value)}", line
        )
    if not argv:
        raise ctx.error(path, "expected a non-empty command", line)
    for i, arg in enumerate(argv):
        if "\0" in arg:
            raise ctx.error(f"{path}[{i}]", "expected a string without NUL characters", lines[i])
    argv[0] = _program(ctx, argv[0], f"{path}[0]", lines[0])
    return tuple(argv)


def _program(ctx: _Context, program: str, path: str, line: int | None) -> str:
    """The command's program: a file (relative to the config's folder) or a name on PATH."""
    if not program.strip():
        raise ctx.error(path, "expected a program, got an empty string", line)
    looks_like_path = "/" in program or program.startswith("~")
    if not looks_like_path and shutil.which(program) is not None:
        return program
    try:
        file = ctx.resolve(program)
        is_file = file.is_file()
    except (OSError, RuntimeError, ValueError):
        file, is_file = None, False
    if not is_file or file is None:
        where = "a file" if looks_like_path else "a program on PATH or a file"
        raise ctx.error(
            path,
            f"expected {where} (relative to {ctx.base_dir}), got {program!r} (not found)",
            line,
        )
    if not os.access(file, os.X_OK):
        raise ctx.error(
            path, f"expected an executable file, got {program!r} (not executable: {file})", line
        )
    return str(file)
