"""Parsing YAML with line numbers: mappings and lists that remember where each item was written.

PyYAML's composer gives nodes with positions; ``_Converter`` turns them into ``LineMap`` and
``LineSeq`` (plain ``dict``/``list`` subclasses) that keep the line of every key and value and
the source text of plain scalars (so ``1.10`` given as a name stays ``1.10``), rejecting what
YAML accepts silently but a tournament file must not hold: duplicate keys, tags, recursive
aliases.
"""

from __future__ import annotations

import sys
from typing import Any

import yaml

from arena.config.context import Context, describe, join


class LineMap(dict[str, Any]):
    """A mapping read from YAML, remembering the line of each key and value."""

    def __init__(self, line: int) -> None:
        super().__init__()
        self.line = line
        self.key_lines: dict[str, int] = {}
        self.value_lines: dict[str, int] = {}
        self.raw: dict[str, str | None] = {}  # the source text of plain scalar values


class LineSeq(list[Any]):
    """A sequence read from YAML, remembering the line of each item."""

    def __init__(self, line: int) -> None:
        super().__init__()
        self.line = line
        self.item_lines: list[int] = []
        self.raw: list[str | None] = []


_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MERGE_TAG = "tag:yaml.org,2002:merge"


def _line_of(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def _plain_text(node: yaml.Node) -> str | None:
    if isinstance(node, yaml.ScalarNode) and node.style is None:
        return str(node.value)
    return None


class _Converter:
    """Turns composed YAML nodes into ``LineMap``/``LineSeq``/scalars, rejecting duplicate keys."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.constructor = yaml.constructor.SafeConstructor()
        self.done: dict[int, Any] = {}
        self.active: set[int] = set()

    def convert(self, node: yaml.Node, path: str) -> Any:
        if isinstance(node, yaml.ScalarNode):
            if node.tag not in self.constructor.yaml_constructors:
                raise self.ctx.error(
                    path or None, f"expected no YAML tag, got {node.tag!r}", _line_of(node)
                )
            try:
                return self.constructor.construct_object(node, deep=True)
            except yaml.YAMLError as exc:
                problem = getattr(exc, "problem", None) or str(exc)
                raise self.ctx.error(
                    path or None, f"expected a plain value, {problem}", _line_of(node)
                ) from None
            except ValueError:  # Python reads no integer longer than its limit (4300 digits)
                limit = sys.get_int_max_str_digits()
                digits = sum(char.isdigit() for char in str(node.value))
                raise self.ctx.error(
                    path or None,
                    f"expected a number of at most {limit} digits, got one of {digits}",
                    _line_of(node),
                ) from None
        key = id(node)
        if key in self.done:
            return self.done[key]
        if key in self.active:
            raise self.ctx.error(
                path or None, "expected a value, got a recursive alias", _line_of(node)
            )
        self.active.add(key)
        try:
            if isinstance(node, yaml.SequenceNode):
                value: Any = self._sequence(node, path)
            elif isinstance(node, yaml.MappingNode):
                value = self._mapping(node, path)
            else:  # pragma: no cover - the composer makes nothing else
                raise self.ctx.error(path or None, "expected a value", _line_of(node))
        finally:
            self.active.discard(key)
        self.done[key] = value
        return value

    def _check_tag(self, node: yaml.Node, tag: str, path: str) -> None:
        if node.tag != tag:
            raise self.ctx.error(
                path or None, f"expected no YAML tag, got {node.tag!r}", _line_of(node)
            )

    def _sequence(self, node: yaml.SequenceNode, path: str) -> LineSeq:
        self._check_tag(node, _SEQ_TAG, path)
        seq = LineSeq(_line_of(node))
        for i, item in enumerate(node.value):
            seq.append(self.convert(item, f"{path}[{i}]"))
            seq.item_lines.append(_line_of(item))
            seq.raw.append(_plain_text(item))
        return seq

    def _mapping(self, node: yaml.MappingNode, path: str) -> LineMap:
        self._check_tag(node, _MAP_TAG, path)
        own = LineMap(_line_of(node))
        merged: list[LineMap] = []
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:  # "<<: *defaults"
                sources = (
                    value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                )
                for source in sources:
                    if not isinstance(source, yaml.MappingNode):
                        raise self.ctx.error(
                            path or None,
                            "expected a mapping (or a list of mappings) after '<<'",
                            _line_of(source),
                        )
                    merged.append(self.convert(source, path))
                continue
            key = self.convert(key_node, path)
            if not isinstance(key, str):
                raise self.ctx.error(
                    path or None,
                    f"expected a string key, got {describe(key)}",
                    _line_of(key_node),
                )
            key_path = join(path, key)
            if key in own:
                raise self.ctx.error(
                    key_path,
                    f"duplicate key {key!r} (first given at line {own.key_lines[key]})",
                    _line_of(key_node),
                )
            own[key] = self.convert(value_node, key_path)
            own.key_lines[key] = _line_of(key_node)
            own.value_lines[key] = _line_of(value_node)
            own.raw[key] = _plain_text(value_node)
        if not merged:
            return own
        result = LineMap(own.line)
        # Earlier merge sources win over later ones, and the mapping's own keys over all of them.
        for source in [*reversed(merged), own]:
            for key, value in source.items():
                result[key] = value
                result.key_lines[key] = source.key_lines[key]
                result.value_lines[key] = source.value_lines[key]
                result.raw[key] = source.raw[key]
        return result


def parse_yaml(data: bytes, ctx: Context) -> tuple[Any, int]:
    """The document in ``data`` parsed with lines, and the line it starts on; errors located."""
    try:
        root = yaml.compose(data, Loader=yaml.SafeLoader)
        top = None if root is None else _Converter(ctx).convert(root, "")
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        detail = "; ".join(str(p) for p in (exc.context, exc.problem) if p)
        raise ctx.error(
            None, f"invalid YAML: {detail}", None if mark is None else mark.line + 1
        ) from None
    except yaml.reader.ReaderError as exc:  # bad encoding or a control character
        detail = str(exc).splitlines()[0]
        raise ctx.error(None, f"invalid YAML: {detail}", _error_line(data, exc.position)) from None
    except yaml.YAMLError as exc:
        detail = " ".join(str(exc).split())
        raise ctx.error(None, f"invalid YAML: {detail}") from None
    except RecursionError:
        raise ctx.error(None, "invalid YAML: nested too deeply") from None
    if root is None:
        raise ctx.error(None, "expected a mapping at the top level, got an empty file", 1)
    return top, _line_of(root)


def _error_line(data: bytes, position: int) -> int:
    try:
        return data.decode("utf-8")[:position].count("\n") + 1
    except UnicodeDecodeError:
        return data[:position].count(b"\n") + 1  # the position is then a byte offset
