"""The README and docs/ stay short, current, linked and true to the code.

- README.md: at most 200 lines, none over 100 characters outside code blocks.
- No page names an issue or a dated run: figures say how to reproduce them, not when.
- Every relative link (a file, a heading's #anchor) resolves, as GitHub renders it.
- The reference of the tournament file names every key the config accepts, and no other.
- No ``pip install`` anywhere installs ``arena`` from the package index (an unrelated project).
- The Python kit's examples run as shown; ``.ci/run`` runs the README's install and test commands.
"""

from __future__ import annotations

import dataclasses
import doctest
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO_ROOT

ROOT = REPO_ROOT
README = ROOT / "README.md"
PAGES = [README, ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
KEYS_REFERENCE = ROOT / "docs" / "tournament-file.md"


def _prose(page: Path) -> Iterator[tuple[int, str]]:
    """A page's lines outside fenced code blocks, numbered from 1."""
    inside = False
    for number, line in enumerate(page.read_text().splitlines(), 1):
        if line.startswith("```"):
            inside = not inside
        elif not inside:
            yield number, line


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def test_the_readme_is_short_and_narrow() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines"
    wide = [f"{number}: {line}" for number, line in _prose(README) if len(line) > 100]
    assert not wide, "README.md lines over 100 characters:\n" + "\n".join(wide)


_ISSUE = re.compile(r"\bissues? #?\d+", re.IGNORECASE)
_DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_no_page_names_an_issue_or_a_date(page: Path) -> None:
    text = page.read_text()
    found = [m.group() for m in (*_ISSUE.finditer(text), *_DATE.finditer(text))]
    assert not found, f"{_name(page)}: {found}"


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for _, line in _prose(page):
        if match := re.match(r"#{1,6} (.+)", line):
            slug = _slug(match.group(1))
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _links(page: Path) -> Iterator[str]:
    for _, line in _prose(page):
        yield from re.findall(r"\]\(([^)\s]+)\)", line)


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for link in _links(page):
        if re.match(r"[a-z]+:", link):
            continue  # https:, mailto:: not checked here
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        missing_anchor = anchor and path.suffix == ".md" and anchor not in _anchors(path)
        if not path.exists() or missing_anchor:
            broken.append(link)
    assert not broken, f"{_name(page)}: broken links {broken}"


def _accepted_keys() -> set[str]:
    """Every key a tournament file may hold, as the config declares it."""
    from arena.config.bots import BOT_KEYS
    from arena.config.course import BUDGET_KEYS, UNTIL_KEYS
    from arena.config.folders import FOLDER_KEYS
    from arena.config.keyparsers import OPENING_KEYS
    from arena.config.keys import TOP_KEYS
    from arena.limits import Limits, TimeControl

    keys = {*TOP_KEYS, *BOT_KEYS, *FOLDER_KEYS}
    for section, inner in (
        ("openings", OPENING_KEYS),
        ("until", UNTIL_KEYS),
        ("budget", BUDGET_KEYS),
    ):
        keys |= {f"{section}.{key}" for key in inner}
    for section, cls in (("time_control", TimeControl), ("limits", Limits)):
        keys |= {f"{section}.{field.name}" for field in dataclasses.fields(cls)}
    return keys


def test_the_keys_reference_names_every_key_the_config_accepts() -> None:
    rows = re.findall(r"^\| `([a-z_.]+)` \|", KEYS_REFERENCE.read_text(), re.MULTILINE)
    documented, accepted = set(rows), _accepted_keys()
    assert accepted - documented == set(), "keys missing from docs/tournament-file.md"
    assert documented - accepted == set(), "keys documented that the config refuses"


def test_the_distribution_has_a_name_of_its_own() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] != "arena"
    own = [r for r in project["optional-dependencies"]["test"] if "[" in r]
    assert own and all(r.startswith(project["name"] + "[") for r in own)


_INSTALL = re.compile(r"pip install\b([^`\n]*)")
_REQUIREMENT = re.compile(r"[\w.\-\[\],<>=~!']+")
_ARENA = re.compile(r"arena(?:\[[^\]]*\])?(?:[<>=~!].*)?")
"""The index's ``arena``, with extras or a version, and nothing else (not ``.[report]``)."""
_SEARCHED = ("*.md", "*.py", "*.toml", "*.yaml", "*.txt", "run", "*.sh")


def _install_lines() -> Iterator[tuple[Path, str]]:
    for path in ROOT.rglob("*"):
        parts = path.relative_to(ROOT).parts
        if not path.is_file() or parts[0] in {".git", ".venv", "venv"} or "results" in parts:
            continue
        if not any(path.match(pattern) for pattern in _SEARCHED) or path == Path(__file__):
            continue
        for match in _INSTALL.finditer(path.read_text(errors="replace")):
            yield path, match.group(1)


def test_no_instruction_installs_arena_from_the_index() -> None:
    found = list(_install_lines())
    assert len(found) >= 3  # the README's, CONTRIBUTING's and the report's hint at least
    for path, arguments in found:
        words = [w.strip("'") for w in _REQUIREMENT.findall(arguments)]
        named = [w for w in words if _ARENA.fullmatch(w)]
        assert not named, f"{_name(path)}: pip install{arguments}"
    assert _ARENA.fullmatch("arena[cluster]") and not _ARENA.fullmatch("orderchaos-arena")


def test_the_kits_examples_run_as_shown() -> None:
    text = (ROOT / "docs" / "writing-a-bot.md").read_text()
    blocks = re.findall(r"```pycon\n(.*?)```", text, re.DOTALL)
    assert blocks
    for block in blocks:
        test = doctest.DocTestParser().get_doctest(block, {}, "writing-a-bot.md", None, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert runner.summarize(verbose=False).failed == 0


def _commands_under(heading: str) -> list[str]:
    """The lines of the ``sh`` blocks in the README's section ``heading``."""
    section = README.read_text().split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_ci_runs_the_readmes_install_and_test_commands() -> None:
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    commands = _commands_under("Install") + _commands_under("Tests")
    assert len(commands) >= 3
    missing = [command for command in commands if command not in ci]
    assert not missing, f".ci/run does not run {missing}"
