"""The harness process that runs matches keeps every bot process findable, and cleans up after
itself even when it is killed.

Three mechanisms, each for what the others cannot do:

- **Child subreaper** (``prctl(PR_SET_CHILD_SUBREAPER)``): a process whose parent dies is
  re-parented to this process instead of init, whatever it did to hide (new session, new process
  group, empty environment). So, as long as the harness lives, every bot descendant is in its
  process tree: ``kill_adopted`` kills the adopted ones when a bot is stopped, and
  ``kill_descendants`` the whole tree when the harness stops.
- **A cgroup per bot** where one can be made (``arena.launch.cgroups``): exact membership, which
  also survives the harness.
- **A guardian**: a small process forked at start that waits for the harness to end (its pipe
  closes, even on SIGKILL), then kills what is left in the harness's cgroups and removes its
  scratch folder (``/tmp/arena-run-*``, which holds every bot's scratch folder and pipes).

``install_harness`` sets all three up; ``arena match`` and each tournament worker call it. It also
sweeps what harnesses long gone left where their guardian could not clean up (it was killed too,
or the machine stopped): their ``arena-<pid>-*`` cgroups and the ``arena-run-<pid>-*`` and
``arena-scratch-<pid>`` folders (a cluster worker's) of the temp folder, each only once process
``<pid>`` is gone (``sweep_dead``). The library alone (a ``Match`` in someone's program) installs
nothing: it then relies on process groups, the bots' environment marker and, under bubblewrap,
the PID namespace.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import re
import resource
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from arena.launch import cgroups, procfs

_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37
_REAP_S = 2.0

_LIBC: ctypes.CDLL | None
try:
    _LIBC = ctypes.CDLL(None, use_errno=True)
except OSError:  # pragma: no cover - every Linux has a libc
    _LIBC = None


class _Harness:
    """What ``install_harness`` made in this process."""

    def __init__(self, pid: int, root: str, guardian: int, pipe: int, tempdir: str | None) -> None:
        self.pid = pid
        self.root = root
        self.guardian = guardian
        self.pipe = pipe
        self.tempdir = tempdir  # tempfile.tempdir before, restored at close


_harness: _Harness | None = None
_bots: set[int] = set()
"""Leader pids of this process's live bots (the children that are not strays)."""


def become_subreaper() -> bool:
    """Make this process the child subreaper of its descendants; False where prctl fails."""
    return _LIBC is not None and _LIBC.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def is_subreaper() -> bool:
    if _LIBC is None:
        return False
    flag = ctypes.c_int(0)
    _LIBC.prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0)
    return flag.value != 0


def installed() -> bool:
    """Whether ``install_harness`` ran in this very process (not inherited by a fork)."""
    return _harness is not None and _harness.pid == os.getpid()


def scratch_root() -> str | None:
    """The harness's scratch folder (holding the bots' folders), or None when not installed."""
    return _harness.root if installed() and _harness is not None else None


def install_harness(scratch: str | None = None) -> None:
    """Make this process a harness that no bot process can outlive: subreaper, guardian, and a
    scratch folder (``scratch``, or a new ``arena-run-*``) that becomes ``tempfile.tempdir``.

    Idempotent in a process; a forked child installs its own.
    """
    global _harness
    if installed():
        return
    _bots.clear()
    sweep_dead()
    become_subreaper()
    _more_open_files()
    root = scratch or tempfile.mkdtemp(prefix=f"arena-run-{os.getpid()}-")
    os.chmod(root, 0o711)  # bots that run as another user reach their own folders only
    previous, tempfile.tempdir = tempfile.tempdir, root
    guardian, pipe = _spawn_guardian(root, cgroups.harness_cgroups())
    _harness = _Harness(os.getpid(), root, guardian, pipe, previous)
    atexit.register(close_harness)


OPEN_FILES = 65536
"""The soft bound on open files a harness raises itself to, where its hard bound allows."""


def _more_open_files() -> None:
    """Raise this process's soft bound on open files to its hard one (at most ``OPEN_FILES``).

    A worker holds each bot's pipes and cgroup files, for up to ``MAX_KEPT`` kept bots (the
    keeper, ``arena.referee.keeper``), and the usual soft bound (1,024) leaves little room for
    that. The bots' own bound is set apart (``limits.open_files``)."""
    with contextlib.suppress(ValueError, OSError):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = OPEN_FILES if hard == resource.RLIM_INFINITY else min(hard, OPEN_FILES)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


_SCRATCH_RE = re.compile(r"arena-(?:run-([0-9]+)-.+|scratch-([0-9]+))")


def sweep_dead(tmp: str | None = None) -> list[str]:
    """Remove what dead harnesses left: their cgroups (``cgroups.sweep_dead_harnesses``) and, in
    ``tmp`` (default: the temp folder), the ``arena-run-<pid>-*`` and ``arena-scratch-<pid>``
    folders whose process ``<pid>`` is gone (their bots' tmpfs unmounted first). Those of live
    processes are left alone. Returns what was removed (or tried)."""
    swept = [str(path) for path in cgroups.sweep_dead_harnesses()]
    folder = tmp or tempfile.gettempdir()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return swept
    for entry in entries:
        found = _SCRATCH_RE.fullmatch(entry.name)
        if found is None or not entry.is_dir(follow_symlinks=False):
            continue
        pid = int(found.group(1) or found.group(2))
        if pid != os.getpid() and cgroups.process_gone(pid):
            _cleanup(entry.path, [])
            swept.append(entry.path)
    return swept


_starting = threading.Lock()
"""Held from a bot's fork until it is tracked, and while ``kill_adopted`` picks its strays: a
bot that another thread (a Dask worker's) has just forked is no stray."""


@contextlib.contextmanager
def starting() -> Iterator[None]:
    """Hold it around starting a bot and ``track``-ing it (see ``_starting``)."""
    with _starting:
        yield


def track(pid: int) -> None:
    """A bot leader started by this process (so that it is not mistaken for a stray)."""
    _bots.add(pid)


def untrack(pid: int) -> None:
    _bots.discard(pid)


def _strays() -> set[int]:
    keep = set(_bots)
    if _harness is not None:
        keep.add(_harness.guardian)
    return procfs.all_children() - keep


def _kill_and_reap(pids: set[int], deadline: float) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    pending = set(pids)
    while pending:
        for pid in list(pending):
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                pending.discard(pid)
        if not pending or time.monotonic() >= deadline:
            return
        time.sleep(0.001)


def kill_adopted() -> None:
    """Kill and reap the processes this harness adopted as subreaper: the descendants of bots that
    exited (or were killed) and left them behind. A no-op unless ``install_harness`` ran here.

    Repeats until none is left (bounded): an adopted process may fork meanwhile, and the children
    of one killed are adopted in turn.
    """
    if not installed():
        return
    deadline = time.monotonic() + _REAP_S
    while time.monotonic() < deadline:
        with _starting:
            strays = _strays()
        if not strays:
            return
        _kill_and_reap(strays, deadline)


def kill_descendants() -> None:
    """Kill every process below this one (the bots too), as the harness stops; bounded."""
    if not installed():
        return
    _bots.clear()
    deadline = time.monotonic() + _REAP_S
    while (strays := _strays()) and time.monotonic() < deadline:
        for pid in strays:  # a bot leads its process group: take its group at once
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
        _kill_and_reap(strays, deadline)


def close_harness() -> None:
    """Stop what is left of the bots, remove the scratch folder and the cgroups, end the guardian.

    Called at exit (atexit) and by workers as they end; safe to call twice.
    """
    global _harness
    if not installed() or _harness is None:
        return
    harness, root = _harness, _harness.root
    if tempfile.tempdir == root:
        tempfile.tempdir = harness.tempdir
    kill_descendants()
    cgroups.remove_harness_cgroup()
    _cleanup(root, [])
    with contextlib.suppress(OSError):
        os.close(harness.pipe)  # the guardian wakes, finds nothing left, and exits
    deadline = time.monotonic() + _REAP_S
    while time.monotonic() < deadline:
        try:
            if os.waitpid(harness.guardian, os.WNOHANG)[0]:
                break
        except ChildProcessError:
            break
        time.sleep(0.001)
    _harness = None
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)  # as before: a library user's process


def remove_scratch(root: str) -> None:
    """Remove a harness's scratch folder from outside it (a worker's, by the pool that killed it
    and maybe its guardian too): first unmount the bots' size-bounded tmpfs in it, on which a
    plain removal stops (a mount point cannot be removed), leaving the folder and the mounts."""
    _cleanup(root, [])


def _cleanup(root: str, folders: list[Path]) -> None:
    """Kill what is in the harness's cgroups, unmount and remove its scratch folder."""
    cgroups.kill_trees(folders)
    _unmount_under(root)
    shutil.rmtree(root, ignore_errors=True)


def _unmount_under(root: str) -> None:
    """Detach the mounts under ``root`` (bots' size-bounded tmpfs), deepest first."""
    prefix = root.rstrip("/") + "/"
    try:
        with open("/proc/self/mountinfo") as f:
            points = [line.split()[4] for line in f]
    except OSError:
        return
    for point in sorted((p for p in points if p.startswith(prefix)), key=len, reverse=True):
        if _LIBC is not None:
            _LIBC.umount2(point.encode(), 2)  # MNT_DETACH


def _spawn_guardian(root: str, folders: list[Path]) -> tuple[int, int]:
    """Fork the guardian; return its pid and the write end of its pipe (kept by the harness).

    The guardian holds nothing of the harness (every other descriptor closed, stdio to
    /dev/null, its own session, deaf to the signals a terminal sends) so that it neither keeps a
    pipe of the harness open nor dies with its process group; it only waits for end of file.
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child, reported by its effects
        try:
            os.setsid()
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
                signal.signal(sig, signal.SIG_IGN)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            keep = sorted({0, 1, 2, read_end})
            for low, high in zip(keep, [*keep[1:], 1 << 16], strict=True):
                os.closerange(low + 1, high)
            while os.read(read_end, 4096):
                pass
            _cleanup(root, folders)
        finally:
            os._exit(0)
    os.close(read_end)
    return pid, write_end
