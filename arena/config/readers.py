"""How the top-level keys that need more than a plain check are read.

Each reader takes the file's ``Reading`` and returns the key's setting, or raises a located
``ConfigError``; ``arena.config.keys`` declares which reader reads which key.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import NoReturn

from arena.botspec import BotSpec
from arena.config.bots import read_bots
from arena.config.context import describe, key_line, start_line, text_of, value_line
from arena.config.course import refuse_games_per_pairing
from arena.config.reading import Reading
from arena.limits import AffinityMode, KeepBots
from arena.tournament.course import COURSE_FORMATS
from arena.tournament.executors import DEFAULT_EXECUTOR, executor_names
from arena.tournament.schedule import FORMATS, MAX_GAMES, MAX_OPENING_PLIES, pairing_count

OPENING_KEYS = {
    "random_plies": ("none", "the number of random plies both games of a pair start from"),
}
"""The keys of ``openings:``: the reference's default and help of each."""
_NAME_RULE = "a name without '/', '\\' or control characters, at most 100 characters"


def tournament_name(r: Reading, key: str) -> str:
    """``name:``: it names the store, the report and every export."""
    name = text_of(r.top[key], getattr(r.top, "raw", {}).get(key))
    return _checked_name(r, name, describe(r.top[key]), value_line(r.top, key))


def default_name(r: Reading) -> str:
    """The file's stem, checked as a name given would be."""
    got = f"{r.default_name!r} (the file's name; set 'name')"
    return _checked_name(r, r.default_name, got, None)


def _checked_name(r: Reading, name: str | None, got: str, line: int | None) -> str:
    if (
        name is None
        or not name.strip()
        or name in (".", "..")
        or len(name) > 100
        or any(c in name for c in "/\\")
        or any(ord(c) < 32 or ord(c) == 127 for c in name)
    ):
        raise r.ctx.error("name", f"expected {_NAME_RULE}, got {got}", line)
    return name


def default_db(r: Reading) -> Path:
    """``results/<name>.sqlite`` beside the file."""
    return (r.ctx.base_dir / "results" / f"{r.value('name')}.sqlite").resolve()


def db(r: Reading, key: str) -> Path:
    """``db:``, a file of its own: no folder, device or pipe, nor a link to a file not a store."""
    ctx, line = r.ctx, value_line(r.top, key)
    text = ctx.path_text(r.top[key], key, line)
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


def tournament_format(r: Reading, key: str) -> str:
    """``format:``; a course's refuses ``games_per_pairing``."""
    fmt = r.ctx.choice(r.top, key, key, (*FORMATS, *COURSE_FORMATS))
    refuse_games_per_pairing(r.ctx, r.top, fmt)
    return fmt


def games_per_pairing(r: Reading, key: str) -> int:
    """Bounded before any bot is looked at: the schedule lists every game it owes."""
    bound = _games_bound(r)
    if bound is None:
        return default_games(r)
    most, why = bound
    return r.ctx.integer(r.top, key, key, maximum=most, why=why)


def default_games(r: Reading) -> int:
    """10, or 1 in a course (its meeting: one game per role); a pool too large to plan even
    10 games a pair is refused at once."""
    if r.value("format") in COURSE_FORMATS:
        return 1
    bound = _games_bound(r)
    if bound is not None and bound[0] < 10:
        line = key_line(r.top, "bots") or value_line(r.top, "bots")
        raise r.ctx.error("bots", f"expected fewer bots ({bound[1]})", line)
    return 10


def _games_bound(r: Reading) -> tuple[int, str] | None:
    """The most games a pair may play and why, or None when the pool is no round robin's nor
    gauntlet's of at least 2 bots (the format's or the bots' reader says what is wrong)."""
    fmt, bots = r.value("format"), len(r.entries)
    if fmt in COURSE_FORMATS or bots < 2:
        return None
    pairs = max(1, pairing_count(bots, fmt))
    made = f"make {pairs:,} pairs" if pairs != 1 else "make 1 pair"
    why = f"at most {MAX_GAMES:,} games in all; {bots} bots in a {fmt} {made}"
    return MAX_GAMES // (2 * pairs), why


def bots(r: Reading, key: str) -> tuple[BotSpec, ...]:
    """``bots:``, each entry built; what to tell of their folders goes to the notices."""
    db, sandbox = r.value("db"), r.value("sandbox")
    specs, notices = read_bots(r.ctx, r.top, r.entries, r.reserved(), db, sandbox)
    r.notices += notices
    return specs


def missing_bots(r: Reading) -> NoReturn:
    """``bots:`` has no default: a file without it is told what it needs."""
    raise r.ctx.error("bots", "missing (expected a list of at least 2 bots)", start_line(r.top))


def affinity(r: Reading, key: str) -> AffinityMode:
    """``affinity:``, where YAML 1.1 reads a bare on/off as true/false."""
    value = r.top[key]
    if isinstance(value, bool):
        return AffinityMode.ON if value else AffinityMode.OFF
    return AffinityMode(r.ctx.choice(r.top, key, key, [m.value for m in AffinityMode]))


def executor(r: Reading, key: str) -> str:
    """``executor:``; a ``cluster:`` implies the cluster executor."""
    chosen = r.ctx.choice(r.top, key, key, executor_names())
    return chosen if r.value("cluster") is None else "cluster"


def default_executor(r: Reading) -> str:
    """The local pool, or the cluster's executor when a ``cluster:`` is given."""
    return DEFAULT_EXECUTOR if r.value("cluster") is None else "cluster"


def cluster(r: Reading, key: str) -> str:
    """``cluster:``, a Dask scheduler's address or ``local:N``: no other executor with it."""
    from arena.tournament.executors.cluster import (
        parse_cluster,  # no Dask import: only the address's form
    )

    try:
        address = parse_cluster(r.top[key])
    except ValueError as exc:
        raise r.ctx.error(key, str(exc), value_line(r.top, key)) from None
    given = r.top.get("executor", "cluster")
    if given != "cluster":
        raise r.ctx.error(
            "executor",
            f"expected 'cluster' (or no executor) with cluster: {address}, got {given!r}",
            value_line(r.top, "executor"),
        )
    return address


def keep_bots(r: Reading, key: str) -> KeepBots:
    """``keep_bots:``: ``auto``, ``true`` or ``false`` (YAML's booleans or words)."""
    try:
        return KeepBots.of(r.top[key])
    except ValueError:
        got, line = describe(r.top[key]), value_line(r.top, key)
        raise r.ctx.error(key, f"expected auto, true or false, got {got}", line) from None


def opening_plies(r: Reading, key: str) -> int:
    """``openings: {random_plies: N}``."""
    value = r.top[key]
    if not isinstance(value, Mapping):
        raise r.ctx.error(
            key,
            f"expected a mapping such as {{random_plies: 4}}, got {describe(value)}",
            value_line(r.top, key),
        )
    r.ctx.check_keys(value, OPENING_KEYS, key)
    if "random_plies" not in value:
        return 0
    return r.ctx.integer(
        value,
        "random_plies",
        "openings.random_plies",
        minimum=0,
        maximum=MAX_OPENING_PLIES,
        why="random moves before the bots play; the rest of the board is theirs",
    )
