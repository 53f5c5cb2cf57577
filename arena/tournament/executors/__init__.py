"""Executors: where matches run, behind one interface, chosen by name.

``base`` (the events, ``MatchExecutor``, ``play_job``), ``inline`` (in this process), ``local`` (a
pool of forked workers: the default) and ``cluster`` (a Dask cluster, with ``botpack`` and
``cluster_worker``; needs the ``cluster`` extra). The registry names each executor's factory by
module and attribute, so that choosing one imports only its module when it is made.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from arena.errors import ArenaError
from arena.lazy import lazy_getattr

if TYPE_CHECKING:  # at run time these come lazily, through __getattr__
    from arena.tournament.executors.base import (
        Event,
        ExecutorSetup,
        ExecutorStatus,
        GameDone,
        GameSink,
        JobDone,
        JobFailed,
        MatchExecutor,
        play_job,
    )
    from arena.tournament.executors.inline import InlineExecutor
    from arena.tournament.executors.local import LocalPoolExecutor

# A literal list: mypy and ruff read re-exports only from one (what is lazy: _LAZY below).
__all__ = [
    "EXECUTORS",
    "DEFAULT_EXECUTOR",
    "executor_names",
    "make_executor",
    "Event",
    "ExecutorSetup",
    "ExecutorStatus",
    "GameDone",
    "GameSink",
    "JobDone",
    "JobFailed",
    "MatchExecutor",
    "play_job",
    "InlineExecutor",
    "LocalPoolExecutor",
]

EXECUTORS: dict[str, str] = {
    "local": "arena.tournament.executors.local:make_local",
    "inline": "arena.tournament.executors.inline:make_inline",
    "cluster": "arena.tournament.executors.cluster:make_cluster",
}
"""Executor name → ``module:factory``; a factory takes an ``ExecutorSetup``."""

DEFAULT_EXECUTOR = "local"

_EAGER = {"EXECUTORS", "DEFAULT_EXECUTOR", "executor_names", "make_executor"}
_OWN_MODULE = {
    "InlineExecutor": "arena.tournament.executors.inline",
    "LocalPoolExecutor": "arena.tournament.executors.local",
}
# The names __all__ exports lazily -> their module (``base`` unless named above).
_LAZY = {
    name: _OWN_MODULE.get(name, "arena.tournament.executors.base")
    for name in __all__
    if name not in _EAGER
}

__getattr__ = lazy_getattr(__name__, _LAZY, globals())


def executor_names() -> list[str]:
    """The names an executor can be chosen by, sorted."""
    return sorted(EXECUTORS)


def make_executor(name: str, setup: ExecutorSetup) -> MatchExecutor:
    """The executor called ``name``, made from ``setup`` (its module imported now)."""
    target = EXECUTORS.get(name)
    if target is None:
        known = ", ".join(repr(n) for n in executor_names())
        raise ArenaError(f"unknown executor {name!r}; expected one of {known}")
    module, attribute = target.split(":")
    factory: Callable[[ExecutorSetup], MatchExecutor] = getattr(
        importlib.import_module(module), attribute
    )
    return factory(setup)
