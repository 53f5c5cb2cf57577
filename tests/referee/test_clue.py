"""The line kept from a crashed bot's stderr is the one that says why, in each runtime's shape.

The texts are the shapes these runtimes print (Go, Rust, Java, C, C++, Python, Node); the
end-to-end cases, a real process's stderr through the referee, are ``go_panic`` and
``traceback_then_log`` in ``test_referee``.
"""

from __future__ import annotations

import pytest

from arena.referee.clue import telling_line
from arena.referee.verdicts import stderr_clue

GO = """searching depth 3
panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x47f1a2]

goroutine 1 [running]:
main.(*Board).Play(0x0, {0xc00001c0a8, 0x3})
\t/home/student/bot/board.go:41 +0x22
main.main()
\t/home/student/bot/main.go:103 +0x40f
exit status 2
"""
RUST_NEW = """thread 'main' panicked at src/main.rs:27:14:
called `Option::unwrap()` on a `None` value
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
"""
RUST_OLD = (
    "thread 'main' panicked at 'index out of bounds: the len is 36 but the index is 36',"
    " src/main.rs:9:5\nnote: run with `RUST_BACKTRACE=1` environment variable to display a"
    " backtrace\n"
)
JAVA = """Exception in thread "main" java.lang.RuntimeException: move failed
\tat Bot.play(Bot.java:40)
\tat Bot.main(Bot.java:12)
Caused by: java.lang.ArrayIndexOutOfBoundsException: Index 36 out of bounds for length 36
\tat Bot.cell(Bot.java:77)
\t... 2 more
"""
C_ASSERT = "bot: bot.c:57: choose: Assertion `cell < 36' failed.\n"
CPP = """terminate called after throwing an instance of 'std::out_of_range'
  what():  vector::_M_range_check: __n (which is 36) >= this->size() (which is 36)
"""
PYTHON = """Traceback (most recent call last):
  File "/bots/alice/main.py", line 12, in choose
    return table[key]
           ~~~~~^^^^^
KeyError: 'a1'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/bots/alice/main.py", line 30, in <module>
    main()
ValueError: no move for this board
bot: shutting down, state saved
"""
NODE = """/bots/bob/main.js:14
    const cell = board.emptyCells()[0].index;
                                       ^

TypeError: Cannot read properties of undefined (reading 'index')
    at choose (/bots/bob/main.js:14:40)
    at Interface.<anonymous> (/bots/bob/main.js:30:5)

Node.js v20.11.0
"""


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (GO, "panic: runtime error: invalid memory address or nil pointer dereference"),
        (
            RUST_NEW,
            "thread 'main' panicked at src/main.rs:27:14: called `Option::unwrap()` on a"
            " `None` value",
        ),
        (
            RUST_OLD,
            "thread 'main' panicked at 'index out of bounds: the len is 36 but the index is"
            " 36', src/main.rs:9:5",
        ),
        (
            JAVA,
            "Caused by: java.lang.ArrayIndexOutOfBoundsException: Index 36 out of bounds for"
            " length 36",
        ),
        (C_ASSERT, "bot: bot.c:57: choose: Assertion `cell < 36' failed."),
        (CPP, "terminate called after throwing an instance of 'std::out_of_range'"),
        (PYTHON, "ValueError: no move for this board"),
        (NODE, "TypeError: Cannot read properties of undefined (reading 'index')"),
    ],
    ids=["go", "rust", "rust-old", "java", "c-assert", "c++", "python", "node"],
)
def test_the_line_kept_is_the_one_that_says_why(text: str, line: str) -> None:
    assert telling_line(text)[0] == line


def test_without_a_known_shape_the_last_line_is_kept_and_said_to_be_last() -> None:
    assert telling_line("starting\nout of ideas, giving up\n\n") == (
        "out of ideas, giving up",
        True,
    )
    assert stderr_clue("starting\nout of ideas\n") == "last on stderr: out of ideas"
    assert stderr_clue(GO).startswith("on stderr: panic: runtime error")
    assert stderr_clue(" \n") == ""


def test_an_old_error_line_far_above_the_end_is_not_the_cause() -> None:
    """A bot that logged an error long ago and went on died of something else: its last line."""
    text = "ValueError: retrying\n" + "".join(f"move {i}\n" for i in range(60)) + "bye\n"
    assert telling_line(text) == ("bye", True)


def test_what_the_bot_wrote_is_escaped_and_cut() -> None:
    clue = stderr_clue("panic: \x1b[2J" + "x" * 500 + "\ngoroutine 1 [running]:\n")
    assert "\x1b" not in clue and "\\x1b" in clue and len(clue) < 230
