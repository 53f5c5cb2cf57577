"""How every command starts: its bots resolved and named one way, the sandbox they get (with the
one warning where bubblewrap is missing), their settings, and the harness that no bot outlives.

A bot argument is a program file, a bot folder or a bundled name; a folder (``mybot/``) runs its
``main.py`` or executable ``main`` and is named after the folder, and so is a program called
``main`` or ``main.py`` given directly, as ``arena new-bot`` writes them. Two bots of one name get
distinct names one way: by their versions where those differ, else ``-A`` and ``-B``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.botspec import BotPartError, BotSpec
from arena.errors import ArenaError
from arena.launch.sandbox import resolve_mode
from arena.limits import Limits, SandboxMode, TimeControl
from arena.referee.match import MatchSettings


@dataclass(frozen=True)
class Duel:
    """What ``arena match`` and ``arena sprt`` share: two bots named on the command line, the
    time control, seed, random opening plies and sandbox of their games, and whether the
    progress is printed."""

    bot_a: str
    bot_b: str
    time_control: TimeControl
    seed: int
    openings: int
    sandbox: SandboxMode
    quiet: bool


def resolve_bot(arg: str, name: str | None = None) -> BotSpec:
    """The bot named ``arg`` on the command line, renamed ``name`` when given."""
    _check_folder_main(arg)
    spec = BotSpec.resolve(arg)
    found = spec.program
    if name is None and found is not None and found.name in _MAIN and spec.name == found.stem:
        name = found.parent.name
    return spec.renamed(name) if name else spec


def distinct_names(a: BotSpec, b: BotSpec) -> tuple[BotSpec, BotSpec]:
    """The two bots with distinct names (two versions of one bot often share a name)."""
    if a.name != b.name:
        return a, b
    va, vb = a.version(), b.version()
    if va != vb:
        return a.renamed(f"{a.name}-{va[:6]}"), b.renamed(f"{b.name}-{vb[:6]}")
    return a.renamed(f"{a.name}-A"), b.renamed(f"{b.name}-B")


def renamed_note(a: BotSpec, b: BotSpec, named: tuple[BotSpec, BotSpec]) -> str | None:
    """What ``distinct_names`` did, in one line for the end of a run (None if nothing): which new
    name is which bot."""
    if (a.name, b.name) == (named[0].name, named[1].name):
        return None
    which = ", ".join(f"{spec.name} is {spec.program or spec.dir}" for spec in named)
    return f"two bots named {a.name}: {which}"


def sandbox_for(requested: SandboxMode, *, quiet: bool = False) -> SandboxMode:
    """The sandbox the bots get here; where ``auto`` finds no usable bubblewrap, one warning on
    stderr (unless ``quiet``)."""
    mode = resolve_mode(requested)
    if mode is SandboxMode.NONE and requested is SandboxMode.AUTO and not quiet:
        print(
            "warning: bubblewrap (bwrap) is not usable here: bots run with resource limits only,"
            " without a sandbox (apt-get install bubblewrap)",
            file=sys.stderr,
        )
    return mode


def match_settings(
    time_control: TimeControl,
    sandbox: SandboxMode,
    *,
    memory_mb: int | None = None,
    freeze_idle: bool = True,
    hidden: tuple[str, ...] = (),
) -> MatchSettings:
    """The settings of a command's games (``memory_mb`` None: the default limits; ``hidden``:
    what the command writes, which no bot's sandbox may show)."""
    limits = Limits() if memory_mb is None else Limits(memory_mb=memory_mb)
    return MatchSettings(
        time_control=time_control,
        limits=limits,
        sandbox=sandbox,
        freeze_idle=freeze_idle,
        hidden=hidden,
    )


def check_store_outside_bots(db: Path, sandbox: SandboxMode, specs: Sequence[BotSpec]) -> None:
    """A store in a bot's own folder could not be hidden from it (SQLite makes its files there
    during the run): refused before anything runs, with the way out, as a tournament's ``db:``."""
    from arena.store.database import store_in_bot_folder

    for spec in specs:
        if sandbox is not SandboxMode.NONE and store_in_bot_folder(spec.dir, db):
            raise ArenaError(
                f"the bot's folder {spec.dir} holds the store {db}, which no sandbox could then"
                " hide from it: give the store another folder (--db)"
            )


def start_harness() -> None:
    """Make this process a harness: no bot process, folder or mount outlives it, even killed."""
    from arena.launch import reaper

    reaper.install_harness()


_MAIN = ("main.py", "main")


def _check_folder_main(arg: str) -> None:
    """A folder whose ``main`` is only not executable is told so, with the fix (as a program
    file given directly is), rather than called a folder without a program."""
    folder = Path(arg).expanduser()
    main = folder / "main"
    try:
        if not folder.is_dir() or (folder / "main.py").is_file() or not main.is_file():
            return
        if os.access(main, os.X_OK):
            return
    except OSError:
        return
    shown = Path(arg).name or arg
    raise BotPartError(
        shown,
        "path",
        f"expected a folder holding main.py or an executable main, got {arg!r} (its main is not"
        f" executable: {main.resolve()}; chmod +x it)",
    )
