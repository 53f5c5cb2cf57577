"""Run ``python -m arena ...`` on a real pseudo-terminal and talk to it as a person would.

Why a pty and not pipes: ``arena replay`` and ``arena play`` behave differently on a terminal
(cbreak keys, styles, screen clearing) and off it (plain text); only a real terminal shows the
first. ``PtyRun`` starts the command with a fresh pty as its stdin, stdout and stderr (its own
session, with the pty as controlling terminal, as a shell would), sends keystrokes, and waits for
what is drawn with ``select`` and a deadline: no bare sleeps, and no wait without a bound. The
child is always killed (its whole process group) and reaped at the end, even when a test fails.

Everything the child writes is kept in ``output`` (bytes). ``expect`` looks (escapes removed) only
at what arrived since the previous ``expect`` matched, so that a test reads the screen in order.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Mapping
from types import TracebackType

__all__ = ["PtyRun", "strip_ansi", "ANSI"]

ANSI = re.compile(rb"\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")
"""An escape sequence: CSI (``\\x1b[...m``, ``\\x1b[2J``), OSC, or a two-byte escape."""

DEFAULT_TIMEOUT_S = 30.0
POLL_S = 0.05
STOP_S = 10.0


def strip_ansi(data: bytes) -> str:
    """``data`` without escape sequences, decoded, with the terminal's CRLF as LF."""
    return ANSI.sub(b"", data).decode(errors="replace").replace("\r\n", "\n")


def _own_terminal() -> None:  # pragma: no cover - runs in the child, before exec
    """A session of its own (its process group is what ``close`` kills) with the pty as its
    controlling terminal, as a login shell gives a command."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class PtyRun:
    """``python -m arena ARGS`` (each turned into a string) on a pseudo-terminal of ``rows`` x
    ``cols``."""

    def __init__(
        self,
        *args: object,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        rows: int = 40,
        cols: int = 120,
    ) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.master = master
        self.slave = slave
        """Kept open here too: the test can read the terminal's mode after the child exits."""
        self.output = b""
        self._seen = 0
        self.returncode: int | None = None
        full_env = dict(os.environ if env is None else env)
        full_env.setdefault("TERM", "xterm-256color")
        full_env["ARENA_DEBUG_STACKS"] = "1"  # SIGUSR1 prints its stacks: see ``hung``
        full_env["COLUMNS"], full_env["LINES"] = str(cols), str(rows)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena", *map(str, args)],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=full_env,
            preexec_fn=_own_terminal,
            close_fds=True,
        )
        os.set_blocking(master, False)

    # --- reading -----------------------------------------------------------------------------
    def _read_some(self, deadline: float) -> bool:
        """Wait (until ``deadline``) for output and append it; False at the end of output."""
        left = deadline - time.monotonic()
        if left <= 0:
            return True
        # At most POLL_S at a time: the pty gives no end of file while this side holds the slave
        # too, so the child's exit is noticed by polling it between reads.
        ready, _, _ = select.select([self.master], [], [], min(left, POLL_S))
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except BlockingIOError:
            return True
        except OSError:  # EIO: every process holding the slave is gone (we still hold one...)
            return False
        if not data:
            return False
        self.output += data
        return True

    def expect(self, pattern: str | bytes, timeout: float = DEFAULT_TIMEOUT_S) -> re.Match[str]:
        """Wait until what arrived since the last match (escapes removed) matches ``pattern``.

        Fails the test (AssertionError with the text so far) when ``timeout`` passes or the
        command exits first.
        """
        regex = re.compile(pattern if isinstance(pattern, str) else pattern.decode(), re.M)
        deadline = time.monotonic() + timeout
        while True:
            text = self.text()[self._seen :]
            found = regex.search(text)
            if found is not None:
                self._seen += found.end()
                return found
            exited = self.proc.poll() is not None and not self._pending()
            if exited or time.monotonic() >= deadline or not self._read_some(deadline):
                raise AssertionError(
                    f"no {regex.pattern!r} within {timeout:g} s"
                    f" (exit code {self.proc.poll()}); the screen since the last match:\n{text}"
                    + self.hung()
                )

    def since_last(self) -> str:
        """The text (escapes removed) that arrived after the last match, without waiting."""
        return self.text()[self._seen :]

    def screen(self) -> str:
        """The last screen drawn: the text after the last clear-screen, escapes removed."""
        raw = self.output
        cut = raw.rfind(b"\x1b[2J")
        return strip_ansi(raw[cut + 4 :] if cut >= 0 else raw)

    # --- writing -----------------------------------------------------------------------------
    def send(self, data: str | bytes) -> None:
        """Type ``data`` (keys, or a line with its ``\\n``)."""
        os.write(self.master, data.encode() if isinstance(data, str) else data)

    def sendline(self, line: str) -> None:
        self.send(line + "\n")

    # --- the end -----------------------------------------------------------------------------
    def wait(self, timeout: float = DEFAULT_TIMEOUT_S) -> int:
        """Read everything until the command exits (bounded); its exit code."""
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None:
            if time.monotonic() >= deadline:
                raise AssertionError(
                    f"still running after {timeout:g} s; the screen:\n{self.screen()}" + self.hung()
                )
            self._read_some(min(deadline, time.monotonic() + 0.1))
        # Whatever it wrote before exiting is still in the pty's buffer.
        while self._read_some(time.monotonic() + 0.05) and self._pending():
            pass
        self.returncode = self.proc.returncode
        return self.returncode

    def hung(self) -> str:
        """What the command is doing, for a test that waited for it in vain: the state of each of
        its processes (``/proc``: running, sleeping and where in the kernel, stopped), then the
        Python stacks it prints on SIGUSR1 (``ARENA_DEBUG_STACKS``), read for a bounded time."""
        if self.proc.poll() is not None:
            return ""
        lines = ["", "--- the command's processes (pid, state, kernel wait, signals, command):"]
        for pid in [self.proc.pid, *_descendants(self.proc.pid)]:
            signals = " ".join(
                f"{key}{_proc_field(pid, 'status', key + ':')}"
                for key in ("SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")
            )
            lines.append(
                f"  {pid} {_proc_field(pid, 'status', 'State:')} {_read_proc(pid, 'wchan')}"
                f" {signals} {_read_proc(pid, 'cmdline')[:100]}"
            )
        before = len(self.output)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.proc.pid, signal.SIGUSR1)
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and self._read_some(deadline):
            if len(self.output) > before and not self._pending():
                self._read_some(time.monotonic() + 0.2)  # the rest of the dump, if it comes
                if not self._pending():
                    break
        lines.append("--- its Python stacks (SIGUSR1):")
        lines.append(strip_ansi(self.output[before:]) or "  (nothing printed)")
        return "\n".join(lines)

    def _pending(self) -> bool:
        ready, _, _ = select.select([self.master], [], [], 0)
        return bool(ready)

    def text(self) -> str:
        """Everything written so far, escapes removed."""
        return strip_ansi(self.output)

    def close(self) -> None:
        """Stop the command if it still runs (a test failed): SIGTERM to its process group, so
        that it stops its bots and removes its folders as on Ctrl-C, then SIGKILL if it is still
        there after ``STOP_S``; reap it; close the pty."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=STOP_S)
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        try:
            self.proc.wait(timeout=DEFAULT_TIMEOUT_S)
        finally:
            for fd in (self.master, self.slave):
                with contextlib.suppress(OSError):
                    os.close(fd)

    def __enter__(self) -> PtyRun:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _read_proc(pid: int, name: str) -> str:
    try:
        with open(f"/proc/{pid}/{name}", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def _proc_field(pid: int, name: str, key: str) -> str:
    for line in _read_proc(pid, name).splitlines():
        if line.startswith(key):
            return line[len(key) :].strip()
    return "?"


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (from each task's ``children`` list in ``/proc``)."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in _tasks(parent):
            for child in _read_proc(parent, f"task/{task}/children").split():
                if child.isdigit():
                    found.append(int(child))
                    todo.append(int(child))
    return found


def _tasks(pid: int) -> list[str]:
    try:
        return os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
