"""The few facts arena reads from Linux's /proc: a process's stat fields and its children.

One place for the parsing, so that the referee (CPU time, a bot's real process), the workers
(their bots) and the affinity code (the current core) read /proc the same way.
"""

from __future__ import annotations

import contextlib
import os

__all__ = ["stat_fields", "children", "all_children"]


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
