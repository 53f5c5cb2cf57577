"""The layering of the package, enforced: no module imports one of a layer above its own.

``docs/architecture.md`` describes the layers; this test is what keeps them. Every import counts,
lazy ones inside functions included (the CLI imports lazily for a fast start, but a lazy import
upwards is still a dependency upwards). A new module must be given its layer here, on purpose.
"""

from __future__ import annotations

import ast
import enum
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "arena"

# From the bottom up: a layer is a set of modules and packages, and a package's modules are in
# its layer, so that where a module lives says what it may import. A module is placed by the
# longest prefix of its dotted name listed here.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "game model",
        ("arena.rules", "arena.errors", "arena.lazy", "arena.botlib", "arena.boardview"),
    ),
    (
        "bots and their processes",
        (
            "arena.protocol",
            "arena.records",
            "arena.limits",
            "arena.botspec",
            "arena.botfolder",
            "arena.bot",
            "arena.launch",
        ),
    ),
    ("referee", ("arena.referee",)),
    ("store, ratings and exports", ("arena.store", "arena.ratings", "arena.export")),
    ("tournament", ("arena.tournament",)),
    (
        "interface",
        ("arena.config", "arena.cli", "arena.commands", "arena.report", "arena.__main__"),
    ),
)

# Narrower rules inside a layer: these may import nothing of arena but what is listed.
ONLY: dict[str, tuple[str, ...]] = {
    "arena.rules": (),
    "arena.boardview": ("arena.rules",),
    "arena.botlib": ("arena.rules", "arena.botlib"),
    "arena.bot": ("arena.rules", "arena.protocol", "arena.botlib"),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _matches(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _layer_of(name: str) -> int | None:
    best: tuple[int, int] | None = None  # (prefix length, layer)
    for index, (_title, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if _matches(name, prefix) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    return None if best is None else best[1]


def _imports(path: Path, module: str) -> set[str]:
    """Every arena module named by an import statement anywhere in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            # `from arena import procfs` names the module arena.launch.procfs
            found.update(f"{target}.{alias.name}" for alias in node.names)
    known = {m for m in found if m == "arena" or m.startswith("arena.")}
    # Keep only names that are modules or packages (not `from arena.rules import Board`).
    return {m for m in known if _is_module(m)}


def _is_module(name: str) -> bool:
    relative = Path(*name.split(".")[1:]) if "." in name else Path()
    return (PACKAGE / relative).with_suffix(".py").is_file() or (
        PACKAGE / relative / "__init__.py"
    ).is_file()


MODULES = sorted(
    (p for p in PACKAGE.rglob("*.py") if "_bundled_bots" not in p.parts),
    key=lambda p: str(p),
)


def test_every_module_has_a_layer() -> None:
    unplaced = [
        _module_name(p)
        for p in MODULES
        if _module_name(p) != "arena" and _layer_of(_module_name(p)) is None
    ]
    assert not unplaced, f"give these modules a layer in tests/test_layers.py: {unplaced}"


def test_a_folder_is_one_layer() -> None:
    """Where a module lives is its layer: every module of a package has the package's layer."""
    split = []
    for path in MODULES:
        module = _module_name(path)
        parts = module.split(".")
        if len(parts) > 2 and _layer_of(module) != _layer_of(".".join(parts[:2])):
            split.append(module)
    assert not split, f"modules placed apart from their folder's layer: {split}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: _module_name(p))
def test_no_import_from_a_layer_above(path: Path) -> None:
    module = _module_name(path)
    if module == "arena":
        return  # the package's own __init__ only documents the layers
    own = _layer_of(module)
    assert own is not None
    upward = []
    for target in sorted(_imports(path, module)):
        if target == "arena":
            continue
        layer = _layer_of(target)
        if layer is not None and layer > own:
            upward.append(f"{target} ({LAYERS[layer][0]})")
    assert not upward, f"{module} ({LAYERS[own][0]}) imports from above: {upward}"


@pytest.mark.parametrize("prefix", sorted(ONLY))
def test_narrow_modules_import_only_what_they_may(prefix: str) -> None:
    allowed = ONLY[prefix]
    for path in MODULES:
        module = _module_name(path)
        if not _matches(module, prefix) or any(
            _matches(module, other) and len(other) > len(prefix) for other in ONLY
        ):
            continue
        extra = [
            t
            for t in _imports(path, module)
            if t != "arena" and not any(_matches(t, a) for a in allowed)
        ]
        assert not extra, f"{module} may import only {allowed} of arena, not {extra}"


def test_the_checker_sees_an_upward_import(tmp_path: Path) -> None:
    """The walk itself works: a lazy import inside a function is found and placed."""
    source = tmp_path / "probe.py"
    source.write_text("def f():\n    from arena.cli import main\n    from arena import store\n")
    found = _imports(source, "arena.probe")
    assert {"arena.cli", "arena.store"} <= found
    assert _layer_of("arena.cli") == len(LAYERS) - 1
    assert _layer_of("arena.rules") == 0


# --- docs/architecture.md names every module, with the layer it has here ------------------------

ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"

# The module tables: a heading per layer (``### <layer>``), then a row per module of that layer's
# folders: | `arena/path.py` | its one job |
_HEADING = re.compile(r"^###\s+(.+?)\s*$")
_ROW = re.compile(r"^\|\s*`(arena/[\w/]+\.py)`\s*\|\s*(.+?)\s*\|\s*$")


def _documented_modules(text: str) -> dict[str, tuple[str, str]]:
    """The module tables of the architecture document: path -> (layer heading, job)."""
    rows: dict[str, tuple[str, str]] = {}
    layer = ""
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            layer = heading.group(1)
        match = _ROW.match(line)
        if match:
            path, job = match.groups()
            assert path not in rows, f"docs/architecture.md names {path} twice"
            rows[path] = (layer, job)
    return rows


def _relative(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


def test_the_architecture_document_names_every_module_and_only_those() -> None:
    rows = _documented_modules(ARCHITECTURE.read_text(encoding="utf-8"))
    present = {_relative(p) for p in MODULES if _module_name(p) != "arena"}
    missing = sorted(present - set(rows))
    gone = sorted(set(rows) - present)
    assert not missing, f"give these modules a line in docs/architecture.md: {missing}"
    assert not gone, f"docs/architecture.md names modules that no longer exist: {gone}"


def test_the_architecture_document_gives_each_module_its_layer() -> None:
    rows = _documented_modules(ARCHITECTURE.read_text(encoding="utf-8"))
    wrong = []
    for path in MODULES:
        module = _module_name(path)
        if module == "arena":
            continue  # the package itself: its docstring maps the layers
        layer = _layer_of(module)
        said, job = rows.get(_relative(path), ("", ""))
        expected = LAYERS[layer][0] if layer is not None else ""
        if said != expected or not job:
            wrong.append(f"{_relative(path)}: {said!r}, not {expected!r}")
    assert not wrong, f"docs/architecture.md's layers differ from LAYERS: {wrong}"


def test_the_document_check_sees_a_missing_and_a_gone_module() -> None:
    """The check itself works: a table without a module, or with an invented one, is caught."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    rows = _documented_modules(text)
    assert "arena/rules.py" in rows and rows["arena/rules.py"][0] == "game model"
    without = "\n".join(line for line in text.splitlines() if "`arena/rules.py`" not in line)
    assert "arena/rules.py" not in _documented_modules(without)
    invented = text + "\n### referee\n\n| `arena/nowhere.py` | nothing |\n"
    assert "arena/nowhere.py" in _documented_modules(invented)


# --- the library without the command line -------------------------------------------------------

CLI_ONLY = ("arena.cli", "arena.__main__")


def _third_party_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: _module_name(p))
def test_only_the_cli_imports_the_cli_or_typer(path: Path) -> None:
    """The library (the report and the commands' functions included) runs without the CLI."""
    module = _module_name(path)
    if module in CLI_ONLY:
        return
    assert "arena.cli" not in _imports(path, module), f"{module} imports arena.cli"
    third = _third_party_imports(path) & {"typer", "click"}
    assert not third, f"{module} imports {sorted(third)}: only {CLI_ONLY} may"


def test_the_clis_choices_mirror_the_librarys() -> None:
    """``arena.cli`` spells the choices of its options as enums of its own (importing the rules
    would slow ``arena --help``): they must be the library's values, in the same order."""
    from arena import cli
    from arena.commands.new_bot import Language
    from arena.report.audience import NAME_CHOICES
    from arena.rules import FAULT_REASONS, Reason, Role

    def values(kind: type[enum.Enum]) -> list[object]:
        return [member.value for member in kind]

    assert values(cli.EndReason) == values(Reason)
    assert values(cli.FaultReason) == [r.value for r in Reason if r in FAULT_REASONS]
    assert values(cli.Side) == values(Role)
    assert values(cli.Language) == values(Language)
    assert values(cli.ShownNames) == list(NAME_CHOICES)


def test_what_arena_match_imports_of_the_tournament_leaves_the_store_unloaded() -> None:
    """``arena match`` takes its affinity and schedule helpers from ``arena.tournament``; the
    package's run (and with it the SQLite store) loads only when a tournament asks for it."""
    import subprocess
    import sys

    probe = (
        "import sys, arena.tournament.affinity, arena.tournament.schedule, arena.commands.match\n"
        "print(sorted(m for m in sys.modules if m.startswith(('arena.store', 'sqlite3'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


def _module_graph() -> dict[str, set[str]]:
    """Each module of arena (packages' ``__init__`` aside: they re-export) and the modules it
    imports, lazily or not."""
    graph = {}
    for path in MODULES:
        if path.name != "__init__.py":
            graph[_module_name(path)] = set()
    for path in MODULES:
        name = _module_name(path)
        if name in graph:
            graph[name] = {m for m in _imports(path, name) if m in graph and m != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each module that is on one (depth-first search)."""
    found: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                found.append(path[path.index(target) :] + [target])
            elif target not in state:
                visit(target)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def test_no_module_imports_itself_through_others() -> None:
    """Two modules that import each other (even lazily) are one module cut in two: a reader
    cannot understand either alone."""
    assert _cycles(_module_graph()) == []


def test_the_cycle_check_sees_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c", "a"]]
