"""The "arena 1" line protocol: what the harness writes and how it reads what bots write.

Pure functions and constants only (no I/O), so that the parser can be property-tested and reused by
anything that speaks to bots. See ``docs/protocol.md`` for the protocol as bot authors see it.

Harness to bot: ``arena 1``, ``game order|chaos``, ``turn <board> <last> <ms>``,
``end win|loss <reason>``, ``quit``. Bot to harness: ``ready [name]`` once, then one move line
(``c4X``) per ``turn``. Lines end in ``\\n``; a ``\\r`` before it is accepted from bots.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.records import Reason
from arena.rules import MOVE_BY_TOKEN, Move, Role

__all__ = [
    "VERSION_LINE",
    "QUIT_LINE",
    "game_line",
    "turn_line",
    "end_line",
    "parse_ready",
    "parse_reply",
    "Reply",
]

VERSION_LINE = b"arena 1\n"
QUIT_LINE = b"quit\n"
_GAME_LINES = {Role.ORDER: b"game order\n", Role.CHAOS: b"game chaos\n"}
_READY = re.compile(rb"ready(?:[ \t]+([\x20-\x7e]{1,64}))?[ \t]*")
_CELL_SHAPED = re.compile(rb"[a-zA-Z][0-9]+[xXoO]")


def game_line(role: Role) -> bytes:
    return _GAME_LINES[role]


def turn_line(board: bytes, last: bytes, ms: int) -> bytes:
    """``turn <36 chars> <last move or -> <ms>``."""
    return b"turn %s %s %d\n" % (board, last, ms)


def end_line(won: bool, reason: Reason) -> bytes:
    return b"end %s %s\n" % (b"win" if won else b"loss", reason.value.encode())


def strip_eol(line: bytes) -> bytes:
    """A line without its ``\\r`` (the ``\\n`` is already gone)."""
    return line[:-1] if line.endswith(b"\r") else line


def parse_ready(line: bytes) -> str | None:
    """The display name from a ``ready`` line ("" when none is given); None if it is not one."""
    match = _READY.fullmatch(strip_eol(line))
    if match is None:
        return None
    return (match.group(1) or b"").decode("ascii").strip()


@dataclass(frozen=True)
class Reply:
    """A bot's answer to ``turn``: a move, or the fault it amounts to and why."""

    move: Move | None
    fault: Reason | None = None
    detail: str = ""


def _show(line: bytes, limit: int = 40) -> str:
    text = repr(line[:limit])[2:-1]
    return text + ("..." if len(line) > limit else "")


def parse_reply(line: bytes) -> Reply:
    """Read one reply line (without ``\\n``) as a move token.

    A well-formed token naming a cell that does not exist (``z9X``, ``a7O``) is ``illegal``, as the
    rules say; anything else that is not a move (words, extra tokens, bytes that are not ASCII
    text) is ``malformed``. Whether the cell is free is for the referee to check.
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
        return Reply(None, Reason.ILLEGAL, f"no such cell: {_show(stripped)}")
    try:
        stripped.decode("ascii")
    except UnicodeDecodeError:
        return Reply(None, Reason.MALFORMED, f"not ASCII text: {_show(line)}")
    return Reply(None, Reason.MALFORMED, f"not a move: {_show(line)}")
