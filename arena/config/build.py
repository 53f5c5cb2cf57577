"""The ``TournamentConfig`` of a tournament's data: its keys parsed in their declared order, each
given to its field by name.

The data comes from the YAML parser (with lines) or from plain Python (``config_from_dict``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.config.context import Context
from arena.config.keys import KEYS, TOP_KEYS
from arena.config.model import TournamentConfig
from arena.config.parsedkeys import ParsedKeys


def build(
    ctx: Context, top: Mapping[str, Any], *, default_name: str, config_path: Path | None
) -> TournamentConfig:
    """The config ``top`` describes; the first problem raises a located ``ConfigError``."""
    ctx.check_keys(top, TOP_KEYS, "")
    parsers = {key.name: key.value_in for key in KEYS}
    keys = ParsedKeys(ctx, top, parsers, default_name=default_name, config_path=config_path)
    for key in KEYS:  # in the declared order: the first mistake is the first key's
        keys.value(key.name)
    return TournamentConfig(
        name=keys.value("name"),
        path=config_path,
        bots=keys.value("bots"),
        format=keys.value("format"),
        games_per_pairing=keys.value("games_per_pairing"),
        time_control=keys.value("time_control"),
        limits=keys.value("limits"),
        workers=keys.value("workers"),
        seed=keys.value("seed"),
        db=keys.value("db"),
        sandbox=keys.value("sandbox"),
        affinity=keys.value("affinity"),
        freeze_idle=keys.value("freeze_idle"),
        executor=keys.value("executor"),
        notices=tuple(keys.notices),
        opening_plies=keys.value("openings"),
        cluster=keys.value("cluster"),
        trusted_bots=keys.value("trusted_bots"),
        keep_bots=keys.value("keep_bots"),
        rounds=keys.value("rounds"),
        until=keys.value("until"),
        budget=keys.value("budget"),
    )
