"""Which line of a crashed bot's stderr says why it crashed.

A fault's detail keeps one line of the bot's stderr, and the last line is often not the one that
explains: a Go panic ends in its stack's frames (``main.go:103 +0x40f``), Java's in ``at ...``
lines, and a Python program may log after its traceback. Runtimes mark the cause in known ways,
so the line kept is, in this order: a runtime's own crash line (Go ``panic:``, Rust ``panicked
at``, Java ``Exception in thread`` or its last ``Caused by:``, a C ``Assertion ... failed``, C++
``terminate called``); the exception line ending the last Python ``Traceback``; a line naming an
error or exception near the end; else the last line.
"""

from __future__ import annotations

import re

_CRASH_LINE = re.compile(
    r"^(?:panic: |fatal error: |Exception in thread |Caused by: |terminate called )"
    r"|^thread '.*' panicked at |panicked at |Assertion .* failed|^assertion failed"
)
"""A runtime's own words for a crash (the line stripped)."""
_TRACEBACK = "Traceback (most recent call last):"
_ERROR_LINE = re.compile(r"^(?:[\w$]+\.)*\w*(?:Error|Exception)\b(?::|$)")
"""``ValueError: ...``, ``java.lang.IllegalStateException: ...``, Node's ``Error: ...``."""
_NEAR_END = 40
"""How far from the end an error line still tells more than the last line (older ones are
likely logs of a bot that went on)."""


def telling_line(text: str) -> tuple[str, bool]:
    """The most telling non-blank line of ``text`` (stripped; "" if none), and whether it is
    the last one."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return "", False
    index = _pick(text.splitlines(), lines)
    line = lines[index]
    if line.endswith(":") and index + 1 < len(lines) and _CRASH_LINE.search(line):
        # Rust writes the message of a panic on the line after ``panicked at FILE:LINE:COL:``
        index += 1
        line = f"{line} {lines[index]}"
    return line, index == len(lines) - 1


def _pick(raw: list[str], lines: list[str]) -> int:
    """The index in ``lines`` (the stripped non-blank lines of ``raw``) of the line to keep."""
    crash = [i for i, line in enumerate(lines) if _CRASH_LINE.search(line)]
    if crash:
        return crash[-1]
    python = _python_exception(raw)
    if python is not None:
        return len(lines) - 1 - python
    start = max(0, len(lines) - _NEAR_END)
    errors = [i for i in range(start, len(lines)) if _ERROR_LINE.match(lines[i])]
    return errors[-1] if errors else len(lines) - 1


def _python_exception(raw: list[str]) -> int | None:
    """How many non-blank lines follow the exception line that ends the last Python traceback
    (its first line that is not indented), or None without a traceback."""
    starts = [i for i, line in enumerate(raw) if line.strip() == _TRACEBACK]
    if not starts:
        return None
    for i in range(starts[-1] + 1, len(raw)):
        if raw[i].strip() and not raw[i][0].isspace():
            return sum(1 for line in raw[i + 1 :] if line.strip())
    return None
