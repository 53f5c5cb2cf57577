"""The whole check of ``arena validate`` (probe, games, reuse, sandbox) and the command itself."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence

from arena.botspec import BotSpec
from arena.commands.validate import batch
from arena.commands.validate.games import judge_games, play_games
from arena.commands.validate.probe import Probe
from arena.commands.validate.report import Report, print_report
from arena.commands.validate.reuse import check_reuse
from arena.commands.validate.transcript import Transcript
from arena.errors import ArenaError, SandboxError
from arena.launch.sandbox import resolve_mode
from arena.limits import Limits, SandboxMode, TimeControl
from arena.referee import verdicts

DEFAULT_TOTAL_S = 600.0
"""How long a batch of bots may take, by default: a class's checks, each a few seconds."""


def validate_bot(
    spec: BotSpec,
    *,
    games: int = 3,
    move_ms: int = 100,
    startup_ms: int = 5000,
    sandbox: SandboxMode = SandboxMode.AUTO,
    seed: int = 1,
    transcript: Callable[[str], None] | None = None,
    limits: Limits | None = None,
    time_control: TimeControl | None = None,
) -> Report:
    """Check ``spec``: the probe, then ``games`` games in each role against ``random``.

    ``transcript``: called with each line of the transcript. ``limits``: the resource limits of
    the bot's processes (a tournament's, say). ``time_control``: a clock, measure or margin
    (``move_ms`` and ``startup_ms`` alone when None).
    """
    mode = resolve_mode(sandbox)
    limits = limits or Limits()
    tc = time_control or TimeControl(move_ms=move_ms, startup_ms=startup_ms)
    report = _run(spec, games, tc, mode, seed, transcript, limits)
    check = report.checks["sandbox"]
    if mode is SandboxMode.NONE:
        check.skip(
            "bubblewrap is not usable here: not checked (tournaments may run bots under it)"
            if sandbox is SandboxMode.AUTO
            else "not checked (--sandbox none)"
        )
    elif report.ok:
        check.summary = "played under bubblewrap: own folder read-only, private /tmp, no network"
    else:
        try:
            bare: Report | None = _run(spec, games, tc, SandboxMode.NONE, seed, None, limits)
        except ArenaError as exc:  # e.g. as root, the unprivileged bot user cannot reach a venv
            bare = None
            if isinstance(exc, SandboxError) and os.geteuid() == 0:
                # The bot user cannot reach, say, a venv under /root: not why the bot failed, so
                # one line (`arena validate BOT --sandbox none` gives the whole reason).
                check.skip(
                    "not judged: it cannot run without the sandbox here, to compare (as root)"
                )
                return report
            check.skip(f"not judged: it cannot run without the sandbox here, to compare ({exc})")
        if bare is None:
            pass
        elif bare.ok:
            failed = ", ".join(c.key for c in report.failures())
            check.fail(
                f"fails under bubblewrap ({failed}) but passes without it",
                verdicts.HINTS["sandbox"],
            )
        else:
            check.skip("not judged: it fails without the sandbox too")
    return report


def _run(
    spec: BotSpec,
    games: int,
    tc: TimeControl,
    mode: SandboxMode,
    seed: int,
    emit: Callable[[str], None] | None,
    limits: Limits,
) -> Report:
    report = Report(spec.name, list(spec.argv), tc.budget_ms, tc.startup_ms, mode.value)
    report.time_control = tc
    transcript = Transcript(emit) if emit is not None else None
    probe = Probe(spec, report, mode, seed, limits)
    probe.check(transcript)
    if not probe.quit_checked:
        report.checks["quit"].skip("not checked: the probe stopped at an earlier failure")
    if report.checks["startup"].status == "fail":
        for check in report.checks.values():
            if check.key != "sandbox":
                check.skip("not checked: it does not start")
        return report
    records = play_games(spec, report, mode, seed, transcript, 2 * games, limits)
    judge_games(report, records, limits)
    check_reuse(spec, report, mode, seed, limits, probe.wants)
    return report


def run_validate(
    bots: Sequence[str],
    *,
    games: int,
    time_control: TimeControl,
    sandbox: SandboxMode,
    json_output: bool,
    transcript: bool,
    memory_mb: int | None = None,
    total_s: float = DEFAULT_TOTAL_S,
) -> int:
    """The command; its exit status (0 only when every check of every bot passes; 128 + the
    signal when stopped by Ctrl-C, SIGTERM or SIGHUP). ``memory_mb``: the bots'
    ``limits.memory_mb`` (None: the default, a tournament's). Several bots, or a folder of them,
    are checked at once and shown as one table (``batch``), within ``total_s`` seconds."""
    from arena.commands.start import resolve_bot, start_harness
    from arena.commands.stopping import exit_code, stopped_like_ctrl_c

    stream = sys.stderr if json_output else sys.stdout

    def emit(line: str) -> None:
        print(line, file=stream, flush=True)

    limits = Limits() if memory_mb is None else Limits(memory_mb=memory_mb)

    def check(spec: BotSpec, emit_transcript: Callable[[str], None] | None = None) -> Report:
        return validate_bot(
            spec,
            games=games,
            sandbox=sandbox,
            transcript=emit_transcript,
            limits=limits,
            time_control=time_control,
        )

    if len(bots) != 1 or batch.is_folder_of_bots(bots[0]):
        if transcript:
            raise ArenaError("--transcript shows one bot's lines: give one bot")
        specs = batch.bots_to_check(bots, resolve_bot, emit)
        start_harness()
        return _check_many(specs, check, limits, total_s, json_output, emit)
    spec = resolve_bot(bots[0])
    start_harness()
    try:
        with stopped_like_ctrl_c():  # SIGTERM, SIGHUP: the bot stopped as by Ctrl-C
            report = check(spec, emit if transcript else None)
    except KeyboardInterrupt as stop:
        code, name = exit_code(stop)
        print(f"arena: validation of {spec.name} interrupted ({name})", file=sys.stderr)
        return code
    if json_output:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print_report(report)
    return 0 if report.ok else 1


def _check_many(
    specs: list[BotSpec],
    check: Callable[[BotSpec], Report],
    limits: Limits,
    total_s: float,
    json_output: bool,
    emit: Callable[[str], None],
) -> int:
    """Several bots checked at once, as many as the machine runs fairly; one table."""
    from arena.commands.stopping import exit_code, stopped_like_ctrl_c
    from arena.tournament.capacity import fair_workers

    workers = min(len(specs), fair_workers(limits.memory_mb).workers)
    emit(f"validating {len(specs)} bots, {workers} at a time (at most {total_s:g} s in all)")
    try:
        with stopped_like_ctrl_c():
            rows = batch.validate_many(
                specs,
                check,
                workers=workers,
                total_s=total_s,
                progress=lambda row: emit(f"  {row.bot}: {row.status}"),
            )
    except KeyboardInterrupt as stop:
        code, name = exit_code(stop)
        print(f"arena: validation interrupted ({name})", file=sys.stderr)
        return code
    if json_output:
        batch.print_json(rows)
    else:
        batch.print_table(rows)
    return 0 if all(row.status == "PASS" for row in rows) else 1
