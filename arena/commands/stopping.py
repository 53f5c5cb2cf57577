"""Stopping by signal: SIGTERM and SIGHUP stop every command as Ctrl-C does.

A service manager's SIGTERM, or a closed terminal's SIGHUP, would otherwise end the harness at
once, skipping the code that stops the bots, removes their folders and says how to resume. Raised
as a ``KeyboardInterrupt``, the signal unwinds through Ctrl-C's ``finally`` blocks, and the command
exits with 128 + the signal's number. A command that waits for a person (``arena play``'s prompt,
``arena replay``'s keys) waits with ``wait_readable``, so that the signal is acted on at once.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time
from collections.abc import Iterator
from types import FrameType

_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
_WAKE_S = 0.5
"""The longest a wait for input goes without looking for a signal, whatever happens."""
_wake: tuple[int, int, int] | None = None
"""This process's wake-up pipe: (pid, read end, write end)."""


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


def wait_readable(fd: int, timeout: float | None = None) -> bool:
    """Wait until ``fd`` has input (True) or ``timeout`` seconds passed (False); a signal's
    handler (Ctrl-C, or ``Stopped`` in ``stopped_like_ctrl_c``) runs, and raises, at once.

    Why not a plain blocking read of a person's input: Python runs a handler between bytecodes,
    so a signal landing after the last look and before ``read()`` starts is acted on only when
    the read returns, which for a person may be never. ``arena play`` was seen so ignoring a
    SIGTERM sent right after its prompt (the prompt's write wakes the sender, which may run first
    on a busy machine). Here the wait is a ``select`` that also watches a pipe the signal writes
    to (``signal.set_wakeup_fd``; a signal before it was set is run as the call returns), and
    that looks again every ``_WAKE_S`` anyway (outside the main thread, where no wake-up pipe
    can be set, that is all).
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    wake = _wake_pipe()
    try:
        previous: int | None = signal.set_wakeup_fd(wake[1], warn_on_full_buffer=False)
    except ValueError:  # not the main thread
        previous = None
    watched = [fd] if previous is None else [fd, wake[0]]
    try:
        while True:
            left = _WAKE_S if deadline is None else min(_WAKE_S, deadline - time.monotonic())
            ready, _, _ = select.select(watched, [], [], max(0.0, left))
            if fd in ready:
                return True
            if wake[0] in ready:
                with contextlib.suppress(BlockingIOError):
                    while os.read(wake[0], 512):
                        pass
            if deadline is not None and time.monotonic() >= deadline:
                return False
            # The loop's next turn runs the handler of a signal that came (and raises).
    finally:
        if previous is not None:
            signal.set_wakeup_fd(previous)


def _wake_pipe() -> tuple[int, int]:
    """A non-blocking pipe of this process (not one inherited through a fork)."""
    global _wake
    if _wake is None or _wake[0] != os.getpid():
        read_end, write_end = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        _wake = (os.getpid(), read_end, write_end)
    return _wake[1], _wake[2]
