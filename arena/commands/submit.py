"""``arena submit``: validate a bot, add it to a tournament file, play its games, show its place.

1. The bot is checked by ``arena validate`` under the tournament's time control and sandbox; a bot
   that fails is not added, and the checklist says why.
2. It is added to the file's ``bots:`` sequence **as text**: the file is composed with PyYAML,
   which gives the position of every node, and one entry is inserted after the last bot with
   the indentation of the others (or inside the brackets of a flow sequence). Comments, blank
   lines, key order and quoting elsewhere stay exactly as they were; no new dependency (a
   round-trip library such as ruamel.yaml) is needed for one insertion. The file is written
   atomically and read back with the tournament loader; if that fails, it is restored.
3. The tournament runs as ``arena tournament`` would, and since it resumes from its store, only the
   new bot's games are played (in a course, its placement games: ``arena.tournament.lateentry``).
4. Its place in the standings is printed, with its ratings overall and per role and their 95%
   intervals (the maximum-likelihood fit of ``arena.ratings``).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from arena.botspec import BOT_NAME_RE, BotSpec, bundled_bot_path
from arena.errors import ArenaError

if TYPE_CHECKING:
    from arena.config import TournamentConfig
    from arena.ratings.standings import BotStanding
    from arena.records import GameRecord
    from arena.tournament.run import TournamentResult


_PLAIN = re.compile(r"[A-Za-z0-9_./][A-Za-z0-9_./+-]*")


def _scalar(text: str) -> str:
    """``text`` as a YAML scalar: plain when the loader reads it back as this very string, else
    double-quoted (JSON is valid YAML). ``NULL``, ``yes``, ``No``, ``1e3`` are names too."""
    return text if _PLAIN.fullmatch(text) and _reads_back(text) else json.dumps(text)


def _reads_back(text: str) -> bool:
    """Whether YAML reads plain ``text`` as that string (``2001-13-45`` fails as a date). A
    leading digit is quoted whatever this reader says: YAML 1.2 readers take ``1e3`` as a number."""
    if text[:1].isdigit():
        return False
    try:
        return bool(yaml.safe_load(text) == text)
    except (yaml.YAMLError, ValueError):
        return False


def _last_end(node: yaml.Node) -> yaml.Mark:
    """Where a node's text ends (block collections: their last value's end, not the next key's)."""
    if isinstance(node, yaml.ScalarNode) or getattr(node, "flow_style", False) or not node.value:
        return node.end_mark
    last = node.value[-1]
    return _last_end(last[1] if isinstance(last, tuple) else last)


def add_bot_entry(text: str, entry: dict[str, str] | str, file: str = "the config") -> str:
    """``text`` (a tournament file) with ``entry`` appended to its ``bots:`` sequence.

    ``entry`` is a bare bundled name or a mapping (``name``, ``path``). Everything else in the
    text is kept byte for byte.
    """
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise ArenaError(f"{file}: not valid YAML ({exc})".replace("\n", " ")) from None
    bots = None
    if isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            if isinstance(key, yaml.ScalarNode) and key.value == "bots":
                bots = value
    if not isinstance(bots, yaml.SequenceNode) or not bots.value:
        raise ArenaError(f"{file}: no `bots:` list to add the bot to")
    newline = "\r\n" if "\r\n" in text else "\n"
    if bots.flow_style:
        if isinstance(entry, str):
            item = _scalar(entry)
        else:
            item = "{" + ", ".join(f"{k}: {_scalar(v)}" for k, v in entry.items()) + "}"
        close = bots.end_mark.index - 1  # the `]`
        assert text[close] == "]"
        return text[:close].rstrip() + f", {item}" + text[close:]
    first = bots.value[0]
    line = text.splitlines()[first.start_mark.line]
    dash = line.rfind("-", 0, first.start_mark.column)
    if dash < 0:  # pragma: no cover - a block sequence item always follows its dash
        raise ArenaError(f"{file}: cannot find where the `bots:` items start")
    indent = line[:dash].replace("-", " ")  # a nested `- - x` would keep its own dashes
    if isinstance(entry, str):
        lines = [f"{indent}- {_scalar(entry)}"]
    else:
        pairs = list(entry.items())
        lines = [f"{indent}- {pairs[0][0]}: {_scalar(pairs[0][1])}"]
        lines += [f"{indent}  {key}: {_scalar(value)}" for key, value in pairs[1:]]
    end = _last_end(bots.value[-1]).index
    eol = end - 1 if end and text[end - 1] == "\n" else text.find("\n", end)
    if eol < 0:  # the last item ends the file, without a newline
        return text + newline + newline.join(lines) + newline
    return text[: eol + 1] + "".join(line + newline for line in lines) + text[eol + 1 :]


def _write_atomically(path: Path, text: str) -> None:
    mode = path.stat().st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _entry_for(arg: str, spec: BotSpec, config_dir: Path) -> dict[str, str] | str:
    if not Path(arg).exists() and bundled_bot_path(arg) is not None and spec.name == arg:
        return arg
    assert spec.program is not None
    return {"name": spec.name, "path": os.path.relpath(spec.program, config_dir)}


@dataclass(frozen=True)
class Placing:
    """A bot's place in the standings, read from the typed standings model (``Standings``), so
    that a rating that is only a bound (a bot that won or lost every game in a role) or missing
    is shown as the standings show it (``>1850``, ``-``), never formatted as a number."""

    name: str
    rank: int
    bot: BotStanding
    table: list[BotStanding]
    """Every bot of the standings, best first."""

    def describe(self) -> str:
        bot = self.bot
        return (
            f"{self.name}: #{self.rank} of {len(self.table)} — Elo {bot.rating.text()};"
            f" as Order {bot.order.text()}; as Chaos {bot.chaos.text()} (95%);"
            f" {bot.tally.wins} wins in {bot.tally.games} games"
        )

    def to_json(self) -> dict[str, Any]:
        """The place with the bot's flat rating keys (as ``arena ratings --json``: ``elo``,
        ``elo_ci95``...; null where there is no number) and the standings' short rows."""
        keys = ["games", "wins", "elo", "elo_ci95", "elo_order", "elo_order_ci95"]
        keys += ["elo_chaos", "elo_chaos_ci95", "rating", "order", "chaos"]
        entry = self.bot.to_json()
        short = ("name", "games", "wins", "elo", "elo_ci95", "rating")
        return {
            "name": self.name,
            "rank": self.rank,
            "bots": len(self.table),
            **{key: entry[key] for key in keys},
            "standings": [{k: row.to_json()[k] for k in short} for row in self.table],
        }


def placing(records: list[GameRecord], name: str) -> Placing:
    """``name``'s place among the bots of ``records`` (the maximum-likelihood standings)."""
    from arena.ratings import GameResult, compute_all

    table = compute_all([GameResult.from_record(r) for r in records]).bots
    for rank, bot in enumerate(table, 1):
        if bot.name == name:
            return Placing(name, rank, bot, table)
    raise ArenaError(f"{name} has no games in the store")  # pragma: no cover - it just played


def run_submit(
    bot: str,
    config_path: Path,
    *,
    name: str | None,
    json_output: bool,
    quiet: bool,
    workers: int | None,
) -> int:
    """The command; its exit status (1 when the bot fails validation or games are still owed)."""
    import dataclasses

    from arena.commands.start import resolve_bot

    path = Path(config_path)
    spec = resolve_bot(bot, name)
    if not BOT_NAME_RE.fullmatch(spec.name):
        raise ArenaError(
            f"bot name {spec.name!r} is not usable in a tournament: give one with --name "
            "(letters, digits, '_.+-')"
        )
    config, present = _config_with(path, spec, bot)
    if spec.name in present:
        raise ArenaError(
            f"{config_path}: a bot named {spec.name} is already in the tournament "
            "(choose another with --name)"
        )
    say = sys.stderr if json_output else sys.stdout
    if not _validated(spec, config, config_path, json_output=json_output, quiet=quiet):
        return 1
    config = _added(path, spec, bot)
    if not quiet:
        print(f"added {spec.name} to {config_path}", file=say, flush=True)
    if workers is not None:
        config = dataclasses.replace(config, workers=workers)
    from arena.commands.stopping import exit_code, stopped_like_ctrl_c

    try:
        with stopped_like_ctrl_c():  # SIGTERM, SIGHUP: bots stopped and games kept, as Ctrl-C
            result, records = _play(config, quiet or json_output)
    except KeyboardInterrupt as stop:
        code, signame = exit_code(stop)
        print(
            f"interrupted ({signame}): {spec.name} is in {config_path}; the games played are "
            f"stored. Finish its games with: arena tournament {config_path}",
            file=sys.stderr,
        )
        return code
    place = placing(records, spec.name)
    if json_output:
        print(json.dumps({"added": True, "complete": result.complete, **place.to_json()}, indent=2))
    else:
        placed = config.plan().course() is not None and not result.unplaced
        _print_standings(place, placed=placed)
    if result.unplaced:
        from arena.commands.tournament import unplaced_note

        print(unplaced_note(result), file=say)
    return 0 if result.complete else 1


def _validated(
    spec: BotSpec, config: TournamentConfig, config_path: Path, *, json_output: bool, quiet: bool
) -> bool:
    """Whether ``spec`` passes ``arena validate`` in the tournament's conditions; the checklist
    of a bot that fails is printed (as JSON with ``json_output``)."""
    from arena.commands.validate import print_report, validate_bot

    say = sys.stderr if json_output else sys.stdout
    if not quiet:
        for notice in config.notices:  # e.g. the bots a folder entry found, and those skipped
            print(f"note: {notice}", file=say)
        print(f"validating {spec.name} ...", file=say, flush=True)
    report = validate_bot(
        spec,
        move_ms=config.time_control.move_ms,
        startup_ms=config.time_control.startup_ms,
        sandbox=config.sandbox,
        limits=config.limits,
        time_control=config.time_control,  # the tournament's clock and measure too
    )
    if report.ok:
        return True
    if json_output:
        print(json.dumps({"added": False, "validation": report.to_json()}, indent=2))
    else:
        print_report(report)
        failed = ", ".join(check.key for check in report.failures())
        print(f"{spec.name} was not added to {config_path}: it failed validation ({failed})")
    return False


def _added(path: Path, spec: BotSpec, arg: str) -> TournamentConfig:
    """The tournament with ``spec`` added to its file; the file is restored if the loader
    refuses the result."""
    from arena.config import load_config

    original = path.read_text(encoding="utf-8")
    entry = _entry_for(arg, spec, path.resolve().parent)
    _write_atomically(path, add_bot_entry(original, entry, str(path)))
    try:
        config = load_config(path)
        if spec.name not in {e.name for e in config.bots}:  # pragma: no cover - defensive
            raise ArenaError(f"{path}: the new entry was not read back")
    except ArenaError:
        _write_atomically(path, original)
        raise
    return config


def _config_with(path: Path, spec: BotSpec, arg: str) -> tuple[Any, set[str]]:
    """The tournament the bot is validated for (its time control, sandbox and limits), and the
    names of the bots already in it.

    The file as it is, checked by the loader (its errors name its lines); but a file with a
    single bot, incomplete alone, is judged as it will be with the new bot in it (not written
    yet), so that an author can start a ladder of one baseline with ``arena submit``.
    """
    from arena.config import config_from_dict, load_config

    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        raw = None  # the loader says what is wrong
    bots = raw.get("bots") if isinstance(raw, dict) else None
    if not (isinstance(bots, list) and len(bots) == 1):
        config = load_config(path)
        return config, {entry.name for entry in config.bots}
    entry = _entry_for(arg, spec, path.resolve().parent)
    text = add_bot_entry(path.read_text(encoding="utf-8"), entry, str(path))
    config = config_from_dict(yaml.safe_load(text), str(path), path.resolve().parent)
    return config, {entry.name for entry in config.bots[:-1]}


def _play(config: TournamentConfig, quiet: bool) -> tuple[TournamentResult, list[GameRecord]]:
    """Run (resume) the tournament: only the games it still owes, i.e. the new bot's. Its
    result (complete or not, the late entries a course's budget left unplaced), and the stored
    games."""
    from rich.console import Console

    from arena.commands.display.progress import ProgressDisplay
    from arena.store.database import Store
    from arena.tournament.run import run_tournament

    display = ProgressDisplay(Console(highlight=False, soft_wrap=True), quiet)
    with Store.open(config.db) as store:
        try:
            result = run_tournament(config.plan(), store, display)
        finally:
            display.stop()
        if result.missing:
            print(
                f"arena: incomplete: {result.missing} games are still owed; run the tournament "
                "again to finish them",
                file=sys.stderr,
            )
        return result, list(store.games())


def _print_standings(place: Placing, *, placed: bool) -> None:
    print(place.describe())
    if placed:  # a course's late entry plays placement games, not a game against every bot
        others = len(place.table) - 1
        print(
            f"placed in {place.bot.tally.games} games"
            f" (a game per role against every bot: {2 * others})"
        )
    width = max(len(row.name) for row in place.table)
    for rank, row in enumerate(place.table, 1):
        mark = "→" if row.name == place.name else " "
        print(
            f" {mark} {rank:>2}. {row.name:<{width}}  Elo {row.rating.text():<10}"
            f" {row.tally.wins}/{row.tally.games} wins"
        )
