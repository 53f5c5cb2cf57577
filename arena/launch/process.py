"""Bot processes: starting them, writing lines to them, and reading their lines with deadlines.

Everything a bot writes is read through ``Channels.wait_line``, which waits for the line owed by
one bot while it keeps every other pipe moving: the stderr of both bots is drained continuously
(kept as a capped tail, so a chatty bot never blocks) and a line from a bot that owes none is
reported at once, never mistaken later for the answer to a turn. Reading is bounded: a line longer
than ``Limits.line_bytes`` is a fault, not a memory leak.

Killing is thorough: a bot runs in its own session and process group, and is stopped with SIGTERM
to the whole group, then SIGKILL after a short grace, and reaped. Whatever left the group is killed
too: by its containment (``arena.launch.containment``: every member of its cgroup, else the
processes that carry its environment marker), and the orphans the harness adopted as subreaper
(``arena.launch.reaper``).
"""

from __future__ import annotations

import contextlib
import enum
import errno
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable, Sequence

from arena.botspec import BotSpec
from arena.launch import bytecode, procfs, reaper
from arena.launch.containment import containment, signal_group
from arena.launch.pipes import UNTAPPED, PipeIO, pipes_for, tapped
from arena.launch.pipes import Tap as Tap
from arena.launch.sandbox import LaunchPlan
from arena.limits import Limits
from arena.protocol import OVERLONG, QUIT_LINE, line_end

KILL_GRACE_S = 0.1  # between SIGTERM and SIGKILL when a bot is killed after a fault
QUIT_GRACE_S = 0.5  # for a bot to exit by itself after `quit`
_READ_CHUNK = 65536
_POLLIN = select.POLLIN | select.POLLPRI


class WaitStatus(enum.Enum):
    """What ``Channels.wait_line`` saw."""

    LINE = "line"  # the awaited bot wrote a complete line
    TIMEOUT = "timeout"  # the deadline passed first
    EOF = "eof"  # the awaited bot closed its stdout or its stdin (or exited)
    OVERLONG = "overlong"  # the awaited bot wrote a line longer than line_bytes (or no newline)
    EXTRA = "extra"  # the awaited bot wrote more after its line (extra lines)
    UNSOLICITED = "unsolicited"  # another bot wrote a line when none was due (the culprit)
    OTHER_EOF = "other_eof"  # another bot closed a pipe (exited) meanwhile (the culprit)


class BotProcess:
    """One running bot program and its three pipes.

    Fields are public for the referee's hot loop; the methods keep the invariants. How its
    processes are held (``containment``) and how its stdin and stdout are made (``pipes``) are
    chosen once, from its launch plan.
    """

    def __init__(self, spec: BotSpec, plan: LaunchPlan, limits: Limits) -> None:
        self.spec = spec
        self.plan = plan
        self.limits = limits
        self.proc: subprocess.Popen[bytes] | None = None
        self.stdin_fd = self.stdout_fd = self.stderr_fd = -1
        self.outbuf = bytearray()
        """Bytes read from stdout that are not yet a complete line."""
        self.errbuf = bytearray()
        """The recent tail of stderr (capped to ``limits.stderr_kb``)."""
        self.err_dropped = 0
        """Bytes of stderr read and dropped since the tail was last taken."""
        self.expecting = False
        """Whether a line from this bot is due (so output from it is not unsolicited)."""
        self.quit_sent = False
        self.frozen = False
        """Whether ``freeze`` stopped it (``thaw`` then has work to do)."""
        self.containment = containment(plan.cgroup, "" if plan.sandboxed else plan.token)
        """Its cgroup, else its process tree: what measures, freezes and kills it whole."""
        self.pipes = pipes_for(plan)
        """Its stdin and stdout: FIFOs under bubblewrap, else plain pipes."""
        self.io: PipeIO = UNTAPPED
        """How its pipes are written and read (through the transcript tap, when one is set)."""
        self._tap: Tap | None = None
        self._tmp_fd = -1  # the bot's /tmp, open for fstatvfs (bwrap's is visible only through it)

    @property
    def tap(self) -> Tap | None:
        """Optional transcript hook (see ``arena.launch.pipes.Tap``): every write to the bot and
        read from its stdout goes through it once set."""
        return self._tap

    @tap.setter
    def tap(self, tap: Tap | None) -> None:
        self._tap = tap
        self.io = UNTAPPED if tap is None else tapped(tap)

    # --- life cycle --------------------------------------------------------------------------
    @property
    def pid(self) -> int:
        return self.proc.pid if self.proc is not None else -1

    def run_delay_ns(self) -> int:
        """How long the bot's threads have waited for a CPU so far (``schedstat``), in ns."""
        return self.containment.run_delay_ns()

    def runnable(self) -> bool:
        """Whether any of the bot's threads is runnable now (running, or waiting for a CPU)."""
        for tid in self.containment.thread_ids():
            fields = procfs.stat_fields(tid)
            if fields and fields[0] == b"R":
                return True
        return False

    def lowered_priority(self) -> bool:
        """Whether any of the bot's threads asked to run below the harness (a higher nice value,
        its own or its session's autogroup's): a wait for a CPU it then has is its own doing."""
        own = procfs.niceness() or 0
        return any((procfs.niceness(tid) or 0) > own for tid in self.containment.thread_ids())

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        """Start the process (does not wait for it to be ready)."""
        bytecode.compile_bot_library()  # once per process: bots cannot write it themselves
        self.pipes.open()
        try:
            with reaper.starting():  # tracked before another thread's stop looks for strays
                self.proc = subprocess.Popen(
                    self.plan.argv,
                    stdin=self.pipes.stdio,
                    stdout=self.pipes.stdio,
                    stderr=subprocess.PIPE,
                    bufsize=0,
                    cwd=self.plan.cwd,
                    env=self.plan.env,
                    preexec_fn=self.plan.preexec,
                    start_new_session=True,
                    close_fds=True,
                    pass_fds=self.plan.pass_fds,
                )
                reaper.track(self.proc.pid)
        except BaseException:
            self.pipes.close()
            raise
        finally:
            self.plan.close_passed()
        assert self.proc.stderr is not None
        self.containment.pid = self.proc.pid
        self.stdin_fd, self.stdout_fd = self.pipes.attach(self.proc)
        self.stderr_fd = self.proc.stderr.fileno()
        for fd in (self.stdin_fd, self.stdout_fd, self.stderr_fd):
            os.set_blocking(fd, False)

    def input_closed(self) -> bool:
        """Whether no process reads the bot's stdin any more (it closed it, or exited)."""
        if self.stdin_fd < 0:
            return True
        poller = select.poll()
        poller.register(self.stdin_fd, select.POLLOUT)
        return any(event & select.POLLERR for _fd, event in poller.poll(0))

    def send(self, data: bytes) -> bool:
        """Write one or more whole lines; False if the bot cannot take them (exited or not reading).

        The pipe is non-blocking so that a bot that never reads its input cannot stall the
        harness: once its pipe (64 KiB) is full, sending fails.
        """
        try:
            written = self.io.write(self.stdin_fd, data)
        except (BrokenPipeError, BlockingIOError, OSError):
            return False
        return written == len(data)

    def read_waiting(self) -> bool:
        """Read what the bot's stdout holds right now into ``outbuf``; whether a whole line is
        buffered. Outside the hot path: after a fault, or to tell whether a line arrived by a
        deadline."""
        if self.stdout_fd >= 0 and select.select([self.stdout_fd], [], [], 0)[0]:
            with contextlib.suppress(OSError):
                self.outbuf += self.io.read(self.stdout_fd, _READ_CHUNK)
        return b"\n" in self.outbuf

    def send_quit(self) -> None:
        """Ask the bot to exit (once; stopping it later does not ask again)."""
        if not self.quit_sent:
            self.quit_sent = True
            self.send(QUIT_LINE)

    # --- freezing (freeze_idle) ----------------------------------------------------------------
    def freeze(self) -> None:
        """Stop every process of the bot, its descendants in other sessions too (see
        ``arena.launch.containment`` for how far each containment reaches)."""
        self.frozen = True
        if self.proc is not None:
            self.containment.freeze()

    def thaw(self) -> None:
        """Undo ``freeze``: every process it stopped runs again (nothing to do if not frozen)."""
        if not self.frozen:
            return
        self.frozen = False
        if self.proc is not None:
            self.containment.thaw()

    def cpu_ns(self) -> int:
        """CPU time of the whole bot so far, in nanoseconds: what a move is charged under
        ``measure: cpu`` (its delta over the move) and what ``freeze_idle`` records. Its cgroup's
        (every process it ever had, wherever it went), else its process tree's, with the children
        it has waited for (``procfs.tree_work_ns``)."""
        return self.containment.cpu_ns()

    def exited_within(self, seconds: float) -> bool:
        """Wait for the leader to exit, without reaping it (its pid keeps naming the group)."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return True
            if info is not None:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.002)

    def set_aside(self) -> None:
        """It is about to wait, unwatched, between matches (a worker keeps it): close the files
        kept open for reading it while it plays (they are opened again at its next move)."""
        self.containment.set_aside()

    def stop(self, graceful: bool) -> int | None:
        """End the process and everything in its group; return its exit code.

        ``graceful``: send ``quit`` and give it ``QUIT_GRACE_S`` to exit by itself; otherwise (a
        fault) SIGTERM at once and SIGKILL after ``KILL_GRACE_S``. Either way, whatever is left
        of it is SIGKILLed (its group, and what its containment finds outside it), and the
        process is reaped.
        """
        if self.proc is None:
            return None
        if graceful and self.proc.poll() is None:
            self.send_quit()
            self.exited_within(QUIT_GRACE_S)
        if not self.exited_within(0):
            signal_group(self.pid, signal.SIGTERM)
            self.exited_within(KILL_GRACE_S)
        self.containment.kill()
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be ignored
            code = None
        reaper.untrack(self.proc.pid)
        reaper.kill_adopted()  # what it left behind and re-parented to the harness
        # What it wrote last (a traceback, say) is still in the pipe: keep it for the record. Its
        # whole group is dead by now, so this reads at most what the pipe holds.
        self.drain_stderr()
        self._close()
        return code

    def _close(self) -> None:
        """Close the harness's ends of the pipes and its files on the bot, and free the plan's
        resources (scratch folder, cgroup, uid): the process is gone."""
        self.pipes.close()
        if self.proc is not None and self.proc.stderr is not None:
            with contextlib.suppress(OSError):
                self.proc.stderr.close()
        self.proc = None
        self.containment.pid = -1
        self.stdin_fd = self.stdout_fd = self.stderr_fd = -1
        self.outbuf.clear()
        self.expecting = False
        if self._tmp_fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._tmp_fd)
            self._tmp_fd = -1
        self.containment.set_aside()
        self.plan.cleanup()

    # --- limits --------------------------------------------------------------------------------
    def over_limit(self, late: bool = False) -> str | None:
        """Which of its limits the bot went past (its fault), or None. Cheap (three system calls):
        the referee asks after every game, and at a fault to say what caused it.

        ``late``: the bot failed to answer in time (see ``CgroupContainment.over_limit``).
        """
        fault = self.containment.over_limit(late)
        if fault is None and self.plan.tmp_bounded:
            if self._tmp_fd < 0:
                self._tmp_fd = self._open_tmp()
            if self._tmp_fd >= 0:
                with contextlib.suppress(OSError):
                    if os.fstatvfs(self._tmp_fd).f_bavail == 0:
                        return f"filled its /tmp (limits.tmp_mb: {self.limits.tmp_mb} MB)"
        return fault

    def _open_tmp(self) -> int:
        """An fd of the bot's private /tmp: the scratch tmpfs, or inside bubblewrap's namespace
        (through its init process's root); -1 when it cannot be opened (yet)."""
        path = self.plan.scratch
        if self.plan.sandboxed:
            inner = procfs.children(self.pid)
            if not inner:
                return -1
            path = f"/proc/{inner[0]}/root/tmp"
        if path is None:
            return -1
        try:
            return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            return -1

    # --- stderr ------------------------------------------------------------------------------
    def drain_stderr(self) -> bool:
        """Read what stderr holds now into the capped tail; False once stderr is closed."""
        cap = self.limits.stderr_kb * 1024
        while True:
            try:
                data = os.read(self.stderr_fd, _READ_CHUNK)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not data:
                return False
            self.errbuf += data
            excess = len(self.errbuf) - cap
            if excess > cap:  # trim in big steps: amortised O(1) per byte
                del self.errbuf[:excess]
                self.err_dropped += excess

    def take_stderr(self) -> str:
        """The stderr tail since the last call (decoded leniently), then start a new one."""
        cap = self.limits.stderr_kb * 1024
        excess = max(0, len(self.errbuf) - cap)
        dropped = self.err_dropped + excess
        text = bytes(self.errbuf[excess:]).decode("utf-8", "replace")
        self.errbuf.clear()
        self.err_dropped = 0
        return f"[{dropped} earlier bytes dropped]\n{text}" if dropped else text


class Channels:
    """The pipes of the bots in a match, watched together with one ``poll`` set."""

    def __init__(self, bots: Sequence[BotProcess] = ()) -> None:
        self._poll = select.poll()
        self._owner: dict[int, BotProcess] = {}
        self._is_stderr: dict[int, bool] = {}
        self._stdin: dict[int, BotProcess] = {}
        for bot in bots:
            self.add(bot)

    def poll(self, timeout_ms: int) -> list[tuple[int, int]]:
        """The events of every watched pipe within ``timeout_ms``: the referee's fast path reads
        a reply this way when its bot's stdout is the one pipe ready."""
        return self._poll.poll(timeout_ms)

    def add(self, bot: BotProcess) -> None:
        """Watch a (newly started) bot's stdout and stderr, and its stdin for the loss of its
        reader (POLLERR, which poll reports unasked): a bot that closed its stdin is seen at
        once, even while the harness waits for its reply."""
        for fd, is_err in ((bot.stdout_fd, False), (bot.stderr_fd, True)):
            self._poll.register(fd, _POLLIN)
            self._owner[fd] = bot
            self._is_stderr[fd] = is_err
        self._poll.register(bot.stdin_fd, 0)
        self._stdin[bot.stdin_fd] = bot

    def discard(self, bot: BotProcess) -> None:
        """Stop watching a bot (before it is stopped: its fds are about to close)."""
        for fd in (bot.stdout_fd, bot.stderr_fd):
            if self._owner.pop(fd, None) is not None:
                self._is_stderr.pop(fd, None)
                with contextlib.suppress(KeyError, ValueError):
                    self._poll.unregister(fd)
        if self._stdin.pop(bot.stdin_fd, None) is not None:
            with contextlib.suppress(KeyError, ValueError):
                self._poll.unregister(bot.stdin_fd)

    def _stderr_closed(self, fd: int) -> None:
        self._is_stderr.pop(fd, None)
        self._owner.pop(fd, None)
        self._poll.unregister(fd)

    def wait_line(
        self, bot: BotProcess, deadline_ns: int
    ) -> tuple[WaitStatus, bytes, BotProcess | None]:
        """Wait until ``bot`` has written one complete line or ``deadline_ns`` (perf_counter_ns).

        Returns the status, the line (without ``\\n``; empty unless LINE) and, for UNSOLICITED
        and OTHER_EOF, the bot at fault. Output from other bots that are ``expecting`` is
        buffered for them; output from the others is unsolicited.
        """
        buf = bot.outbuf
        limit = bot.limits.line_bytes
        out_fd = bot.stdout_fd
        read = bot.io.read
        poll = self._poll.poll
        while True:
            newline = line_end(buf, limit)
            if newline >= 0:
                line = bytes(buf[:newline])
                del buf[: newline + 1]
                if bot.pipes.unsettled:
                    bot.pipes.settle()
                return (WaitStatus.EXTRA if buf else WaitStatus.LINE), line, None
            if newline == OVERLONG:  # the line stays in ``outbuf``, for the fault's detail
                return WaitStatus.OVERLONG, b"", None
            remaining = deadline_ns - time.perf_counter_ns()
            if remaining <= 0:
                return WaitStatus.TIMEOUT, b"", None
            for fd, _event in poll(-(-remaining // 1_000_000)):
                if fd == out_fd:
                    data = _read(fd, read)
                    if data is None:
                        continue
                    if not data:
                        return WaitStatus.EOF, b"", None
                    buf += data
                    break  # a line in it comes before whatever else this poll saw
                fault = self._service(fd)
                if fault is None:
                    continue
                if fault[1] is not bot:
                    return fault[0], b"", fault[1]
                # It exited (its stdin lost its reader, or its sandbox ended): what it wrote
                # before is still in its stdout, and is read first (a line, then end of file).
                data = _read(out_fd, read)
                if not data:
                    return WaitStatus.EOF, b"", None
                buf += data
                break

    def check_idle(self) -> tuple[WaitStatus, BotProcess] | None:
        """Without waiting: drain stderr, and report a bot that wrote when no line was due."""
        for fd, _event in self._poll.poll(0):
            fault = self._service(fd)
            if fault is not None:
                return fault
        return None

    def _service(self, fd: int) -> tuple[WaitStatus, BotProcess] | None:
        """Read a ready pipe that is not the awaited stdout: stderr into its tail, another bot's
        stdout into its buffer; that bot's fault if it wrote when no line was due or exited."""
        owner = self._owner.get(fd)
        if owner is None:
            reader_gone = self._stdin.get(fd)
            return None if reader_gone is None else (WaitStatus.OTHER_EOF, reader_gone)
        if self._is_stderr[fd]:
            if not owner.drain_stderr():
                self._stderr_closed(fd)
                if owner.pipes.unsettled:  # bwrap ended: its stdout FIFO may never have had one
                    return WaitStatus.OTHER_EOF, owner
            return None
        data = _read(fd, owner.io.read)
        if data is None:
            return None
        if not data:
            return WaitStatus.OTHER_EOF, owner
        owner.outbuf += data
        return None if owner.expecting else (WaitStatus.UNSOLICITED, owner)

    def drain_all_stderr(self) -> None:
        for fd, is_err in list(self._is_stderr.items()):
            if is_err and not self._owner[fd].drain_stderr():
                self._stderr_closed(fd)


def _read(fd: int, read: Callable[[int, int], bytes] = os.read) -> bytes | None:
    """One read from a pipe that poll reported ready: b"" means end of file, None nothing yet."""
    try:
        return read(fd, _READ_CHUNK)
    except BlockingIOError:
        return None
    except OSError as exc:
        if exc.errno in (errno.EIO, errno.EBADF):
            return b""
        raise
