"""Writing output files safely: all or nothing, and never over a file that must not be touched.

``atomic_write(path)`` writes into a temporary file beside ``path`` and renames it into place
only when the block succeeds, so that an interrupted or failed export leaves the previous file
as it was (or no file), never half of one. ``refuse_same_file(path, protected)`` stops an output
path that names a protected file, however it is spelled (a relative path, a symlink, a hard
link): ``arena export league.sqlite --out league.sqlite`` must not destroy the store it reads.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TextIO

from arena.errors import ArenaError


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file: the same resolved path, or (existing) the same inode."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): only the resolved paths could tell
        return False


def refuse_same_file(
    path: str | os.PathLike[str], protected: Iterable[str | os.PathLike[str]], what: str
) -> None:
    """An ArenaError if ``path`` is one of the ``protected`` files (``what`` says what they are)."""
    for other in protected:
        if same_file(path, other):
            raise ArenaError(f"refusing to write {path}: it is {what} ({other})")


@contextmanager
def atomic_write(path: str | os.PathLike[str], *, newline: str | None = "") -> Iterator[TextIO]:
    """A text stream (UTF-8) whose content replaces ``path`` only if the block succeeds.

    The temporary file is created in the target's own folder (a rename across file systems
    would not be atomic), with the target's permissions when it exists; the data is flushed to
    disk before the rename. A symlink is written through: its target is replaced. Any failure
    (an exception, Ctrl-C) removes the temporary file and leaves ``path`` untouched. OSErrors
    become one-line ArenaErrors naming the file.
    """
    target = Path(os.path.realpath(path))
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666  # less the umask, as open() would
    except OSError as exc:
        raise ArenaError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    except OSError as exc:
        raise ArenaError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with open(fd, "w", encoding="utf-8", newline=newline) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        if os.path.exists(target):
            os.chmod(temporary, mode)  # the umask may have narrowed an existing file's mode
        os.replace(temporary, target)
    except OSError as exc:
        with suppress(OSError):
            os.unlink(temporary)
        raise ArenaError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise
