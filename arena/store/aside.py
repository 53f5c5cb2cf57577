"""Games kept aside, never deleted: a store's copy before ``--fresh`` empties it, and the table of
games discarded one by one (``arena discard``), whose slots a tournament then owes again.

The copy is made with SQLite's backup API (a consistent snapshot, whatever the journal mode) into
a new file beside the store, named with the time: ``results.before-fresh-20261206-184418.sqlite``.
A discarded game moves, row and number, to ``discarded_games``; the table is made at the first
discard, so that a store no game was discarded from keeps the layout older arenas read.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from arena.store import rows as gamerows

DISCARDED = "discarded_games"
"""The table of discarded games: each game's row as it was, its number and when it went."""

_COLUMNS = ", ".join(c.name for c in gamerows.COLUMNS)

_CREATE = (
    f"CREATE TABLE IF NOT EXISTS {DISCARDED} (number INTEGER NOT NULL, discarded_at REAL NOT NULL, "
    + ", ".join(f"{c.name} {c.decl}" for c in gamerows.COLUMNS)
    + ")"
)


class DiscardedGame(NamedTuple):
    """One game kept aside by ``arena discard``."""

    number: int
    """Its number when it was stored (as ``arena replay`` showed it)."""
    discarded_at: float
    """Unix time of the discard."""
    order: str
    """The Order bot."""
    chaos: str
    """The Chaos bot."""
    slot: int
    """Its index among the games of its ordered pairing."""
    winner: str
    """``order`` or ``chaos``."""
    reason: str
    """How it ended."""


def new_backup_path(store: Path, now: float | None = None) -> Path:
    """A new, empty file beside ``store`` for its copy, named with the UTC time (and ``-2``,
    ``-3``... when that name is taken): created here, so that no file is ever written over."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(time.time() if now is None else now))
    stem, suffix = store.stem, store.suffix or ".sqlite"
    for attempt in range(1, 1000):
        extra = "" if attempt == 1 else f"-{attempt}"
        path = store.with_name(f"{stem}.before-fresh-{stamp}{extra}{suffix}")
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"{store.parent}: every backup name of {stamp} is taken")


def copy_store(conn: sqlite3.Connection, target: Path) -> None:
    """Copy the database of ``conn`` (no transaction open) into ``target``, one file."""
    copy = sqlite3.connect(target, isolation_level=None)
    try:
        conn.backup(copy)
        copy.execute("PRAGMA journal_mode = DELETE")
    finally:
        copy.close()


def discard_games(conn: sqlite3.Connection, numbers: Sequence[int], now: float) -> None:
    """Move the games ``numbers`` (every one stored: the caller checked) to the discarded table,
    in the caller's transaction."""
    conn.execute(_CREATE)
    for number in numbers:
        conn.execute(
            f"INSERT INTO {DISCARDED} (number, discarded_at, {_COLUMNS})"
            f" SELECT id, ?, {_COLUMNS} FROM games WHERE id = ?",
            (now, number),
        )
        conn.execute("DELETE FROM games WHERE id = ?", (number,))


def discarded_games(conn: sqlite3.Connection) -> list[DiscardedGame]:
    """Every discarded game, in the order they were discarded (none when the table is absent)."""
    if not _made(conn):
        return []
    rows = conn.execute(
        "SELECT number, discarded_at, order_name, chaos_name, slot, winner, reason"
        f" FROM {DISCARDED} ORDER BY rowid"
    ).fetchall()
    return [DiscardedGame(*row) for row in rows]


def clear_discarded(conn: sqlite3.Connection) -> int:
    """Empty the discarded table (its games are in the backup the caller made); how many."""
    return int(conn.execute(f"DELETE FROM {DISCARDED}").rowcount) if _made(conn) else 0


def _made(conn: sqlite3.Connection) -> bool:
    """Whether the discarded table exists (it is made at the first discard)."""
    found = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (DISCARDED,)
    ).fetchone()
    return found is not None
