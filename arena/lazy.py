"""Lazy re-exports: a package's names that load their submodule when first asked for.

Why: ``arena.ratings`` and ``arena.tournament.executors`` re-export names of submodules that are
dear to import (numpy and scipy; an executor's own dependencies), and importing the package must
stay cheap. Both packages build their module ``__getattr__`` here, one mechanism for both.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_getattr(
    package: str, names: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``names`` maps each lazy name to the module it
    comes from; a name is imported at its first use and kept in ``namespace`` (the package's
    ``globals()``), so that later uses do not come here again."""

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__
