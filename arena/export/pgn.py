"""Games as PGN, for Ordo and BayesElo, with nothing a bot wrote able to change the file's meaning.

Bot- and user-controlled strings (a fault's detail, bot and tournament names) reach line-based PGN
readers, so tag values are escaped PGN strings with every non-printing character a visible escape,
the one comment (the fault's detail) holds no brace, bracket, ``%`` or ``;`` and is cut to
``MAX_COMMENT``, and move tokens are checked again (a damaged store is refused). A game from an
opening carries ``[SetUp "1"]`` and ``[Opening ...]``. The rules one by one: ``docs/exports.md``.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from datetime import UTC, datetime

from arena.errors import ArenaError
from arena.records import GameRecord
from arena.rules import Role

MAX_COMMENT = 1000
"""Characters of a fault's detail kept in a PGN comment."""

_MOVE = re.compile(r"[a-f][1-6][XOxo]")
# Printing characters: no C0/C1 controls, line or paragraph separators, zero-width or bidi
# controls (which reorder what a reader sees), surrogates or byte-order marks.
_PRINTING = (
    "\x20-\x7e\u00a0-\u200a\u2010-\u2027\u202f-\u2065\u206a-\ud7ff"
    "\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff"
)
_UNSAFE_IN_STRING = re.compile(f"[^{_PRINTING}]")
_UNSAFE_IN_COMMENT = re.compile(f"[^{_PRINTING}]|[{{}}\\[\\]%;\\\\]")


def _escape(char: str) -> str:
    """A visible escape for one character: ``\\xNN``, ``\\uNNNN`` or ``\\UNNNNNNNN``."""
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def pgn_string(value: str) -> str:
    """``value`` inside a PGN string: printing characters only, ``\\`` and ``"`` escaped."""
    visible = _UNSAFE_IN_STRING.sub(lambda m: _escape(m.group()), value)
    return visible.replace("\\", "\\\\").replace('"', '\\"')


def comment_text(value: str) -> str:
    """``value`` as the inside of a ``{...}`` comment: no brace, bracket, ``%``, ``;``, control."""
    if len(value) > MAX_COMMENT:
        value = value[:MAX_COMMENT] + "..."
    return _UNSAFE_IN_COMMENT.sub(
        lambda m: "\\\\" if m.group() == "\\" else _escape(m.group()), value
    )


def result_token(record: GameRecord) -> str:
    """``1-0`` when Order (White) won, ``0-1`` when Chaos (Black) did; there are no draws."""
    return "1-0" if record.winner is Role.ORDER else "0-1"


def _movetext(moves: Sequence[str], first_ply: int) -> list[str]:
    """Move numbers and moves; an ArenaError if a stored token is not a move (a damaged store)."""
    tokens = []
    for ply, token in enumerate(moves, first_ply):
        if not _MOVE.fullmatch(token):
            raise ArenaError(f"cannot write a game as PGN: {token!r} is not a move")
        if ply % 2 == 0:
            tokens.append(f"{ply // 2 + 1}.")
        elif ply == first_ply:
            tokens.append(f"{ply // 2 + 1}...")
        tokens.append(token)
    return tokens


def game_text(record: GameRecord, round_number: int, event: str) -> str:
    """One game: its tag pairs, a blank line, the movetext ending with the result, a blank line."""
    when = datetime.fromtimestamp(record.started_at or 0, UTC)
    result = result_token(record)
    tags = [
        ("Event", event),
        ("Site", "arena"),
        ("Date", when.strftime("%Y.%m.%d")),
        ("Round", str(round_number)),
        ("White", record.order),
        ("Black", record.chaos),
        ("Result", result),
        ("Termination", record.reason.value),
    ]
    if record.opening:  # the game starts from the opening's position, given by its moves
        _movetext(record.opening, 0)  # checked like the bots' moves
        tags += [("SetUp", "1"), ("Opening", " ".join(record.opening))]
    lines = [f'[{name} "{pgn_string(value)}"]' for name, value in tags]
    tokens = _movetext(record.moves, len(record.opening))
    if record.detail:
        tokens.append(f"{{{record.reason.value}: {comment_text(record.detail)}}}")
    tokens.append(result)
    body = textwrap.wrap(" ".join(tokens), width=79, break_long_words=False, break_on_hyphens=False)
    return "\n".join([*lines, "", *body, "", ""])
