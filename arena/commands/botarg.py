"""A bot as the author's commands take it: a program file, a bot folder, or a bundled name.

A folder (``mybot/``) runs its ``main.py`` or executable ``main`` and is named after the folder
(``BotSpec.resolve``); so is a program called ``main`` or ``main.py`` given directly
(``mybot/main.py`` is the bot ``mybot``, not ``main``), as ``arena new-bot`` writes them.
"""

from __future__ import annotations

from arena.botspec import BotSpec

__all__ = ["resolve_bot"]

_MAIN = ("main.py", "main")


def resolve_bot(arg: str, name: str | None = None) -> BotSpec:
    """The bot named ``arg`` on the command line, renamed ``name`` when given."""
    spec = BotSpec.resolve(arg)
    found = spec.program
    if name is None and found is not None and found.name in _MAIN and spec.name == found.stem:
        name = found.parent.name
    return spec.renamed(name) if name else spec
