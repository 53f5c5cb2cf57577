"""Linux process facts and controls: /proc's stat fields, children and open files, CPU clocks,
pipe levels, and ``prctl``.

One place for the parsing and the system calls, so that the referee (CPU time of a bot's process
tree, whether a bot still holds its stdout, whether it has read its input), the workers (their
bots), the sandbox (bots that die with their harness) and the affinity code (the current core)
read /proc and control processes the same way.
"""

from __future__ import annotations

import array
import contextlib
import ctypes
import fcntl
import os
import termios
import time
from collections.abc import Iterable, Sequence

_PR_SET_PDEATHSIG = 1
_CPUCLOCK_SCHED = 2  # MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED) in the kernel's posix-timers.h
_MAX_TREE = 4096  # a fork bomb's tree is not walked to the end on every move
_PROC_READ = 65536  # more than a stat line or the children of 8,000 processes


def _load_libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


_LIBC = _load_libc()


def die_with_parent(signum: int) -> None:
    """Ask the kernel to send ``signum`` to this process when its parent dies.

    Safe between fork and exec (no allocation beyond the call itself); does nothing where
    ``prctl`` is unavailable.
    """
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)


def read_file(path: str | os.PathLike[str], size: int = _PROC_READ) -> bytes | None:
    """A small /proc (or cgroup) file's first ``size`` bytes, read from a file opened for this
    read alone, or None when it cannot be read.

    Plain ``os.open``/``os.read``: a third of the cost of ``open()``'s buffered file object,
    which matters to the referee, which reads the tree of a bot on every move with freeze_idle.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return os.read(fd, size)
    except OSError:
        return None
    finally:
        os.close(fd)


def stat_fields(pid: int | str = "self") -> list[bytes] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (index 0 is the state, field 3
    in proc(5)); None when it cannot be read."""
    data = read_file(f"/proc/{pid}/stat")
    if data is None or b")" not in data:
        return None
    # The command name may hold spaces and parentheses: split after its last ")".
    return data.rsplit(b")", 1)[1].split()


def _pids(data: bytes | None) -> list[int]:
    try:
        return [int(child) for child in data.split()] if data else []
    except ValueError:
        return []


def children(pid: int) -> list[int] | None:
    """The children of ``pid``'s main thread, oldest first; None when they cannot be read."""
    data = read_file(f"/proc/{pid}/task/{pid}/children")
    return None if data is None else _pids(data)


def all_children(pid: int | str = "self") -> set[int]:
    """The children of every thread of ``pid`` (those that can be read)."""
    pids: set[int] = set()
    for task in _tasks(pid):
        pids.update(_pids(read_file(f"/proc/{pid}/task/{task}/children")))
    return pids


def descendants(pid: int) -> list[int]:
    """Every descendant of ``pid`` that can be read (children first, then theirs)."""
    found: list[int] = []
    frontier = [pid]
    while frontier and len(found) < _MAX_TREE:
        frontier = [child for parent in frontier for child in all_children(parent)]
        found.extend(frontier)
    return found


def first_descendant(pid: int, generations: int) -> int | None:
    """The process reached by following the oldest child ``generations`` times (bubblewrap runs a
    bot's command as the child of its own init); None when a generation has no child."""
    for _ in range(generations):
        family = children(pid)
        if not family:
            return None
        pid = family[0]
    return pid


def with_environ(entry: bytes) -> list[int]:
    """Every process (of those this user may read) whose environment holds ``entry``
    (``NAME=value``): a bot's descendants inherit its environment even when they leave its
    process group, so an entry only bots are given finds all of them."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                environ = f.read()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if entry in environ.split(b"\0"):
            found.append(int(name))
    return found


def holds_pipe(pid: int, fd: int, ours: int) -> bool | None:
    """Whether ``pid``'s file descriptor ``fd`` is still the pipe (or FIFO) we hold as ``ours``.

    False when that descriptor is closed (or the process is gone) or is another file; None when
    it cannot be told (not ours to read). This is how a bot that closed its stdout is told from a
    slow one while a child of it keeps the pipe open, so that end of file never comes.
    """
    try:
        target = os.stat(f"/proc/{pid}/fd/{fd}")  # the file it leads to: a pipe, or a FIFO
    except FileNotFoundError:
        return False
    except OSError:
        return None
    try:
        own = os.fstat(ours)
    except OSError:
        return None
    # An inode number is unique on its device only: FIFOs on different file systems (bubblewrap's
    # FIFOs live in a folder, pipes in pipefs) may share one.
    return (target.st_ino, target.st_dev) == (own.st_ino, own.st_dev)


def process_cpu_ns(pid: int) -> int:
    """CPU time (user + system) of process ``pid``, all its threads, in nanoseconds; 0 when it
    cannot be read (gone).

    The process's CPU-time clock (``clock_getcpuclockid``): one system call, the scheduler's own
    nanoseconds, where ``/proc/<pid>/stat`` rounds to clock ticks (10 ms).
    """
    try:
        return time.clock_gettime_ns((~pid << 3) | _CPUCLOCK_SCHED)
    except OSError:
        return 0


def tree_cpu_ns(pid: int) -> int:
    """CPU time of ``pid`` and every descendant it has now, in nanoseconds.

    A bot may be an adapter that runs its engine as a child, or a sandbox around the bot: the
    time of the whole tree is the bot's. (A descendant that exited and was reaped meanwhile takes
    its time with it: count deltas over short spans, such as one move.)
    """
    return sum(process_cpu_ns(p) for p in (pid, *descendants(pid)))


_TICK_NS = 1_000_000_000 // os.sysconf("SC_CLK_TCK")
_CUTIME = 13  # cutime in stat_fields (field 16 in proc(5)); cstime follows


def tree_work_ns(pid: int) -> int:
    """CPU time of ``pid``'s tree as ``tree_cpu_ns``, plus that of the children each of them has
    already waited for (``cutime + cstime``, in clock ticks): a bot that runs a helper process to
    the end within a move is charged for it too. One stat read per process more."""
    total = 0
    for p in (pid, *descendants(pid)):
        total += process_cpu_ns(p)
        fields = stat_fields(p)
        if fields is not None and len(fields) > _CUTIME + 1:
            with contextlib.suppress(ValueError):
                total += (int(fields[_CUTIME]) + int(fields[_CUTIME + 1])) * _TICK_NS
    return total


def tree_run_delay_ns(pid: int) -> int:
    """Time the threads of ``pid``'s tree have spent runnable but waiting for a CPU, in
    nanoseconds (the second field of ``/proc/<tid>/schedstat``); 0 where the kernel does not
    keep it. Count deltas over short spans: an exited thread takes its delay with it."""
    return threads_run_delay_ns(tree_thread_ids(pid))


def _tasks(pid: int | str) -> list[str]:
    """The thread ids of ``pid`` (none when it is gone)."""
    try:
        return os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []


def threads_run_delay_ns(tids: Iterable[int]) -> int:
    """``tree_run_delay_ns`` for threads already known: one read per thread instead of a walk of
    the tree, which reads a file per process and thread."""
    total = 0
    for tid in tids:
        total += _run_delay(read_file(f"/proc/{tid}/schedstat"))
    return total


def niceness(tid: int | str = "self") -> int | None:
    """A thread's nice value, plus its session's autogroup's where the kernel groups sessions
    (each weighs only against its like): how far below the default it asked to run. None when
    it cannot be read."""
    fields = stat_fields(tid)
    try:
        nice = int(fields[16]) if fields else None
    except (IndexError, ValueError):
        return None
    group = read_file(f"/proc/{tid}/autogroup")
    if nice is not None and group:
        with contextlib.suppress(ValueError, IndexError):
            nice += int(group.split()[-1])
    return nice


def tree_thread_ids(pid: int) -> list[int]:
    """The thread ids of ``pid``'s tree (``tree_run_delay_ns``'s threads)."""
    return [int(task) for p in (pid, *descendants(pid)) for task in _tasks(p) if task.isdigit()]


def _run_delay(schedstat: bytes | None) -> int:
    """The run-queue wait in a ``schedstat`` line (its second field), 0 when there is none."""
    parts = schedstat.split() if schedstat else []
    if len(parts) >= 2:
        with contextlib.suppress(ValueError):
            return int(parts[1])
    return 0


class KeptSchedstats:
    """The ``schedstat`` files of one bot's threads, kept open from move to move.

    The referee reads its threads' run-queue wait on every move of a bot that takes its time;
    opening ``/proc/<tid>/schedstat`` by its path costs about five times the ``pread``
    of a file kept open. A file whose thread is gone stops reading: it is closed and opened again
    once (its tid may name a new thread since), and files of threads no longer listed are closed.
    At most ``MAX_FILES`` stay open (a bot's further threads are read by their path), so that the
    bots of a pool hold few descriptors; ``close`` when the bot stops or waits in a keeper.
    """

    MAX_FILES = 16

    def __init__(self) -> None:
        self._fds: dict[int, int] = {}
        self.tids: tuple[int, ...] = ()
        """The threads the last ``run_delay_ns`` read, each through a kept file (empty when
        some were read by their path)."""

    def run_delay_ns(self, tids: Sequence[int]) -> int:
        """``threads_run_delay_ns`` of ``tids``, through the kept files."""
        total = 0
        for tid in tids:
            total += _run_delay(self._read(tid))
        if len(self._fds) > len(tids):
            for gone in set(self._fds) - set(tids):
                self._drop(gone)
        self.tids = tuple(tids) if all(tid in self._fds for tid in tids) else ()
        return total

    def known_run_delay_ns(self) -> int | None:
        """``run_delay_ns`` of the threads it read last (``tids``), read again; None when there
        are none or one of them has ended (the caller lists the threads afresh). Only the caller
        can tell that no thread was added: a task count that still matches (``pids.current``)."""
        if not self.tids:
            return None
        total = 0
        for tid in self.tids:
            try:
                total += _run_delay(os.pread(self._fds[tid], 256, 0))
            except (KeyError, OSError):
                self.tids = ()
                return None
        return total

    def _read(self, tid: int) -> bytes | None:
        for _attempt in range(2):
            fd = self._fds.get(tid)
            if fd is None:
                if len(self._fds) >= self.MAX_FILES:
                    return read_file(f"/proc/{tid}/schedstat")
                try:
                    fd = os.open(f"/proc/{tid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)
                except OSError:
                    return None
                self._fds[tid] = fd
            try:
                return os.pread(fd, 256, 0)
            except OSError:  # the thread is gone (its tid may be another's by now)
                self._drop(tid)
        return None

    def _drop(self, tid: int) -> None:
        fd = self._fds.pop(tid, None)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def close(self) -> None:
        for tid in list(self._fds):
            self._drop(tid)
        self.tids = ()


def unread_bytes(fd: int) -> int:
    """Bytes waiting in the pipe ``fd`` belongs to (either end), not yet read by its reader."""
    level = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, level)
    return level[0]
