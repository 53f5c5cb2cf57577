"""Linux process facts and controls: /proc's stat fields and children, and ``prctl``.

One place for the parsing and the system calls, so that the referee (CPU time, a bot's real
process), the workers (their bots), the sandbox (bots that die with their harness) and the affinity
code (the current core) read /proc and control processes the same way.
"""

from __future__ import annotations

import contextlib
import ctypes
import os

__all__ = ["stat_fields", "children", "all_children", "die_with_parent"]

_PR_SET_PDEATHSIG = 1


def _load_libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


_LIBC = _load_libc()


def die_with_parent(signum: int) -> None:
    """Ask the kernel to send ``signum`` to this process when its parent dies.

    Safe between fork and exec (no allocation beyond the call itself); does nothing where
    ``prctl`` is unavailable.
    """
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)


def stat_fields(pid: int | str = "self") -> list[bytes] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (index 0 is the state, field 3
    in proc(5)); None when it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            # The command name may hold spaces and parentheses: split after its last ")".
            return f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def children(pid: int) -> list[int] | None:
    """The children of ``pid``'s main thread, oldest first; None when they cannot be read."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(child) for child in f.read().split()]
    except (OSError, ValueError):
        return None


def all_children(pid: int | str = "self") -> set[int]:
    """The children of every thread of ``pid`` (those that can be read)."""
    pids: set[int] = set()
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with (
                contextlib.suppress(OSError, ValueError),
                open(f"/proc/{pid}/task/{task}/children") as f,
            ):
                pids.update(int(child) for child in f.read().split())
    return pids
