"""The columns of the store's ``games`` table, written once, and the GameRecord <-> row mapping.

Everything the store says about a game's columns comes from ``COLUMNS``: the ``CREATE TABLE``
statement, the insert, the select, the conversion of a ``GameRecord`` to a row and back, and the
migration of an older file (a column added later carries a ``default``, so that an existing
table gains it with ``ALTER TABLE ... ADD COLUMN`` and a read-only reader of an older file reads
the default instead). Adding a field to the store is adding one ``Column`` here.
"""

from __future__ import annotations

import functools
import json
import operator
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, fields
from typing import Any

from arena.records import GameRecord, Reason
from arena.rules import Role

_INT64 = range(-(2**63), 2**63)

SqlValue = str | int | float | None


def safe_text(text: str) -> str:
    """``text`` as storable UTF-8: lone surrogates (undecodable bot output) become escapes."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def dumps(value: object) -> str:
    """Compact JSON, as every JSON column is written."""
    return json.dumps(value, separators=(",", ":"))


_PLAIN_TOKENS = re.compile(r'[A-Za-z0-9]+(?:","[A-Za-z0-9]+)*')
_PLAIN_NUMBERS = re.compile(r"[0-9eE.+\-]+(?:,[0-9eE.+\-]+)*")


def _dump_tokens(tokens: Sequence[str]) -> str:
    """JSON for a list of move tokens; the same text as ``dumps``, written directly (hot path)."""
    if not tokens:
        return "[]"
    text = '","'.join(tokens) if all(type(t) is str for t in tokens) else ""
    return f'["{text}"]' if _PLAIN_TOKENS.fullmatch(text) else dumps(list(tokens))


def _dump_floats(values: Sequence[float]) -> str:
    """JSON for a list of finite numbers, as ``dumps`` writes it (hot path)."""
    if not values:
        return "[]"
    text = ",".join(map(repr, values))
    return f"[{text}]" if _PLAIN_NUMBERS.fullmatch(text) else dumps(list(values))


def _dump_optional_floats(values: Sequence[float] | None) -> str | None:
    return None if values is None else _dump_floats(values)


_MOVE_TOKENS = frozenset(
    f"{column}{row}{mark}" for column in "abcdef" for row in "123456" for mark in "XOxo"
)
"""Every move token the referee may have stored (``c4X``)."""


_STORED_TOKENS = re.compile(r'\["[a-f][1-6][XOxo]"(?:,"[a-f][1-6][XOxo]")*\]')
"""A list of move tokens exactly as ``_dump_tokens`` writes it (compact, nothing else)."""


def _load_tokens(text: str) -> list[str]:
    """A list of move tokens; a ValueError names anything else (a damaged or hand-made store).

    What arena wrote is split directly (about a tenth of ``json.loads`` and a check per token:
    the standings read the moves of every game); any other text, a hand-made store's spaces
    included, goes through JSON and the check of each token."""
    if type(text) is str and _STORED_TOKENS.fullmatch(text):
        return text[2:-2].split('","')
    if text == "[]":
        return []
    tokens = json.loads(_text(text))
    if not isinstance(tokens, list):
        raise ValueError(f"moves are a list, not {text[:40]!r}")
    for token in tokens:
        if not isinstance(token, str) or token not in _MOVE_TOKENS:
            raise ValueError(f"{str(token)[:40]!r} is not a move")
    return tokens


def joined_tokens(text: str) -> tuple[str, int]:
    """A stored list of move tokens as one text, the tokens joined by single spaces, and how
    many there are: what arena wrote is rewritten in one replace (no list of tokens is built),
    anything else read as ``_load_tokens`` reads it (ValueError for what is not moves)."""
    if text == "[]":
        return "", 0
    if type(text) is str and _STORED_TOKENS.fullmatch(text):
        return text[2:-2].replace('","', " "), text.count(",") + 1
    tokens = _load_tokens(text)
    return " ".join(tokens), len(tokens)


def _number(value: Any) -> float:
    """A stored time or duration: a number (SQLite keeps text in a REAL column as it is)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"expected a number, not {str(value)[:40]!r}")
    return float(value)


def _load_floats(text: str) -> list[float]:
    values = json.loads(_text(text))
    if not isinstance(values, list):
        raise ValueError(f"times are a list, not {text[:40]!r}")
    return [_number(x) for x in values]


def _text(value: Any) -> str:
    """A stored text: a str (SQLite keeps a number in a TEXT column as it is)."""
    if not isinstance(value, str):
        raise ValueError(f"expected text, not {str(value)[:40]!r}")
    return value


def _load_seed(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"the seed is an integer, not {str(value)[:40]!r}")
    return value


def _load_optional_floats(text: str | None) -> list[float] | None:
    return None if text is None else _load_floats(text)


def _dump_seed(seed: int) -> int:
    if seed not in _INT64:
        raise ValueError(f"seed out of the 64-bit range: {seed}")
    return seed


def _same(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Column:
    """One column of the games table and the GameRecord field it keeps."""

    name: str
    """The column's name in SQL."""
    decl: str
    """Its SQL type and constraints."""
    field: str
    """The GameRecord field it stores (empty for the slot, which is not part of a record)."""
    dump: Callable[[Any], SqlValue] = _same
    """Field value -> SQL value."""
    load: Callable[[Any], Any] = _same
    """SQL value -> field value."""
    default: str | None = None
    """SQL literal for rows stored before the column existed (columns added by a migration)."""


COLUMNS: tuple[Column, ...] = (
    Column("order_name", "TEXT NOT NULL", "order", load=_text),
    Column("chaos_name", "TEXT NOT NULL", "chaos", load=_text),
    Column("order_version", "TEXT NOT NULL", "order_version", load=_text),
    Column("chaos_version", "TEXT NOT NULL", "chaos_version", load=_text),
    Column("slot", "INTEGER NOT NULL CHECK (slot >= 0)", ""),
    Column(
        "winner",
        "TEXT NOT NULL CHECK (winner IN ('order', 'chaos'))",
        "winner",
        lambda v: Role(v).value,
        Role,
    ),
    Column("reason", "TEXT NOT NULL", "reason", lambda v: Reason(v).value, Reason),
    Column("detail", "TEXT NOT NULL", "detail", safe_text, _text),
    Column("moves", "TEXT NOT NULL", "moves", _dump_tokens, _load_tokens),
    Column("ms", "TEXT NOT NULL", "ms", _dump_floats, _load_floats),
    Column("cpu_ms", "TEXT", ""),  # in no record: NULL, a column every store's table has
    Column("stderr_order", "TEXT NOT NULL", "stderr_order", safe_text, _text),
    Column("stderr_chaos", "TEXT NOT NULL", "stderr_chaos", safe_text, _text),
    Column("seed", "INTEGER NOT NULL", "seed", _dump_seed, _load_seed),
    Column("started_at", "REAL NOT NULL", "started_at", load=_number),
    Column("finished_at", "REAL NOT NULL", "finished_at", load=_number),
    # The columns with a default are added, with it, to an older store's table when it opens.
    # The opening's moves, played before the bots' own (JSON list of tokens).
    Column("opening", "TEXT NOT NULL DEFAULT '[]'", "opening", _dump_tokens, _load_tokens, "'[]'"),
    # The display names the bots gave with `ready <name>`.
    Column("order_display", "TEXT NOT NULL DEFAULT ''", "order_display", safe_text, _text, "''"),
    Column("chaos_display", "TEXT NOT NULL DEFAULT ''", "chaos_display", safe_text, _text, "''"),
    # How the time was measured, and the clocks under a game clock.
    Column("measure", "TEXT NOT NULL DEFAULT 'wall'", "measure", str, str, "'wall'"),
    Column("clock_ms", "TEXT", "clock_ms", _dump_optional_floats, _load_optional_floats, "NULL"),
    Column("clock_start_ms", "INTEGER", "clock_start_ms", _same, _same, "NULL"),
)

PAIRING_KEY = ("order_name", "order_version", "chaos_name", "chaos_version", "slot")
"""The columns that identify a game: each slot of an ordered pairing of versions is stored once."""

_UNWRITTEN = frozenset({"cpu_ms"})
"""Columns no record fills: left NULL, and kept so that every store has the same table."""
_WRITTEN = tuple(c for c in COLUMNS if c.name not in _UNWRITTEN)
_RECORD_FIELDS = frozenset(f.name for f in fields(GameRecord))
_STORED = tuple(c for c in COLUMNS if c.field in _RECORD_FIELDS)
"""The columns read back into a record (all but the slot and the unwritten ones)."""


def create_table() -> str:
    """The ``CREATE TABLE`` statement of the games table."""
    body = ",\n        ".join(f"{c.name} {c.decl}" for c in COLUMNS)
    return (
        "CREATE TABLE IF NOT EXISTS games (\n"
        "        id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
        f"        {body},\n"
        f"        UNIQUE ({', '.join(PAIRING_KEY)})\n"
        "    )"
    )


def missing_columns(present: Collection[str]) -> list[Column]:
    """The columns an existing games table lacks (an older schema); each has a default."""
    missing = [c for c in COLUMNS if c.name not in present]
    for column in missing:
        if column.default is None:
            raise ValueError(f"the games table has no column {column.name}")
    return missing


def insert_statement() -> str:
    """Insert one game, doing nothing when its slot is stored already."""
    names = ", ".join(c.name for c in _WRITTEN)
    marks = ", ".join("?" * len(_WRITTEN))
    return (
        f"INSERT INTO games ({names}) VALUES ({marks})"
        f" ON CONFLICT ({', '.join(PAIRING_KEY)}) DO NOTHING"
    )


def _read(wanted: Collection[str] | None) -> tuple[Column, ...]:
    """The stored columns of the record fields ``wanted`` (None: all), in ``COLUMNS`` order;
    worked out once per set of fields (``record_from_row`` asks for every row)."""
    if wanted is None:
        return _STORED
    return _columns_of(wanted if isinstance(wanted, frozenset) else frozenset(wanted))


@functools.cache
def _columns_of(wanted: frozenset[str]) -> tuple[Column, ...]:
    unknown = wanted - _RECORD_FIELDS
    if unknown:
        raise ValueError(f"not fields of a game record: {', '.join(sorted(unknown))}")
    return tuple(c for c in _STORED if c.field in wanted)


def select_list(
    present: Collection[str] | None = None, wanted: Collection[str] | None = None
) -> str:
    """The select list of a record's columns, in ``record_from_row`` order.

    ``present``: the columns the table has, when it may be older than ``COLUMNS`` (a read-only
    reader cannot migrate it); a missing column reads as its default. ``wanted``: only the
    columns of these record fields (``record_from_row`` with the same ``wanted``).
    """
    return ", ".join(
        c.name if present is None or c.name in present else f"{c.default} AS {c.name}"
        for c in _read(wanted)
    )


def read_order(wanted: Collection[str]) -> tuple[str, ...]:
    """The fields ``wanted`` in the order ``select_list`` selects them (``COLUMNS`` order)."""
    return tuple(c.field for c in _read(wanted))


_SLOT = next(i for i, c in enumerate(_WRITTEN) if not c.field)
_FIELDS = operator.attrgetter(*(c.field for c in _WRITTEN if c.field))
_DUMPS = tuple(None if c.dump is _same else c.dump for c in _WRITTEN if c.field)


def row_from_record(record: GameRecord, slot: int) -> tuple[SqlValue, ...]:
    """The row of ``record`` as game ``slot`` of its pairing, in ``insert_statement``'s order
    (hot path)."""
    if isinstance(slot, bool) or not isinstance(slot, int) or slot < 0:
        raise ValueError(f"a game slot is an int >= 0, not {slot!r}")
    values = [v if d is None else d(v) for v, d in zip(_FIELDS(record), _DUMPS, strict=True)]
    values.insert(_SLOT, slot)
    return tuple(values)


def record_from_row(row: Sequence[Any], wanted: Collection[str] | None = None) -> GameRecord:
    """The record of a row selected with ``select_list`` (the same ``wanted``: the fields not
    wanted keep their defaults); ValueError/TypeError if unreadable."""
    columns = _read(wanted)
    return GameRecord(**{c.field: c.load(value) for c, value in zip(columns, row, strict=True)})
