"""Stopping a run by signal: SIGTERM and SIGHUP stop ``arena match`` and ``arena tournament`` as
Ctrl-C does.

A service manager's SIGTERM, or a closed terminal's SIGHUP, would otherwise end the harness at
once, skipping the code that stops the bots, removes their folders and says how to resume; the
games played so far are kept either way, but the bots would be left to the reaper's last resort.
Raised as a ``KeyboardInterrupt``, the signal unwinds through the same ``finally`` blocks as
Ctrl-C, and the command exits with 128 + the signal's number, as a shell reports it.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType

__all__ = ["Stopped", "stopped_like_ctrl_c", "exit_code"]

_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP during a run: stopped as Ctrl-C stops it (bots killed, games kept)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def exit_code(stop: KeyboardInterrupt) -> tuple[int, str]:
    """The exit status (128 + the signal) and the signal's name for an interrupted run."""
    signum = stop.signum if isinstance(stop, Stopped) else int(signal.SIGINT)
    return 128 + signum, signal.Signals(signum).name


@contextlib.contextmanager
def stopped_like_ctrl_c() -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP raise ``Stopped`` (a ``KeyboardInterrupt``)."""

    def stop(signum: int, _frame: FrameType | None) -> None:
        raise Stopped(signum)

    previous = {signum: signal.signal(signum, stop) for signum in _SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
