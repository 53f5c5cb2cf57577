"""A seccomp filter for bots: the system calls that reach kernel state no namespace isolates.

Namespaces, a uid of its own and a cgroup keep a bot from the host's files, processes, network and
memory, but not from everything the kernel keeps:

- **Keyrings** (``add_key``, ``request_key``, ``keyctl``) are per uid and per session, not per
  namespace: a bot could read and write the session keyring of whoever started arena (a login's,
  a service's), and a key left in its uid's user keyring outlives it for the next bot given that
  uid, in this run or another harness's. Bots have no use for them: refused (``EPERM``), and each
  bot also starts in a session keyring of its own (``new_session_keyring``), empty.
- **User namespaces** (``unshare`` or ``clone`` with ``CLONE_NEWUSER``): a bot would be root in one
  of its own and could mount what it likes there (a tmpfs without ``tmp_mb``'s bound, say), and
  much of the kernel's attack surface opens to it. Refused; ``clone3``, whose flags a filter
  cannot read, says ``ENOSYS``, so that the C library falls back to ``clone`` (as under Docker's
  default profile, which refuses the same calls).
- ``userfaultfd``, ``perf_event_open`` and ``bpf``: known ways into kernel bugs, of no use to a
  bot. Refused.

Everything else is allowed: the filter is a short deny list, not a whitelist a runtime could trip
over. Under bubblewrap the filter is handed to bwrap (``--seccomp FD``), which applies it after it
has made the sandbox (it needs a user namespace of its own when arena is not root); without it,
``install`` applies it in the bot's process before its exec. Machines other than x86-64 and
AArch64 (and their 32-bit compat modes) get no filter: the numbers differ per architecture.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

CLONE_NEWUSER = 0x10000000


@dataclass(frozen=True)
class Table:
    """One architecture's audit token and the numbers of the system calls the filter looks at."""

    arch: int
    """``AUDIT_ARCH_*``: what ``seccomp_data.arch`` holds for a call made in this mode."""
    refused: tuple[int, ...]
    """add_key, request_key, keyctl, userfaultfd, perf_event_open, bpf."""
    unshare: int
    clone: int
    clone3: int

    @property
    def keyctl(self) -> int:
        return self.refused[2]


X86_64 = Table(0xC000003E, (248, 249, 250, 323, 298, 321), unshare=272, clone=56, clone3=435)
I386 = Table(0x40000003, (286, 287, 288, 374, 336, 357), unshare=310, clone=120, clone3=435)
AARCH64 = Table(0xC00000B7, (217, 218, 219, 282, 241, 280), unshare=97, clone=220, clone3=435)
ARM = Table(0x40000028, (309, 310, 311, 388, 364, 386), unshare=337, clone=120, clone3=435)

_TABLES = {"x86_64": (X86_64, I386), "aarch64": (AARCH64, ARM)}
"""Per machine: its own mode first, then the 32-bit mode its processes may also call into (a
filter that knew only the first could be walked around through the second)."""
_X32_BIT = 0x40000000
"""x86-64's x32 calls: the same audit token, this bit set in the number; refused."""

# Classic BPF, as the kernel reads it: (code, jump if true, jump if false, k).
_LD_W_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (little-endian: arg 0's low word)
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000


class _Assembler:
    """Instructions with named jump targets, resolved to the relative offsets BPF wants."""

    def __init__(self) -> None:
        self.code: list[tuple[int, str | int, str | int, int]] = []
        self.labels: dict[str, int] = {}

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def load(self, offset: int) -> None:
        self.code.append((_LD_W_ABS, 0, 0, offset))

    def jump(self, op: int, k: int, true: str, false: str | int = 0) -> None:
        self.code.append((op, true, false, k))

    def ret(self, value: int) -> None:
        self.code.append((_RET, 0, 0, value))

    def encode(self) -> bytes:
        out = bytearray()
        for index, (code, true, false, k) in enumerate(self.code):
            jt, jf = (
                self.labels[t] - index - 1 if isinstance(t, str) else t for t in (true, false)
            )
            assert 0 <= jt < 256 and 0 <= jf < 256, "a jump beyond BPF's reach"
            out += struct.pack("=HBBI", code, jt, jf, k)
        return bytes(out)


def _assemble(tables: Sequence[Table]) -> bytes:
    asm = _Assembler()
    asm.load(_ARCH)
    for number, table in enumerate(tables):
        asm.jump(_JEQ, table.arch, f"mode{number}")
    asm.ret(_ERRNO | errno.ENOSYS)  # a mode this filter does not know: nothing runs there
    for number, table in enumerate(tables):
        asm.label(f"mode{number}")
        asm.load(_NR)
        if table is X86_64:
            asm.jump(_JGE, _X32_BIT, "enosys")
        for call in table.refused:
            asm.jump(_JEQ, call, "eperm")
        asm.jump(_JEQ, table.clone3, "enosys")
        asm.jump(_JEQ, table.unshare, "flags")
        asm.jump(_JEQ, table.clone, "flags")
        asm.ret(_ALLOW)
    asm.label("flags")  # unshare's and clone's first argument: the flags, in every mode here
    asm.load(_ARG0)
    asm.jump(_JSET, CLONE_NEWUSER, "eperm")
    asm.ret(_ALLOW)
    asm.label("eperm")
    asm.ret(_ERRNO | errno.EPERM)
    asm.label("enosys")
    asm.ret(_ERRNO | errno.ENOSYS)
    return asm.encode()


@cache
def program() -> bytes | None:
    """The filter for this machine, as bwrap's ``--seccomp`` reads it (``struct sock_filter``s);
    None on a machine whose system call numbers are not known here."""
    tables = _TABLES.get(platform.machine())
    return _assemble(tables) if tables is not None else None


def available() -> bool:
    """Whether this machine has a filter (its system call numbers are known here)."""
    return program() is not None


@cache
def usable() -> bool:
    """Whether a filter can be applied here: known numbers, and a kernel that takes it (once per
    process, in a child that applies it and exits). Where it cannot (no seccomp in the kernel, a
    container that refuses it), bots run without it rather than not at all, like bots without
    bubblewrap."""
    if not available():
        return False
    prepare()
    pid = os.fork()
    if pid == 0:  # the child: only system calls, then out
        try:
            install()
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def program_fd() -> int | None:
    """A new file holding the filter, at its start (for one bwrap: it reads the file to its
    end), or None where no filter is ``usable``. The caller passes it to the child and closes
    it."""
    code = program()
    if code is None or not usable():
        return None
    fd = os.memfd_create("arena-seccomp", os.MFD_CLOEXEC)
    os.write(fd, code)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


_LIBC = ctypes.CDLL(None, use_errno=True)
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_SYS_KEYCTL = _TABLES[platform.machine()][0].keyctl if platform.machine() in _TABLES else None
_KEYCTL_JOIN_SESSION_KEYRING = 1


@cache
def _fprog() -> _SockFprog | None:
    """The filter as ``prctl`` takes it, made in the harness (a child between fork and exec
    should not allocate)."""
    code = program()
    return None if code is None else _SockFprog(len(code) // 8, code)


def prepare() -> None:
    """Make what ``install`` and ``new_session_keyring`` use, before any fork."""
    _fprog()


def install() -> None:
    """Apply the filter to this process and all it will start (in a child before its exec).
    Sets ``no_new_privs``, which the kernel asks of a process that is not root: a bot gains no
    privilege through a set-uid program either. Raises ``OSError`` if the kernel refuses."""
    fprog = _fprog()
    if fprog is None:
        return
    if _LIBC.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if _LIBC.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")


def new_session_keyring() -> None:
    """Leave the session keyring this process inherited (its starter's) for a new, empty one of
    its own (in a child before its exec). Without keyrings in the kernel, nothing to leave."""
    if _SYS_KEYCTL is not None:
        _LIBC.syscall(_SYS_KEYCTL, _KEYCTL_JOIN_SESSION_KEYRING, None)
