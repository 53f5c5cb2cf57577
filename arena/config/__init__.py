"""Tournament files: load and validate a YAML file into a frozen ``TournamentConfig``.

A tournament file looks like this (every key but ``bots`` is optional)::

    name: ladder                      # default: the file's stem
    bots:
      - random                        # a bundled bot: bots/random/main.py (or bots/random_bot.py)
      - name: mine
        path: ../bots/mine.py         # relative paths are relative to the file's folder
      - name: greedy-v2
        command: [python3, mybots/greedy.py, --depth, "2"]   # or one string, split like a shell
        dir: mybots                   # the bot's folder (the sandbox exposes it read-only)
    format: round-robin               # round-robin | gauntlet (the first bot against each other)
    games_per_pairing: 10             # games per ordered pair (A as Order against B as Chaos)
    time_control: {move_ms: 100, startup_ms: 5000}   # any field of arena.limits.TimeControl:
    #   {clock_ms: 60000, increment_ms: 500} a game clock instead of move_ms; measure: wall | cpu;
    #   margin_ms: lateness forgiven
    limits: {memory_mb: 1024}         # any field of arena.limits.Limits
    workers: 2                        # default: the number of usable cores
    seed: 1
    db: results/ladder.sqlite         # default: results/<name>.sqlite beside the file
    sandbox: auto                     # auto | bwrap | none
    affinity: auto                    # auto | on | off
    freeze_idle: false                # freeze the bot that is not on move
    executor: local                   # local | inline | cluster (executors.EXECUTORS)
    cluster: tcp://scheduler:8786     # a Dask cluster (or local:N): the cluster executor
    trusted_bots: false               # true: on a cluster, bots may run without bubblewrap

Every problem raises :class:`arena.errors.ConfigError` naming the file, the key path (such as
``bots[2].path``), the line where the file gives one and what was expected; no YAML exception or
traceback escapes. Unknown keys are errors (with the closest known key as a suggestion), and so
are duplicate keys, which YAML itself would silently accept.

Null is accepted only where it means something (``limits.cpu_seconds``, ``limits.processes`` and
``time_control.clock_ms``). A time control is ``move_ms`` or ``clock_ms``, not both, and an
``increment_ms`` needs a ``clock_ms``.

The package: ``yamlread`` (YAML with lines), ``context`` (located errors, checks of plain
values), ``build`` (the keys, bots included), ``model`` (``TournamentConfig`` and its plan).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.botspec import BOT_NAME_RE, bundled_bot_names, bundled_bot_path
from arena.config.build import build, section_hint
from arena.config.context import Context, describe
from arena.config.model import TournamentConfig
from arena.config.yamlread import read_yaml
from arena.errors import ConfigError
from arena.tournament.schedule import FORMATS

__all__ = [
    "TournamentConfig",
    "FORMATS",
    "BOT_NAME_RE",
    "load_config",
    "config_from_dict",
    "bundled_bot_path",
    "bundled_bot_names",
]


def load_config(path: str | os.PathLike[str]) -> TournamentConfig:
    """Read and validate a tournament file; every problem raises :class:`ConfigError`."""
    try:
        source = os.fsdecode(path)
    except TypeError:
        raise ConfigError(repr(path), None, "expected the path of a tournament file") from None
    ctx = Context(source, Path.cwd(), section_hint)
    file = Path(source).expanduser()
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise ctx.error(None, "file not found") from None
    except IsADirectoryError:
        raise ctx.error(None, "expected a YAML file, got a directory") from None
    except PermissionError:
        raise ctx.error(None, "file not readable (permission denied)") from None
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise ctx.error(None, f"file not readable ({reason})") from None
    try:
        resolved = file.resolve()
    except (OSError, RuntimeError):  # pragma: no cover - it was just read
        resolved = file.absolute()
    ctx.base_dir = resolved.parent
    top, first_line = read_yaml(data, ctx)
    if not isinstance(top, Mapping):
        raise ctx.error(
            None, f"expected a mapping at the top level, got {describe(top)}", first_line
        )
    return build(ctx, top, default_name=resolved.stem, config_path=resolved)


def config_from_dict(
    data: Mapping[str, Any],
    source: str = "<dict>",
    base_dir: str | os.PathLike[str] | None = None,
) -> TournamentConfig:
    """Validate a tournament given as plain data (the same keys as the file).

    Relative paths are taken from ``base_dir`` (default: the current directory); ``source`` names
    the data in errors. Besides the file's plain values, ``time_control``/``limits`` may be
    :class:`TimeControl`/:class:`Limits`, bots may be :class:`BotSpec`, and paths ``Path``.
    """
    base = Path.cwd() if base_dir is None else Path(base_dir).expanduser().resolve()
    ctx = Context(source, base, section_hint)
    if not isinstance(data, Mapping):
        raise ctx.error(None, f"expected a mapping at the top level, got {describe(data)}")
    default_name = "tournament" if source.startswith("<") else Path(source).stem
    return build(ctx, data, default_name=default_name, config_path=None)
