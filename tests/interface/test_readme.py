"""The README's commands and shown outputs cannot drift from the CLI.

- The README names every command once, in its commands table; the table of ``docs/commands.md``
  names every option of every command, and no other.
- Every concrete command in the README and in ``docs/`` (in code blocks and inline) and every
  example of every
  ``--help`` parses as the CLI would parse it (types, choices, required arguments), and the
  files it reads exist from the repository's root (a store under ``tournaments/results/`` is the
  one its tournament file writes there; outputs and the reader's own bots are not checked).
- The example tournament, run from a copy of the repository's layout, prints the standings the
  README shows, and ``arena replay`` draws the README's game exactly as shown (its number aside:
  it follows the order in which the workers finished); ``arena report`` writes its page.
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO_ROOT, run_arena

from arena.cli import app

ROOT = REPO_ROOT
README = ROOT / "README.md"
DOCUMENTS = [README, *sorted((ROOT / "docs").glob("*.md"))]
"""Where commands are shown to readers: the README and the pages it links to."""
STORE = "tournaments/results/example.sqlite"
OUTPUT_OPTIONS = ("--out", "-o", "--record", "--db")
"""Options naming a file a command writes: not expected to exist."""
COMMANDS_PAGE = ROOT / "docs" / "commands.md"
READERS_OWN = {
    "my_bot.py",
    "mybot",
    "mybot2",
    "mine.yaml",
    "class.yaml",
    "students",
    "students/alice",
    "students/dave",
    "results/class.sqlite",
}
"""Names the README and the docs use for the reader's own bots, files and stores."""


def _commands() -> dict[str, object]:
    import typer.main

    group = typer.main.get_command(app)
    return dict(group.commands)  # type: ignore[attr-defined]


_GREETING = re.compile(r"arena \d+")
"""The protocol's first line (``arena 1``), which the protocol's page shows: not a command."""


def _blocks(document: Path = README) -> Iterator[tuple[str, list[str]]]:
    """A document's fenced code blocks: (language, lines)."""
    lang, lines, inside = "", [], False
    for line in document.read_text().splitlines():
        if line.startswith("```"):
            if inside:
                yield lang, lines
            lang, lines, inside = line[3:].strip(), [], not inside
        elif inside:
            lines.append(line)


def _readme_commands(document: Path = README) -> list[tuple[str, list[str], bool]]:
    """Concrete ``arena`` commands of a document: (as written, arguments, check paths?)."""
    found: list[tuple[str, list[str], bool]] = []
    for _lang, lines in _blocks(document):
        for line in lines:
            session = line.startswith("$ ")
            text = line[2:] if session else line
            if text.startswith("arena ") and "HOST" not in text and not _GREETING.fullmatch(text):
                found.append((text, shlex.split(text, comments=True)[1:], not session))
    for span in re.findall(r"`(arena [^`]+)`", document.read_text()):
        words = span.split()
        if "\\|" in span or "[" in span or any(w.isupper() for w in words):
            continue  # a synopsis (checked against the CLI below), not a command to run
        if len(words) == 2:
            continue  # a command's name in a sentence (`arena validate`), or the greeting
        found.append((span, shlex.split(span)[1:], True))
    return found


def _help_examples() -> list[tuple[str, list[str], bool]]:
    """The examples of every ``--help``: (as shown, arguments, check paths)."""
    found = []
    for name in ["", *_commands()]:
        done = run_arena(*([name] if name else []), "--help")
        text = done.stdout.split("\n  Example:\n", 1)[1].split("\n\n", 1)[0]
        joined = text.replace("\\\n", " ")
        for line in joined.splitlines():
            for part in line.split("&&"):
                found.append((part.strip(), shlex.split(part)[1:], True))
    return found


def _check(text: str, args: list[str], paths: bool) -> None:
    from typer.core import TyperGroup

    commands = _commands()
    assert args and args[0] in commands, text
    command = commands[args[0]]
    try:
        command.make_context(f"arena {args[0]}", list(args[1:]))  # type: ignore[attr-defined]
    except Exception as exc:
        if getattr(exc, "exit_code", None) != 0:  # --help exits, with 0
            pytest.fail(f"{text}: {exc}")
    if not paths:
        return
    assert not isinstance(command, TyperGroup)
    previous = ""
    for word in args[1:]:
        output = previous in OUTPUT_OPTIONS
        previous = word
        if output or word.startswith("-") or word.removeprefix("./") in READERS_OWN:
            continue
        if "/" not in word and not word.endswith((".yaml", ".sqlite", ".py")):
            continue
        if word.startswith("tournaments/results/"):
            config = ROOT / "tournaments" / f"{Path(word).stem}.yaml"
            assert config.is_file(), f"{text}: no tournament writes {word}"
            assert "db:" not in config.read_text(), f"{config} writes its store elsewhere"
        else:
            assert (ROOT / word).exists(), f"{text}: {word} does not exist from the root"


@pytest.mark.parametrize("source", ["readme", "help"])
def test_every_example_command_parses_and_names_real_files(source: str) -> None:
    found = _readme_commands() if source == "readme" else _help_examples()
    assert len(found) > 5
    for text, args, paths in found:
        _check(text, args, paths)


@pytest.mark.parametrize(
    "document", [d for d in DOCUMENTS[1:] if _readme_commands(d)], ids=lambda path: path.name
)
def test_every_command_in_the_docs_parses_and_names_real_files(document: Path) -> None:
    for text, args, paths in _readme_commands(document):
        _check(text, args, paths)


def test_the_readme_names_every_command_once() -> None:
    rows = re.findall(r"^\| `arena ([a-z-]+)[^`]*` \|", README.read_text(), re.MULTILINE)
    assert sorted(rows) == sorted(_commands())


def test_the_commands_table_names_every_option() -> None:
    rows = re.findall(r"^\| `arena ([a-z-]+) ([^`]*)` \|", COMMANDS_PAGE.read_text(), re.MULTILINE)
    commands = _commands()
    assert sorted(name for name, _ in rows) == sorted(commands)
    for name, synopsis in rows:
        params = commands[name].params  # type: ignore[attr-defined]
        declared = {
            o
            for p in params
            if p.param_type_name == "option"
            for o in (*p.opts, *p.secondary_opts)
            if o.startswith("--")
            and o not in ("--help", "--build", "--freeze-idle")  # defaults: their --no- shown
        }
        shown = set(re.findall(r"--[a-z0-9-]+", synopsis))
        assert shown == declared, (name, shown ^ declared)


# --- the shown outputs -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The example tournament, run as the README says, in a copy of the repository's layout."""
    root = tmp_path_factory.mktemp("repo")
    shutil.copytree(ROOT / "tournaments", root / "tournaments", ignore=_no_results)
    shutil.copytree(ROOT / "bots" / "shell", root / "bots" / "shell")
    done = run_arena("tournament", "tournaments/example.yaml", "--quiet", cwd=root, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return root, done.stdout


def _no_results(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n == "results"]


def _shown(after: str) -> list[str]:
    """The README's ``text`` block that follows the line containing ``after``."""
    text = README.read_text()
    block = text.split(after, 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    return block.splitlines()


def test_the_standings_shown_are_what_the_example_prints(example: tuple[Path, str]) -> None:
    _, printed = example
    shown = _shown("`arena tournament tournaments/example.yaml` (or `arena ratings DB`) ends with")
    assert printed.splitlines()[: len(shown)] == shown


def _untimed(lines: list[str]) -> list[str]:
    """The lines without the times of moves, which differ from run to run."""
    return [re.sub(r" in \d+(\.\d+)? ms", " in _ ms", line) for line in lines]


def test_the_replay_shown_is_what_replay_prints(example: tuple[Path, str]) -> None:
    root, _ = example
    shown = _shown("What `arena replay " + STORE)
    moves = shown[-1]
    listing = run_arena("replay", STORE, "--bot", "greedy", "--as", "order", cwd=root)
    assert listing.returncode == 0, listing.stderr
    rows = listing.stdout.splitlines()
    numbers = [line.split()[0] for line in rows if line[:4].strip().isdigit()]
    for number in numbers:
        drawn = run_arena("replay", STORE, number, cwd=root).stdout.splitlines()
        if drawn and drawn[-1] == moves:
            header = re.sub(r"^game \d+:", f"game {number}:", shown[0])
            assert _untimed(drawn) == _untimed([header, *shown[1:]])
            return
    pytest.fail(f"no game of the example tournament ends with {moves!r}")


def test_the_report_command_works_from_the_root(example: tuple[Path, str]) -> None:
    root, _ = example
    done = run_arena("report", STORE, "--out", "report.html", cwd=root, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (root / "report.html").stat().st_size > 10_000
