"""The small, typed error hierarchy of arena.

Every error a user can cause (a bad config, a missing bot, an unusable store) is an ``ArenaError``
with a message meant to be printed as is; the CLI prints it in one line and exits non-zero, never
with a traceback. Faults of *bots* are not exceptions: they are game results (``arena.records``).
"""

from __future__ import annotations

from arena.rules import IllegalMoveError

__all__ = [
    "ArenaError",
    "ConfigError",
    "BotSpecError",
    "StoreError",
    "SandboxError",
    "HarnessError",
    "IllegalMoveError",
]


class ArenaError(Exception):
    """Base class of every error arena raises on purpose."""


class ConfigError(ArenaError):
    """An unusable tournament file: names the file, the key, the line and what was expected."""

    def __init__(self, file: str, key: str | None, expected: str, line: int | None = None) -> None:
        self.file = file
        self.key = key
        self.expected = expected
        self.line = line
        where = file if line is None else f"{file}:{line}"
        what = f"{key}: " if key else ""
        super().__init__(f"{where}: {what}{expected}")


class BotSpecError(ArenaError):
    """A bot that cannot be started as given (missing, not executable, unknown bundled name)."""


class StoreError(ArenaError):
    """A results store that cannot be used (newer schema, unwritable, full disk, not a store)."""


class SandboxError(ArenaError):
    """The requested sandbox is not available on this machine."""


class HarnessError(ArenaError):
    """A fault of the harness itself (never charged to a bot): the affected games are replayed."""
