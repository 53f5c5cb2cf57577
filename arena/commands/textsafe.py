"""Showing text a bot wrote without letting it act on the user's terminal.

A bot's stderr, its replies and the fault details that quote them are the bot's words: printed
raw, an ESC sequence could clear the screen, set the window title or recolour what follows, a CR
could overwrite a line, and a right-to-left override could make a forged result line look real.
``escape_bot_text`` makes every such character visible instead.

Stand-in: the referee helper adds the same function to ``arena.protocol`` (issue 10, point 8);
once it is merged, this module should re-export it and the local definition can go.
"""

from __future__ import annotations

import re

__all__ = ["escape_bot_text", "last_lines"]

# C0 controls (tab and newline included: callers split lines first), DEL, C1 controls, and the
# invisible Unicode format characters that reorder or hide text (bidi overrides and isolates,
# zero-width characters, the byte-order mark).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_bot_text(text: str, limit: int | None = None) -> str:
    """``text`` with every control or invisible formatting character written as ``\\xNN`` (or
    ``\\uNNNN``), cut to ``limit`` characters of the result with ``...`` when longer.

    Newlines and tabs are escaped too: split the text into lines first if lines are wanted.
    Backslashes are left as they are (a bot can already write ``\\x1b`` literally, and that
    is harmless).
    """
    shown = _UNSAFE.sub(_escape, text)
    if limit is not None and len(shown) > limit:
        return shown[: max(limit - 3, 0)] + "..."
    return shown


def last_lines(text: str, count: int, width: int = 200) -> list[str]:
    """The last ``count`` non-empty lines of ``text``, each escaped and cut to ``width``."""
    lines = [line for line in text.replace("\r\n", "\n").split("\n") if line.strip()]
    return [escape_bot_text(line, width) for line in lines[-count:]]
