"""Which user a bot runs as when arena runs as root without bubblewrap: never root.

Why a uid of its own for each bot (from a range no account uses): as another user, a bot cannot
read root's files (``/etc/shadow``), open the harness's terminal or its ``/proc/<pid>/fd``, nor
signal or trace the harness or the other bot; and ``RLIMIT_NPROC``, which counts processes per
user and does not bind root, then bounds this bot alone. The uid is derived from the harness's pid
and a counter, so concurrent harnesses (tournament workers) never share one.

Such a user reaches only what "others" may reach: the bot's folder and its program (and, for a
script, its interpreter) must be readable by others, or the bot cannot start; ``check_reachable``
says so in one line before it is tried. ``ARENA_BOTS_AS_ROOT=1`` keeps the old behaviour (bots run
as root) for trusted bots on machines where that cannot be arranged.
"""

from __future__ import annotations

import itertools
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from arena.errors import SandboxError

__all__ = ["BotUser", "bot_user", "check_reachable", "unreachable"]

UID_BASE = 1 << 30
"""Start of the range of bot uids (far above any account's; below the 2^31 of old tools)."""
_PER_HARNESS = 16
_counter = itertools.count()


@dataclass(frozen=True)
class BotUser:
    """An unprivileged uid and gid for one bot process (no supplementary groups)."""

    uid: int
    gid: int


def bot_user() -> BotUser | None:
    """A fresh user for a bot started by this process; None when bots keep this process's user
    (arena does not run as root, or ``ARENA_BOTS_AS_ROOT=1`` asks for root bots)."""
    if os.geteuid() != 0 or os.environ.get("ARENA_BOTS_AS_ROOT") == "1":
        return None
    uid = UID_BASE + os.getpid() * _PER_HARNESS + next(_counter) % _PER_HARNESS
    return BotUser(uid, uid)


def unreachable(path: Path, mode: int) -> Path | None:
    """The first of ``path``'s folders (or ``path`` itself, which needs the ``mode`` bits of
    "others", e.g. ``S_IROTH | S_IXOTH``) that a user with no relation to it cannot pass."""
    path = Path(os.path.realpath(path))
    for folder in reversed(path.parents):
        try:
            if not folder.stat().st_mode & stat.S_IXOTH:
                return folder
        except OSError:
            return folder
    try:
        return None if path.stat().st_mode & mode == mode else path
    except OSError:
        return path


def check_reachable(argv: list[str], folder: Path, user: BotUser) -> None:
    """Raise ``SandboxError`` (one line) unless ``user`` can enter ``folder`` and run ``argv``."""
    needs: list[tuple[Path, int, str]] = [(folder, stat.S_IROTH | stat.S_IXOTH, "the bot's folder")]
    program = shutil.which(argv[0]) if argv else None
    if program is not None:
        needs.append((Path(program), stat.S_IXOTH, "its program"))
    for arg in argv[1:]:
        if os.path.isabs(arg) and os.path.isfile(arg):
            needs.append((Path(arg), stat.S_IROTH, "its script"))
    for path, mode, what in needs:
        blocked = unreachable(path, mode)
        if blocked is not None:
            raise SandboxError(
                f"bots run as an unprivileged user (uid {user.uid}) when arena runs as root, and "
                f"it cannot reach {what} {path} ({blocked} is not open to others): make it "
                "readable by others, use the bwrap sandbox, or set ARENA_BOTS_AS_ROOT=1 to run "
                "trusted bots as root"
            )
