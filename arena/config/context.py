"""The checking context of a tournament file: located errors and the checks of plain values.

Every check names the file, the key path (``bots[2].path``), the line where the YAML parser
recorded one, and what was expected, in one :class:`~arena.errors.ConfigError`. The parser
(``arena.config.yamllines``) records lines on the mappings and lists it builds; plain data
(``config_from_dict``) has none, and the errors then name no line.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from arena.botspec import did_you_mean
from arena.errors import ConfigError

MAX_INT = 2**31 - 1
"""Largest count or limit: keeps rlimits, timeouts and counts far from any C overflow."""


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = repr(value)
        return text if len(text) <= 60 else text[:56] + "...'"
    if isinstance(value, int | float):
        text = repr(value)
        return text if len(text) <= 40 else f"an integer of {len(text)} digits"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return f"a {type(value).__name__}"


def key_line(container: Any, key: str) -> int | None:
    return getattr(container, "key_lines", {}).get(key)


def value_line(container: Any, key: str) -> int | None:
    return getattr(container, "value_lines", {}).get(key)


def item_line(container: Any, index: int) -> int | None:
    lines = getattr(container, "item_lines", None)
    return lines[index] if lines is not None and index < len(lines) else None


def start_line(container: Any) -> int | None:
    return getattr(container, "line", None)


def text_of(value: Any, raw: str | None) -> str | None:
    """A string, or a number written where a string was meant (as it was written)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return raw if raw is not None else str(value)
    return None


def field_kind(field: dataclasses.Field[Any]) -> tuple[str, bool]:
    """('int' | 'bool' | 'other', nullable) from a field's annotation, a string or a type."""
    kind = field.type
    annotation = (kind.__name__ if isinstance(kind, type) else str(kind)).replace(" ", "")
    parts = set(annotation.split("|"))
    nullable = "None" in parts or annotation.startswith("Optional[")
    parts.discard("None")
    if parts == {"int"}:
        return "int", nullable
    if parts == {"bool"}:
        return "bool", nullable
    return "other", nullable


class Context:
    """The file being read and its folder; makes the errors."""

    def __init__(
        self, source: str, base_dir: Path, key_hint: Callable[[str], str] | None = None
    ) -> None:
        self.source = source
        self.base_dir = base_dir
        self.key_hint = key_hint
        """Says more about an unknown top-level key (e.g. that it belongs to a section)."""

    def error(self, key: str | None, expected: str, line: int | None = None) -> ConfigError:
        return ConfigError(self.source, key, expected, line)

    def check_keys(self, mapping: Mapping[Any, Any], known: Iterable[str], path: str) -> None:
        known = list(known)
        for key in mapping:
            if not isinstance(key, str):
                raise self.error(path or None, f"expected a string key, got {describe(key)}")
            if key not in known:
                hint = did_you_mean(key, known)
                if not hint and not path and self.key_hint is not None:
                    hint = self.key_hint(key)
                raise self.error(
                    join(path, key), f"unknown key {key!r}{hint}", key_line(mapping, key)
                )

    def integer(
        self,
        mapping: Mapping[str, Any],
        key: str,
        path: str,
        *,
        minimum: int = 1,
        maximum: int = MAX_INT,
        nullable: bool = False,
        why: str = "",
    ) -> int:
        """The integer at ``mapping[key]`` (the caller handles a null that is allowed).

        ``why``: the reason for the bounds, told with the error."""
        value = mapping[key]
        if isinstance(value, int) and not isinstance(value, bool) and minimum <= value <= maximum:
            return value
        what = {1: "a positive integer", 0: "a non-negative integer"}.get(
            minimum, f"an integer >= {minimum}"
        )
        if isinstance(value, int) and not isinstance(value, bool) and value > maximum:
            what += f" no larger than {maximum}"
        if nullable:
            what += " or null"
        beyond = isinstance(value, int) and not isinstance(value, bool)
        if why and beyond and not minimum <= value <= maximum:
            what += f" ({why})"
        raise self.error(path, f"expected {what}, got {describe(value)}", value_line(mapping, key))

    def flag(self, mapping: Mapping[str, Any], key: str, path: str) -> bool:
        """The true or false at ``mapping[key]``."""
        value = mapping[key]
        if not isinstance(value, bool):
            raise self.error(
                path, f"expected true or false, got {describe(value)}", value_line(mapping, key)
            )
        return value

    def choice(
        self, mapping: Mapping[str, Any], key: str, path: str, choices: Iterable[str]
    ) -> str:
        value = mapping[key]
        choices = list(choices)
        if isinstance(value, str) and value in choices:
            return str(value)
        listed = ", ".join(repr(c) for c in choices)
        hint = did_you_mean(value, choices) if isinstance(value, str) else ""
        raise self.error(
            path,
            f"expected one of {listed}, got {describe(value)}{hint}",
            value_line(mapping, key),
        )

    def resolve(self, text: str) -> Path:
        return (self.base_dir / Path(text).expanduser()).resolve()

    def path_text(self, value: Any, path: str, line: int | None) -> str:
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        if not isinstance(value, str) or not value.strip():
            raise self.error(path, f"expected a path, got {describe(value)}", line)
        if "\0" in value:
            raise self.error(path, "expected a path, got a string with a NUL character", line)
        return value
