"""The store as the live page's poller sees it: opened read-only once and kept open, and read
only when a writer committed since the last look.

Opening the store costs more than a poll should (checks of the file, its schema, its columns),
and a poll four times a second mostly finds nothing new: SQLite's ``data_version``, asked of a
connection kept open, says so without reading anything. A store replaced by another file (a new
inode) is opened again.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.store.database import Store

COUNT_SHARE = 50
"""The games that count are counted again, when more were stored, after this many times the CPU
the last count used (and the next poll): each poll counts them in a store of a few thousand
games, about once a second in one of tens of thousands."""


class StoreWatch:
    """The highest game number of the store at ``db`` and the number of its games that count,
    read again only when they may have changed (``read``, from one thread)."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.stored = 0
        """The highest game number (it grows with each stored game)."""
        self.games = 0
        """The games that count, as last counted."""
        self._store: Store | None = None
        self._file: tuple[int, int] | None = None  # the open file's device and inode
        self._version: int | None = None  # its data_version when last read
        self._counted_at = -1  # the highest game number when the games were last counted
        self._count_next = 0.0  # when they may be counted again

    def read(self) -> tuple[int, int]:
        """The highest game number and the games that count, as they are now (the count as
        last taken while a new one is not due). Raises what opening or reading raises."""
        store = self._open()
        version = store.data_version()
        if version != self._version:
            self.stored = store.game_numbers()[1] or 0
            self._version = version
        if self.stored != self._counted_at and time.monotonic() >= self._count_next:
            started = time.thread_time()
            self.games = store.count_games()
            self._counted_at = self.stored
            self._count_next = time.monotonic() + COUNT_SHARE * (time.thread_time() - started)
        return self.stored, self.games

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
        self._store = self._file = self._version = None

    def _open(self) -> Store:
        """The store, open: opened again when the file at ``db`` is another one."""
        from arena.store.database import Store

        info = os.stat(self.db)
        if self._store is None or self._file != (info.st_dev, info.st_ino):
            self.close()
            self._store = Store.open(self.db, readonly=True)
            self._file = (info.st_dev, info.st_ino)
            self._counted_at = -1
        return self._store
