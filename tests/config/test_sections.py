"""The kind of a section's field, read from its annotation, whatever form the annotation has."""

from __future__ import annotations

import dataclasses

from arena.config.context import field_kind


@dataclasses.dataclass
class _Stringly:
    count: int
    maybe: int | None
    flag: bool
    text: str


def test_a_field_s_kind_is_the_same_from_a_string_or_a_type() -> None:
    as_strings = [field_kind(f) for f in dataclasses.fields(_Stringly)]
    typed = dataclasses.make_dataclass(
        "Typed", [("count", int), ("maybe", int | None), ("flag", bool), ("text", str)]
    )
    as_types = [field_kind(f) for f in dataclasses.fields(typed)]
    expected = [("int", False), ("int", True), ("bool", False), ("other", False)]
    assert as_strings == expected
    assert as_types == expected
