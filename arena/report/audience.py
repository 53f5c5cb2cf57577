"""Who a page is for: the organiser (everything the store holds), or the public.

A page to publish shows no path of the host machine and no bot's stderr: fault details quote
what bots wrote (a traceback names the organiser's folders), so every absolute path in them is
shown relative to the config's folder, or by its last part when it lies outside. The names
shown are a choice in both cases: the entry names alone, or with the names bots gave themselves
(which the organiser does not control).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

NAME_CHOICES = ("entry", "both")
"""``entry``: the names the config gave; ``both``: with the name a bot gave itself beside."""

_ABSOLUTE_PATH = re.compile(r"(?<![\w.~/\\-])/[^\s'\"`:,;()<>\[\]{}|=]*")
"""A path from the root, as tracebacks and messages write one: it ends at a space, a quote, a
colon (``main.go:103``) or a bracket; a ``/`` inside a relative path or a word does not start
one."""


def without_host_paths(text: str, folder: PurePosixPath | None) -> str:
    """``text`` with every absolute path relative to ``folder`` when it lies there, else cut to
    ``…/`` and its last part."""

    def relative(found: re.Match[str]) -> str:
        path = PurePosixPath(os.path.normpath(found.group()))
        if folder is not None and path.is_relative_to(folder):
            return str(path.relative_to(folder))
        return f"…/{path.name}" if path.name else "…"

    return _ABSOLUTE_PATH.sub(relative, text)


@dataclass(frozen=True)
class Audience:
    """How the page shows what bots wrote and which names."""

    public: bool = False
    """No host path, no stderr."""
    names: str = "both"
    """One of ``NAME_CHOICES``."""
    folder: PurePosixPath | None = None
    """The folder public paths are relative to: the config's."""

    def __post_init__(self) -> None:
        if self.names not in NAME_CHOICES:
            raise ValueError(f"names is one of {', '.join(NAME_CHOICES)}, not {self.names!r}")

    def text(self, written: str) -> str:
        """A bot-written text (a fault detail, a name it gave itself) as this page shows it."""
        return without_host_paths(written, self.folder) if self.public else written

    def label(self, name: str, display: str) -> str:
        """A bot's name, with the name it gave itself beside when that is shown and differs
        (as the terminal's table: ``g1 (GreedyBot 2.1)``)."""
        if self.names == "entry" or not display or display == name:
            return name
        return f"{name} ({self.text(display)})"
