"""A bot's stdin and stdout: the plain pipes ``subprocess`` makes, or FIFOs the bot's process
opens itself (under bubblewrap, which would hold a copy of pipes it is given and so hide a bot
that closes one). Chosen once, with the launch plan; both give the harness two non-blocking
descriptors, and the transcript tap (``PipeIO``) reads and writes them alike.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from typing import IO, NamedTuple

from arena.launch.sandbox import LaunchPlan

Tap = Callable[[str, int, bytes], None]
"""A transcript hook (``arena validate --transcript``): called with ``">"`` and each write to a
bot, or ``"<"`` and each read from its stdout, the time (``perf_counter_ns``) and the bytes (not
split into lines)."""


class PipeIO(NamedTuple):
    """How a bot's pipes are written and read: ``os.write`` and ``os.read``, or tapped."""

    write: Callable[[int, bytes], int]
    read: Callable[[int, int], bytes]


UNTAPPED = PipeIO(os.write, os.read)


def tapped(tap: Tap) -> PipeIO:
    """``os.write`` and ``os.read`` that also give ``tap`` what went through them."""

    def write(fd: int, data: bytes) -> int:
        written = os.write(fd, data)
        tap(">", time.perf_counter_ns(), bytes(data[:written]))
        return written

    def read(fd: int, size: int) -> bytes:
        data = os.read(fd, size)
        if data:
            tap("<", time.perf_counter_ns(), data)
        return data

    return PipeIO(write, read)


class Pipes:
    """Plain pipes: ``subprocess`` makes them, and they are usable from the start."""

    stdio: int = subprocess.PIPE
    """What ``Popen`` is given as the bot's stdin and stdout."""
    unsettled = False
    """Whether the bot's process may not have opened its end yet (FIFOs, until its first line)."""

    def __init__(self) -> None:
        self._streams: tuple[IO[bytes], ...] = ()

    def open(self) -> None:
        """Before the bot starts: nothing to open."""

    def attach(self, proc: subprocess.Popen[bytes]) -> tuple[int, int]:
        """Once it has started: its stdin's and stdout's descriptors."""
        assert proc.stdin is not None and proc.stdout is not None
        self._streams = (proc.stdin, proc.stdout)
        return proc.stdin.fileno(), proc.stdout.fileno()

    def settle(self) -> None:
        """After the bot's first line: nothing changes."""

    def close(self) -> None:
        """Close the harness's ends (the bot has stopped, or never started)."""
        for stream in self._streams:
            with contextlib.suppress(OSError):
                stream.close()
        self._streams = ()


class Fifos(Pipes):
    """The FIFOs ``in`` and ``out`` in the plan's ``io_dir``, which the bot's process opens.

    The harness holds the read end of ``out`` and, until the bot has opened ``in``, both ends of
    ``in`` (so that it can write ``arena 1`` at once and the bot's open does not block);
    ``settle`` then keeps the write end only.
    """

    stdio = subprocess.DEVNULL

    def __init__(self, plan: LaunchPlan) -> None:
        super().__init__()
        self.plan = plan
        self._fds = (-1, -1)

    def open(self) -> None:
        assert self.plan.io_dir is not None
        flags = os.O_NONBLOCK | os.O_CLOEXEC
        fifo_in = os.open(os.path.join(self.plan.io_dir, "in"), os.O_RDWR | flags)
        try:
            fifo_out = os.open(os.path.join(self.plan.io_dir, "out"), os.O_RDONLY | flags)
        except BaseException:
            os.close(fifo_in)
            raise
        self._fds = (fifo_in, fifo_out)

    def attach(self, proc: subprocess.Popen[bytes]) -> tuple[int, int]:
        self.unsettled = True
        return self._fds

    def settle(self) -> None:
        """Once the bot has written a line (so its process has opened both FIFOs), keep only the
        write end of its stdin: a bot that closes its stdin then leaves it without a reader,
        which the next write reports at once. The FIFOs' names are no longer needed."""
        self.unsettled = False
        io_dir, stdin_fd = self.plan.io_dir, self._fds[0]
        if io_dir is None or stdin_fd < 0:
            return
        try:
            write_end = os.open(os.path.join(io_dir, "in"), os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            return
        os.dup2(write_end, stdin_fd, inheritable=False)
        os.close(write_end)
        self.plan.io_dir = None
        shutil.rmtree(io_dir, ignore_errors=True)

    def close(self) -> None:
        for fd in self._fds:
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._fds = (-1, -1)
        self.unsettled = False


def pipes_for(plan: LaunchPlan) -> Pipes:
    """FIFOs where the plan made them (bubblewrap), else plain pipes."""
    return Pipes() if plan.io_dir is None else Fifos(plan)
