"""The store as the live page's poller sees it: opened read-only once and kept open, and read
only when a writer committed since the last look.

Opening the store costs more than a poll should (checks of the file, its schema, its columns),
and a poll four times a second mostly finds nothing new: SQLite's ``data_version``, asked of a
connection kept open, says so without reading anything. A store replaced by another file (a new
inode) is opened again. The games that count are counted whole only when what decides it
changed (the active versions, the games owed, a game removed); while games are only added,
only the new ones are counted.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.store.database import CountingState, Store

COUNT_SHARE = 50
"""The games that count are counted again, when more were stored, after this many times the CPU
the last count used (and the next poll): a count of the new games takes microseconds, a whole
one in a store of tens of thousands of games milliseconds (about once a second then)."""


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
        self._state: CountingState | None = None  # ``Store.counting_state`` now
        self._counted: CountingState | None = None  # the one the count took in
        self._count_next = 0.0  # when the games may be counted again

    def read(self) -> tuple[int, int]:
        """The highest game number and the games that count, as they are now (the count as
        last taken while a new one is not due). Raises what opening or reading raises."""
        store = self._open()
        version = store.data_version()
        if version != self._version:
            self._state = store.counting_state()
            self.stored = self._state.highest
            self._version = version
        if self._state != self._counted and time.monotonic() >= self._count_next:
            self._count(store)
        return self.stored, self.games

    def _count(self, store: Store) -> None:
        """The games that count in the state last read: the new ones added to the last count
        when games were only added since (as many more as the highest number grew)."""
        state, last = self._state, self._counted
        assert state is not None
        started = time.thread_time()
        if last is not None and state.only_added_since(last):
            self.games += store.count_games(numbers=(last.highest, state.highest))
        else:
            self.games = store.count_games(numbers=(0, state.highest))
        self._counted = state
        self._count_next = time.monotonic() + COUNT_SHARE * (time.thread_time() - started)

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
            self._counted = None
        return self._store
