"""The whole check of ``arena validate`` (probe, games, reuse, sandbox) and the command itself."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable

from arena.botspec import BotSpec
from arena.commands.validate.games import judge_games, play_games
from arena.commands.validate.probe import Probe
from arena.commands.validate.report import Report, print_report
from arena.commands.validate.reuse import check_reuse
from arena.commands.validate.transcript import Transcript
from arena.errors import ArenaError, SandboxError
from arena.launch.sandbox import resolve_mode
from arena.limits import Limits, SandboxMode, TimeControl
from arena.referee import verdicts as faults

__all__ = ["validate_bot", "run_validate"]


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
                f"fails under bubblewrap ({failed}) but passes without it", faults.HINTS["sandbox"]
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
    bot: str,
    *,
    games: int,
    move_ms: int,
    startup_ms: int,
    sandbox: SandboxMode,
    json_output: bool,
    transcript: bool,
    time_control: TimeControl | None = None,
    memory_mb: int | None = None,
) -> int:
    """The command; its exit status (0 only when every check passes; 128 + the signal when
    stopped by Ctrl-C, SIGTERM or SIGHUP). ``memory_mb``: the bot's ``limits.memory_mb`` (None:
    the default, a tournament's)."""
    from arena.commands.start import resolve_bot, start_harness

    spec = resolve_bot(bot)
    stream = sys.stderr if json_output else sys.stdout

    def emit(line: str) -> None:
        print(line, file=stream, flush=True)

    from arena.commands.stopping import exit_code, stopped_like_ctrl_c

    start_harness()
    try:
        with stopped_like_ctrl_c():  # SIGTERM, SIGHUP: the bot stopped as by Ctrl-C
            report = validate_bot(
                spec,
                games=games,
                move_ms=move_ms,
                startup_ms=startup_ms,
                sandbox=sandbox,
                transcript=emit if transcript else None,
                time_control=time_control,
                limits=Limits() if memory_mb is None else Limits(memory_mb=memory_mb),
            )
    except KeyboardInterrupt as stop:
        code, name = exit_code(stop)
        print(f"arena: validation of {spec.name} interrupted ({name})", file=sys.stderr)
        return code
    if json_output:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print_report(report)
    return 0 if report.ok else 1
