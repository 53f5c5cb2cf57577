"""The cgroups of each bot, where the machine lets arena make them (usually: arena runs as root).

Why a cgroup: membership is inherited by every process a bot starts and cannot be left by an
unprivileged process, whatever it does (new session, new process group, empty environment, double
fork); so the cgroup lists every process of the bot, and bounds and measures them all together:

- ``pids``: their number (``pids.max``, which binds root too, unlike ``RLIMIT_NPROC``), and
  whether the bot hit that bound (``pids.events``);
- ``memory``: their resident memory together (v1 ``memory.limit_in_bytes``, v2 ``memory.max``;
  swap off), and whether the kernel killed one of them for going past it (``oom_kill``);
- ``freezer``: stopping them all at once, a ``setsid`` child too (v1 ``freezer.state``, v2
  ``cgroup.freeze``);
- ``cpuacct``: their CPU time, the exited ones' included (v1 ``cpuacct.usage``, v2
  ``cpu.stat``).

Each works with its cgroup v1 hierarchy where one is mounted, else with cgroup v2 where this
process's cgroup delegates it (``pids``, ``memory``; freezing and CPU time are in every v2 cgroup).
Whatever is not available is None, and the callers fall back on weaker means
(``arena.launch.reaper``, a process group's SIGSTOP, rlimits). ``ARENA_CGROUPS=0`` turns them all
off.

Layout, in each hierarchy: ``<this process's cgroup>/arena-<pid>-<random>/bot-<n>/``. The
harness's own folders are removed by ``arena.launch.reaper``'s guardian if the harness dies without
removing them; where the guardian died too, the next harness sweeps them
(``sweep_dead_harnesses``: process ``<pid>`` gone).
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
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from arena.launch import procfs

CONTROLLERS = ("pids", "memory", "freezer", "cpuacct")
"""What arena uses cgroups for, by the name of the cgroup v1 controller."""
_V2_CORE = ("freezer", "cpuacct")  # in every cgroup v2 folder, whatever is delegated
_KILL_PASSES_S = 2.0


@cache
def _mounts() -> tuple[dict[str, Path], Path | None]:
    """The v1 hierarchies' mount points by controller, and the cgroup v2 mount point (if any)."""
    v1: dict[str, Path] = {}
    v2: Path | None = None
    try:
        lines = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return v1, v2
    for line in lines:
        fields = line.split()
        if len(fields) < 4:
            continue
        if fields[2] == "cgroup":
            for option in fields[3].split(","):
                v1.setdefault(option, Path(fields[1]))
        elif fields[2] == "cgroup2" and v2 is None:
            v2 = Path(fields[1])
    return v1, v2


def controller_root(controller: str) -> tuple[Path, bool] | None:
    """This process's cgroup in a hierarchy that has ``controller`` (one of ``CONTROLLERS``),
    and whether it is cgroup v2; None: none found, or ``ARENA_CGROUPS=0``."""
    if os.environ.get("ARENA_CGROUPS") == "0":
        return None
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    v1, v2 = _mounts()
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if number != "0" and controller in controllers.split(",") and controller in v1:
            return v1[controller] / path.lstrip("/"), False
    for line in lines:
        if line.startswith("0::") and v2 is not None:
            folder = v2 / line[3:].lstrip("/")
            if controller in _V2_CORE and folder.is_dir():
                return folder, True
            with contextlib.suppress(OSError):
                if controller in (folder / "cgroup.subtree_control").read_text().split():
                    return folder, True
    return None


def pids_root() -> Path | None:
    """This process's cgroup in a hierarchy with the ``pids`` controller (None: none found, or
    ``ARENA_CGROUPS=0`` in the environment, which turns cgroups off)."""
    found = controller_root("pids")
    return found[0] if found is not None else None


_harness: tuple[int, dict[str, tuple[Path, bool] | None]] | None = None


def _harness_folders() -> dict[str, tuple[Path, bool] | None]:
    """This process's harness folder in the hierarchy of each controller, made on first use.

    One per process (a forked worker makes its own), so that a harness that dies can be cleaned
    up without touching anyone else's bots. Controllers of the same hierarchy (all of cgroup v2)
    share one folder.
    """
    global _harness
    if os.environ.get("ARENA_CGROUPS") == "0":  # read each time: it may change in a process
        return dict.fromkeys(CONTROLLERS)
    if _harness is not None and _harness[0] == os.getpid():
        return _harness[1]
    sweep_dead_harnesses()
    folders: dict[str, tuple[Path, bool] | None] = {}
    made: dict[Path, Path | None] = {}
    for controller in CONTROLLERS:
        found = controller_root(controller)
        if found is None:
            folders[controller] = None
            continue
        root, v2 = found
        if root not in made:
            made[root] = _make_harness_folder(root, v2)
        folder = made[root]
        folders[controller] = None if folder is None else (folder, v2)
    _harness = (os.getpid(), folders)
    atexit.register(_remove_own, os.getpid(), [f for f in made.values() if f is not None])
    return folders


def _make_harness_folder(root: Path, v2: bool) -> Path | None:
    candidate = root / f"arena-{os.getpid()}-{secrets.token_hex(3)}"
    try:
        candidate.mkdir()
    except OSError:
        return None
    if v2:  # the bots' folders below get the delegated controllers (it holds no process itself)
        for controller in ("pids", "memory"):
            with contextlib.suppress(OSError):
                (candidate / "cgroup.subtree_control").write_text(f"+{controller}")
    return candidate


def harness_cgroup() -> Path | None:
    """The ``pids`` cgroup folder of this process's bots, made on first use (None: unusable)."""
    found = _harness_folders().get("pids")
    return found[0] if found is not None else None


def harness_cgroups() -> list[Path]:
    """Every cgroup folder of this process's bots (one per hierarchy), made on first use."""
    folders = {found[0] for found in _harness_folders().values() if found is not None}
    return sorted(folders)


def _remove_own(pid: int, folders: list[Path]) -> None:
    """At exit, the harness's cgroup folders go (only in the process that made them)."""
    if os.getpid() == pid:
        kill_trees(folders)


def remove_harness_cgroup() -> None:
    """Kill what is in this process's cgroup folders and remove them; the next bot makes new
    ones."""
    global _harness
    if _harness is not None and _harness[0] == os.getpid():
        kill_trees({found[0] for found in _harness[1].values() if found is not None})
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
    """Kill what is left in, and remove, the ``arena-<pid>-*`` cgroups beside this process's, in
    every hierarchy arena uses, whose harness ``<pid>`` is gone (its guardian died with it, or
    never ran); those of live harnesses are left alone. Returns the folders removed (or tried)."""
    roots = {found[0] for c in CONTROLLERS if (found := controller_root(c)) is not None}
    swept = [path for root in sorted(roots) for path in _dead_harnesses(root)]
    kill_trees(swept)
    return swept


def _dead_harnesses(root: Path) -> list[Path]:
    """The folders in one hierarchy's ``root`` of harnesses whose process is gone."""
    try:
        entries = list(os.scandir(root))
    except OSError:
        return []
    dead = []
    for entry in entries:
        found = _HARNESS_RE.fullmatch(entry.name)
        if found is None or not entry.is_dir(follow_symlinks=False):
            continue
        if int(found.group(1)) != os.getpid() and process_gone(int(found.group(1))):
            dead.append(Path(entry.path))
    return dead


_serial = itertools.count()
_THREAD_LIST = 65536
"""Bytes read of a bot's thread list: 8,000 thread ids, far past any bot's process bound (a
list that fills it may be cut short: it is not used)."""


class BotCgroup:
    """The cgroups of one bot process and everything it starts (one per hierarchy)."""

    def __init__(
        self,
        folders: dict[str, tuple[Path, bool]],
        processes: int | None,
        memory_mb: int | None = None,
    ) -> None:
        self.folders = folders
        """The bot's folder and whether it is v2, by controller (``CONTROLLERS``) it has."""
        self.processes = processes
        self.memory_mb = memory_mb
        """The bound on resident memory in MiB, when the ``memory`` controller enforces it."""
        self.paths = sorted({path for path, _v2 in folders.values()})
        self._procs = [str(path / "cgroup.procs").encode() for path in self.paths]
        self._fds: dict[str, int] = {}  # event files, kept open: read after every game

    @property
    def path(self) -> Path:
        """The ``pids`` folder (or the first one): where the bot's processes are listed."""
        found = self.folders.get("pids")
        return found[0] if found is not None else self.paths[0]

    def has(self, controller: str) -> bool:
        return controller in self.folders

    @classmethod
    def create(cls, processes: int | None, memory_mb: int | None = None) -> BotCgroup | None:
        """New cgroups bounded to ``processes`` tasks (None: unbounded) and ``memory_mb`` MiB of
        resident memory, swap off (None: unbounded); None when cgroups are unusable here. A
        controller whose files cannot be written is left out (the caller falls back)."""
        parents = _harness_folders()
        serial = next(_serial)
        folders: dict[str, tuple[Path, bool]] = {}
        made: dict[Path, bool] = {}
        for controller in CONTROLLERS:
            parent = parents.get(controller)
            if parent is None:
                continue
            path, v2 = parent[0] / f"bot-{serial}", parent[1]
            if path not in made:
                try:
                    path.mkdir()
                    made[path] = True
                except OSError:
                    made[path] = False
            if made[path] and _configure(controller, path, v2, processes, memory_mb):
                folders[controller] = (path, v2)
        unused = [path for path, ok in made.items() if ok and path not in _paths(folders)]
        for path in unused:
            with contextlib.suppress(OSError):
                path.rmdir()
        if "pids" not in folders:  # membership is what everything else relies on
            for path in _paths(folders):
                with contextlib.suppress(OSError):
                    path.rmdir()
            return None
        return cls(folders, processes, memory_mb if "memory" in folders else None)

    def join(self) -> None:
        """Move the calling process into the cgroups: between fork and exec, before anything else
        can fork (allocation-light). A failure is ignored: the bot then runs outside it, found by
        the weaker means (process group, subreaper)."""
        for procs in self._procs:
            try:
                fd = os.open(procs, os.O_WRONLY)
            except OSError:
                continue
            with contextlib.suppress(OSError):
                os.write(fd, b"0")
            os.close(fd)

    def members(self) -> list[int]:
        return _members(self.path)

    def _kept_read(self, controller: str, name: str, size: int = 4096) -> bytes | None:
        """The file ``name`` of ``controller``'s folder, by one ``pread`` of a file kept open
        (the referee reads some on every move: opening a cgroup file by its path costs several
        times the read); None when it cannot be read."""
        found = self.folders.get(controller)
        if found is None:
            return None
        try:
            fd = self._fds.get(name, -1)
            if fd < 0:
                fd = self._fds[name] = os.open(found[0] / name, os.O_RDONLY | os.O_CLOEXEC)
            return os.pread(fd, size, 0)
        except OSError:
            return None

    def _counter(self, controller: str, name: str, key: bytes) -> int:
        """The value of ``key`` in the flat-keyed file ``name`` of ``controller``'s folder (one
        ``pread`` of a file kept open); 0 when it cannot be read."""
        data = self._kept_read(controller, name)
        for line in data.splitlines() if data else ():
            field, _, value = line.partition(b" ")
            if field == key:
                with contextlib.suppress(ValueError):
                    return int(value)
                break
        return 0

    def exceeded(self) -> bool:
        """Whether a fork in the cgroup failed because of ``pids.max`` (one ``pread``)."""
        return self._counter("pids", "pids.events", b"max") > 0

    def out_of_memory(self) -> bool:
        """Whether the kernel killed a process of the bot for going past its memory bound."""
        found = self.folders.get("memory")
        if found is None:
            return False
        if found[1]:
            return self._counter("memory", "memory.events", b"oom_kill") > 0
        return self._counter("memory", "memory.oom_control", b"oom_kill") > 0

    def reached_memory_bound(self) -> bool:
        """Whether the bot's memory ever reached its bound (the kernel then reclaims, which can
        stall it for a long time before it kills one process): v1 ``memory.failcnt``, v2 the
        ``max`` of ``memory.events``. Page cache counts too: ask only about a bot that already
        failed (a late one)."""
        found = self.folders.get("memory")
        if found is None:
            return False
        if found[1]:
            return self._counter("memory", "memory.events", b"max") > 0
        try:
            return int((found[0] / "memory.failcnt").read_text()) > 0
        except (OSError, ValueError):
            return False

    def freeze(self, frozen: bool) -> bool:
        """Freeze (or thaw) every process of the bot at once; False without a freezer (the
        caller stops the process group instead)."""
        found = self.folders.get("freezer")
        if found is None:
            return False
        path, v2 = found
        if v2:
            name, value = "cgroup.freeze", b"1" if frozen else b"0"
        else:
            name, value = "freezer.state", b"FROZEN" if frozen else b"THAWED"
        try:
            fd = self._fds.get(name, -1)
            if fd < 0:
                fd = self._fds[name] = os.open(path / name, os.O_WRONLY | os.O_CLOEXEC)
            os.write(fd, value)
        except OSError:
            return False
        return True

    def cpu_ns(self) -> int | None:
        """CPU time of every process the bot ever had, in nanoseconds (None: not measured): what
        ``cpu_time_ns`` reads, from a file kept open (the referee reads it on every move)."""
        found = self.folders.get("cpuacct")
        if found is None:
            return None
        if found[1]:
            usec = self._counter("cpuacct", "cpu.stat", b"usage_usec")
            return usec * 1000 if usec else cpu_time_ns(*found)
        data = self._kept_read("cpuacct", "cpuacct.usage")
        try:
            return int(data) if data else None
        except ValueError:
            return None

    def thread_ids(self) -> list[int] | None:
        """Every thread now in the bot's cgroup, whatever process it belongs to (v1 ``tasks``,
        v2 ``cgroup.threads``): one read where walking the process tree reads a file per
        process and thread. None when they cannot be read. (v1's ``tasks`` is opened for each
        read: an open file's later reads from its start give the list as it was when first read
        for as long as it is read again within a second, and the referee reads every move.)"""
        controller = next((c for c in ("pids", "cpuacct") if c in self.folders), None)
        if controller is None:
            return None
        folder, v2 = self.folders[controller]
        if v2:
            data = self._kept_read(controller, "cgroup.threads", _THREAD_LIST)
        else:  # v1 keeps the list it made for an open file while it is read: open it afresh
            data = procfs.read_file(folder / "tasks", _THREAD_LIST)
        if data is None or len(data) >= _THREAD_LIST:  # a longer list: the caller walks the tree
            return None
        try:
            return [int(tid) for tid in data.split()]
        except ValueError:
            return None

    def task_count(self) -> int | None:
        """How many tasks (threads) the bot's ``pids`` cgroup holds (``pids.current``, one
        ``pread``), zombies not yet reaped included; None when it cannot be read. Cheaper than
        ``thread_ids``: the referee reads it to tell that the threads it knows are still all."""
        data = self._kept_read("pids", "pids.current", 64)
        try:
            return int(data) if data else None
        except ValueError:
            return None

    def run_delay_ns(self, kept: procfs.KeptSchedstats) -> int | None:
        """How long every thread in the cgroup has waited for a CPU so far, in ns, read through
        ``kept``'s files; None when the threads cannot be listed. The threads ``kept`` read last
        are read again without listing them while the task count still matches and none has
        ended (two ``pread``s, where listing them costs as much again; a thread that ended and
        one that began since fail the second test or the first)."""
        if kept.tids and self.task_count() == len(kept.tids):
            total = kept.known_run_delay_ns()
            if total is not None:
                return total
        tids = self.thread_ids()
        return None if tids is None else kept.run_delay_ns(tids)

    def kill(self) -> None:
        """SIGKILL every member until none is left, then remove the cgroups."""
        for fd in self._fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds.clear()
        kill_trees(self.paths)


def _paths(folders: dict[str, tuple[Path, bool]]) -> set[Path]:
    return {path for path, _v2 in folders.values()}


def _configure(
    controller: str, path: Path, v2: bool, processes: int | None, memory_mb: int | None
) -> bool:
    """Write the bounds of ``controller`` in the bot's new folder ``path``; False if refused."""
    try:
        if controller == "pids":
            (path / "pids.max").write_text("max" if processes is None else str(processes))
        elif controller == "memory":
            limit = "max" if memory_mb is None else str(memory_mb * 1024 * 1024)
            if v2:
                (path / "memory.max").write_text(limit)
                with contextlib.suppress(OSError):  # no swap accounting: nothing to turn off
                    (path / "memory.swap.max").write_text("0")
            else:
                limit = "-1" if memory_mb is None else limit
                (path / "memory.limit_in_bytes").write_text(limit)
                swap = path / "memory.memsw.limit_in_bytes"
                if swap.exists():  # memory + swap bounded alike: no swap
                    swap.write_text(limit)
                else:
                    with contextlib.suppress(OSError):
                        (path / "memory.swappiness").write_text("0")
        elif controller == "freezer":
            return (path / ("cgroup.freeze" if v2 else "freezer.state")).exists()
        elif controller == "cpuacct":
            return cpu_time_ns(path, v2) is not None
    except OSError:
        return False
    return True


def cpu_time_ns(path: Path, v2: bool = False) -> int | None:
    """CPU time (user + system) of every process that was ever in the cgroup ``path`` (and its
    sub-cgroups), in nanoseconds: v1 ``cpuacct.usage``, v2 ``cpu.stat``'s ``usage_usec`` (in
    microseconds); None when it cannot be read. For a bot: ``BotCgroup.cpu_ns``."""
    try:
        if not v2:
            return int((path / "cpuacct.usage").read_text())
        for line in (path / "cpu.stat").read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) * 1000
    except (OSError, ValueError):
        pass
    return None


def _members(path: Path) -> list[int]:
    try:
        return [int(pid) for pid in (path / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _thaw(folder: Path) -> None:
    """Thaw a bot's folder before killing it: a frozen v1 process dies only once thawed."""
    for name, value in (("freezer.state", "THAWED"), ("cgroup.freeze", "0")):
        with contextlib.suppress(OSError):
            if (folder / name).exists():
                (folder / name).write_text(value)


def kill_trees(paths: Iterable[Path]) -> None:
    """SIGKILL every process in the cgroup folders ``paths`` and their sub-cgroups, and remove
    them all (bounded).

    Every folder is thawed before any is killed: a process frozen in the freezer hierarchy is a
    member of the other hierarchies' folders too, and dies only once thawed. Killing repeats
    until the cgroups are empty: a process may fork while the others are killed.
    """
    folders = [Path(top) for path in paths for top, _dirs, _files in os.walk(path, topdown=False)]
    for folder in folders:
        _thaw(folder)
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
