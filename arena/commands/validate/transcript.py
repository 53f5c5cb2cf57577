"""``arena validate --transcript``: every line both ways, timestamped, as cutechess's ``-debug``."""

from __future__ import annotations

import time
from collections.abc import Callable

from arena.protocol import escape

_ENDLESS = 200
"""Bytes of a line without a newline shown as they come (an endless line is not held back)."""


class Transcript:
    """Formats the tap's chunks as timestamped lines: ``    12.345 > turn ...`` (ms since the
    check began; ``>`` to the bot, ``<`` from its stdout; what the bot wrote, escaped)."""

    def __init__(self, emit: Callable[[str], None]) -> None:
        self.emit = emit
        self.t0 = time.perf_counter_ns()
        self.pending = b""

    def note(self, text: str) -> None:
        """A line of the harness's own, between the bot's: ``-- game 2: ...``."""
        self.flush()
        self.emit(f"-- {text}")

    def tap(self, direction: str, t_ns: int, data: bytes) -> None:
        """The ``arena.launch.process.Tap`` of the bot under test."""
        stamp = f"{(t_ns - self.t0) / 1e6:10.3f}"
        if direction == ">":
            self.flush()
            for line in data.splitlines():
                self.emit(f"{stamp} > {escape(line)}")
            return
        self.pending += data
        *lines, self.pending = self.pending.split(b"\n")
        for line in lines:
            self.emit(f"{stamp} < {escape(line)}")
        if len(self.pending) > _ENDLESS:
            self.emit(f"{stamp} < {escape(self.pending[:_ENDLESS], None)}... (no newline yet)")
            self.pending = b""

    def flush(self) -> None:
        """Show a partial line still held (the bot never ended it)."""
        if self.pending:
            self.emit(f"{'':10} < {escape(self.pending)}  (no newline)")
            self.pending = b""
