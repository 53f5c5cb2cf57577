"""CPU affinity: pin a match (the process refereeing it and, by inheritance, its bots) to a core.

Only one process of a match runs at any moment (the referee waits while a bot thinks), so a
single core serves a whole match; keeping it there saves the cross-core wake-ups that otherwise
cost more than all the refereeing together, and keeps matches from disturbing each other.
"""

from __future__ import annotations

import contextlib
import os

from arena.launch import procfs
from arena.limits import AffinityMode


def usable_cores() -> list[int]:
    """The cores this process may run on."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return list(range(os.cpu_count() or 1))


def core_count() -> int:
    """How many cores this process may run on (at least 1): the default number of workers."""
    return max(1, len(usable_cores()))


def plan_cores(workers: int, mode: AffinityMode | str) -> list[int | None]:
    """The core for each worker, or None where it should float.

    ``auto`` pins when there are at least as many cores as workers; ``on`` pins always (workers
    share cores round-robin); ``off`` never.
    """
    mode = AffinityMode(mode)
    cores = usable_cores()
    if mode is AffinityMode.OFF or not hasattr(os, "sched_setaffinity"):
        return [None] * workers
    if mode is AffinityMode.AUTO and workers > len(cores):
        return [None] * workers
    if workers == 1 and (core := current_cpu()) in cores:
        # A lone match (`arena match`) stays where the scheduler put it, so that two of them
        # started side by side land on different cores.
        return [core]
    # The last cores first: core 0 tends to take more of the system's interrupts.
    ordered = cores[::-1]
    return [ordered[i % len(ordered)] for i in range(workers)]


def current_cpu() -> int | None:
    """The core this process is running on now (None where /proc does not say)."""
    fields = procfs.stat_fields()
    if fields is None:
        return None
    try:
        return int(fields[36])  # "processor", field 39 in proc(5)
    except (IndexError, ValueError):
        return None


def pin_to_core(core: int | None) -> None:
    """Pin the calling process (and the children it starts from now on) to ``core``."""
    if core is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {core})
