"""What no namespace isolates stays out of a bot's reach: keyrings, user namespaces, and the
kernel's known ways in (``arena.launch.seccomp``).

The hostile bot ``tests/bots/keyring.py`` is started by ``arena match`` from a harness that has a
session keyring of its own holding a secret (as a login or a service would): it must find neither
the secret nor any way to leave a key for the next bot of its uid.
"""

from __future__ import annotations

import json
import os
import platform
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import open_bot_folder

from arena.launch import seccomp
from arena.launch.sandbox import bwrap_path

pytestmark = pytest.mark.skipif(
    not seccomp.usable(), reason=f"no seccomp filter for {platform.machine()}, or not here"
)

# The harness, given a session keyring of its own with a secret in it, then arena in its place.
WITH_SECRET = """
import ctypes, os, platform, sys
libc = ctypes.CDLL(None, use_errno=True)
add_key, keyctl = {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]
assert libc.syscall(keyctl, 1, b"arena-test-session") >= 0, "no keyrings here"
assert libc.syscall(add_key, b"user", b"arena-test-secret", b"SECRET", 6, ctypes.c_long(-3)) >= 0
os.execv(sys.executable, [sys.executable, "-m", "arena", *sys.argv[1:]])
"""

REFUSED = "Operation_not_permitted"


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder others may enter (a bot of its own uid must reach its program)."""
    with open_bot_folder("seccomp-", {"keyring.py": "keyring.py", "instant.py": "instant.py"}) as f:
        yield f


BWRAP = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not usable here")


@pytest.mark.parametrize(
    ("mode", "own_uid"),
    [
        pytest.param("none", False, id="none"),
        pytest.param("bwrap", False, id="bwrap", marks=BWRAP),
        pytest.param(
            "bwrap", True, id="bwrap-own-uid",
            marks=[BWRAP, pytest.mark.skipif(os.geteuid() != 0, reason="arena is not root")],
        ),
    ],
)  # fmt: skip
def test_a_bot_reaches_no_keyring_and_no_user_namespace(
    mode: str, own_uid: bool, open_folder: Path
) -> None:
    env = dict(os.environ)
    if own_uid:
        env.pop("ARENA_BOTS_AS_ROOT", None)
    record = open_folder / "games.jsonl"
    argv = [
        sys.executable, "-c", WITH_SECRET, "match", open_folder / "keyring.py",
        open_folder / "instant.py", "--games", "1", "--sandbox", mode, "--record", record,
        "--move-ms", "2000", "--quiet",
    ]  # fmt: skip
    done = subprocess.run(
        list(map(str, argv)), env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (game,) = [json.loads(line) for line in record.read_text().splitlines()]
    assert game["reason"] in ("five", "full"), game
    report = dict(item.split("=", 1) for item in game["stderr_order"].split("keyring: ")[1].split())
    assert report["secret"] == "none", report  # the harness's session keyring is not the bot's
    for call in ("search", "add_key", "userns", "userfaultfd", "perf", "bpf"):
        assert report[call] == REFUSED, (call, report)


def test_the_filter_refuses_each_call_of_both_modes_of_this_machine() -> None:
    """The program as the kernel reads it: whole instructions, the machine's own mode and its
    32-bit one checked, and every refused number of both in it."""
    code = seccomp.program()
    assert code is not None and len(code) % 8 == 0
    constants = {struct.unpack_from("=HBBI", code, i)[3] for i in range(0, len(code), 8)}
    for table in seccomp._TABLES[platform.machine()]:
        assert table.arch in constants
        assert set(table.refused) | {table.unshare, table.clone} <= constants
