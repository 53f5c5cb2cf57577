"""The parsers of the top-level keys that need more than a plain check, and the defaults that
depend on the file.

Each parser takes the file's ``ParsedKeys`` and returns the key's setting, or raises a located
``ConfigError``; ``arena.config.keys`` declares which parser parses which key.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import NoReturn

from arena.botspec import BotSpec
from arena.config.bots import parse_bots
from arena.config.context import describe, key_line, start_line, text_of, value_line
from arena.config.course import refuse_games_per_pairing
from arena.config.parsedkeys import ParsedKeys
from arena.limits import AffinityMode, KeepBots
from arena.tournament.course import COURSE_FORMATS
from arena.tournament.executors import DEFAULT_EXECUTOR, executor_names
from arena.tournament.schedule import FORMATS, MAX_GAMES, MAX_OPENING_PLIES, pairing_count

OPENING_KEYS = {
    "random_plies": ("none", "the number of random plies both games of a pair start from"),
}
"""The keys of ``openings:``: the reference's default and help of each."""
_NAME_RULE = "a name without '/', '\\' or control characters, at most 100 characters"


def tournament_name(parsed: ParsedKeys, key: str) -> str:
    """``name:``: it names the store, the report and every export."""
    name = text_of(parsed.top[key], getattr(parsed.top, "raw", {}).get(key))
    return _checked_name(parsed, name, describe(parsed.top[key]), value_line(parsed.top, key))


def default_name(parsed: ParsedKeys) -> str:
    """The file's stem, checked as a name given would be."""
    got = f"{parsed.default_name!r} (the file's name; set 'name')"
    return _checked_name(parsed, parsed.default_name, got, None)


def _checked_name(parsed: ParsedKeys, name: str | None, got: str, line: int | None) -> str:
    if (
        name is None
        or not name.strip()
        or name in (".", "..")
        or len(name) > 100
        or any(c in name for c in "/\\")
        or any(ord(c) < 32 or ord(c) == 127 for c in name)
    ):
        raise parsed.ctx.error("name", f"expected {_NAME_RULE}, got {got}", line)
    return name


def default_db(parsed: ParsedKeys) -> Path:
    """``results/<name>.sqlite`` beside the file."""
    return (parsed.ctx.base_dir / "results" / f"{parsed.value('name')}.sqlite").resolve()


def db(parsed: ParsedKeys, key: str) -> Path:
    """``db:``, a file of its own: no folder, device or pipe, nor a link to a file not a store."""
    ctx, line = parsed.ctx, value_line(parsed.top, key)
    text = ctx.path_text(parsed.top[key], key, line)
    try:
        path = ctx.resolve(text)
        is_dir = path.is_dir()
        exists = path.exists()
        special = exists and not is_dir and not path.is_file()
        # The store's own file may be reached through a link; a new one is made only at a path
        # of its own, never in the (empty or missing) file a link leads to (see Store).
        linked = (ctx.base_dir / Path(text).expanduser()).is_symlink()
        empty_target = linked and (not exists or (path.is_file() and path.stat().st_size == 0))
    except (OSError, RuntimeError, ValueError) as exc:
        raise ctx.error("db", f"expected a usable file path, got {text!r} ({exc})", line) from None
    if is_dir:
        raise ctx.error("db", f"expected a database file, got a directory ({path})", line)
    if special:
        raise ctx.error("db", f"expected a database file, got a device or a pipe ({path})", line)
    if empty_target:
        what = "an empty file" if exists else "a file that does not exist"
        raise ctx.error(
            "db",
            f"expected a store, or a new path of its own, got a link to {what} ({path})",
            line,
        )
    return path


def tournament_format(parsed: ParsedKeys, key: str) -> str:
    """``format:``; a course's refuses ``games_per_pairing``."""
    fmt = parsed.ctx.choice(parsed.top, key, key, (*FORMATS, *COURSE_FORMATS))
    refuse_games_per_pairing(parsed.ctx, parsed.top, fmt)
    return fmt


def games_per_pairing(parsed: ParsedKeys, key: str) -> int:
    """Bounded before any bot is looked at: the schedule lists every game it owes."""
    bound = _games_bound(parsed)
    if bound is None:
        return default_games(parsed)
    most, why = bound
    return parsed.ctx.integer(parsed.top, key, key, maximum=most, why=why)


def default_games(parsed: ParsedKeys) -> int:
    """10, or 1 in a course (its meeting: one game per role); a pool too large to plan even
    10 games a pair is refused at once."""
    if parsed.value("format") in COURSE_FORMATS:
        return 1
    bound = _games_bound(parsed)
    if bound is not None and bound[0] < 10:
        line = key_line(parsed.top, "bots") or value_line(parsed.top, "bots")
        raise parsed.ctx.error("bots", f"expected fewer bots ({bound[1]})", line)
    return 10


def _games_bound(parsed: ParsedKeys) -> tuple[int, str] | None:
    """The most games a pair may play and why, or None when the pool is no round robin's nor
    gauntlet's of at least 2 bots (the format's or the bots' parser says what is wrong)."""
    fmt, bots = parsed.value("format"), len(parsed.entries)
    if fmt in COURSE_FORMATS or bots < 2:
        return None
    pairs = max(1, pairing_count(bots, fmt))
    made = f"make {pairs:,} pairs" if pairs != 1 else "make 1 pair"
    why = f"at most {MAX_GAMES:,} games in all; {bots} bots in a {fmt} {made}"
    return MAX_GAMES // (2 * pairs), why


def bots(parsed: ParsedKeys, key: str) -> tuple[BotSpec, ...]:
    """``bots:``, each entry built; what to tell of their folders goes to the notices."""
    db, sandbox = parsed.value("db"), parsed.value("sandbox")
    specs, notices = parse_bots(
        parsed.ctx, parsed.top, parsed.entries, parsed.reserved(), db, sandbox
    )
    parsed.notices += notices
    return specs


def missing_bots(parsed: ParsedKeys) -> NoReturn:
    """``bots:`` has no default: a file without it is told what it needs."""
    raise parsed.ctx.error(
        "bots", "missing (expected a list of at least 2 bots)", start_line(parsed.top)
    )


def affinity(parsed: ParsedKeys, key: str) -> AffinityMode:
    """``affinity:``, where YAML 1.1 reads a bare on/off as true/false."""
    value = parsed.top[key]
    if isinstance(value, bool):
        return AffinityMode.ON if value else AffinityMode.OFF
    return AffinityMode(parsed.ctx.choice(parsed.top, key, key, [m.value for m in AffinityMode]))


def executor(parsed: ParsedKeys, key: str) -> str:
    """``executor:``; a ``cluster:`` implies the cluster executor."""
    chosen = parsed.ctx.choice(parsed.top, key, key, executor_names())
    return chosen if parsed.value("cluster") is None else "cluster"


def default_executor(parsed: ParsedKeys) -> str:
    """The local pool, or the cluster's executor when a ``cluster:`` is given."""
    return DEFAULT_EXECUTOR if parsed.value("cluster") is None else "cluster"


def cluster(parsed: ParsedKeys, key: str) -> str:
    """``cluster:``, a Dask scheduler's address or ``local:N``: no other executor with it."""
    from arena.tournament.executors.cluster import (
        parse_cluster,  # no Dask import: only the address's form
    )

    try:
        address = parse_cluster(parsed.top[key])
    except ValueError as exc:
        raise parsed.ctx.error(key, str(exc), value_line(parsed.top, key)) from None
    given = parsed.top.get("executor", "cluster")
    if given != "cluster":
        raise parsed.ctx.error(
            "executor",
            f"expected 'cluster' (or no executor) with cluster: {address}, got {given!r}",
            value_line(parsed.top, "executor"),
        )
    return address


def keep_bots(parsed: ParsedKeys, key: str) -> KeepBots:
    """``keep_bots:``: ``auto``, ``true`` or ``false`` (YAML's booleans or words)."""
    try:
        return KeepBots.of(parsed.top[key])
    except ValueError:
        got, line = describe(parsed.top[key]), value_line(parsed.top, key)
        raise parsed.ctx.error(key, f"expected auto, true or false, got {got}", line) from None


def opening_plies(parsed: ParsedKeys, key: str) -> int:
    """``openings: {random_plies: N}``."""
    value = parsed.top[key]
    if not isinstance(value, Mapping):
        raise parsed.ctx.error(
            key,
            f"expected a mapping such as {{random_plies: 4}}, got {describe(value)}",
            value_line(parsed.top, key),
        )
    parsed.ctx.check_keys(value, OPENING_KEYS, key)
    if "random_plies" not in value:
        return 0
    return parsed.ctx.integer(
        value,
        "random_plies",
        "openings.random_plies",
        minimum=0,
        maximum=MAX_OPENING_PLIES,
        why="random moves before the bots play; the rest of the board is theirs",
    )
