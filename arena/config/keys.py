"""Every top-level key of a tournament file, declared once: its type and bounds (how a value
written is parsed), its default, and one line of help.

The loader parses the keys in this order (a key that needs another's value parses it first)
and ``build`` gives each to its ``TournamentConfig`` field; the reference's table
(docs/tournament-file.md) is checked against these lines.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from arena.config import keyparsers
from arena.config.context import MAX_INT
from arena.config.course import BUDGET_KEYS, UNTIL_KEYS, parse_budget, parse_rounds, parse_until
from arena.config.keyparsers import OPENING_KEYS
from arena.config.parsedkeys import ParsedKeys
from arena.config.sections import parse_section
from arena.limits import AffinityMode, KeepBots, Limits, SandboxMode, TimeControl, minimum_of
from arena.tournament.affinity import core_count

Parse = Callable[[ParsedKeys, str], Any]
"""Parses the value written at a key (the key's name given) into its setting."""

MAX_WORKERS = 1024
"""More worker processes than any machine runs fairly (the run caps them further)."""

_MAX_SEED = 2**63 - 1

_Section = TypeVar("_Section", TimeControl, Limits)


def integer(minimum: int = 1, maximum: int = MAX_INT) -> Parse:
    """An integer from ``minimum`` to ``maximum``."""
    return lambda parsed, key: parsed.ctx.integer(
        parsed.top, key, key, minimum=minimum, maximum=maximum
    )


def flag(parsed: ParsedKeys, key: str) -> bool:
    """``true`` or ``false``."""
    return parsed.ctx.flag(parsed.top, key, key)


def choice(modes: type[enum.StrEnum]) -> Parse:
    """One of the words of ``modes``."""
    return lambda parsed, key: modes(
        parsed.ctx.choice(parsed.top, key, key, [m.value for m in modes])
    )


def section(cls: type[_Section]) -> Parse:
    """A mapping of ``cls``'s fields, each parsed against its type and least value."""
    return lambda parsed, key: parse_section(parsed.ctx, parsed.top, key, cls)


@dataclass(frozen=True)
class Key:
    """One top-level key of a tournament file."""

    name: str
    """The key as the file writes it, and its ``TournamentConfig`` field's name unless
    ``build`` says otherwise."""
    help: str
    """What it sets, in one line (the reference's)."""
    parse: Parse
    """Its type and bounds: parses the value written."""
    default: Any = None
    """Its setting when the file does not give it."""
    derive: Callable[[ParsedKeys], Any] | None = None
    """Instead of ``default``, for a default that depends on the file or the machine."""
    shown: str = ""
    """The default as the reference shows it (default: ``default`` written as in YAML)."""

    def value_in(self, parsed: ParsedKeys) -> Any:
        """Its setting in the file: the value written, parsed, else its default."""
        if self.name in parsed.top:
            return self.parse(parsed, self.name)
        return self.default if self.derive is None else self.derive(parsed)

    def shown_default(self) -> str:
        """The reference's default column."""
        return self.shown or _as_written(self.default)


KEYS = (
    Key(
        "name",
        "the tournament's name (the store's, the report's, PGN's `[Event]`)",
        keyparsers.tournament_name,
        derive=keyparsers.default_name,
        shown="the file's stem",
    ),
    Key(
        "db",
        "the store, beside the file; a device or a pipe is refused",
        keyparsers.db,
        derive=keyparsers.default_db,
        shown="`results/<name>.sqlite`",
    ),
    Key(
        "format",
        "`round-robin` (every pair, in rounds), `gauntlet` (the first bot against every other),"
        " or a course: `swiss`, `contested` ([below](#a-course-swiss-or-contested))",
        keyparsers.tournament_format,
        default="round-robin",
    ),
    Key(
        "rounds",
        "a course's rounds (`swiss`, `contested` only): `ceil(log2 N) + 4` for N bots",
        lambda parsed, key: parse_rounds(parsed.ctx, parsed.top, parsed.value("format")),
        shown="from the pool",
    ),
    Key(
        "until",
        "`{top: K, los: 0.95}`: stop once each of the top K is ahead of the next with that"
        " likelihood",
        lambda parsed, key: parse_until(parsed.ctx, parsed.top, len(parsed.entries)),
    ),
    Key(
        "budget",
        "`{games: G}`: play at most G games (whole meetings, at a round's end)",
        lambda parsed, key: parse_budget(parsed.ctx, parsed.top),
    ),
    Key(
        "games_per_pairing",
        "games per *ordered* pair: A as Order against B as Chaos, and as many the other way",
        keyparsers.games_per_pairing,
        derive=keyparsers.default_games,
        shown="`10`",
    ),
    Key(
        "sandbox",
        "`auto` (bubblewrap where it works), `bwrap` or `none` ([sandbox](sandbox.md))",
        choice(SandboxMode),
        default=SandboxMode.AUTO,
    ),
    Key(
        "bots",
        "the entries: a bundled bot's name, a bot mapping or a folder (below); at least 2 bots",
        keyparsers.bots,
        derive=keyparsers.missing_bots,
        shown="required",
    ),
    Key(
        "time_control",
        "how long a bot may think ([below](#time_control), [fairness](fairness.md))",
        section(TimeControl),
        default=TimeControl(),
        shown="`{move_ms: 100}`",
    ),
    Key(
        "limits",
        "each bot's resources ([below](#limits), [sandbox](sandbox.md))",
        section(Limits),
        default=Limits(),
        shown="see below",
    ),
    Key(
        "workers",
        "matches played at once; capped at what runs fairly (cores, memory)",
        integer(maximum=MAX_WORKERS),
        derive=lambda parsed: core_count(),
        shown="the cores",
    ),
    Key(
        "seed",
        "the seed of every game's `ARENA_SEED` and of the openings",
        integer(minimum=0, maximum=_MAX_SEED),
        default=1,
    ),
    Key(
        "affinity",
        "`auto`, `on` or `off`: pin each match to a core when cores >= workers",
        keyparsers.affinity,
        default=AffinityMode.AUTO,
    ),
    Key(
        "freeze_idle",
        "freeze the bot not on move (`false`: bots may ponder)",
        flag,
        default=True,
    ),
    Key(
        "executor",
        "`local` (worker processes) or `inline` (one match at a time, in this process)",
        keyparsers.executor,
        derive=keyparsers.default_executor,
        shown="`local`",
    ),
    Key(
        "cluster",
        "`tcp://HOST:PORT` of a Dask scheduler, or `local:N` ([cluster](scaling.md))",
        keyparsers.cluster,
    ),
    Key(
        "trusted_bots",
        "on a cluster, bots may run without bubblewrap ([cluster](scaling.md))",
        flag,
        default=False,
    ),
    Key(
        "keep_bots",
        "keep bot processes between matches: `auto` (those that ask), `true` (all), `false`",
        keyparsers.keep_bots,
        default=KeepBots.AUTO,
    ),
    Key(
        "openings",
        "`{random_plies: N}`: both games of each pair start from the same random position",
        keyparsers.opening_plies,
        default=0,
        shown="none",
    ),
)
"""In the order they are parsed: a key's mistake is told before those of the keys after it."""

TOP_KEYS = tuple(key.name for key in KEYS)


def reference() -> dict[str, tuple[str, str]]:
    """The rows of the reference's tables (docs/tournament-file.md): each key's path, and its
    default and help, for the keys of the file and of its sections."""
    rows = {key.name: (key.shown_default(), key.help) for key in KEYS}
    for name, cls in (("time_control", TimeControl), ("limits", Limits)):
        rows |= {f"{name}.{field.name}": _field_row(field) for field in dataclasses.fields(cls)}
    for name, inner in (("openings", OPENING_KEYS), ("until", UNTIL_KEYS), ("budget", BUDGET_KEYS)):
        rows |= {f"{name}.{key}": cells for key, cells in inner.items()}
    return rows


def _field_row(field: dataclasses.Field[Any]) -> tuple[str, str]:
    """A section's field as the reference shows it: its least value told when above 1."""
    least, _ = minimum_of(field)
    bound = f" (at least {least})" if least > 1 else ""
    shown = field.metadata.get("shown") or _as_written(field.default)
    return shown, field.metadata["help"] + bound


def _as_written(value: object) -> str:
    """A default as YAML writes it, in the reference's code style (``none`` for null)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"
