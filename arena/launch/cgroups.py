"""A process cgroup per bot, where the machine lets arena make one (usually: arena runs as root).

Why a cgroup: membership is inherited by every process a bot starts and cannot be left by an
unprivileged process, whatever it does (new session, new process group, empty environment, double
fork); so the cgroup lists every process of the bot, bounds their number (``pids.max``, which
binds root too, unlike ``RLIMIT_NPROC``) and says whether the bot hit that bound
(``pids.events``). It works with the ``pids`` controller of cgroup v1, or of cgroup v2 where this
process's cgroup delegates it. ``ARENA_CGROUPS=0`` turns them off. Where no cgroup can be made,
``harness_cgroup`` returns None and the callers fall back on weaker means (``arena.launch.reaper``,
rlimits).

Layout: ``<pids root>/<this process's cgroup>/arena-<pid>-<random>/bot-<n>/``. The harness's own
folder is removed by ``arena.launch.reaper``'s guardian if the harness dies without removing it;
where the guardian died too, the next harness sweeps it (``sweep_dead_harnesses``: process ``<pid>``
gone).
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import re
import secrets
import signal
import time
from pathlib import Path

__all__ = [
    "BotCgroup",
    "harness_cgroup",
    "kill_tree",
    "pids_root",
    "remove_harness_cgroup",
    "sweep_dead_harnesses",
]

_V1_ROOT = Path("/sys/fs/cgroup/pids")
_V2_ROOT = Path("/sys/fs/cgroup")
_KILL_PASSES_S = 2.0


def pids_root() -> Path | None:
    """This process's cgroup in a hierarchy with the ``pids`` controller (None: none found, or
    ``ARENA_CGROUPS=0`` in the environment, which turns cgroups off)."""
    if os.environ.get("ARENA_CGROUPS") == "0":
        return None
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if number != "0" and "pids" in controllers.split(","):
            return _V1_ROOT / path.lstrip("/")
    for line in lines:
        if line.startswith("0::"):
            folder = _V2_ROOT / line[3:].lstrip("/")
            with contextlib.suppress(OSError):
                if "pids" in (folder / "cgroup.subtree_control").read_text().split():
                    return folder
    return None


_harness: tuple[int, Path | None] | None = None


def harness_cgroup() -> Path | None:
    """The cgroup folder of this process's bots, made on first use (None: cgroups unusable).

    One per process (a forked worker makes its own), so that a harness that dies can be cleaned
    up without touching anyone else's bots.
    """
    global _harness
    if os.environ.get("ARENA_CGROUPS") == "0":
        return None
    if _harness is not None and _harness[0] == os.getpid():
        return _harness[1]
    folder: Path | None = None
    root = pids_root()
    if root is not None:
        candidate = root / f"arena-{os.getpid()}-{secrets.token_hex(3)}"
        try:
            candidate.mkdir()
            folder = candidate
            atexit.register(_remove_own, os.getpid(), candidate)
        except OSError:
            folder = None
    _harness = (os.getpid(), folder)
    return folder


def _remove_own(pid: int, folder: Path) -> None:
    """At exit, the harness's cgroup folder goes (only in the process that made it)."""
    if os.getpid() == pid:
        kill_tree(folder)


def remove_harness_cgroup() -> None:
    """Kill what is in this process's cgroup folder and remove it; the next bot makes a new one."""
    global _harness
    if _harness is not None and _harness[0] == os.getpid():
        if _harness[1] is not None:
            kill_tree(_harness[1])
        _harness = None


_HARNESS_RE = re.compile(r"arena-([0-9]+)-[0-9a-f]+")


def process_gone(pid: int) -> bool:
    """Whether no process ``pid`` exists (one of another user's, or a zombie, still counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # EPERM: it exists
        return False
    return False


def sweep_dead_harnesses() -> list[Path]:
    """Kill what is left in, and remove, the ``arena-<pid>-*`` cgroups beside this process's
    whose harness ``<pid>`` is gone (its guardian died with it, or never ran); those of live
    harnesses are left alone. Returns the folders removed (or tried)."""
    root = pids_root()
    if root is None:
        return []
    swept = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return []
    for entry in entries:
        found = _HARNESS_RE.fullmatch(entry.name)
        if found is None or not entry.is_dir(follow_symlinks=False):
            continue
        if int(found.group(1)) == os.getpid() or not process_gone(int(found.group(1))):
            continue
        path = Path(entry.path)
        kill_tree(path)
        swept.append(path)
    return swept


_serial = itertools.count()


class BotCgroup:
    """The cgroup of one bot process and everything it starts."""

    def __init__(self, path: Path, processes: int | None) -> None:
        self.path = path
        self.processes = processes
        self._procs = str(path / "cgroup.procs").encode()
        self._events = -1  # pids.events, kept open: read after every game

    @classmethod
    def create(cls, processes: int | None) -> BotCgroup | None:
        """A new cgroup bounded to ``processes`` tasks (None: unbounded); None when cgroups are
        unusable here."""
        parent = harness_cgroup()
        if parent is None:
            return None
        path = parent / f"bot-{next(_serial)}"
        try:
            path.mkdir()
            (path / "pids.max").write_text("max" if processes is None else str(processes))
        except OSError:
            with contextlib.suppress(OSError):
                path.rmdir()
            return None
        return cls(path, processes)

    def join(self) -> None:
        """Move the calling process into the cgroup: between fork and exec, before anything else
        can fork (allocation-light). A failure is ignored: the bot then runs outside it, found by
        the weaker means (process group, subreaper)."""
        try:
            fd = os.open(self._procs, os.O_WRONLY)
        except OSError:
            return
        with contextlib.suppress(OSError):
            os.write(fd, b"0")
        os.close(fd)

    def members(self) -> list[int]:
        return _members(self.path)

    def exceeded(self) -> bool:
        """Whether a fork in the cgroup failed because of ``pids.max`` (one ``pread``)."""
        try:
            if self._events < 0:
                self._events = os.open(self.path / "pids.events", os.O_RDONLY | os.O_CLOEXEC)
            for line in os.pread(self._events, 256, 0).splitlines():
                key, _, value = line.partition(b" ")
                if key == b"max":
                    return int(value) > 0
        except (OSError, ValueError):
            pass
        return False

    def kill(self) -> None:
        """SIGKILL every member until none is left, then remove the cgroup."""
        if self._events >= 0:
            with contextlib.suppress(OSError):
                os.close(self._events)
            self._events = -1
        kill_tree(self.path)


def _members(path: Path) -> list[int]:
    try:
        return [int(pid) for pid in (path / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def kill_tree(path: Path) -> None:
    """SIGKILL every process in ``path`` and its sub-cgroups, and remove them all (bounded).

    Killing repeats until the cgroups are empty: a process may fork while the others are killed.
    """
    folders = [Path(top) for top, _dirs, _files in os.walk(path, topdown=False)]
    deadline = time.monotonic() + _KILL_PASSES_S
    for folder in folders:
        while True:
            pids = _members(folder)
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            if not pids:
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # dying members not yet gone
                    pass
            if time.monotonic() >= deadline:
                break
            time.sleep(0.002)
