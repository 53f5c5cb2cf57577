"""The top-level keys of one tournament file as they are parsed.

Each key is parsed once: in the declaration's order, or sooner when another key's parser needs
its value (``db`` needs ``name``). The ``bots:`` entries are expanded once too, when first counted.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from arena.config.context import Context
from arena.config.folders import Entry, expand_entries


class ParsedKeys:
    """A file's top-level mapping, the values parsed so far, and what to tell the user of it."""

    def __init__(
        self,
        ctx: Context,
        top: Mapping[str, Any],
        parsers: Mapping[str, Callable[[ParsedKeys], Any]],
        *,
        default_name: str,
        config_path: Path | None,
    ) -> None:
        self.ctx = ctx
        self.top = top
        self.default_name = default_name
        """The tournament's name when the file gives none."""
        self.config_path = config_path
        self.notices: list[str] = []
        """What the user should know about the file that is not an error."""
        self._parsers = parsers
        self._values: dict[str, Any] = {}

    def value(self, key: str) -> Any:
        """The setting of ``key``, parsed now if no parser needed it before."""
        if key not in self._values:
            self._values[key] = self._parsers[key](self)
        return self._values[key]

    @functools.cached_property
    def entries(self) -> list[Entry]:
        """The bots of ``bots:``, folder entries expanded (none when it is no list: its parser
        says what is wrong)."""
        entries, found = expand_entries(self.ctx, self.top.get("bots"))
        self.notices += found
        return entries

    def reserved(self) -> dict[Path, str]:
        """The files no bot's folder may hold: the results store and the config."""
        reserved = {self.value("db"): "the results store"}
        if self.config_path is not None:
            reserved[self.config_path] = "the config"
        return reserved
