"""How the referee words a fault: what the bot did, with what it wrote quoted and escaped.

Why a module of its own: a fault's detail is the only thing a bot's author sees of what went
wrong, so each one says what the bot wrote (``protocol.quote``) or that nothing arrived at all,
how its process ended, and its last line on stderr; the referee only decides *which* fault it is.
"""

from __future__ import annotations

import contextlib
import signal

from arena import procfs
from arena.process import BotProcess, WaitStatus
from arena.protocol import escape, quote
from arena.rules import Reason

__all__ = [
    "silence",
    "startup_problem",
    "two_lines",
    "unsolicited",
    "written_before_turn",
    "send_failure",
    "exit_detail",
    "silent_crash",
    "last_stderr_line",
]


def silence(process: BotProcess, turn: bool = False) -> str:
    """What the bot had written by a deadline, when it was not a line: a partial line, or
    nothing at all (said plainly, since a bot that does not flush its output looks like that)."""
    if process.outbuf:
        return f"got {quote(process.outbuf)} without a newline"
    with contextlib.suppress(OSError):
        if procfs.unread_bytes(process.stdin_fd):
            return "it had not read its `turn` line" if turn else "it had not read `arena 1`"
    hint = "slow, or not flushing it?" if turn else "flush after each line?"
    return f"nothing arrived on stdout ({hint})"


def startup_problem(status: WaitStatus, line: bytes, process: BotProcess, allowance: int) -> str:
    """Why a bot's start-up failed, from how the wait for its ``ready`` ended."""
    if status is WaitStatus.LINE:
        return f"expected `ready`, got {quote(line)}"
    if status is WaitStatus.TIMEOUT:
        return f"no `ready` within {allowance} ms: {silence(process)}"
    if status is WaitStatus.EXTRA:
        return f"wrote more than one line at start-up: {two_lines(line, process)}"
    if status is WaitStatus.OVERLONG:
        return f"start-up line too long: {quote(process.outbuf)}"
    return f"exited during start-up ({exit_detail(process)})"


def unsolicited(process: BotProcess | None) -> str:
    """A line (its first one, quoted) that a bot wrote when no reply was due."""
    written = process.outbuf if process is not None else b""
    line = bytes(written).split(b"\n", 1)[0]
    return f"wrote a line when no reply was due: {quote(line)}"


def two_lines(line: bytes, process: BotProcess) -> str:
    """A line and the one after it (still in the bot's buffer), quoted: what was too much."""
    after = bytes(process.outbuf).split(b"\n", 1)[0]
    return f"{quote(line)}, then {quote(after)}"


def written_before_turn(line: bytes) -> str:
    """A line that arrived while the bot's ``turn`` was still unread in its input."""
    return f"wrote a line when no reply was due: {quote(line)} (before reading its `turn`)"


def send_failure(process: BotProcess) -> tuple[Reason, str]:
    """The fault of a bot that a ``turn`` could not be written to."""
    if process.running and process.input_closed():
        return Reason.CRASH, "closed its stdin"
    if process.running:
        return Reason.TIMEOUT, "does not read its input (its input pipe is full)"
    return Reason.CRASH, exit_detail(process)


def exit_detail(process: BotProcess | None) -> str:
    """How a bot's process ended (its exit code or signal), or which of its pipes it closed."""
    code = None
    if process is not None and process.proc is not None:
        try:
            code = process.proc.wait(timeout=0.2)
        except Exception:  # still running: it closed its stdout (or stdin) without exiting
            return "closed its stdin" if process.input_closed() else "closed its stdout"
    if code is None:
        return "exited"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with code {code}"


def silent_crash(process: BotProcess | None) -> str | None:
    """Why a bot that let its move time run out had in fact crashed (None: it had not).

    End of file cannot show a crash while another process holds the bot's stdout open: a child it
    forked before exiting, or bubblewrap, which keeps the pipe for as long as the bot runs.
    """
    if process is None or process.proc is None:
        return None
    if process.proc.poll() is not None:
        return exit_detail(process) + " (a child kept its stdout open)"
    # The process that runs the bot's command: bwrap runs it as the child of its own init.
    pid = procfs.first_descendant(process.pid, 2 if process.plan.sandboxed else 0)
    if pid is not None and procfs.holds_pipe(pid, 1, process.stdout_fd) is False:
        return "closed its stdout"
    return None


def last_stderr_line(text: str, limit: int = 200) -> str:
    """The last non-blank line of ``text``, escaped and cut to ``limit`` characters."""
    for line in reversed(text.splitlines()):
        if line.strip():
            return escape(line.strip(), limit)
    return ""
