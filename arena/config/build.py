"""Building the ``TournamentConfig`` of a tournament's data, key by key as ``keys`` declares.

The data comes from the YAML reader (with lines) or from plain Python (``config_from_dict``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.config.context import Context
from arena.config.keys import KEYS, TOP_KEYS
from arena.config.model import TournamentConfig
from arena.config.reading import Reading


def build(
    ctx: Context, top: Mapping[str, Any], *, default_name: str, config_path: Path | None
) -> TournamentConfig:
    """The config ``top`` describes; the first problem raises a located ``ConfigError``."""
    ctx.check_keys(top, TOP_KEYS, "")
    readers = {key.name: key.read for key in KEYS}
    reading = Reading(ctx, top, readers, default_name=default_name, config_path=config_path)
    values = {key.field or key.name: reading.value(key.name) for key in KEYS}
    return TournamentConfig(path=config_path, notices=tuple(reading.notices), **values)
