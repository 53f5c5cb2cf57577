"""Property tests of ``arena.protocol``: the parser never raises, every move round-trips, and what a
bot wrote is always shown escaped and bounded.

Why: the protocol module is the only place where bytes from untrusted programs become moves, faults
and text shown to people; a parser that raises would crash a worker, and text shown raw would let a
bot rewrite the user's terminal.
"""

from __future__ import annotations

import ast
import string
from pathlib import Path

from conftest import REPO_ROOT
from hypothesis import example, given
from hypothesis import strategies as st

from arena.protocol import (
    NO_LAST_MOVE,
    OVERLONG,
    QUIT_LINE,
    SHOW_LIMIT,
    VERSION_LINE,
    end_line,
    escape,
    game_line,
    line_end,
    parse_ready,
    parse_reply,
    quote,
    turn_line,
    turn_suffix,
    why_not_ready,
)
from arena.rules import ALL_MOVES, FAULT_REASONS, Board, Move, Reason, Role

moves = st.sampled_from(ALL_MOVES)
blanks = st.text(alphabet=" \t", max_size=3)
names = st.text(alphabet=string.printable[:95], min_size=1, max_size=64).filter(str.strip)


def test_constant_lines() -> None:
    assert VERSION_LINE == b"arena 1\n"
    assert QUIT_LINE == b"quit\n"
    assert game_line(Role.ORDER) == b"game order\n"
    assert game_line(Role.CHAOS) == b"game chaos\n"


@given(st.lists(moves, max_size=12, unique_by=lambda m: m.cell), st.integers(1, 10**6))
def test_turn_line_is_the_board_the_last_move_and_the_time(played: list[Move], ms: int) -> None:
    board = Board()
    for count, move in enumerate(played):  # up to a five, if the drawn moves make one
        if board.is_game_over():
            played = played[:count]
            break
        board.push(move)
    last = played[-1].token.encode() if played else NO_LAST_MOVE
    line = turn_line(board.board_string().encode(), last, ms)
    assert line == b"turn " + board.board_string().encode() + b" " + last + b" %d\n" % ms
    assert line.endswith(turn_suffix(ms)) and line.count(b"\n") == 1
    assert Board.from_string(line.split()[1].decode()) == board


@given(st.booleans(), st.sampled_from(list(Reason)))
def test_end_line_names_the_result_and_the_reason(won: bool, reason: Reason) -> None:
    words = end_line(won, reason).split()
    assert words == [b"end", b"win" if won else b"loss", reason.value.encode()]


@given(moves, st.booleans(), blanks, blanks, st.booleans())
def test_every_move_token_round_trips(
    move: Move, lower: bool, before: str, after: str, crlf: bool
) -> None:
    """``c4X``, ``c4x``, with spaces or tabs around and a CR before the newline: the move."""
    token = move.token[:2] + (move.token[2].lower() if lower else move.token[2])
    line = (before + token + after).encode() + (b"\r" if crlf else b"")
    reply = parse_reply(line)
    assert reply.move == move and reply.fault is None and reply.detail == ""
    assert Move.parse(move.token) == move


@given(st.binary(max_size=2048))
@example(b"")
@example(b"z9X")
@example(b"\xff\xfe")
@example(b"\x1b[2J\x1b]0;pwned\x07")
@example(b'} [Result "1-0"]')
def test_any_bytes_parse_to_a_move_or_a_fault_with_a_bounded_detail(line: bytes) -> None:
    reply = parse_reply(line)
    if reply.move is not None:
        assert reply.fault is None
        assert reply.move.token.lower().encode() == line.strip(b" \t\r").lower()
        return
    assert reply.fault in (Reason.ILLEGAL, Reason.MALFORMED)
    assert reply.fault in FAULT_REASONS
    assert reply.detail
    assert reply.detail.isprintable(), reply.detail
    assert len(reply.detail) <= 40 + 10 * SHOW_LIMIT


@given(
    st.binary(max_size=80).map(lambda b: b.replace(b"\n", b"")),
    st.integers(0, 3000),
    st.binary(max_size=40),
    st.integers(8, 1100),
)
@example(b"a1X", 1021, b"", 1024)  # 1024 bytes: a line
@example(b"a1X", 1022, b"", 1024)  # 1025 bytes: overlong, though its newline came with it
@example(b"a1X", 4997, b"c4X\n", 1024)
def test_a_line_is_at_most_the_limit_wherever_its_newline_is(
    head: bytes, padding: int, after: bytes, limit: int
) -> None:
    """``line_end`` frames the first line: a line of at most ``limit`` bytes (without its ``\\n``)
    ends at its newline; a longer one is overlong, whether its newline has arrived or not, and
    whatever follows it; a shorter one without a newline is still coming."""
    line = head + b" " * padding
    complete = line + b"\n" + after
    if len(line) <= limit:
        assert line_end(complete, limit) == len(line)
        assert line_end(line, limit) == -1
    else:
        assert line_end(complete, limit) == OVERLONG
        assert line_end(line, limit) == OVERLONG
    for cut in range(0, len(complete) + 1, max(1, len(complete) // 7)):
        # Any prefix (what one read may bring) is a line, a line still coming, or overlong, and
        # never a line longer than the limit.
        end = line_end(complete[:cut], limit)
        assert end in (-1, OVERLONG) or (0 <= end <= limit and complete[end] == 10)


@given(names, blanks)
def test_ready_lines_carry_the_display_name(name: str, after: str) -> None:
    assert parse_ready(b"ready") == ""
    assert parse_ready(b"ready\r") == ""
    line = b"ready " + name.encode() + after.encode()
    assert parse_ready(line) == name.strip()
    assert parse_ready(line + b"\r") == name.strip()


@given(st.binary(max_size=200))
def test_ready_parses_without_raising_and_only_ready_lines(line: bytes) -> None:
    name = parse_ready(line)
    if name is not None:
        assert line.startswith(b"ready")
        assert len(name) <= 64 and name.isprintable()


@given(st.text(alphabet=string.ascii_letters, min_size=65, max_size=300))
def test_a_display_name_over_64_characters_is_not_a_ready_line(name: str) -> None:
    assert parse_ready(b"ready " + name.encode()) is None


@given(st.integers(SHOW_LIMIT + 1, 100_000))
def test_long_lines_are_cut_in_details(length: int) -> None:
    reply = parse_reply(b"x" * length)
    assert reply.fault is Reason.MALFORMED
    assert reply.detail == 'not a move: "' + "x" * SHOW_LIMIT + '..."'


@given(st.binary(max_size=500) | st.text(max_size=500), st.none() | st.integers(0, 600))
@example(b"\x1b[31mred\r\x07\x00", None)
@example("\u202egnp.exe", None)
def test_escaped_text_is_printable_and_bounded(data: bytes | str, limit: int | None) -> None:
    shown = escape(data, limit)
    assert shown.isprintable(), shown
    if limit is not None:
        assert len(shown) <= 10 * limit + 3
    # the limit counts characters: bytes are measured as the text they decode to
    text = data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else data
    assert shown.endswith("...") or limit is None or len(text) <= limit


@given(st.binary(max_size=300).map(lambda b: bytes(c & 0x7F for c in b)))
def test_escaping_ascii_can_be_undone(data: bytes) -> None:
    """Nothing is lost or confused: ``\\`` is doubled, so each escape means one byte."""
    shown = escape(data, None)
    assert shown.encode().decode("unicode_escape").encode("latin-1") == data


def test_escape_shows_control_bytes_as_hex_and_keeps_text() -> None:
    assert escape(b"\x1b[2J\r\x07") == "\\x1b[2J\\x0d\\x07"
    assert escape("été \u202e") == "été \\u202e"
    assert escape(b"caf\xc3\xa9 \xff") == "café \\xff"
    assert escape("line 1\nline 2\x1b", newlines=True) == "line 1\nline 2\\x1b"
    assert escape(b"a\\x1b") == "a\\\\x1b"
    assert escape(b"abcdef", 3) == "abc..."


@given(st.binary(max_size=300))
def test_quoted_text_has_no_bare_quote_inside(data: bytes) -> None:
    shown = quote(data)
    assert shown.startswith('"') and shown.endswith('"') and shown.isprintable()
    inside = shown[1:-1].replace("\\\\", "")
    assert '"' not in inside.replace('\\"', "")


# --- one home for the lines ----------------------------------------------------------------------

PACKAGE = REPO_ROOT / "arena"
KEYWORDS = {b"arena", b"ready", b"game", b"turn", b"end", b"quit"}
SPEAKERS = {PACKAGE / "protocol.py", PACKAGE / "bot.py"}
"""The harness's side of the protocol, and the bot's side (the author's kit reads these words)."""


def _protocol_bytes(path: Path) -> list[tuple[int, bytes]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, bytes)
        and node.value.split(b" ")[0].rstrip(b"\n") in KEYWORDS
    ]


def test_every_protocol_line_comes_from_arena_protocol() -> None:
    """No module writes ``turn``, ``game``, ``end``, ``quit`` lines of its own: a change of the
    protocol is made in ``arena.protocol`` only (the referee's hot loop included)."""
    found = {
        f"{path.relative_to(PACKAGE.parent)}:{line}: {value!r}"
        for path in PACKAGE.rglob("*.py")
        if path not in SPEAKERS
        for line, value in _protocol_bytes(path)
    }
    assert not found, f"protocol lines written outside arena.protocol: {sorted(found)}"
    assert _protocol_bytes(PACKAGE / "protocol.py")  # the check sees them where they are


@given(st.binary(max_size=200))
def test_a_refused_ready_line_says_which_rule_its_name_breaks(tail: bytes) -> None:
    """Every ``ready NAME`` line that is refused says why; an accepted one, or any other line,
    says nothing (``why_not_ready``, added to the start-up fault's detail)."""
    line = b"ready " + tail
    why = why_not_ready(line)
    if parse_ready(line) is not None:
        assert why == ""
    elif b"\n" not in tail:
        assert why.startswith(" (a display name"), (line, why)
    assert why_not_ready(b"hello " + tail) == ""
    assert why_not_ready(b"ready " + b"N" * 65).endswith("this one has 65)")
