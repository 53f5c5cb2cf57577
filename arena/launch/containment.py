"""What holds a bot's processes together, so that they are measured, frozen and killed as one.

Chosen once, with the bot's launch plan: its cgroup where it has one (every process it ever
started, wherever it went), else its process tree (its process group, its descendants and, without
bubblewrap, the processes that carry its token in their environment). ``BotProcess`` asks the one
it has and never which it is.
"""

from __future__ import annotations

import contextlib
import os
import signal

from arena.launch import procfs
from arena.launch.cgroups import BotCgroup


def signal_group(pid: int, sig: int) -> None:
    """Send ``sig`` to the process group a bot leads (gone already: nothing to do)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def kill_marked(token: str) -> list[int]:
    """SIGKILL every process whose environment carries ``ARENA_BOT_TOKEN=<token>``; their pids.

    A bot's descendants inherit its environment; this finds those that left its process group
    (``setsid``, double fork) and so escaped ``killpg``. Only processes of this user are readable.
    """
    killed = []
    for pid in procfs.with_environ(_marker_entry(token)):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    return killed


def _marker_entry(token: str) -> bytes:
    return f"ARENA_BOT_TOKEN={token}".encode()


class TreeContainment:
    """A bot held by its process tree: what ``/proc`` shows of its descendants, its process
    group, and the processes that carry its ``token`` (empty under bubblewrap, whose PID
    namespace holds its processes instead)."""

    def __init__(self, token: str) -> None:
        self.pid = -1
        """The bot's leader, set while it runs (-1: none)."""
        self.token = token
        self._stopped: set[int] = set()  # what ``freeze`` stopped outside the process group

    def cpu_ns(self) -> int:
        """CPU time of the tree so far, with the children it has waited for, in ns."""
        return procfs.tree_work_ns(self.pid)

    def run_delay_ns(self) -> int:
        """How long the tree's threads have waited for a CPU so far, in ns."""
        return procfs.tree_run_delay_ns(self.pid)

    def thread_ids(self) -> list[int]:
        return procfs.tree_thread_ids(self.pid)

    def freeze(self) -> None:
        """SIGSTOP to the process group, to each process of the tree and to each process that
        carries the token, which finds a double-forked daemon too. Only one that left all three
        (a new session, a new parent and an empty environment) keeps running."""
        signal_group(self.pid, signal.SIGSTOP)
        stopped = set(procfs.descendants(self.pid))
        if self.token:
            stopped.update(procfs.with_environ(_marker_entry(self.token)))
        stopped.discard(self.pid)
        for pid in stopped:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGSTOP)
        self._stopped = stopped

    def thaw(self) -> None:
        """Every process ``freeze`` stopped runs again."""
        signal_group(self.pid, signal.SIGCONT)
        for pid in self._stopped:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGCONT)
        self._stopped = set()

    def over_limit(self, late: bool) -> str | None:
        """Which bound the bot's processes went past together (none is kept without a cgroup)."""
        return None

    def kill(self) -> None:
        """SIGKILL the process group and the processes that left it but carry the token."""
        signal_group(self.pid, signal.SIGKILL)
        if self.token:
            kill_marked(self.token)

    def set_aside(self) -> None:
        """Close what is kept open for reading the bot while it plays (nothing here)."""


class CgroupContainment(TreeContainment):
    """A bot held by its cgroup: one read lists, measures or freezes every process it ever had.
    Where a file of the cgroup cannot be read (or a controller is missing), the process tree's
    reading stands in."""

    def __init__(self, cgroup: BotCgroup, token: str) -> None:
        super().__init__(token)
        self.cgroup = cgroup
        self._schedstats = procfs.KeptSchedstats()  # its threads' files, while it runs

    def cpu_ns(self) -> int:
        used = self.cgroup.cpu_ns()
        return super().cpu_ns() if used is None else used

    def run_delay_ns(self) -> int:
        delay = self.cgroup.run_delay_ns(self._schedstats)
        return super().run_delay_ns() if delay is None else delay

    def thread_ids(self) -> list[int]:
        tids = self.cgroup.thread_ids()
        return super().thread_ids() if tids is None else tids

    def freeze(self) -> None:
        """The cgroup freezer stops every process at once; without one, the tree's signals."""
        if not self.cgroup.freeze(True):
            super().freeze()

    def thaw(self) -> None:
        if not self.cgroup.freeze(False):
            super().thaw()

    def over_limit(self, late: bool) -> str | None:
        """``late``: the bot failed to answer in time; then having reached its memory bound at
        all counts too (the kernel reclaims before it kills, which can take longer than a move)."""
        cgroup = self.cgroup
        if cgroup.exceeded():
            count = cgroup.processes
            return f"exceeded limits.processes ({count} processes and threads): a fork failed"
        if cgroup.out_of_memory():
            return self._memory_exceeded("the kernel killed it")
        if late and cgroup.reached_memory_bound():
            return self._memory_exceeded("it stalled there")
        return None

    def _memory_exceeded(self, what: str) -> str:
        return (
            f"exceeded limits.memory_mb ({self.cgroup.memory_mb} MB of resident memory, all its"
            f" processes together): {what}"
        )

    def kill(self) -> None:
        """SIGKILL the process group, then every process of the cgroup, wherever it went."""
        signal_group(self.pid, signal.SIGKILL)
        self.cgroup.kill()

    def set_aside(self) -> None:
        self._schedstats.close()


def containment(cgroup: BotCgroup | None, token: str) -> TreeContainment:
    """The bot's cgroup where it has one, else its process tree (``token``: its marker, empty
    where bubblewrap's PID namespace holds its processes)."""
    return TreeContainment(token) if cgroup is None else CgroupContainment(cgroup, token)
