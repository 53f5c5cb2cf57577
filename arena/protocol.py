"""The "arena 1" line protocol: every line the harness writes, how it reads what bots write, and how
it shows what they wrote.

Pure functions and constants only (no I/O), so that the parser can be property-tested
(``tests/test_protocol.py``) and reused by anything that speaks to bots. See ``docs/protocol.md``
for the protocol as bot authors see it.

Harness to bot: ``arena 1``, ``game order|chaos``, ``turn <board> <last> <ms>``,
``end win|loss <reason>``, ``quit``. Bot to harness: ``ready [name]`` once, then one move line
(``c4X``) per ``turn``. Lines end in ``\\n``; a ``\\r`` before it is accepted from bots.

Extensions are negotiated: a bot asks with ``want <feature>`` lines before its ``ready``, and
only a bot that asked ever sees their lines. ``want time`` is answered after each ``game`` line
by ``time clock <start_ms> <increment_ms> <measure>`` or ``time move <move_ms> 0 <measure>``;
``want match`` by ``match <seed>`` before the first ``game`` of each match a process serves (the
bot resets there as if started afresh with that ``ARENA_SEED``, so it may serve several).

Anything a bot wrote is shown to people (fault details, stderr tails, exports) only through
``escape`` or ``quote``: a bot must not be able to move the cursor, clear the screen or forge a
line of output on the user's terminal. Text read back from a store (bot names, display names,
details: a store is a file someone may send you) goes through ``shown``, the one place every
command and the CSV export make stored text safe.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.rules import MOVE_BY_TOKEN, Move, Reason, Role

if TYPE_CHECKING:
    from collections.abc import Collection

    from arena.limits import TimeControl


VERSION_LINE = b"arena 1\n"
QUIT_LINE = b"quit\n"
TURN_PREFIX = b"turn "
"""The start of every ``turn`` line (the referee's hot loop joins it with preformatted bytes)."""
NO_LAST_MOVE = b"-"
"""The ``<last>`` of a turn when there is no previous move (Order's first move)."""
SHOW_LIMIT = 80
"""Characters of a bot's text quoted in a fault detail: enough to recognise it, one line."""

_GAME_LINES = {Role.ORDER: b"game order\n", Role.CHAOS: b"game chaos\n"}
NAME_MAX = 64
"""The longest display name a ``ready`` line may give."""
_READY = re.compile(rb"ready(?:[ \t]+([\x20-\x7e]{1,%d}))?[ \t]*" % NAME_MAX)
_CELL_SHAPED = re.compile(rb"[a-zA-Z][0-9]+[xXoO]")


def game_line(role: Role) -> bytes:
    return _GAME_LINES[role]


def turn_suffix(ms: int) -> bytes:
    """The end of every ``turn`` line of a game, `` <ms>\\n``, built once per game so that the
    referee's hot loop joins preformatted bytes: ``TURN_PREFIX + board + b" " + last + suffix``."""
    return b" %d\n" % ms


def turn_line(board: bytes, last: bytes, ms: int) -> bytes:
    """``turn <36 chars> <last move or -> <ms>``."""
    return TURN_PREFIX + board + b" " + last + turn_suffix(ms)


FEATURES = frozenset({"time", "match"})
"""The extensions a bot may ask for with ``want <feature>`` before its ``ready``."""
_WANT = re.compile(rb"want[ \t]+([a-z]{1,32})[ \t]*")


def parse_want(line: bytes) -> str | None:
    """The feature a ``want <feature>`` line asks for (known or not); None if it is not one."""
    match = _WANT.fullmatch(strip_eol(line))
    return None if match is None else match.group(1).decode("ascii")


def time_line(clock_ms: int | None, increment_ms: int, move_ms: int, measure: str) -> bytes:
    """``time clock <start_ms> <increment_ms> <measure>`` under a game clock, else ``time move
    <move_ms> 0 <measure>``: the extension ``want time`` asks for, sent after each ``game``."""
    if clock_ms is None:
        return b"time move %d 0 %s\n" % (move_ms, measure.encode())
    return b"time clock %d %d %s\n" % (clock_ms, increment_ms, measure.encode())


def match_line(seed: int) -> bytes:
    """``match <seed>``: the extension ``want match`` asks for, sent before the first ``game`` of
    each match a process serves; ``<seed>`` is the ``ARENA_SEED`` a process started afresh for
    that match would have had (so a bot that reseeds and resets there plays the same games)."""
    return b"match %d\n" % seed


def game_lines(
    role: Role, wants: Collection[str], tc: TimeControl, match_seed: int | None = None
) -> bytes:
    """``game <role>`` with the lines of the extensions a bot asked for (``wants``): ``match
    <match_seed>`` before it when a seed is given (the first game of a match for its process),
    ``time ...`` (of ``tc``) after it."""
    lines = game_line(role)
    if "match" in wants and match_seed is not None:
        lines = match_line(match_seed) + lines
    if "time" in wants:
        lines += time_line(tc.clock_ms, tc.increment_ms, tc.move_ms, tc.measure.value)
    return lines


def end_line(won: bool, reason: Reason) -> bytes:
    return b"end %s %s\n" % (b"win" if won else b"loss", reason.value.encode())


def strip_eol(line: bytes) -> bytes:
    """A line without its ``\\r`` (the ``\\n`` is already gone)."""
    return line[:-1] if line.endswith(b"\r") else line


OVERLONG = -2
"""``line_end``'s answer for a line longer than the limit (a fault, whatever follows)."""


def line_end(buf: bytes | bytearray, limit: int) -> int:
    """Where the first line in ``buf`` ends: the index of its ``\\n``; -1 while it may still come
    (no ``\\n`` yet, at most ``limit`` bytes); ``OVERLONG`` once more than ``limit`` bytes stand
    before its ``\\n`` (or before none yet).

    A line is at most ``limit`` bytes without its ``\\n`` (a ``\\r`` before it counts): the
    newline is looked for only within the first ``limit + 1`` bytes, so that a long line is
    overlong whether or not its newline has arrived.
    """
    end = buf.find(b"\n", 0, limit + 1)
    if end < 0 and len(buf) > limit:
        return OVERLONG
    return end


def parse_ready(line: bytes) -> str | None:
    """The display name from a ``ready`` line ("" when none is given); None if it is not one."""
    match = _READY.fullmatch(strip_eol(line))
    if match is None:
        return None
    return (match.group(1) or b"").decode("ascii").strip()


_READY_NAMED = re.compile(rb"ready[ \t]+(.*)", re.DOTALL)


def why_not_ready(line: bytes) -> str:
    """For a line that reads ``ready NAME`` but is refused: why, as `` (...)`` (the display name's
    rule it breaks); "" for any other line."""
    match = _READY_NAMED.fullmatch(strip_eol(line))
    if match is None:
        return ""
    name = match.group(1).rstrip(b" \t")
    if any(not 0x20 <= byte <= 0x7E for byte in name):
        return " (a display name is printable ASCII only)"
    if len(name) > NAME_MAX:
        return f" (a display name has at most {NAME_MAX} characters; this one has {len(name)})"
    return ""


@dataclass(frozen=True)
class Reply:
    """A bot's answer to ``turn``: a move, or the fault it amounts to and why."""

    move: Move | None
    fault: Reason | None = None
    detail: str = ""


def parse_reply(line: bytes) -> Reply:
    """Read one reply line (without ``\\n``) as a move token.

    A well-formed token naming a cell that does not exist (``z9X``, ``a7O``) is ``illegal``, as the
    rules say; anything else that is not a move (words, extra tokens, bytes that are not ASCII
    text) is ``malformed``, with the line quoted. Whether the cell is free is for the referee.
    """
    line = strip_eol(line)
    move = MOVE_BY_TOKEN.get(line)
    if move is not None:
        return Reply(move)
    stripped = line.strip(b" \t")
    move = MOVE_BY_TOKEN.get(stripped)
    if move is not None:
        return Reply(move)
    if _CELL_SHAPED.fullmatch(stripped):
        # Letters, digits and a mark only: safe and unambiguous without quotes.
        return Reply(None, Reason.ILLEGAL, f"no such cell: {escape(stripped)}")
    try:
        stripped.decode("ascii")
    except UnicodeDecodeError:
        return Reply(None, Reason.MALFORMED, f"not ASCII text: {quote(line)}")
    return Reply(None, Reason.MALFORMED, f"not a move: {quote(line)}")


def _escape_char(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8 (kept by "surrogateescape")
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def escape(
    data: bytes | bytearray | str, limit: int | None = SHOW_LIMIT, *, newlines: bool = False
) -> str:
    """What a bot wrote, safe to show on a terminal or in any text output.

    Printable characters stay as they are (UTF-8 text is decoded), ``\\`` is doubled, and every
    other character (control bytes such as ESC, CR, BEL, bytes that are not UTF-8, invisible
    Unicode formatting such as a right-to-left override) becomes ``\\xNN``, ``\\uNNNN`` or
    ``\\UNNNNNNNN``; ``newlines=True`` keeps ``\\n`` (for a multi-line stderr tail). The text is cut
    to ``limit`` characters (None: no limit), marked by ``...``.
    """
    if isinstance(data, bytes | bytearray):
        shown = data if limit is None else data[: 4 * limit + 4]  # a character is <= 4 bytes
        text = bytes(shown).decode("utf-8", "surrogateescape")
        cut = len(shown) < len(data)
    else:
        text, cut = data, False
    cut = cut or (limit is not None and len(text) > limit)
    if cut:
        text = text[:limit]
    parts = []
    for char in text:
        if char == "\\":
            parts.append("\\\\")
        elif char.isprintable() or (newlines and char == "\n"):
            parts.append(char)
        else:
            parts.append(_escape_char(char))
    return "".join(parts) + ("..." if cut else "")


def quote(data: bytes | bytearray | str, limit: int | None = SHOW_LIMIT) -> str:
    """``escape`` in double quotes (a ``"`` inside is ``\\"``): where the quoted text starts and
    ends stays visible, trailing spaces included."""
    return '"' + escape(data, limit).replace('"', '\\"') + '"'


def shown(text: str, limit: int | None = None) -> str:
    """Stored text (a bot's name or display name, a fault's detail), safe to print on a terminal
    or to write in a CSV cell, cut to ``limit`` characters (then ``...``; None: whole).

    Text whose every character prints is kept as it is: what the referee stored is escaped
    already (``quote``), and escaping it again would double its backslashes. Anything else (a
    store written by hand or by an older arena: ESC, BEL, a newline, a right-to-left override)
    is ``escape``d, so that no stored string can retitle or clear the terminal, or start a line
    or a row of its own.
    """
    if not text.isprintable():
        return escape(text, limit)
    return text if limit is None or len(text) <= limit else text[:limit] + "..."
