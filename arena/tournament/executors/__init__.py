"""Executors: where chunks run, behind one interface, chosen by name.

``base`` (the events, ``MatchExecutor``, ``ChunkPlayer``), ``placement`` (the queue of matches),
``inline`` (in this process), ``local`` (a pool of forked workers: the default) and ``cluster`` (a
Dask cluster, with ``botpack`` and ``cluster_worker``; needs the ``cluster`` extra). The registry
names each executor's factory by module and attribute, so that choosing one imports only its
module when it is made.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from arena.errors import ArenaError
from arena.lazy import lazy_getattr

if TYPE_CHECKING:  # at run time these come lazily, through __getattr__
    from arena.tournament.executors.base import ChunkPlayer as ChunkPlayer
    from arena.tournament.executors.base import Event as Event
    from arena.tournament.executors.base import ExecutorSetup as ExecutorSetup
    from arena.tournament.executors.base import ExecutorStatus as ExecutorStatus
    from arena.tournament.executors.base import GameDone as GameDone
    from arena.tournament.executors.base import GameSink as GameSink
    from arena.tournament.executors.base import JobDone as JobDone
    from arena.tournament.executors.base import JobFailed as JobFailed
    from arena.tournament.executors.base import MatchExecutor as MatchExecutor
    from arena.tournament.executors.inline import InlineExecutor as InlineExecutor
    from arena.tournament.executors.local import LocalPoolExecutor as LocalPoolExecutor

EXECUTORS: dict[str, str] = {
    "local": "arena.tournament.executors.local:make_local",
    "inline": "arena.tournament.executors.inline:make_inline",
    "cluster": "arena.tournament.executors.cluster:make_cluster",
}
"""Executor name → ``module:factory``; a factory takes an ``ExecutorSetup``."""

DEFAULT_EXECUTOR = "local"

_BASE = "arena.tournament.executors.base"
# The names loaded lazily -> their module: the same as the TYPE_CHECKING imports above.
_LAZY = {
    **dict.fromkeys(
        (
            "ChunkPlayer",
            "Event",
            "ExecutorSetup",
            "ExecutorStatus",
            "GameDone",
            "GameSink",
            "JobDone",
            "JobFailed",
            "MatchExecutor",
        ),
        _BASE,
    ),
    "InlineExecutor": "arena.tournament.executors.inline",
    "LocalPoolExecutor": "arena.tournament.executors.local",
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
