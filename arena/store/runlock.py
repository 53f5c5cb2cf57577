"""One tournament run per store at a time: an exclusive ``flock`` on the store file itself.

Two runs on one store would each replay every missing game and report nonsense. A run takes the
lock on the store file itself (its inode: any name of it, hard links too) before it changes
anything; a second run says who holds it (``holder_info``). The kernel releases a ``flock`` when
its holder dies, so a crashed run leaves no stale lock. Only the run takes it, never the workers
recording its games. SQLite's own POSIX locks vanish on *any* close of the file, so the
descriptor is closed only by ``release``, after the store's connection (docs/architecture.md).
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path

from arena.errors import StoreError


def holder_info() -> str:
    """What a run records about itself once it holds the lock: pid, host, start time (JSON)."""
    return json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()})


class RunLock:
    """The run lock of the store file at ``store_path`` (a ``flock`` on that file)."""

    def __init__(self, store_path: Path) -> None:
        self.store_path = store_path
        """The store this lock guards (any name of it: the lock is the file's)."""
        self._fd: int | None = None
        self._owner = 0
        self._locked = False

    @property
    def held(self) -> bool:
        """Whether this process took the lock (and has not released it)."""
        return self._locked and self._owner == os.getpid()

    def acquire(self, holder: Callable[[], str | None] = lambda: None) -> None:
        """Take the lock, or raise a StoreError naming its holder; a no-op if held already.

        ``holder`` returns what the holder recorded (``holder_info``), or None if unknown.
        """
        if self.held:
            return
        if self._fd is None or self._owner != os.getpid():
            try:
                fd = os.open(self.store_path, os.O_RDONLY | os.O_CLOEXEC)
            except OSError as exc:
                raise StoreError(
                    f"{self.store_path}: cannot open the store to lock it: {exc.strerror or exc}"
                ) from None
            self._fd, self._owner, self._locked = fd, os.getpid(), False
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreError(
                f"{self.store_path}: another run is using this store ({_describe(holder())}): "
                "wait for it to finish, or store this run in another file"
            ) from None
        self._locked = True

    def release(self) -> None:
        """Release the lock and close its descriptor (idempotent; in a forked child, only the
        descriptor is closed: the lock stays the parent's)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        if self._locked and self._owner == os.getpid():
            fcntl.flock(fd, fcntl.LOCK_UN)  # forked workers share the description: unlock it
        self._locked = False
        os.close(fd)


def _describe(content: str | None) -> str:
    """Who holds the lock, from what the holder recorded (``holder_info``)."""
    try:
        info = json.loads(content or "")
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(info["started"])))
        return f"pid {int(info['pid'])} on {str(info['host'])!r}, since {started}"
    except (ValueError, TypeError, KeyError, OverflowError):
        return "a process that has not said who it is yet"
