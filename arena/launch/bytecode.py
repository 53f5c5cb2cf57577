"""The bot library's bytecode, written by the harness because its bots may not write it.

Every bot runs with ``PYTHONDONTWRITEBYTECODE=1`` (``sandbox``: a bot writes nothing beside its
sources, whose hash is its version) and, under bubblewrap, sees the harness's folders read-only.
So a Python bot built on ``arena.bot`` and ``arena.botlib`` (the bundled ones, and those
``arena new-bot`` makes) compiles that library from source at every start wherever nothing else
has imported it with bytecode allowed: an editable install (``pip install -e``) writes none until
then. Compiling it costs ``mcts`` about 80 ms of its 170 ms start, at each of a tournament's starts.
The harness compiles those modules once per process before it starts a bot, as an import would:
in their ``__pycache__``, only where the harness itself may write bytecode (not under
``PYTHONDONTWRITEBYTECODE`` or ``-B``) and the folder is writable; up-to-date files cost a
``stat`` each. Bytecode never changes what a bot does, only how soon it is ready.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Iterable
from pathlib import Path

_ARENA = Path(__file__).resolve().parent.parent

BOT_LIBRARY = (
    _ARENA / "__init__.py",
    _ARENA / "bot.py",
    _ARENA / "rules.py",
    _ARENA / "botlib",
)
"""What a bot built on ``arena.bot`` imports of arena: the helper, the rules, the strategies."""


@functools.cache
def compile_bot_library() -> None:
    """Write the missing or stale bytecode of ``BOT_LIBRARY``, once per process."""
    compile_sources(BOT_LIBRARY)


def compile_sources(paths: Iterable[Path]) -> None:
    """Write the missing or stale bytecode of ``paths`` (files, and folders without their
    subfolders); silent: a read-only install, or one whose bytecode a user turned off, just
    starts its bots as before."""
    if sys.dont_write_bytecode:
        return
    import compileall  # lazily: a run whose bots are not in Python never needs it

    for path in paths:
        with contextlib.suppress(OSError):
            if path.is_dir():
                compileall.compile_dir(path, maxlevels=0, quiet=2)
            elif path.is_file():
                compileall.compile_file(path, quiet=2)
