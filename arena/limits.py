"""Time controls and resource limits: plain settings shared by the bot runner and the config."""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any

__all__ = ["TimeControl", "Limits", "SandboxMode", "AffinityMode", "minimum_of", "least"]


def _at_least(default: int | None, minimum: int, why: str) -> Any:
    """A field whose values below ``minimum`` would make every bot fail, whoever it is."""
    return dataclasses.field(default=default, metadata={"minimum": minimum, "why": why})


def minimum_of(field: dataclasses.Field[Any]) -> tuple[int, str]:
    """The least sane value of a setting and why (1 and no reason when none is recorded)."""
    return int(field.metadata.get("minimum", 1)), str(field.metadata.get("why", ""))


@dataclass(frozen=True)
class TimeControl:
    """How long a bot may take."""

    move_ms: int = 100
    """Time for each move, measured from sending `turn` to the arrival of the reply line."""
    startup_ms: int = _at_least(5000, 100, "no bot process starts in less")
    """Time from starting the process to its `ready` line."""


@dataclass(frozen=True)
class Limits:
    """Resource limits for each bot process (rlimits and harness-side caps)."""

    memory_mb: int = _at_least(1024, 64, "a Python bot cannot start with less")
    """Memory in MiB: the bot's resident memory, all its processes together, where arena has a
    memory cgroup for it (going past it is its ``crash``); else each process's address space
    (RLIMIT_AS), which a JVM or Go runtime needs far more of than it uses (see the README)."""
    cpu_seconds: int | None = None
    """RLIMIT_CPU for the whole process; None derives a generous one from the match's length."""
    file_size_mb: int = 16
    """Largest file the bot may write (RLIMIT_FSIZE), in its private tmp."""
    open_files: int = _at_least(64, 16, "a Python bot cannot start with fewer")
    """RLIMIT_NOFILE."""
    processes: int | None = _at_least(64, 8, "an interpreter starts threads of its own")
    """Processes and threads of one bot, all its descendants included (None: unbounded).
    Exceeding it is the bot's fault (a ``crash``) where a cgroup records it (see the README)."""
    tmp_mb: int = _at_least(64, 1, "a bot's private /tmp needs some room")
    """Size of the bot's private ``/tmp`` (a tmpfs); filling it is the bot's fault (``crash``)."""
    stderr_kb: int = 16
    """How much of a bot's stderr is kept with each game (the tail); the rest is dropped."""
    line_bytes: int = _at_least(1024, 64, "a 'ready <name>' line may be that long")
    """Longest line accepted from a bot; a longer one is `malformed`."""


def least(settings: type[TimeControl | Limits], name: str) -> int:
    """The least sane value of field ``name`` of ``settings`` (for command-line options)."""
    field = next(f for f in dataclasses.fields(settings) if f.name == name)
    return minimum_of(field)[0]


class SandboxMode(enum.StrEnum):
    """``auto`` uses bubblewrap when it is installed; ``none`` runs bots with rlimits only."""

    AUTO = "auto"
    BWRAP = "bwrap"
    NONE = "none"


class AffinityMode(enum.StrEnum):
    """Pin each match (worker and both bots) to one core: ``auto`` when cores >= workers."""

    AUTO = "auto"
    ON = "on"
    OFF = "off"
