"""How a bot process is launched: its command (inside bubblewrap or not), environment and limits.

Whatever the mode, a bot gets a minimal environment (nothing of the harness's beyond PATH, the
locale and the time zone: no tokens or secrets), its own session and process group (so no terminal),
rlimits for memory, CPU time, file size and open files, its own cgroups where they can be made
(``arena.launch.cgroups``: every process it starts, at most ``limits.processes``, with at most
``limits.memory_mb`` of resident memory together, and then an address-space rlimit that only guards
against absurd reservations), a private scratch folder, and a kernel signal that kills it if the
process that started it dies.

With bubblewrap (``bwrap``) it also gets empty network, PID, IPC and UTS namespaces, no
capabilities, and sees only: the system's read-only folders, the Python that runs the harness
(read-only, for ``.py`` bots), the ``arena`` package (read-only, for the author's kit), its own
folder (read-only, with the paths it must not see covered) and a private ``/tmp`` tmpfs of
``limits.tmp_mb``, where ``/dev/shm`` leads; ``/``, ``/dev`` and ``/proc``'s host settings
(``/proc/sys``...) are read-only. Its stdin and stdout are FIFOs that its own process opens, so that
bwrap holds no copy of them (a bot that closes one is seen at once). As a user, the bot is
``nobody`` in bwrap's user namespace; as root, bwrap runs as root without one (so that it can mount
folders under ``/root``) and ``setpriv`` makes the bot a uid of its own (``arena.launch.botuser``):
the kernel checks some writes (``/proc/sys``) against the global uid, whatever a namespace says.

Without bubblewrap, when arena runs as root, it runs as an unprivileged uid of its own
(``arena.launch.botuser``) and its scratch folder is a tmpfs of ``limits.tmp_mb``.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import secrets
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from arena.botspec import BotSpec
from arena.errors import SandboxError
from arena.launch import reaper, seccomp
from arena.launch.botuser import BotUser, bot_user, check_reachable
from arena.launch.cgroups import BotCgroup
from arena.launch.procfs import die_with_parent
from arena.limits import Limits, SandboxMode

SANDBOX_UID = 65534  # nobody
_MB = 1024 * 1024
_IO_INSIDE = "/run/arena"  # where a sandboxed bot finds its stdin and stdout FIFOs
_KEPT_VARIABLES = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
_DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
# What of /etc a program may need (dynamic linker, locale, users, certificates), and no more.
_ETC_ENTRIES = (
    "alternatives",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "timezone",
    "nsswitch.conf",
    "passwd",
    "group",
    "hosts",
    "ssl",
    "ca-certificates",
    "mime.types",
)
_SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "opt")


@dataclass(kw_only=True)
class LaunchPlan:
    """Everything ``subprocess.Popen`` needs to start one bot process."""

    argv: list[str]
    """The command, with the ``bwrap`` prefix when sandboxed."""
    env: dict[str, str]
    """The complete environment of the bot."""
    cwd: str
    """The working directory (the bot's folder)."""
    preexec: Callable[[], None]
    """Run in the child before exec: rlimits and the parent-death signal."""
    scratch: str | None
    """The private scratch folder on the host (removed by ``cleanup``); None under bubblewrap,
    whose private ``/tmp`` serves instead."""
    sandboxed: bool
    """Whether bubblewrap isolates the bot."""
    token: str = ""
    """A value of ``ARENA_BOT_TOKEN`` unique to this launch: descendants that left the bot's
    process group are still found by it (without bubblewrap, whose PID namespace does that)."""
    cgroup: BotCgroup | None = None
    """The bot's own cgroup (every process it starts, bounded in number), where one can be made."""
    io_dir: str | None = None
    """Under bubblewrap: the host folder of the bot's stdin and stdout FIFOs (``in``, ``out``),
    which the bot's own process opens (bwrap would hold a copy of pipes it is given, hiding a bot
    that closes them); removed once the bot has opened them."""
    tmp_bounded: bool = False
    """Whether the bot's ``/tmp`` is a tmpfs of ``limits.tmp_mb`` (bubblewrap's, or ``scratch``
    mounted as one when arena runs as root)."""
    user: BotUser | None = None
    """The unprivileged uid the bot runs as (arena runs as root), held until ``cleanup``."""
    pass_fds: tuple[int, ...] = ()
    """Files of the harness the child gets (bwrap's seccomp filter), closed once it has started
    (or by ``cleanup``)."""

    def close_passed(self) -> None:
        """Close the files handed to the child (it holds its own copies once started)."""
        for fd in self.pass_fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.pass_fds = ()

    def cleanup(self) -> None:
        """Kill whatever is left in the bot's cgroup, remove its scratch folder, and free its uid
        (with what that uid left in the host's shared temporary folders)."""
        self.close_passed()
        if self.cgroup is not None:
            self.cgroup.kill()
        if self.io_dir is not None:
            shutil.rmtree(self.io_dir, ignore_errors=True)
        if self.scratch is not None:
            if self.tmp_bounded:
                _unmount(self.scratch)
            shutil.rmtree(self.scratch, ignore_errors=True)
        if self.user is not None:
            # A cgroup or bubblewrap's PID namespace has killed every process of the bot already.
            self.user.release(kill=self.cgroup is None and not self.sandboxed)
            self.user = None


@cache
def bwrap_path() -> str | None:
    """The ``bwrap`` executable, if it is installed *and* works here (namespaces may be denied)."""
    found = shutil.which("bwrap")
    if found is None:
        return None
    import subprocess

    try:
        probe = subprocess.run(
            [found, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return found if probe.returncode == 0 else None


def resolve_mode(mode: SandboxMode | str) -> SandboxMode:
    """``auto`` becomes ``bwrap`` where bubblewrap works and ``none`` elsewhere."""
    mode = SandboxMode(mode)
    if mode is SandboxMode.AUTO:
        return SandboxMode.BWRAP if bwrap_path() else SandboxMode.NONE
    if mode is SandboxMode.BWRAP and bwrap_path() is None:
        raise SandboxError(
            "sandbox 'bwrap' requested but bubblewrap is not usable here "
            "(install it: apt-get install bubblewrap), or use --sandbox none"
        )
    return mode


def check_launchable(spec: BotSpec, mode: SandboxMode | str) -> None:
    """Raise ``SandboxError`` (one line) now if ``spec`` cannot be started here in ``mode``.

    What ``plan_launch`` finds only as the bot starts: as root, a bot runs as an unprivileged
    user (``arena.launch.botuser``) who must reach its folder and program. A tournament
    checks its bots first, so that such a machine-wide problem is said once, before any game,
    rather than as a harness error for every match its workers try."""
    user = bot_user()
    if user is None:
        return
    try:
        check_reachable(list(spec.argv), spec.dir, user, resolve_mode(mode) is SandboxMode.BWRAP)
    except SandboxError as exc:
        raise SandboxError(f"bot {spec.name}: {exc}") from None
    finally:
        user.release(kill=False)  # it ran nothing


ADDRESS_SPACE_GUARD_MB = 32 * 1024
"""The least ``RLIMIT_AS`` of a bot whose memory cgroup bounds its resident memory: only a guard
against absurd reservations (a JVM reserves gigabytes it never touches)."""


def address_space_mb(memory_mb: int, cgroup: BotCgroup | None) -> int:
    """The ``RLIMIT_AS`` of each bot process, in MiB: ``memory_mb`` itself where no memory cgroup
    bounds the bot (the fallback), else far above it (the cgroup bounds what is resident)."""
    if cgroup is None or cgroup.memory_mb is None:
        return memory_mb
    return max(ADDRESS_SPACE_GUARD_MB, 16 * memory_mb)


def _make_preexec(
    limits: Limits,
    cpu_seconds: int,
    *,
    cgroup: BotCgroup | None,
    user: BotUser | None,
    switch: bool,
    filtered: bool,
) -> Callable[[], None]:
    """What the child does before exec, in this order: join the bot's cgroup (which needs root),
    leave the harness's session keyring for an empty one, set the rlimits, become ``user``
    (dropping every group; not if ``switch`` is False: bwrap does it), ask for SIGKILL when the
    harness dies (a change of user clears that request), and with ``filtered`` apply the seccomp
    filter (``arena.launch.seccomp``; without bubblewrap, which otherwise applies it itself)."""
    seccomp.prepare()
    memory = address_space_mb(limits.memory_mb, cgroup) * _MB
    file_size = limits.file_size_mb * 1024 * 1024
    settings = [
        (resource.RLIMIT_AS, memory),
        (resource.RLIMIT_CPU, cpu_seconds),
        (resource.RLIMIT_FSIZE, file_size),
        (resource.RLIMIT_NOFILE, limits.open_files),
        (resource.RLIMIT_CORE, 0),
    ]
    if user is not None and cgroup is None and limits.processes is not None:
        # Counted per user: with a uid of its own, this bounds this bot's processes (not its
        # threads). Not with a cgroup, whose count (and record of the fault) must come first.
        settings.append((resource.RLIMIT_NPROC, limits.processes))
    join = cgroup.join if cgroup is not None else None
    harness = os.getpid()
    switch_to = user if switch else None

    def preexec() -> None:  # runs in the child between fork and exec: keep it allocation-light
        if join is not None:
            join()  # first: nothing this process starts can be outside it
        seccomp.new_session_keyring()
        for which, value in settings:
            try:
                hard = resource.getrlimit(which)[1]
                capped = value if hard == resource.RLIM_INFINITY else min(value, hard)
                resource.setrlimit(which, (capped, capped))
            except (ValueError, OSError):
                pass
        if switch_to is not None:  # any failure here fails the start (never a root bot by accident)
            os.setgroups([])
            os.setresgid(switch_to.gid, switch_to.gid, switch_to.gid)
            os.setresuid(switch_to.uid, switch_to.uid, switch_to.uid)
        die_with_parent(signal.SIGKILL)
        if os.getppid() != harness:  # the harness died before the request took effect
            os._exit(1)
        if filtered:  # last: the steps above may use what it refuses (none does today)
            seccomp.install()

    return preexec


def _environment(home: str, seed: int, token: str) -> dict[str, str]:
    env = {k: os.environ[k] for k in _KEPT_VARIABLES if k in os.environ}
    env.setdefault("PATH", _DEFAULT_PATH)
    env.update(
        HOME=home,
        TMPDIR=home,
        PYTHONUNBUFFERED="1",
        PYTHONDONTWRITEBYTECODE="1",
        ARENA_SEED=str(seed),
        ARENA_BOT_TOKEN=token,
    )
    return env


@cache
def _python_roots() -> tuple[Path, ...]:
    """Folders the harness's Python lives in (a venv and the interpreter it was made from)."""
    roots = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent.parent}
    return tuple(sorted(r.resolve() for r in roots if r.exists()))


@cache
def _system_binds() -> tuple[str, ...]:
    """The bwrap arguments that show the system's folders and the needed /etc entries (read-only):
    the same for every bot, so computed once."""
    argv: list[str] = []
    for name in _SYSTEM_DIRS:
        host = Path("/") / name
        if host.is_symlink():
            argv += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir():
            argv += ["--ro-bind", str(host), str(host)]
    # bwrap makes a missing parent of a bind 0700 when it runs as root: a bot of its own uid
    # could then reach no /etc entry (node reads /etc/ssl, java is /etc/alternatives/java).
    argv += ["--perms", "0755", "--dir", "/etc"]
    for name in _ETC_ENTRIES:
        argv += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    return tuple(argv)


def _open_parents(folders: Sequence[Path]) -> list[str]:
    """bwrap arguments that make the folders above each of ``folders`` passable by anyone (bwrap
    copies a missing parent's mode from the host's: ``/root``'s 0700 would stop a bot's uid)."""
    argv: list[str] = []
    seen: set[Path] = set()
    for folder in folders:
        for parent in reversed(Path(folder).parents):
            if parent not in (Path("/"), Path("/tmp")) and parent not in seen:
                seen.add(parent)
                argv += ["--perms", "0755", "--dir", str(parent)]
    return argv


def _shared_folders() -> tuple[Path, ...]:
    return (*_python_roots(), Path(__file__).resolve().parents[1])


def _io_command(argv: list[str], processes: int | None) -> list[str]:
    """``argv`` run by a shell that first opens the FIFOs as stdin and stdout (about 1 ms).

    ``processes``: also set RLIMIT_NPROC there, inside the sandbox's user namespace, where it
    counts this sandbox's processes only (set before bwrap, it would count all of the user's).
    """
    script = f'exec "$@" <{_IO_INSIDE}/in >{_IO_INSIDE}/out'
    flag = _shell_nproc_flag()
    if processes is not None and flag:
        script = f"ulimit {flag} {processes} 2>/dev/null; {script}"
    return ["/bin/sh", "-c", script, "arena-bot", *argv]


@cache
def _shell_nproc_flag() -> str | None:
    """The ``ulimit`` option for processes of ``/bin/sh``: ``-u`` for bash, ``-p`` for dash and
    busybox (where ``-u`` does not exist); None if unknown."""
    shell = os.path.basename(os.path.realpath("/bin/sh"))
    if shell.startswith("bash"):
        return "-u"
    if shell.startswith(("dash", "busybox")):
        return "-p"
    return None


def _make_fifos(folder: str) -> None:
    for name in ("in", "out"):
        os.mkfifo(os.path.join(folder, name), 0o600)


def _masks(
    exposed: Sequence[Path], hidden: Sequence[str | os.PathLike[str]], strict: bool = True
) -> list[str]:
    """bwrap arguments that cover each ``hidden`` host path found inside an ``exposed`` folder:
    an empty tmpfs over a folder, an empty file over a file. A hidden folder that *is* an exposed
    one cannot be covered without hiding that folder: ``SandboxError`` (``strict``), else it is
    left as it is. (A hidden folder that holds an exposed one shows nothing of its own: only the
    exposed folder is mounted.)"""
    masks: list[str] = []
    for item in hidden:
        real = Path(os.path.realpath(item))
        for folder in exposed:
            real_folder = Path(os.path.realpath(folder))
            if real == real_folder and not strict:
                continue
            if real == real_folder:
                raise SandboxError(
                    f"{folder} would be visible to a bot, and it is {item}, which no bot may see"
                    " (the results store's folder, say): keep bots in folders of their own"
                )
            if real_folder in real.parents and os.path.lexists(real):
                inside = str(Path(folder) / real.relative_to(real_folder))
                if real.is_dir():
                    masks += ["--tmpfs", inside]
                else:
                    masks += ["--ro-bind", "/dev/null", inside]
    return masks


_DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
_DEV_LINKS = (
    ("shm", "/tmp"),
    ("fd", "/proc/self/fd"),
    ("stdin", "/proc/self/fd/0"),
    ("stdout", "/proc/self/fd/1"),
    ("stderr", "/proc/self/fd/2"),
    ("core", "/proc/kcore"),
)
_PROC_KNOBS = ("sys", "sysrq-trigger", "irq", "bus", "fs", "acpi", "scsi", "driver")
"""What of ``/proc`` holds the host's writable settings: shown read-only (or absent). The kernel
checks a write there against the global uid, not a namespace's capabilities."""


def _bwrap_argv(
    bwrap: str,
    spec: BotSpec,
    limits: Limits,
    *,
    io_dir: str,
    user: BotUser | None,
    hidden: Sequence[str | os.PathLike[str]],
    seccomp_fd: int | None,
    private: Sequence[str | os.PathLike[str]],
) -> list[str]:
    """The bwrap command, up to the bot's own (``seccomp_fd``: a file holding the filter bwrap
    applies once the sandbox is made, ``arena.launch.seccomp``).

    ``user``: arena runs as root and the bot as that uid. bwrap then runs as root without a user
    namespace (so that it can mount any folder, even under a folder private to root) and keeps
    only the capabilities to change user, which ``setpriv`` uses to become ``user`` with none
    (see ``_as_user``). Otherwise bwrap's user namespace makes the bot ``nobody`` in it."""
    argv = [bwrap]
    if user is None:
        argv += ["--unshare-all", "--cap-drop", "ALL", "--uid", str(SANDBOX_UID),
                 "--gid", str(SANDBOX_UID)]  # fmt: skip
    else:
        argv += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                 "--unshare-cgroup-try", "--cap-drop", "ALL"]  # fmt: skip
        for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"):
            argv += ["--cap-add", cap]
    argv += ["--die-with-parent", "--hostname", "arena", "--proc", "/proc"]
    for knob in _PROC_KNOBS:
        argv += ["--ro-bind-try", f"/proc/{knob}", f"/proc/{knob}"]
    # /dev/shm leads to the bot's one bounded tmpfs, /tmp: shared memory counts too. So /dev is
    # made here (bwrap's --dev would make a directory of it), with the devices bwrap's has but
    # no pseudo-terminals (a bot has no terminal), and read-only.
    argv += [
        "--perms", "1777", "--size", str(limits.tmp_mb * _MB), "--tmpfs", "/tmp",
        "--tmpfs", "/dev",
    ]  # fmt: skip
    for device in _DEVICES:
        argv += ["--dev-bind", f"/dev/{device}", f"/dev/{device}"]
    for name, target in _DEV_LINKS:
        argv += ["--symlink", target, f"/dev/{name}"]
    argv += ["--remount-ro", "/dev"]
    argv += _system_binds()
    shared = [*_shared_folders(), spec.dir]
    argv += _open_parents([*shared, Path(_IO_INSIDE)])
    for folder in shared:
        argv += ["--ro-bind", str(folder), str(folder)]
    argv += _masks(shared, hidden)  # after the binds, so that they cover what these show
    argv += _masks(shared, private, strict=False)  # the other bots' files
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    argv += [
        "--ro-bind", io_dir, _IO_INSIDE,
        "--remount-ro", "/",  # the sandbox's own root, whose folders bwrap's user owns
        "--chdir", str(spec.dir),
        "--",
    ]  # fmt: skip
    return argv


def _as_user(user: BotUser) -> list[str]:
    """The command prefix that makes the rest run as ``user``, with no group, no capability (not
    even inheritable or in the bounding set); bwrap has already set no_new_privs."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise SandboxError(
            "as root, a bot under bwrap runs as a uid of its own through setpriv, which is not "
            "installed (apt-get install util-linux), or set ARENA_BOTS_AS_ROOT=1 for trusted bots"
        )
    return [
        setpriv, f"--reuid={user.uid}", f"--regid={user.gid}", "--clear-groups",
        "--inh-caps=-all", "--bounding-set=-all", "--",
    ]  # fmt: skip


def plan_launch(
    spec: BotSpec,
    mode: SandboxMode | str,
    limits: Limits,
    seed: int,
    cpu_seconds: int,
    *,
    hidden: Sequence[str | os.PathLike[str]] = (),
    private: Sequence[str | os.PathLike[str]] = (),
) -> LaunchPlan:
    """How to start ``spec`` under ``mode`` (``auto`` is resolved here).

    ``private``: the other bots' files, covered where the bot's folders show them (a folder
    shared with them), never refused.

    ``hidden``: host paths no bot may see (the results store, its folder, the config). Under
    bubblewrap each one inside a mounted folder is covered; one that is (or holds) the bot's
    folder is refused with ``SandboxError``. Without bubblewrap nothing is hidden from a bot
    (docs/sandbox.md).

    As root (unless ``ARENA_BOTS_AS_ROOT=1``), the bot runs as a uid of its own
    (``arena.launch.botuser``) in either mode: under bubblewrap, bwrap (root, to mount the bot's
    folders wherever they are) has ``setpriv`` start the bot's command as that uid, so that no
    process of the bot is root on the host.
    """
    mode = resolve_mode(mode)
    user = bot_user()
    plan = LaunchPlan(
        argv=list(spec.argv),
        env={},
        cwd=str(spec.dir),
        preexec=_nothing,
        scratch=None,
        sandboxed=mode is SandboxMode.BWRAP,
        token=secrets.token_hex(8),
        user=user,
    )
    try:
        if user is not None:
            check_reachable(plan.argv, spec.dir, user, plan.sandboxed, spec.name)
        plan.cgroup = BotCgroup.create(limits.processes, limits.memory_mb)
        # Under bwrap, bwrap itself (root) changes to the bot's user; RLIMIT_NPROC, per user, is
        # set before it all the same.
        unwrapped = not plan.sandboxed
        filtered = unwrapped and seccomp.usable()
        plan.preexec = _make_preexec(
            limits, cpu_seconds, cgroup=plan.cgroup, user=user, switch=unwrapped, filtered=filtered
        )
        if plan.sandboxed:
            _wrap(plan, spec, limits, hidden=hidden, private=private)
            plan.env = _environment("/tmp", seed, plan.token)  # the sandbox's own private /tmp
        else:
            plan.env = _environment(_make_scratch(plan, spec, limits), seed, plan.token)
        return plan
    except BaseException:
        plan.cleanup()  # whatever was made before the failure
        raise


def _make_scratch(plan: LaunchPlan, spec: BotSpec, limits: Limits) -> str:
    """Give ``plan`` a scratch folder, the bot's home without bubblewrap: a tmpfs of
    ``limits.tmp_mb`` when arena runs as root, owned by the bot's uid where it has one."""
    plan.scratch = scratch = tempfile.mkdtemp(
        prefix=f"arena-{spec.name[:20]}-", dir=reaper.scratch_root()
    )
    plan.tmp_bounded = os.geteuid() == 0 and _mount_tmpfs(scratch, limits.tmp_mb * _MB)
    if plan.user is not None:
        os.chown(scratch, plan.user.uid, plan.user.gid)
    return scratch


def _wrap(
    plan: LaunchPlan,
    spec: BotSpec,
    limits: Limits,
    *,
    hidden: Sequence[str | os.PathLike[str]],
    private: Sequence[str | os.PathLike[str]],
) -> None:
    """Make ``plan`` start the bot under bubblewrap, its stdin and stdout through FIFOs."""
    bwrap = bwrap_path()
    assert bwrap is not None  # resolve_mode checked it
    user = plan.user
    plan.io_dir = io_dir = tempfile.mkdtemp(prefix="arena-io-", dir=reaper.scratch_root())
    _make_fifos(io_dir)
    if user is not None:
        for path in (io_dir, *(os.path.join(io_dir, n) for n in ("in", "out"))):
            os.chown(path, user.uid, user.gid)
    # RLIMIT_NPROC set inside the namespace counts this sandbox's processes only; a uid of its
    # own (set before bwrap) or a cgroup bounds them already.
    nproc = limits.processes if plan.cgroup is None and os.geteuid() != 0 else None
    seccomp_fd = seccomp.program_fd()
    plan.pass_fds = () if seccomp_fd is None else (seccomp_fd,)
    argv = _bwrap_argv(
        bwrap,
        spec,
        limits,
        io_dir=io_dir,
        user=user,
        hidden=hidden,
        seccomp_fd=seccomp_fd,
        private=private,
    )
    if user is not None:
        argv += _as_user(user)
    plan.argv = argv + _io_command(list(spec.argv), nproc)
    plan.tmp_bounded = True


def _nothing() -> None:
    """No preexec: a plan that never runs."""


_MS_NOSUID, _MS_NODEV = 2, 4
_MNT_DETACH = 2
_LIBC = ctypes.CDLL(None, use_errno=True)


def _mount_tmpfs(folder: str, size_bytes: int) -> bool:
    """Mount a tmpfs of ``size_bytes`` on ``folder`` (needs CAP_SYS_ADMIN); False if refused."""
    options = f"size={size_bytes},mode=0700".encode()
    flags = _MS_NOSUID | _MS_NODEV
    return bool(_LIBC.mount(b"tmpfs", folder.encode(), b"tmpfs", flags, options) == 0)


def _unmount(folder: str) -> None:
    """Detach the file system mounted on ``folder`` (lazily: even while a file is open there)."""
    _LIBC.umount2(folder.encode(), _MNT_DETACH)
