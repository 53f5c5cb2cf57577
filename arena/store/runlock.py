"""One tournament run per store at a time: an exclusive ``flock`` on ``<store>.lock``.

Two runs on one store would each replay every missing game and report nonsense. A run takes the
lock before it changes anything; a second run says who holds it (pid, host, start time, written
in the file). The kernel releases a ``flock`` when its holder dies: a crashed run leaves no stale
lock. Only the run takes it, never the workers recording its games (forked ones share the open
file; only the taker releases it), and the descriptor is close-on-exec, so bots never hold it.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from contextlib import suppress
from pathlib import Path

from arena.errors import StoreError

__all__ = ["RunLock"]


class RunLock:
    """The run lock of the store at ``store_path`` (the file ``<store_path>.lock``)."""

    def __init__(self, store_path: Path) -> None:
        self.store_path = store_path
        """The store this lock guards."""
        real = Path(os.path.realpath(store_path))  # one lock however the store is reached
        self.path = real.with_name(real.name + ".lock")
        """The lock file, beside the store's real file (symlinks resolved)."""
        self._fd: int | None = None
        self._owner = 0

    @property
    def held(self) -> bool:
        """Whether this process took the lock (and has not released it)."""
        return self._fd is not None and self._owner == os.getpid()

    def acquire(self) -> None:
        """Take the lock, or raise a StoreError naming its holder; a no-op if held already."""
        if self.held:
            return
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as exc:
                raise StoreError(
                    f"{self.store_path}: cannot create the run lock {self.path}: "
                    f"{exc.strerror or exc}"
                ) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _describe(os.pread(fd, 4096, 0))
                os.close(fd)
                raise StoreError(
                    f"{self.store_path}: another run is using this store ({holder}; lock file "
                    f"{self.path}): wait for it to finish, or give this run another db:"
                ) from None
            if _same_inode(fd, self.path):
                break
            os.close(fd)  # the holder removed the file as we opened it: take the new one
        info = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
        self._fd, self._owner = fd, os.getpid()

    def release(self) -> None:
        """Release the lock and remove its file (idempotent; a no-op in a forked child)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        if self._owner == os.getpid():
            with suppress(OSError):
                self.path.unlink()  # while still held: the next run creates a fresh file
        os.close(fd)  # in a forked child, the parent's descriptor keeps the lock held


def _same_inode(fd: int, path: Path) -> bool:
    try:
        return os.stat(path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False


def _describe(content: bytes) -> str:
    """Who holds the lock, from what the holder wrote into the file."""
    try:
        info = json.loads(content)
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(info["started"])))
        return f"pid {int(info['pid'])} on {str(info['host'])!r}, since {started}"
    except (ValueError, TypeError, KeyError):
        return "a process that has not said who it is yet"
