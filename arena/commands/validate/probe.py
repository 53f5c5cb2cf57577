"""The probe of ``arena validate``: one bot process driven line by line, outside any game.

It checks what the games cannot show: the start-up time, silence after ``ready``, after ``game``,
after a move and after ``end`` (``SILENCE_MS`` each), and a clean exit on ``quit``. Every failure
is worded by ``arena.referee.verdicts`` as the referee words the same fault in a game.
"""

from __future__ import annotations

import contextlib
import os
import time

from arena import protocol
from arena.botspec import BotSpec
from arena.commands.validate.report import Report
from arena.commands.validate.transcript import Transcript
from arena.launch.process import QUIT_GRACE_S, BotProcess, Channels, WaitStatus
from arena.launch.sandbox import plan_launch
from arena.limits import Limits, SandboxMode
from arena.referee import verdicts
from arena.rules import Board, Move, Reason, Role

SILENCE_MS = 150
"""How long the probe listens for output that is not due."""

_PROBE_CPU_S = 60
_AFTER_WORDS_S = 0.5  # for a bot whose start-up line was wrong to exit, saying why
"""RLIMIT_CPU of the probe's process: it plays one move."""


class Probe:
    """One bot process, driven line by line; its findings go to ``report``'s checks."""

    def __init__(
        self, spec: BotSpec, report: Report, mode: SandboxMode, seed: int, limits: Limits
    ) -> None:
        self.spec = spec
        self.report = report
        self.seed = seed
        """The process's ``ARENA_SEED`` (and its ``match`` line's, if it asks for one)."""
        self.plan = plan_launch(spec, mode, limits, seed, _PROBE_CPU_S)
        self.process = BotProcess(spec, self.plan, limits)
        self.channels = Channels()
        self.quit_checked = False
        """Whether the probe got as far as ``quit`` (else the quit check is not judged)."""
        self.wants: set[str] = set()
        """The protocol extensions the bot asked for (``want <feature>`` before ``ready``)."""
        self._said = ""  # what the bot wrote after failing its start-up, whole (for the hint)

    def check(self, transcript: Transcript | None) -> None:
        """Run the probe; the process is stopped whatever happens."""
        process = self.process
        if transcript is not None:
            command = " ".join(self.spec.argv)
            transcript.note(f"probe: start-up, silence, one turn, quit ({command})")
            process.tap = transcript.tap
        started = time.perf_counter_ns()
        try:
            process.start()
        except OSError as exc:
            self.plan.cleanup()
            problem = verdicts.program_problem(self.spec.program)
            command = " ".join(self.spec.argv)
            self._fail(Reason.STARTUP, f"could not start {command}: {exc.strerror or exc}{problem}")
            return
        except BaseException:  # Ctrl-C, SIGTERM mid-start: leave no process nor folder behind
            if process.proc is not None:
                process.stop(graceful=False)
            else:
                self.plan.cleanup()
            raise
        try:
            self.channels.add(process)
            if self._startup(started):
                self._session()
        finally:
            if process.proc is not None:
                process.stop(graceful=False)
            if transcript is not None:
                transcript.flush()

    def _fail(self, reason: Reason, detail: str, where: str = "") -> None:
        key, hint = verdicts.advice(reason, detail)
        self.report.checks[key].fail(f"{where}: {detail}" if where else detail, hint)

    def _crash(self, where: str) -> None:
        detail = verdicts.exit_detail(self.process)
        self.process.drain_stderr()
        clue = verdicts.stderr_clue(self.process.take_stderr())
        self._fail(Reason.CRASH, detail + (f"; {clue}" if clue else ""), where)

    def _wait(self, ms: float) -> tuple[WaitStatus, bytes]:
        process = self.process
        process.expecting = True
        status, line, _ = self.channels.wait_line(process, time.perf_counter_ns() + int(ms * 1e6))
        process.expecting = False
        return status, line

    def _startup(self, started: int) -> bool:
        allowance = self.report.startup_ms
        process = self.process
        if not process.send(protocol.VERSION_LINE):
            problem = verdicts.program_problem(self.spec.program)
            exited = f"exited before reading `arena 1` ({verdicts.exit_detail(process)})"
            self._fail(Reason.STARTUP, exited + problem)
            return False
        process.expecting = True
        status, line, _ = self.channels.wait_line(process, started + allowance * 1_000_000)
        while (
            status in (WaitStatus.LINE, WaitStatus.EXTRA)
            and (feature := protocol.parse_want(line)) is not None
        ):
            self.wants.add(feature)  # an extension, asked for before `ready`
            status, line, _ = self.channels.wait_line(process, started + allowance * 1_000_000)
        process.expecting = False
        took = (time.perf_counter_ns() - started) / 1e6
        # A line after `ready` (EXTRA) stays buffered: the silence check after `ready` reports
        # it, as it does a line that comes a moment later.
        started = status is WaitStatus.LINE or status is WaitStatus.EXTRA
        if started and (name := protocol.parse_ready(line)) is not None:
            check = self.report.checks["startup"]
            check.summary = f"ready in {took:.0f} ms (allowance {allowance} ms)"
            if name:
                check.summary += f", name {name!r}"
            return True
        detail = verdicts.startup_problem(status, line, process, allowance)
        if status is WaitStatus.EOF:
            detail += self._last_words("; it wrote")
        elif started and process.exited_within(_AFTER_WORDS_S):
            # It wrote a line and exited (a JVM that could not reserve its memory prints two):
            # what came after that line says why, and picks the hint.
            detail += self._last_words(", then")
        if verdicts.could_not_reserve(self._said):  # quoted in ``detail``, maybe cut short
            self.report.checks["startup"].fail(detail, verdicts.HINTS["reserve"])
        else:
            self._fail(Reason.STARTUP, detail)
        return False

    def _last_words(self, lead: str) -> str:
        """What a bot that failed its start-up still had to say: the rest of its stdout (after
        ``lead``, its lines joined by " / ") and its last line on stderr ("" if nothing)."""
        process = self.process
        with contextlib.suppress(OSError):
            while data := os.read(process.stdout_fd, 65536):
                process.outbuf += data
        following = b" / ".join(
            line.strip() for line in bytes(process.outbuf)[:400].splitlines() if line.strip()
        )
        words = f"{lead} {protocol.quote(following)}" if following else ""
        process.drain_stderr()
        stderr = process.take_stderr()
        self._said = f"{following.decode('utf-8', 'replace')}\n{stderr}"
        clue = verdicts.stderr_clue(stderr)
        return words + (f"; {clue}" if clue else "")

    def _silent(self, after: str) -> bool:
        """Listen for ``SILENCE_MS``: True when nothing came (output is a ``silence`` failure)."""
        status, line = self._wait(SILENCE_MS)
        where = f"after {after}"
        if status is WaitStatus.TIMEOUT:
            if self.process.outbuf:
                detail = f"wrote {protocol.quote(self.process.outbuf)} {verdicts.NO_NEWLINE}, when"
                self._fail(Reason.MALFORMED, f"{detail} {verdicts.NO_REPLY_DUE}", where)
                return False
            return True
        if status is WaitStatus.EOF:
            self._crash(where)
            return False
        detail = f"wrote a line when {verdicts.NO_REPLY_DUE}: {protocol.quote(line)}"
        self._fail(Reason.MALFORMED, detail, where)
        return False

    def _session(self) -> None:
        process = self.process
        move_ms = self.report.move_ms
        if not self._silent("`ready`"):
            return
        # Its match begins, as in a tournament (``match`` first, if it asked).
        lines = protocol.game_lines(Role.CHAOS, self.wants, self.report.time_control, self.seed)
        if not process.send(lines):
            self._crash("after `ready`")
            return
        if not self._silent("`game chaos`"):
            return
        board = Board()
        board.push(Move.parse("c3X"))
        if not process.send(protocol.turn_line(board.board_string().encode(), b"c3X", move_ms)):
            self._crash("after `game`")
            return
        status, line = self._wait(move_ms)
        if not self._judge_reply(status, line, board, "probe turn (as Chaos, after c3X)"):
            return
        if not self._silent("its move"):
            return
        if not process.send(protocol.end_line(True, Reason.TIMEOUT)):
            self._crash("after its move")
            return
        if not self._silent("`end win timeout`"):
            return
        self.quit_checked = True
        self._quit()

    def _judge_reply(self, status: WaitStatus, line: bytes, board: Board, where: str) -> bool:
        """Whether the reply to the probe's turn is one legal move line in time."""
        process = self.process
        if status is WaitStatus.LINE:
            reply = protocol.parse_reply(line)
            if reply.move is None:
                assert reply.fault is not None
                self._fail(reply.fault, reply.detail, where)
                return False
            if not board.is_legal(reply.move):
                self._fail(Reason.ILLEGAL, verdicts.occupied(reply.move.token), where)
                return False
            return True
        if status is WaitStatus.TIMEOUT:
            silence = verdicts.silence(process, turn=True)
            self._fail(Reason.TIMEOUT, f"no move within {self.report.move_ms} ms: {silence}", where)
        elif status is WaitStatus.EOF:
            self._crash(where)
        elif status is WaitStatus.EXTRA:
            self._fail(Reason.MALFORMED, verdicts.extra_lines(line, process), where)
        else:
            limit = process.limits.line_bytes
            self._fail(Reason.MALFORMED, verdicts.overlong(limit, process.outbuf), where)
        return False

    def _quit(self) -> None:
        check = self.report.checks["quit"]
        process = self.process
        sent = time.perf_counter_ns()
        process.send_quit()
        if not process.exited_within(QUIT_GRACE_S):
            check.fail(
                f"still running {QUIT_GRACE_S * 1000:.0f} ms after `quit` (it is killed then)",
                verdicts.HINTS["quit_hang"],
            )
            return
        took = (time.perf_counter_ns() - sent) / 1e6
        code = process.stop(graceful=False)  # it has exited: this only reaps it and its pipes
        if code != 0:
            clue = verdicts.stderr_clue(process.take_stderr())
            check.fail(
                f"exit status {code} after `quit`" + (f"; {clue}" if clue else ""),
                verdicts.HINTS["quit_code"],
            )
            return
        check.summary = f"exited in {took:.0f} ms, status 0"
