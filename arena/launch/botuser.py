"""Which user a bot runs as when arena runs as root: never root, with or without bubblewrap.

Each bot gets a uid of its own from a range no account uses, so that it cannot read root's files,
reach the harness or the other bot, and ``RLIMIT_NPROC`` bounds it alone. The uid is unique among
live bots machine-wide (a ``flock``-held file in ``/run/arena-botuids/``, and no live process has
it); ``BotUser.release`` kills and removes what the uid left, then frees it. The bot's folder and
program must be readable by others (``check_reachable``); ``ARENA_BOTS_AS_ROOT=1`` keeps bots as
root for trusted ones. Why and what exactly: ``docs/sandbox.md``.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import shutil
import signal
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from arena.errors import SandboxError

UID_BASE = 1 << 30
"""Start of the range of bot uids (far above any account's; below the 2^31 of old tools)."""
UID_COUNT = 1 << 16
"""How many bot uids there are (the lowest free one is taken: few lock files exist)."""
LOCK_DIR = Path("/run/arena-botuids")
SHARED_TMP = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue")
"""The host's folders any user may write to, whose leftovers a bot's uid must not keep."""
_SYSV_IPC = (("shm", "shmctl"), ("sem", "semctl"), ("msg", "msgctl"))
_IPC_RMID = 0
_KILL_S = 2.0
_LIBC = ctypes.CDLL(None, use_errno=True)


class BotUser:
    """An unprivileged uid and gid for one bot (no supplementary groups), held until ``release``."""

    def __init__(self, uid: int, lock_fd: int = -1) -> None:
        self.uid = uid
        self.gid = uid
        self._lock_fd = lock_fd

    def release(self, kill: bool = True) -> None:
        """Kill every process left with this uid (``kill``: False where the caller already did,
        through the bot's cgroup or PID namespace), remove what it left in ``SHARED_TMP``, then
        free the uid for another bot (idempotent)."""
        if self._lock_fd < 0:
            return
        if kill:
            kill_uid(self.uid)
        remove_leftovers(self.uid)
        os.close(self._lock_fd)
        self._lock_fd = -1


def bot_user() -> BotUser | None:
    """A uid no live bot has, held for a bot started by this process; None when bots keep this
    process's user (arena does not run as root, or ``ARENA_BOTS_AS_ROOT=1`` asks for root bots).
    ``SandboxError`` if none is free."""
    if os.geteuid() != 0 or os.environ.get("ARENA_BOTS_AS_ROOT") == "1":
        return None
    _lock_dir()
    # One scan is enough: a process of a bot uid starts only while a lock of it is held, so one
    # not live now and whose lock is then taken stays free.
    used = live_uids()
    for uid in range(UID_BASE, UID_BASE + UID_COUNT):
        if uid in used:
            continue
        fd = os.open(
            LOCK_DIR / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600
        )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        remove_leftovers(uid)  # what a killed harness's bot of this uid left
        return BotUser(uid, fd)
    raise SandboxError(f"no free bot uid: {UID_COUNT} bots already run on this machine")


def _lock_dir() -> None:
    """The lock files' folder: root's own (a bot could otherwise hold or fake a lock)."""
    try:
        with contextlib.suppress(FileExistsError):
            LOCK_DIR.mkdir(mode=0o700)
        info = os.lstat(LOCK_DIR)
    except OSError as exc:
        raise SandboxError(f"cannot make {LOCK_DIR} for the bots' uids: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o022:
        raise SandboxError(f"{LOCK_DIR} must be a folder of root's that no one else may write")


def _processes() -> Iterator[tuple[int, tuple[int, ...], bool]]:
    """Each live process: its pid, its real, effective and saved uids, whether it is a zombie
    (one read of ``/proc/<pid>/status`` each, whose head holds both: a few ms for hundreds)."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fd = os.open(f"/proc/{name}/status", os.O_RDONLY | os.O_CLOEXEC)
            try:
                head = os.read(fd, 4096)
            finally:
                os.close(fd)
            state = head.split(b"\nState:", 1)[1].split(None, 1)[0]
            uids = tuple(int(v) for v in head.split(b"\nUid:", 1)[1].split(None, 3)[:3])
        except (OSError, ValueError, IndexError):
            continue
        yield int(name), uids, state in (b"Z", b"X")


def live_uids() -> set[int]:
    """The bot uids that a live process (a zombie too: its pid is not yet free) has."""
    return {
        uid
        for _pid, uids, _zombie in _processes()
        for uid in uids
        if UID_BASE <= uid < UID_BASE + UID_COUNT
    }


def kill_uid(uid: int) -> None:
    """SIGKILL every process that has ``uid`` until none is left (bounded: a process may fork
    while the others die; zombies, which hold nothing, are left to their parents)."""
    deadline = time.monotonic() + _KILL_S
    while time.monotonic() < deadline:
        pids = [pid for pid, uids, zombie in _processes() if uid in uids and not zombie]
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.002)


def remove_leftovers(uid: int) -> None:
    """Remove what ``uid`` left on the host that outlives its processes: its entries in
    ``SHARED_TMP`` and its System V shared memory segments, semaphores and message queues
    (without bubblewrap's IPC namespace, these are the host's)."""
    for folder in SHARED_TMP:
        remove_owned(folder, uid)
    for kind, call in _SYSV_IPC:
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        except OSError:
            continue
        column = {"shm": 7, "sem": 4, "msg": 7}[kind]  # the owner's uid
        for line in lines:
            fields = line.split()
            if len(fields) > column and fields[column] == str(uid):
                if kind == "sem":
                    _LIBC.semctl(int(fields[1]), 0, _IPC_RMID)
                else:
                    getattr(_LIBC, call)(int(fields[1]), _IPC_RMID, None)


def remove_owned(folder: str, uid: int) -> None:
    """Remove every entry of ``folder`` that ``uid`` owns (a folder with all it holds), looking
    also in the folders others may write to, the only ones where ``uid`` could create an entry;
    symbolic links are never followed."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if info.st_uid == uid:
            if stat.S_ISDIR(info.st_mode):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
        elif stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_IWOTH:
            remove_owned(entry.path, uid)


def unreachable(path: Path, mode: int, top: Path | None = None) -> Path | None:
    """The first of ``path``'s folders (or ``path`` itself, which needs the ``mode`` bits of
    "others", e.g. ``S_IROTH | S_IXOTH``) that a user with no relation to it cannot pass.

    ``top``: only ``top`` and the folders below it count (those above it are not passed: under
    bubblewrap a folder is shown to the bot at its own path, by a mount the harness makes)."""
    path = Path(os.path.realpath(path))
    real_top = Path(os.path.realpath(top)) if top is not None else None
    for folder in reversed(path.parents):
        if real_top is not None and folder != real_top and real_top not in folder.parents:
            continue
        try:
            if not folder.stat().st_mode & stat.S_IXOTH:
                return folder
        except OSError:
            return folder
    try:
        return None if path.stat().st_mode & mode == mode else path
    except OSError:
        return path


def check_reachable(
    argv: list[str], folder: Path, user: BotUser, sandboxed: bool = False, name: str = ""
) -> None:
    """Raise ``SandboxError`` (one line, naming the bot ``name`` if given) unless ``user`` can
    enter ``folder`` and run ``argv``.

    ``sandboxed``: under bubblewrap, where the harness mounts the bot's folder (and its Python)
    for it, only the folder itself and what is below it must be open to others."""
    needs: list[tuple[Path, int, str]] = [(folder, stat.S_IROTH | stat.S_IXOTH, "its folder")]
    program = shutil.which(argv[0]) if argv else None
    if program is not None:
        needs.append((Path(program), stat.S_IXOTH, "its program"))
    for arg in argv[1:]:
        if os.path.isabs(arg) and os.path.isfile(arg):
            needs.append((Path(arg), stat.S_IROTH, "its script"))
    top = folder if sandboxed else None
    real_folder = Path(os.path.realpath(folder))
    for path, mode, what in needs:
        mounted = path != folder and real_folder not in Path(os.path.realpath(path)).parents
        if sandboxed and mounted:
            continue  # the system's or the harness's Python: mounted for it, readable
        blocked = unreachable(path, mode, top)
        if blocked is not None:
            who = f"the bot {name}" if name else "it"
            raise SandboxError(
                f"bots run as an unprivileged user (uid {user.uid}) when arena runs as root, and "
                f"{who} cannot reach {what} {path} ({blocked} is not open to others): make it "
                f"readable by others, {'' if sandboxed else 'use the bwrap sandbox, '}or set "
                "ARENA_BOTS_AS_ROOT=1 to run trusted bots as root"
            )
