"""The clocks: what each move of a game (``MoveClock``) and a bot's start-up (``StartClock``) may
take and what they are charged, worded once.

A move has a budget (``move_ms``, or what is left on the mover's game clock) plus ``margin_ms``.
Under ``measure: cpu`` (the default) it is charged the CPU time of the bot's process tree and may
take up to ``CPU_WALL_FACTOR`` times its allowance plus ``CPU_WALL_MARGIN_MS`` in wall time; under
``measure: wall``, the wall time from its ``turn`` to its reply.

A reply within ``QUICK_MS`` costs the referee nothing more: it is charged its wall time (at most
``QUICK_MS``, should the referee read it late). A move still thinking then is the referee's
business from there on: the idle bot is frozen (with ``freeze_idle``) and the mover's CPU clock
and run-queue delay read once, so that the rest of the move is charged its CPU time and, at the
wall cap, ``arena.referee.blame`` can tell whose fault the wait was. Without ``freeze_idle``
the idle bot may think on its opponent's time, and under ``measure: cpu`` what it spends there
is charged to its next move (one clock read per move).
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.launch.process import BotProcess, WaitStatus
from arena.limits import QUICK_MS, Measure, TimeControl, wall_cap_ms
from arena.protocol import turn_suffix
from arena.referee import verdicts
from arena.referee.blame import LoadReading, judge_cap, read_load

_QUICK_NS = QUICK_MS * 1_000_000


def wall_cap_ns(allowed_ns: int) -> int:
    """The wall-clock cap of a move whose CPU allowance is ``allowed_ns`` (``measure: cpu``)."""
    return round(wall_cap_ms(allowed_ns / 1e6) * 1_000_000)


class MoveClock:
    """The time of the moves of one game, both sides'.

    Per move: ``turn`` (the deadline), ``thinking`` (once the move is not quick), ``replied``
    (what it is charged), ``charge`` (the move stands); ``timeout_detail`` and ``no_reply`` word a
    timeout."""

    def __init__(self, tc: TimeControl, freeze: bool) -> None:
        self.tc = tc
        self.freeze = freeze
        self.on_cpu = tc.measure is Measure.CPU
        self.clocked = tc.clock_ms is not None
        self.margin_ns = tc.margin_ms * 1_000_000
        self.budget_ns = tc.budget_ms * 1_000_000
        self.clocks = [self.budget_ns, self.budget_ns]  # each side's clock left, when clocked
        self.left: list[int] = []  # the mover's clock after each move, when clocked
        self.suffix = turn_suffix(tc.move_ms)  # under a game clock, ``turn`` sets it each move
        self.allowed_ns = self.budget_ns + self.margin_ns
        self.side = 0
        self.mark: LoadReading | None = None  # the mover's, once its move is not quick
        self.quick_ns = 0  # the move's wall time up to ``mark``
        # Without freeze_idle, each side's CPU clock at its previous reply: what it spends on
        # its opponent's time is charged to its next move.
        self.cpu_at: list[int | None] = [None, None]

    def turn(self, side: int, process: BotProcess) -> int:
        """A move of ``side`` begins: how long it may take in wall time, in ns after its
        ``turn`` (the wall cap under ``measure: cpu``)."""
        self.side = side
        self.mark = None
        if self.clocked:
            self.budget_ns = self.clocks[side]
            self.suffix = turn_suffix(self.budget_ns // 1_000_000)
            self.allowed_ns = self.budget_ns + self.margin_ns
        if not self.on_cpu:
            return self.allowed_ns
        if not self.freeze and self.cpu_at[side] is None:
            self.cpu_at[side] = process.cpu_ns()
        return wall_cap_ns(self.allowed_ns)

    def thinking(self, started_ns: int, mover: BotProcess, idle: BotProcess | None) -> None:
        """The mover did not answer at once: freeze the idle bot and, under ``measure: cpu``,
        read the mover's clocks (wall time needs no reading). Once a move."""
        if self.freeze and idle is not None:
            idle.freeze()
        if self.on_cpu:
            self.mark = read_load(mover)
            self.quick_ns = self.mark.at_ns - started_ns

    def used_ns(self, elapsed_ns: int, process: BotProcess) -> int:
        """What the move of ``process`` has cost so far, ``elapsed_ns`` after its ``turn``."""
        if not self.on_cpu:
            return elapsed_ns
        if not self.freeze:
            before = self.cpu_at[self.side]
            return process.cpu_ns() - (before or 0)
        # Up to the mark the move is charged its wall time, at most QUICK_MS: a reply the
        # referee read late (not scheduled itself) is not the bot's time.
        quick = min(elapsed_ns if self.mark is None else self.quick_ns, _QUICK_NS)
        if self.mark is None:
            return quick
        return quick + process.cpu_ns() - self.mark.cpu_ns

    def replied(self, elapsed_ns: int, process: BotProcess) -> int:
        """The reply came ``elapsed_ns`` after the ``turn``: what the move is charged (over
        ``allowed_ns``: a timeout, worded by ``timeout_detail``)."""
        used = self.used_ns(elapsed_ns, process)
        if self.on_cpu and not self.freeze:
            self.cpu_at[self.side] = (self.cpu_at[self.side] or 0) + used
        return used

    def charge(self, used_ns: int) -> None:
        """The move stands: take its time off the mover's clock, and add the increment. Lateness
        within the margin leaves the clock at 0, not below."""
        if self.clocked:
            left = max(self.budget_ns - used_ns, 0) + self.tc.increment_ms * 1_000_000
            self.clocks[self.side] = left
            self.left.append(left)

    def timeout_detail(self, used_ns: int) -> str:
        """The detail of a move that took longer than it had."""
        tc = self.tc
        if not self.clocked and not self.on_cpu:
            return verdicts.late(used_ns, tc.move_ms)
        what = "used" if self.on_cpu else verdicts.ANSWERED_AFTER
        cpu = " of CPU" if self.on_cpu else ""
        if self.clocked:
            limit = f"{self.budget_ns / 1e6:.1f} ms left on its clock"
        else:
            limit = f"{tc.move_ms} ms"
        margin = f" + margin {tc.margin_ms} ms" if tc.margin_ms else ""
        return f"{what} {used_ns / 1e6:.1f} ms{cpu} (limit {limit}{margin})"

    def no_reply(self, process: BotProcess, elapsed_ns: int) -> str:
        """The detail of a move with no reply by its wall-clock deadline; raises
        ``MachineFault`` when the machine, not the bot, held it back (``blame.judge_cap``)."""
        silence = verdicts.silence(process, turn=True)
        if not self.on_cpu:
            if self.clocked:
                within = f"the {self.budget_ns / 1e6:.1f} ms left on its clock"
            else:
                within = f"{self.tc.move_ms} ms"
            if self.tc.margin_ms:
                within += f" + margin {self.tc.margin_ms} ms"
            return f"no move within {within}: {silence}"
        used = self.used_ns(elapsed_ns, process)
        if used > self.allowed_ns:
            return f"{self.timeout_detail(used)} without answering"
        assert self.mark is not None  # a move that reached its cap was not quick
        measured = judge_cap(process, self.mark, "a move")
        cap = wall_cap_ns(self.allowed_ns) / 1e6
        return f"no move within {cap:.0f} ms of wall time (the cap under measure: cpu): " + (
            f"{silence}{measured}"
        )


class StartClock:
    """The time of a bot's start-up, from its launch to its ``ready``: ``startup_ms`` of CPU
    under ``measure: cpu`` (within its wall cap, ``TimeControl.startup_wall_ms``), else of wall
    time; ``why_late`` and ``no_ready`` word what went wrong."""

    def __init__(self, tc: TimeControl, began_ns: int) -> None:
        self.tc = tc
        self.began_ns = began_ns
        self.on_cpu = tc.measure is Measure.CPU
        self.allowed_ns = tc.startup_ms * 1_000_000
        self.deadline_ns = began_ns + tc.startup_wall_ms() * 1_000_000

    def why_late(self, process: BotProcess) -> str | None:
        """Why a bot that said its first line in time took too long all the same, or None."""
        used = process.cpu_ns() if self.on_cpu else 0
        if used > self.allowed_ns:
            return f"used {used / 1e6:.0f} ms of CPU to start (limit {self.tc.startup_ms} ms)"
        return None

    def no_ready(
        self, process: BotProcess, status: WaitStatus, line: bytes, beside: Sequence[BotProcess]
    ) -> str:
        """The detail of a start-up with no ``ready`` by its deadline (or something else
        instead); raises ``MachineFault`` when the machine, not the bot, held it back.
        ``beside``: the bots started with it, whose CPU is not the machine's load."""
        waited_ms = (self.deadline_ns - self.began_ns) // 1_000_000
        problem = verdicts.startup_problem(status, line, process, waited_ms)
        if status is not WaitStatus.TIMEOUT or not self.on_cpu:
            return problem
        if (used := process.cpu_ns()) > self.allowed_ns:
            return f"{problem}; it used {used / 1e6:.0f} ms of CPU"
        others = sum(companion.cpu_ns() for companion in beside)
        start = LoadReading(0, 0, self.began_ns)  # its processes are new: all of it is the start's
        return problem + judge_cap(process, start, "its start-up", others)
