"""The sections ``time_control:`` and ``limits:``, parsed field by field.

Their keys are the fields of ``arena.limits.TimeControl`` and ``Limits``: each field's type,
default and least sane value (its metadata) is the declaration the parser checks against.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar

from arena.config.context import Context, describe, field_kind, join, value_line
from arena.limits import Limits, Measure, TimeControl, minimum_of

_Section = TypeVar("_Section", TimeControl, Limits)


def section_hint(key: str) -> str:
    """For an unknown top-level key that is a key of a section: where it belongs."""
    for section, cls in (("time_control", TimeControl), ("limits", Limits)):
        if key in {f.name for f in dataclasses.fields(cls)}:
            return f" (did you mean {section}.{key}, under {section!r}?)"
    return ""


def parse_section(ctx: Context, top: Mapping[str, Any], key: str, cls: type[_Section]) -> _Section:
    """The section ``top[key]`` as ``cls``: each field checked against its type and least value."""
    value = top[key]
    if isinstance(value, cls):
        return value
    if not isinstance(value, Mapping):
        raise ctx.error(key, f"expected a mapping, got {describe(value)}", value_line(top, key))
    fields = {f.name: f for f in dataclasses.fields(cls)}
    ctx.check_keys(value, fields, key)
    values: dict[str, Any] = {}
    for name, item in value.items():
        kind, nullable = field_kind(fields[name])
        path = join(key, name)
        if kind == "int" and not (nullable and item is None):
            least, why = minimum_of(fields[name])
            values[name] = ctx.integer(value, name, path, minimum=least, nullable=nullable, why=why)
        elif name == "measure" and cls is TimeControl:
            values[name] = Measure(ctx.choice(value, name, path, [m.value for m in Measure]))
        elif kind == "bool" and not isinstance(item, bool) and not (nullable and item is None):
            raise ctx.error(
                path, f"expected true or false, got {describe(item)}", value_line(value, name)
            )
        else:
            values[name] = item
    if cls is TimeControl:
        _check_clock(ctx, value)
    return cls(**values)


def _check_clock(ctx: Context, section: Mapping[str, Any]) -> None:
    """A time control is a time per move or a clock, not both; an increment needs a clock."""
    clock = section.get("clock_ms")
    if clock is not None and "move_ms" in section:
        raise ctx.error(
            "time_control.move_ms",
            "move_ms or clock_ms, not both (a clock replaces the fixed time per move)",
            value_line(section, "move_ms"),
        )
    if clock is None and section.get("increment_ms"):
        raise ctx.error(
            "time_control.increment_ms",
            "an increment needs a clock: set time_control.clock_ms too",
            value_line(section, "increment_ms"),
        )
