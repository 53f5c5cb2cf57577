"""``arena tournament``: run (or resume) a tournament with live progress, then print standings."""

from __future__ import annotations

import dataclasses
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape

from arena.commands.display.progress import ProgressDisplay
from arena.commands.start import sandbox_for, start_harness
from arena.commands.stopping import exit_code, stopped_like_ctrl_c
from arena.config import TournamentConfig, load_config
from arena.config.model import in_store_folder, store_folder_problem
from arena.errors import ArenaError
from arena.launch.sandbox import resolve_mode
from arena.limits import AffinityMode, SandboxMode
from arena.referee.match import TOO_LOADED_HINT
from arena.tournament.affinity import core_count
from arena.tournament.executors import executor_names

if TYPE_CHECKING:
    pass

__all__ = ["run_tournament_command"]


def with_overrides(
    config: TournamentConfig,
    *,
    workers: int | None = None,
    sandbox: SandboxMode | None = None,
    affinity: AffinityMode | None = None,
    executor: str | None = None,
    force_workers: bool = False,
    cluster: str | None = None,
    trusted_bots: bool = False,
) -> TournamentConfig:
    """The config with the command line's options in place of its own (None: keep the file's).

    ``--cluster`` implies the cluster executor (another ``--executor`` with it is an error);
    ``--executor local`` or ``inline`` runs here even when the config names a cluster."""
    if executor is not None and executor not in executor_names():
        known = ", ".join(repr(name) for name in executor_names())
        raise ArenaError(f"--executor: expected one of {known}, got {executor!r}")
    if sandbox is not None and sandbox is not SandboxMode.NONE:
        for spec in config.bots:
            if in_store_folder(spec, config.db):
                raise ArenaError(
                    f"--sandbox {sandbox.value}: bot {spec.name}: "
                    + store_folder_problem(spec, config.db)
                )
    if cluster is not None:
        from arena.tournament.executors.cluster import parse_cluster

        try:
            cluster = parse_cluster(cluster)
        except ValueError as exc:
            raise ArenaError(f"--cluster: {exc}") from None
        if executor not in (None, "cluster"):
            raise ArenaError(f"--cluster: runs the cluster executor, not --executor {executor}")
        executor = "cluster"
    return dataclasses.replace(
        config,
        workers=config.workers if workers is None else workers,
        sandbox=config.sandbox if sandbox is None else sandbox,
        affinity=config.affinity if affinity is None else affinity,
        executor=config.executor if executor is None else executor,
        force_workers=force_workers or config.force_workers,
        cluster=config.cluster if cluster is None else cluster,
        trusted_bots=trusted_bots or config.trusted_bots,
    )


def run_tournament_command(
    config_path: Path,
    *,
    fresh: bool,
    quiet: bool,
    workers: int | None,
    sandbox: SandboxMode | None,
    affinity: AffinityMode | None,
    executor: str | None = None,
    force_workers: bool = False,
    cluster: str | None = None,
    trusted_bots: bool = False,
) -> int:
    from rich.console import Console

    from arena.store.database import Store
    from arena.tournament.run import oversubscribed, run_tournament

    console = Console(highlight=False, soft_wrap=True)
    overrides = {
        key: value
        for key, value in (
            ("workers", workers),
            ("sandbox", sandbox),
            ("affinity", affinity),
            ("executor", executor),
            ("cluster", cluster),
        )
        if value is not None
    }
    config = with_overrides(
        load_config(config_path),
        workers=workers,
        sandbox=sandbox,
        affinity=affinity,
        executor=executor,
        force_workers=force_workers,
        cluster=cluster,
        trusted_bots=trusted_bots,
    )
    for notice in config.notices:  # once a run; on stderr when quiet, as it may matter
        if quiet:
            print(f"arena: note: {notice}", file=sys.stderr, flush=True)
        else:
            console.print(f"[yellow]note:[/] {escape(notice)}")
    if oversubscribed(config.workers) and config.force_workers and not quiet:
        console.print(
            f"[yellow]warning:[/] {config.workers} workers on {core_count()} cores: bots "
            "will compete for CPU and move times become unfair"
        )
    # Only to tell the user (and to stop at once when bwrap is required but missing): the mode
    # shipped with the matches is the config's, resolved where the bots run.
    unsandboxed = resolve_mode(config.sandbox) is SandboxMode.NONE
    if unsandboxed and config.executor != "cluster":  # the bots run on this machine: can they?
        from arena.launch.sandbox import check_launchable

        for spec in config.bots:
            check_launchable(spec, config.sandbox)
    local = config.executor != "cluster"  # a cluster's workers resolve (and check) it there
    if local:
        sandbox_for(config.sandbox, quiet=quiet)  # the one warning where bwrap is missing
    if config.executor == "inline":  # bots run in this process: none may outlive it, even killed
        start_harness()
    display = ProgressDisplay(console, quiet)
    with Store.open(config.db) as store:
        if fresh:
            store.reset()
        try:
            with stopped_like_ctrl_c():
                result = run_tournament(config.plan(), store, display)
        except KeyboardInterrupt as stop:
            display.stop()
            options = [f"--{key} {value}" for key, value in overrides.items()]
            options += ["--force-workers"] if force_workers else []
            options += ["--trusted-bots"] if trusted_bots else []
            command = shlex.join(["arena", "tournament", str(config_path)])
            code, name = exit_code(stop)
            console.print(
                f"\ninterrupted ({name}): "
                f"{display.plural(display.played, 'game')} stored"
                f" this run. Resume with:\n  {escape(' '.join([command, *options]))}"
            )
            return code
        finally:
            display.stop()
        if not result.complete:
            print(
                f"arena: incomplete: {result.missing} games are still owed (repeated harness "
                "errors, or a bot changed during the run); run the same command again",
                file=sys.stderr,
                flush=True,
            )
        # --quiet hides the progress, never the result: the standings and the summary print.
        from arena.commands.display.standings import print_standings

        print_standings(console, store)
        plural = ProgressDisplay.plural
        console.print(
            f"{plural(result.played, 'game')} played this run, {result.already} resumed; "
            f"{plural(len(result.harness_errors), 'harness error')}"
            + (
                f", {plural(result.replayed, 'game')} replayed (the machine too loaded to time"
                " a move)"
                if result.replayed
                else ""
            )
            + f". Results: {escape(str(config.db))}"
        )
        if any(TOO_LOADED_HINT in error for error in result.harness_errors):
            console.print(f"The machine was too loaded to referee in wall time: {TOO_LOADED_HINT}.")
        console.print(
            f"{result.distinct} distinct {'game' if result.distinct == 1 else 'games'}"
            f" of {result.total}"
            + (
                " (deterministic bots repeat their games: try openings: {random_plies: 4})"
                if result.distinct * 2 < result.total and not config.opening_plies
                else ""
            )
        )
    return 0 if result.complete else 1
