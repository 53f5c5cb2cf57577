"""The public API is small, stated by ``__all__`` and documented in docs/api.md.

- ``__all__`` stands only in the modules docs/api.md has a section for, and the names in all of
  them together stay few (at most ``MAX_PUBLIC_NAMES``).
- Every name of a public ``__all__`` is importable from its module and named on the page.
- The page's examples run as shown, one after another, in an empty folder.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import re
from pathlib import Path

import pytest
from conftest import REPO_ROOT

PAGE = REPO_ROOT / "docs" / "api.md"
MAX_PUBLIC_NAMES = 200


def _declared() -> dict[str, list[str]]:
    """Each module of ``arena/`` that declares ``__all__`` -> its names, read from the source."""
    found = {}
    for path in sorted((REPO_ROOT / "arena").rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
                    module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
                    assert isinstance(node, ast.Assign), f"{module}: __all__ is one literal list"
                    found[module] = list(ast.literal_eval(node.value))
    return found


def _sections() -> dict[str, str]:
    """Each module the page documents -> the text of its section (to the next heading)."""
    parts = re.split(r"^#{2,3} (.*)$", PAGE.read_text(), flags=re.MULTILINE)
    headings, bodies = parts[1::2], parts[2::2]
    return {
        match.group(1): body
        for heading, body in zip(headings, bodies, strict=True)
        if (match := re.fullmatch(r"`(arena[\w.]*)`", heading))
    }


def test_all_stands_only_in_the_documented_modules_and_stays_small() -> None:
    declared = _declared()
    assert set(declared) == set(_sections())
    total = sum(len(names) for names in declared.values())
    assert total <= MAX_PUBLIC_NAMES, f"{total} names in __all__ across arena/"


def test_every_public_name_is_importable_and_in_its_modules_section() -> None:
    sections = _sections()
    missing = []
    for module, names in _declared().items():
        imported = importlib.import_module(module)
        for name in names:
            assert hasattr(imported, name), f"{module}.__all__ names {name}, which it lacks"
            if not re.search(rf"`{re.escape(name)}\b", sections.get(module, "")):
                missing.append(f"{module}.{name}")
    assert not missing, f"public names missing from docs/api.md: {missing}"


def test_the_examples_run_as_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```pycon\n(.*?)```", PAGE.read_text(), re.DOTALL)
    assert len(blocks) >= 10
    parser, globs = doctest.DocTestParser(), {"__name__": "api_md"}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for number, block in enumerate(blocks, 1):
        test = parser.get_doctest(block, globs, f"api.md block {number}", str(PAGE), 0)
        runner.run(test, clear_globs=False)
        globs = test.globs  # a block uses what the blocks before it made
    assert runner.summarize(verbose=False).failed == 0
