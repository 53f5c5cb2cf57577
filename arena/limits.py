"""Time controls and resource limits: plain settings shared by the bot runner and the config."""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["TimeControl", "Limits", "SandboxMode", "AffinityMode"]


@dataclass(frozen=True)
class TimeControl:
    """How long a bot may take."""

    move_ms: int = 100
    """Time for each move, measured from sending `turn` to the arrival of the reply line."""
    startup_ms: int = 5000
    """Time from starting the process to its `ready` line."""


@dataclass(frozen=True)
class Limits:
    """Resource limits for each bot process (rlimits and harness-side caps)."""

    memory_mb: int = 1024
    """Address-space limit (RLIMIT_AS) in MiB."""
    cpu_seconds: int | None = None
    """RLIMIT_CPU for the whole process; None derives a generous one from the match's length."""
    file_size_mb: int = 16
    """Largest file the bot may write (RLIMIT_FSIZE), in its private tmp."""
    open_files: int = 64
    """RLIMIT_NOFILE."""
    processes: int | None = None
    """RLIMIT_NPROC, only applied inside the sandbox's user namespace (None: not set)."""
    stderr_kb: int = 16
    """How much of a bot's stderr is kept with each game (the tail); the rest is dropped."""
    line_bytes: int = 1024
    """Longest line accepted from a bot; a longer one is `malformed`."""


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
