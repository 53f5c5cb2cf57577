"""A bot as the author's commands take it: a program file, a bot folder, or a bundled name.

A folder (``mybot/``) runs its ``main.py`` or executable ``main`` and is named after the folder
(``BotSpec.resolve``); so is a program called ``main`` or ``main.py`` given directly
(``mybot/main.py`` is the bot ``mybot``, not ``main``), as ``arena new-bot`` writes them.
"""

from __future__ import annotations

import os
from pathlib import Path

from arena.botspec import BotPartError, BotSpec

__all__ = ["resolve_bot"]

_MAIN = ("main.py", "main")


def resolve_bot(arg: str, name: str | None = None) -> BotSpec:
    """The bot named ``arg`` on the command line, renamed ``name`` when given."""
    _check_folder_main(arg)
    spec = BotSpec.resolve(arg)
    found = spec.program
    if name is None and found is not None and found.name in _MAIN and spec.name == found.stem:
        name = found.parent.name
    return spec.renamed(name) if name else spec


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
