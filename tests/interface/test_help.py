"""Every ``--help`` reads as a well-kept CLI's does, at 80 and 60 columns and in a pipe: nothing
wider than the terminal, no option name cut or split at a hyphen, usage lines
naming the arguments as the help does (``BOT_A``, ``[GAME]``), each default said once, and an
example of the command itself, shown whole, in every help including ``arena --help``'s."""

from __future__ import annotations

import os
import re

import pytest
from conftest import run_arena

from arena.cli import app


def _commands() -> list[str]:
    return [c.name or (c.callback.__name__ if c.callback else "") for c in app.registered_commands]


def _help(args: list[str], columns: int | None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR")}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    done = run_arena(*args, "--help", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def _option_names() -> dict[str, list[str]]:
    """Per command, the names of its options, as the CLI declares them."""
    import typer.main

    group = typer.main.get_command(app)
    out: dict[str, list[str]] = {}
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        options = [p for p in command.params if p.param_type_name == "option"]
        out[name] = [o for p in options for o in (*p.opts, *p.secondary_opts)]
    return out


@pytest.mark.parametrize("columns", [80, 60, None], ids=["80", "60", "pipe"])
@pytest.mark.parametrize("command", ["", *_commands()])
def test_help_reads_well(command: str, columns: int | None) -> None:
    args = [command] if command else []
    text = _help(args, columns)
    width = columns or 80
    for line in text.splitlines():
        assert len(line) <= width, line
    assert "\x1b" not in text and "…" not in text and "─" not in text
    usage = text.splitlines()[0]
    assert usage.startswith(f"Usage: arena {command}".rstrip())
    assert "{" not in usage and not re.search(r"\b[a-z]+_[a-z]+\b", usage), usage
    assert "[default: no-" not in text and not re.search(r"\(default \d+\)", text)
    for name in _option_names().get(command, []):
        assert re.search(rf"(^|[\s,]){re.escape(name)}([\s,=]|$)", text, re.MULTILINE), name
    example = text.split("\n  Example:\n", 1)
    assert len(example) == 2, "no example"
    shown = [line for line in example[1].splitlines() if line.startswith("    arena ")]
    assert shown and shown[0].startswith(f"    arena {command}"), shown


def test_help_is_the_same_in_a_pipe_and_on_an_80_column_terminal() -> None:
    for command in ["", *_commands()]:
        args = [command] if command else []
        assert _help(args, None) == _help(args, 80), command


@pytest.mark.parametrize("command", ["", *_commands()])
def test_help_imports_none_of_the_library_below_the_cli(command: str) -> None:
    """``--help`` stays fast by importing only the CLI and the settings it shows (``arena.limits``):
    not the rules, the error hierarchy, the protocol, the store or yaml, which the commands import
    when they run."""
    import subprocess
    import sys

    args = [command, "--help"] if command else ["--help"]
    probe = (
        "import sys\n"
        f"sys.argv = ['arena', *{args!r}]\n"
        "from arena.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(' '.join(sorted(m for m in sys.modules if m == 'yaml' or m.startswith('arena'))),"
        " file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    loaded = set(done.stderr.split())
    assert loaded <= {"arena", "arena.cli", "arena.limits"}, loaded
