"""How many matches this machine can play at once, fairly.

A match keeps about one core busy (its referee and two bots take turns) and needs memory for a
worker and its two bots. More workers than that does not play faster: bots then wait for a core
or for memory, their start-ups and moves time out, and the harness's trouble is charged to them
as faults. So a run uses at most this many workers unless told to use more anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.tournament.affinity import core_count

WORKER_MB = 40
"""A worker process's own memory (measured ~28 MiB, with room)."""
TYPICAL_BOT_MB = 100
"""What a bot is counted for when its limit is higher (most use far less than their limit)."""


@dataclass(frozen=True)
class Capacity:
    """The workers this machine runs fairly, and what bounds them."""

    workers: int
    """At least 1."""
    reason: str
    """Why no more, e.g. ``the machine has 2 cores``."""


def available_memory_mb() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` in MiB (None where it cannot be read)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def fair_workers(bot_memory_mb: int, memory_mb: int | None = None) -> Capacity:
    """The workers the machine runs fairly with bots limited to ``bot_memory_mb`` each.

    ``memory_mb``: the memory available (default: read from the system now)."""
    cores = core_count()
    memory = available_memory_mb() if memory_mb is None else memory_mb
    per_worker = WORKER_MB + 2 * min(bot_memory_mb, TYPICAL_BOT_MB)
    if memory is not None and memory // per_worker < cores:
        count = max(1, memory // per_worker)
        return Capacity(count, f"{memory} MiB of memory free, about {per_worker} MiB per match")
    return Capacity(cores, f"the machine has {cores} core{'s' if cores != 1 else ''}")
