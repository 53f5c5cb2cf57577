"""Tournament files: load and validate a YAML file into a frozen ``TournamentConfig``.

Every key is listed, with an example file, in docs/tournament-file.md. Every problem
raises a ``ConfigError`` naming the file, the key path (``bots[2].path``), the line and what was
expected; unknown and duplicate keys are errors, and null only where it means something. The
package: ``yamllines`` (YAML parsed with lines), ``context`` (located errors, checks of plain
values), ``keys`` (every top-level key declared: its type, bounds, default and help),
``keyparsers``, ``sections``, ``course`` and ``bots`` (the parsers of the keys that need more
than a plain check), ``parsedkeys`` (each key parsed once, when its turn or another key needs
it), ``build`` (the keys parsed in order, each given to its field), ``model``
(``TournamentConfig`` and its plan).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.config.build import build
from arena.config.context import Context, describe
from arena.config.model import TournamentConfig
from arena.config.sections import section_hint
from arena.config.yamllines import parse_yaml
from arena.errors import ConfigError

__all__ = ["TournamentConfig", "load_config", "config_from_dict"]


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
    top, first_line = parse_yaml(data, ctx)
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
