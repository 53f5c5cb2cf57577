"""How the referee words a fault: what the bot did, with what it wrote quoted and escaped.

Why a module of its own: a fault's detail is the only thing a bot's author sees of what went
wrong, so each one says what the bot wrote (``protocol.quote``) or that nothing arrived at all,
how its process ended, and the line of its stderr that says why (``clue``); the referee only
decides *which* fault it is.

The same module says what to do about one (``HINTS``, ``advice``): ``arena validate`` prints a
fault's detail with the hint for it, and finds that hint from the words the details here are made
of (the phrase constants), so that a change of wording cannot silently lose a hint.
"""

from __future__ import annotations

import contextlib
import re
import shlex
import signal
from pathlib import Path

from arena.launch import procfs
from arena.launch.process import BotProcess, WaitStatus
from arena.protocol import escape, quote, shown, why_not_ready
from arena.referee.clue import telling_line
from arena.rules import Reason

# --- the phrases details are made of (``advice`` reads them back) -----------------------------
NOTHING_ARRIVED = "nothing arrived on stdout"
NO_NEWLINE = "without a newline"
NOT_READ = "it had not read its"
NOT_READING = "does not read its input"
ANSWERED_AFTER = "answered after"
NO_REPLY_DUE = "no reply was due"
MORE_THAN_ONE_LINE = "more than one line"
LONGER_THAN = "longer than"
EXPECTED_READY = "expected `ready`"
CR_SHEBANG = "its #! line ends in \\r"

_RESERVE_FAILED = re.compile(
    r"(?:could ?not|cannot|can't|failed to|unable to) (?:reserve|allocate)\b[^\n]*?"
    r"\b(?:space|memory|heap|bytes)",
    re.IGNORECASE,
)


def could_not_reserve(text: str) -> bool:
    """Whether ``text`` (what a bot wrote) says that its runtime could not reserve memory: a JVM
    ("Could not reserve enough space for object heap", "Could not allocate compressed class
    space"), Go ("cannot allocate memory") under an address-space limit too low for it."""
    return _RESERVE_FAILED.search(text) is not None


def silence(process: BotProcess, turn: bool = False) -> str:
    """What the bot had written by a deadline, when it was not a line: a partial line, or
    nothing at all (said plainly, since a bot that does not flush its output looks like that)."""
    if process.outbuf:
        return f"got {quote(process.outbuf)} {NO_NEWLINE}"
    with contextlib.suppress(OSError):
        if procfs.unread_bytes(process.stdin_fd):
            return f"{NOT_READ} `turn` line" if turn else f"{NOT_READ} `arena 1` line"
    hint = "slow, or not flushing it?" if turn else "flush after each line?"
    return f"{NOTHING_ARRIVED} ({hint})"


def late(elapsed_ns: int, move_ms: int) -> str:
    """A reply that came after the move time."""
    return f"{ANSWERED_AFTER} {elapsed_ns / 1e6:.1f} ms (limit {move_ms} ms)"


def occupied(move: str) -> str:
    """A move (``c4X``) to a cell that is not empty."""
    return f"{move}: {move[:2]} is occupied"


def overlong(limit: int, written: bytes | bytearray) -> str:
    """A line longer than the limit, quoted as far as it is shown."""
    return f"line {LONGER_THAN} {limit} bytes: {quote(written)}"


def extra_lines(line: bytes, process: BotProcess) -> str:
    """More than one line for one ``turn``: both quoted."""
    return f"wrote {MORE_THAN_ONE_LINE} for one turn: {two_lines(line, process)}"


def startup_problem(status: WaitStatus, line: bytes, process: BotProcess, allowance: int) -> str:
    """Why a bot's start-up failed, from how the wait for its ``ready`` ended.

    Only the first line counts (``EXTRA`` is a line too): whether the lines after it came in the
    same read is up to the scheduler, and the verdict must not be."""
    if status is WaitStatus.LINE or status is WaitStatus.EXTRA:
        return f"{EXPECTED_READY}, got {quote(line)}{why_not_ready(line)}"
    if status is WaitStatus.TIMEOUT:
        return f"no `ready` within {allowance} ms: {silence(process)}"
    if status is WaitStatus.OVERLONG:
        return f"start-up line {LONGER_THAN} {process.limits.line_bytes} bytes:" + (
            f" {quote(process.outbuf)}"
        )
    exited = f"exited during start-up ({exit_detail(process)})"
    return exited + program_problem(process.spec.program)


def program_problem(program: Path | None) -> str:
    """What keeps a bot's program from running as written, with the fix, as ``": ..."`` to add
    to a start-up fault ("" when nothing is seen).

    A ``#!`` line that ends in ``\\r`` (a script saved with Windows line ends) names an
    interpreter such as ``/bin/sh\\r``, which does not exist: the kernel's ``not found`` (exit
    127) names the script, not the ``\\r``, so it is said here."""
    if program is None:
        return ""
    try:
        with open(program, "rb") as f:
            first = f.read(256).split(b"\n", 1)[0]
    except OSError:
        return ""
    if first.startswith(b"#!") and first.endswith(b"\r"):
        shown = shlex.quote(escape(str(program), None))
        return (
            f": {CR_SHEBANG} (Windows line ends), so its interpreter is not found: save it with"
            f" \\n line ends (dos2unix {shown})"
        )
    return ""


def unsolicited(process: BotProcess | None) -> str:
    """A line (its first one, quoted) that a bot wrote when no reply was due."""
    written = process.outbuf if process is not None else b""
    line = bytes(written).split(b"\n", 1)[0]
    return f"wrote a line when {NO_REPLY_DUE}: {quote(line)}"


def two_lines(line: bytes, process: BotProcess) -> str:
    """A line and the one after it (still in the bot's buffer), quoted: what was too much."""
    after = bytes(process.outbuf).split(b"\n", 1)[0]
    return f"{quote(line)}, then {quote(after)}"


def written_before_turn(line: bytes) -> str:
    """A line that arrived while the bot's ``turn`` was still unread in its input."""
    return f"wrote a line when {NO_REPLY_DUE}: {quote(line)} (before reading its `turn`)"


def send_failure(process: BotProcess) -> tuple[Reason, str]:
    """The fault of a bot that a ``turn`` could not be written to."""
    if process.running and process.input_closed():
        return Reason.CRASH, "closed its stdin"
    if process.running:
        return Reason.TIMEOUT, f"{NOT_READING} (its input pipe is full)"
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


def stderr_clue(text: str, limit: int = 200) -> str:
    """The most telling line of a bot's stderr ``text`` (``clue.telling_line``), escaped, cut to
    ``limit`` characters and labelled: ``last on stderr: ...`` when it is the last line, else
    ``on stderr: ...``; "" when the bot wrote nothing there."""
    line, last = telling_line(text)
    if not line:
        return ""
    return f"{'last on stderr' if last else 'on stderr'}: {escape(line, limit)}"


# --- what to do about a fault -----------------------------------------------------------------
HINTS: dict[str, str] = {
    "startup_timeout": "nothing arrived on stdout: flush after each line (and do slow "
    "initialisation before `ready`, within the start-up allowance)",
    "startup_partial": "`ready` arrived without its newline: end each line with \\n and flush",
    "startup_line": "answer `arena 1` with `ready` or `ready <name>`, and nothing else first",
    "startup_exit": "it exited at start-up: run its command by hand and type `arena 1`",
    "crlf": "save the program with \\n line ends (dos2unix FILE, or sed -i 's/\\r$//' FILE): a #!"
    " line ending in \\r names an interpreter that does not exist",
    "reserve": "its runtime could not reserve memory: where arena has no memory cgroup for a "
    "bot (not root), limits.memory_mb bounds its address space (RLIMIT_AS), which a JVM or Go "
    "reserves generously: raise it (--memory-mb 4096) or cap the runtime's reservations (java "
    "-Xmx64m -Xss512k -XX:ReservedCodeCacheSize=32m -XX:CompressedClassSpaceSize=32m "
    "-XX:+UseSerialGC)",
    "format": "a move is a cell and a mark, like c4X, alone on its line, ending in \\n",
    "overlong": "end each line with \\n (a line longer than the limit is a fault)",
    "legal": "play an empty cell of the `turn` board: 36 characters, row 1 first, a-f within a "
    "row (a1 is character 0, f6 is 35)",
    "time_none": "nothing arrived in time: flush after each line, and answer well within the "
    "`<ms>` of each `turn`",
    "time_partial": "part of a line arrived but no newline: end each line with \\n and flush",
    "time_late": "it answered too late: stop thinking earlier (the time includes the pipe's "
    "round trip: keep a margin of a few ms)",
    "time_unread": "it stopped reading its input: read every line the harness sends",
    "silence": "write exactly one line per `turn` and nothing on stdout otherwise: log to stderr",
    "crash": "it exited or closed its stdout mid-game: see its stderr, or run it by hand with "
    "--transcript's lines",
    "quit_hang": "exit when you read `quit` (or end of input)",
    "quit_code": "exit with status 0 after `quit`",
    "stderr": "log less: only the tail of stderr is kept with each game, and a flood slows "
    "everything",
    "reset": "the first games went fine: does it reset its state at each `game` line?",
    "sandbox": "under the sandbox a bot reads only its own folder (and the system's), writes only "
    "/tmp, and has no network: keep everything it needs in its folder",
}
"""What to do about each kind of failure, by key (``arena validate`` prints them)."""


def advice(reason: Reason, detail: str) -> tuple[str, str]:
    """The check of ``arena validate`` that a fault (as this module words it) fails, and the
    hint for it: ``("time", HINTS["time_late"])``, say."""
    if reason is Reason.STARTUP:
        if CR_SHEBANG in detail:
            return "startup", HINTS["crlf"]
        if could_not_reserve(detail):
            return "startup", HINTS["reserve"]
        if NO_NEWLINE in detail:
            return "startup", HINTS["startup_partial"]
        if LONGER_THAN in detail:
            return "startup", HINTS["overlong"]
        if EXPECTED_READY in detail:
            return "startup", HINTS["startup_line"]
        if NOTHING_ARRIVED in detail or NOT_READ in detail:
            return "startup", HINTS["startup_timeout"]
        return "startup", HINTS["startup_exit"]
    if reason is Reason.TIMEOUT:
        if ANSWERED_AFTER in detail:
            return "time", HINTS["time_late"]
        if NOT_READING in detail or NOT_READ in detail:
            return "time", HINTS["time_unread"]
        if NO_NEWLINE in detail:
            return "time", HINTS["time_partial"]
        return "time", HINTS["time_none"]
    if reason is Reason.ILLEGAL:
        return "legal", HINTS["legal"]
    if reason is Reason.MALFORMED:
        if NO_REPLY_DUE in detail or MORE_THAN_ONE_LINE in detail:
            return "silence", HINTS["silence"]
        if LONGER_THAN in detail:
            return "format", HINTS["overlong"]
        return "format", HINTS["format"]
    return "crash", HINTS["crash"]


# --- showing a stored detail (arena faults, match, replay, play, the report) ------------------
DETAIL_WIDTH = 300
"""Characters of a fault detail shown (after escaping)."""


def shown_detail(detail: str, limit: int) -> str:
    """A stored fault detail, safe to print and cut to ``limit`` characters (then ``...``).

    The referee already escapes what a bot wrote in a detail (``protocol.quote``), so a printable
    detail is shown as stored: escaping it again would double its backslashes. One that is not
    printable (written by an older referee) is escaped here.
    """
    return shown(detail, limit)


def last_lines(text: str, count: int, width: int = 200) -> list[str]:
    """The last ``count`` non-blank lines of a bot's stderr ``text``, each escaped and cut to
    ``width`` characters (stderr is stored as the bot wrote it)."""
    lines = [line for line in text.replace("\r\n", "\n").split("\n") if line.strip()]
    return [escape(line, width) for line in lines[-count:]]
