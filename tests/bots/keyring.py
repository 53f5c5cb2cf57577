"""Fault fixture (a hostile probe): at start-up, reaches for the kernel's shared state that no
namespace isolates, and says on stderr what it got: the session keyring it inherited (a key named
``arena-test-secret`` there, which the test's harness put), a key of its own in its uid's user
keyring (which would outlive it for the next bot of that uid), a user namespace of its own, and
the other refused calls. Then plays X in the first empty cell."""

import ctypes
import os
import platform
import sys

NUMBERS = {  # add_key, keyctl, unshare, userfaultfd, perf_event_open, bpf
    "x86_64": (248, 250, 272, 323, 298, 321),
    "aarch64": (217, 219, 97, 282, 241, 280),
}
KEY_SPEC_USER_KEYRING, KEY_SPEC_SESSION_KEYRING = -4, -3
KEYCTL_SEARCH, KEYCTL_READ = 10, 11
CLONE_NEWUSER = 0x10000000


def outcome(result: int) -> str:
    return "ok" if result >= 0 else os.strerror(ctypes.get_errno()).replace(" ", "_")


def probe() -> str:
    libc = ctypes.CDLL(None, use_errno=True)
    add_key, keyctl, unshare, userfaultfd, perf, bpf = NUMBERS[platform.machine()]
    found = libc.syscall(
        keyctl, KEYCTL_SEARCH, ctypes.c_long(KEY_SPEC_SESSION_KEYRING), b"user",
        b"arena-test-secret", 0,
    )  # fmt: skip
    secret = "none"
    if found >= 0:
        buffer = ctypes.create_string_buffer(64)
        size = libc.syscall(keyctl, KEYCTL_READ, found, buffer, 64)
        secret = buffer.raw[: max(size, 0)].decode(errors="replace") or "empty"
    added = libc.syscall(
        add_key, b"user", b"left-by-bot", b"hello", 5, ctypes.c_long(KEY_SPEC_USER_KEYRING)
    )
    results = {
        "search": outcome(found),
        "secret": secret,
        "add_key": outcome(added),
        "userns": outcome(libc.syscall(unshare, CLONE_NEWUSER)),
        "userfaultfd": outcome(libc.syscall(userfaultfd, 0)),
        "perf": outcome(libc.syscall(perf, None, 0, -1, -1, 0)),
        "bpf": outcome(libc.syscall(bpf, 0, None, 0)),
    }
    return " ".join(f"{k}={v}" for k, v in results.items())


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "arena":
        print("keyring:", probe(), file=sys.stderr, flush=True)
        print("ready keyring", flush=True)
    elif words[0] == "turn":
        cell = words[1].index(".")
        print(f"{'abcdef'[cell % 6]}{cell // 6 + 1}X", flush=True)
    elif words[0] == "quit":
        break
