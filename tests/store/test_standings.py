"""What ``arena ratings`` and ``arena faults`` show, from real tournaments in real SQLite stores.

One module-scoped tournament of real bot processes (a bot that crashes, a bot that writes
terminal escapes on stderr before it plays an illegal move, and two sound bots) feeds the
end-to-end checks; the layout checks (80 columns, 40 bots) render the standings model of
simulated games directly, since they test the rendering and not the games.
"""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import random
import re
import shutil
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, TEST_BOTS_DIR, bundled_program, run_arena

from arena.commands.display.standings import render_standings
from arena.export.standings import write_standings_csv
from arena.ratings import GameResult
from arena.ratings.elo import DEFAULT_INITIAL, DEFAULT_K
from arena.ratings.standings import compute_all
from arena.referee.verdicts import last_lines, shown_detail

pytestmark = pytest.mark.usefixtures("no_leftover_processes")


HOSTILE = """\
import sys

sys.stdout.write("ready\\n")
sys.stdout.flush()
for line in sys.stdin:
    if line.startswith("turn"):
        sys.stderr.write("thinking \\x1b[2J\\x1b]0;pwned\\x07 done\\rforged\\n")
        sys.stderr.flush()
        sys.stdout.write("a1X\\n" if line.split()[1][0] != "." else "b1X\\n")
        sys.stdout.flush()
        sys.stdout.write("a1X\\n")  # occupied by its own first move: illegal soon enough
        sys.stdout.flush()
    elif line.startswith("quit"):
        break
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished round robin: crash_midgame, hostile, greedy and random, 2 games a pairing."""
    folder = tmp_path_factory.mktemp("standings")
    shutil.copyfile(TEST_BOTS_DIR / "crash_midgame.py", folder / "crash_midgame.py")
    for name in ("greedy", "random"):
        shutil.copyfile(bundled_program(name), folder / f"{name}_bot.py")
    (folder / "hostile.py").write_text(HOSTILE)
    db = folder / "t.sqlite"
    (folder / "t.yaml").write_text(
        "name: standings-test\n"
        "bots:\n"
        "  - {name: crashy, path: crash_midgame.py}\n"
        "  - {name: hostile, path: hostile.py}\n"
        "  - {name: greedy, path: greedy_bot.py}\n"
        "  - {name: random, path: random_bot.py}\n"
        "games_per_pairing: 2\n"
        "time_control: {move_ms: 500, startup_ms: 5000}\n"
        "workers: 1\n"
        "sandbox: none\n"
        "seed: 3\n"
        f"db: {db}\n"
    )
    result = run_arena("tournament", folder / "t.yaml", "--quiet")
    assert result.returncode == 0, result.stderr
    return db


def test_json_shows_faults_per_bot_and_reason(store: Path) -> None:
    result = run_arena("ratings", store, "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    bots = {b["name"]: b for b in data["bots"]}
    assert bots["crashy"]["faults"]["crash"] == bots["crashy"]["fault_total"] > 0
    assert bots["hostile"]["faults"]["illegal"] > 0 or bots["hostile"]["faults"]["malformed"] > 0
    assert bots["greedy"]["fault_total"] == 0 and bots["random"]["fault_total"] == 0
    assert set(bots["greedy"]["faults"]) == {"timeout", "illegal", "malformed", "crash", "startup"}
    assert data["converged"] is True and data["sequential_elo"]["k"] == DEFAULT_K
    for name in bots:  # every bot played Chaos: it has a survival entry per Order opponent
        assert set(bots[name]["survival"]["by_order"]) == set(bots) - {name}


def test_terminal_standings_fit_80_columns_and_explain_themselves(store: Path) -> None:
    result = run_arena("ratings", store)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    # Every line fits, but the one naming the store: a path is printed whole, however long.
    assert max(len(line) for line in out.splitlines() if str(store) not in line) <= 80, out
    assert "crashy" in out and "greedy" in out and "hostile" in out
    assert re.search(r"^Faults \(\d+ games lost by the bot's own fault\): ", out, re.M), out
    assert re.search(r"crashy \d+ \(\d+ crash\)", out), out
    assert re.search(r"^\s*#\s+bot\s+score\s+Elo ±95%\s+Order\s+Chaos\s+surv\s+faults$", out, re.M)
    assert "(seq: left out to fit 80 columns; see --wide or --json)" in out  # a long name
    assert re.search(r"^1\s+greedy\s+12/12 100%\s", out, re.M), out
    assert "Legend: score: games won of games played, and the share of the points;" in out
    wide = run_arena("ratings", store, "--wide").stdout
    assert f"K={DEFAULT_K:g}, start {DEFAULT_INITIAL:.0f}" in wide
    assert "\x1b" not in out


def test_display_names_stand_beside_the_names(store: Path) -> None:
    """What a bot calls itself (`ready <name>`) is shown beside its name when it differs, in
    full in JSON; a bot that sent a plain `ready` has none."""
    out = run_arena("ratings", store).stdout
    assert re.search(r"^\d\s+crashy \(crash_midgame\)\s", out, re.M), out
    assert re.search(r"^\d\s+greedy\s", out, re.M), out  # "ready greedy": nothing to add
    assert re.search(r"^\d\s+hostile\s", out, re.M), out  # a plain "ready"
    bots = {b["name"]: b for b in json.loads(run_arena("ratings", store, "--json").stdout)["bots"]}
    assert {name: b["display_name"] for name, b in bots.items()} == {
        "crashy": "crash_midgame", "hostile": "", "greedy": "greedy", "random": "random",
    }  # fmt: skip


def test_a_long_display_name_is_cut_in_the_compact_table_only() -> None:
    games = [GameResult("a", "b", True), GameResult("b", "a", False)]
    long = "Alpha Beta Gamma Delta Epsilon 1.0"
    standings = compute_all(games, display_names={"a": long, "b": "b"})
    compact = "\n".join(line.text for line in render_standings(standings))
    assert "a (Alpha Beta Gamma...)" in compact and "b (b)" not in compact
    wide = "\n".join(line.text for line in render_standings(standings, wide=True))
    assert f"a ({long})" in wide


def test_faults_command_lists_games_with_escaped_stderr(store: Path) -> None:
    result = run_arena("faults", store, "--bot", "hostile")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out
    assert re.search(r"^game \d+: hostile as (Order|Chaos) vs \w+: (illegal|malformed)", out, re.M)
    assert "| thinking \\x1b[2J\\x1b]0;pwned\\x07 done\\x0dforged" in out, out
    assert "crashy" not in out.split("faulted game")[0].replace("vs crashy", "")

    crashes = json.loads(run_arena("faults", store, "--reason", "crash", "--json").stdout)
    assert crashes and all(row["reason"] == "crash" and row["bot"] == "crashy" for row in crashes)
    assert all(row["stderr"] is not None and row["detail"] for row in crashes)

    unknown = run_arena("faults", store, "--bot", "nobody")
    assert unknown.returncode == 2 and "no games of a bot named 'nobody'" in unknown.stderr
    bad_reason = run_arena("faults", store, "--reason", "sneeze")
    assert bad_reason.returncode == 2 and "timeout" in bad_reason.stderr


def _tty_output(args: list[str], env: dict[str, str]) -> bytes:
    """Run ``arena ARGS`` on a pseudo-terminal (as a user's shell would) and read everything."""
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execvpe(sys.executable, [sys.executable, "-m", "arena", *args], env)
    out = b""
    try:
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            out += data
    finally:
        os.close(fd)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, out
    return out


@pytest.mark.parametrize("args", [["ratings"], ["ratings", "--help"], ["faults", "-h"]])
def test_no_color_means_no_escape_codes_on_a_terminal(store: Path, args: list[str]) -> None:
    argv = [args[0], str(store), *args[1:]]
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100", TERM="xterm-256color")
    assert b"\x1b[" not in _tty_output(argv, env)
    coloured = dict(env)
    del coloured["NO_COLOR"]
    if args == ["ratings"]:  # the check above would pass vacuously if nothing were ever styled
        assert b"\x1b[1m" in _tty_output(argv, coloured)


def _commands() -> list[str]:
    """Every command of the ``arena`` app, as it registers them (a new one is checked too)."""
    from arena.cli import app

    return [c.name or (c.callback.__name__ if c.callback else "") for c in app.registered_commands]


@pytest.mark.parametrize("command", _commands())
def test_every_help_has_an_example_and_h_works(command: str) -> None:
    result = run_arena(command, "-h", env=dict(os.environ, NO_COLOR="1"))
    assert result.returncode == 0, result.stderr
    assert f"\n  Example:\n    arena {command} " in result.stdout


def test_ratings_help_states_k_and_start() -> None:
    out = run_arena("ratings", "--help", env=dict(os.environ, NO_COLOR="1", COLUMNS="200")).stdout
    assert f"K={DEFAULT_K:g}" in out and f"starting at {DEFAULT_INITIAL:.0f}" in out


# --- layout, from the model ----------------------------------------------------------------------


def simulated(n_bots: int, name_length: int, seed: int = 0) -> list[GameResult]:
    rnd = random.Random(seed)
    names = [f"bot{i:02d}-" + "x" * (name_length - 6) for i in range(n_bots)]
    strength = {n: rnd.gauss(0, 200) for n in names}
    games = []
    for o in names:
        for c in names:
            if o != c:
                for k in range(4):
                    p = 1 / (1 + 10 ** (-(strength[o] - strength[c] + 200) / 400))
                    won = rnd.random() < p
                    games.append(GameResult(o, c, won, "five" if won else "full", 20, f"{k}"))
    return games


@pytest.mark.parametrize("n_bots", [2, 6, 40])
def test_compact_standings_fit_80_columns_with_full_names(n_bots: int) -> None:
    standings = compute_all(simulated(n_bots, name_length=24))
    lines = [line.text for line in render_standings(standings, width=80)]
    assert max(len(line) for line in lines) <= 80, "\n".join(lines)
    table = lines[1 : 2 + n_bots]
    assert len(table) == n_bots + 1 and all(
        b.name in row for b, row in zip(standings.bots, table[1:], strict=True)
    )
    if n_bots == 40:  # no 40-row matrix: a pointer to the full data instead
        text = "\n".join(lines)
        assert "Cross-table: 40 bots do not fit 80 columns" in text and "--json" in text
        assert len(lines) < 80, text


def test_a_column_left_out_to_fit_is_said_and_not_explained() -> None:
    standings = compute_all(simulated(3, name_length=24))
    lines = [line.text for line in render_standings(standings, width=60)]
    text = "\n".join(lines)
    assert max(len(line) for line in lines) <= 60, text
    header = lines[1].split()
    assert "seq" not in header and "surv" not in header and "faults" not in header
    said = "(seq, surv, faults and score's wins/games: left out to fit 60 columns; see --wide or"
    assert said in " ".join(lines)
    assert "seq: sequential Elo" not in " ".join(lines) and "surv: Chaos" not in " ".join(lines)
    full = " ".join(line.text for line in render_standings(standings, width=120))
    assert "left out" not in full and "seq: sequential Elo" in full and "surv: Chaos" in full


def test_columns_in_a_pipe_is_the_width(store: Path) -> None:
    narrow = run_arena("ratings", store, env={**os.environ, "COLUMNS": "60"})
    assert narrow.returncode == 0, narrow.stderr
    lines = [line for line in narrow.stdout.splitlines() if str(store) not in line]
    assert max(len(line) for line in lines) <= 60, narrow.stdout
    default = run_arena(
        "ratings", store, env={k: v for k, v in os.environ.items() if k != "COLUMNS"}
    )
    assert max(len(line) for line in default.stdout.splitlines()) > 60  # 80 without COLUMNS


def test_wide_shows_every_column_and_the_full_cross_table() -> None:
    standings = compute_all(simulated(6, name_length=10))
    text = "\n".join(line.text for line in render_standings(standings, width=80, wide=True))
    for header in ("won Order", "won Chaos", "Order ±95%", "survival", "timeout", "startup"):
        assert header in text
    assert re.search(r"^1 bot\S+ +\d/4 \d/4  \d/4 \d/4", text, re.M), text


def test_disconnected_pools_and_non_convergence_are_said() -> None:
    import dataclasses

    games = [GameResult("a", "b", True), GameResult("b", "a", False)] * 3
    games += [GameResult("c", "d", True), GameResult("d", "c", True)] * 3
    standings = compute_all(games)
    text = " ".join(line.text for line in render_standings(standings))
    assert "2 groups that never met (1: a, b; 2: c, d)" in text
    failed = dataclasses.replace(standings, fit=dataclasses.replace(standings.fit, converged=False))
    assert "did not converge" in " ".join(line.text for line in render_standings(failed))


def test_bounds_and_missing_roles_are_shown_as_such() -> None:
    games = [GameResult("ace", "x", True), GameResult("x", "ace", False)] * 4
    games += [GameResult("x", "y", True), GameResult("y", "x", False)] * 2
    games += [GameResult("y", "x", True)]
    games += [GameResult("solo", "x", True), GameResult("solo", "y", False)]
    standings = compute_all(games)
    rows = {line.text.split()[1]: line.text for line in render_standings(standings)[2:6]}
    assert re.search(r"ace\s+8/8 100%\s+>\d+\s+>\d+\s+>\d+", rows["ace"]), rows["ace"]
    solo = rows["solo"].split()
    assert solo[7] == "-" and "±" not in rows["ace"]
    legend = " ".join(line.text for line in render_standings(standings))
    ace = standings.bot("ace").rating.text()
    assert f"{ace}: won every game (in that role), so only a lower bound is known" in legend
    assert "-: no games (in that role)" in legend


def test_bot_text_is_shown_escaped() -> None:
    """Stored details are escaped by the referee: shown as they are, unless an older referee
    left a control character in one; stderr is stored raw and escaped line by line."""
    escaped = "got 'x\\x1b[31m' without a newline"
    assert shown_detail(escaped, 300) == escaped
    assert shown_detail("a\x1b[31mb\rc\u202e", 300) == "a\\x1b[31mb\\x0dc\\u202e"
    assert shown_detail("x" * 50, 10) == "x" * 10 + "..."
    assert last_lines("one\r\ntwo\n\n\x1b]0;t\x07\n", 2) == ["two", "\\x1b]0;t\\x07"]


def test_command_table_lists_every_option() -> None:
    """docs/commands.md's table names every option of every command (and each choice)."""
    import typer

    from arena.cli import app

    readme = (REPO_ROOT / "docs" / "commands.md").read_text()
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `arena ([\w-]+) .*$", readme, re.M)}
    group = typer.main.get_command(app)
    commands = group.commands  # type: ignore[attr-defined]
    assert set(commands) >= {"match", "tournament", "ratings", "faults", "export"}
    for name, command in commands.items():
        assert name in rows, f"docs/commands.md's table lacks `arena {name}`"
        for param in command.params:
            if param.param_type_name != "option" or param.name == "help":
                continue
            flag = max(param.opts, key=len)
            shown = [f for f in (*param.opts, *param.secondary_opts) if f in rows[name]]
            assert shown, (
                f"docs/commands.md: `arena {name}` lacks {flag}"
            )  # --no-build for a default on
            for choice in getattr(param.type, "choices", None) or ():
                assert str(choice) in rows[name], (
                    f"docs/commands.md: {flag} lacks the choice {choice}"
                )


def test_all_versions_rates_older_versions_apart(tmp_path: Path) -> None:
    """A bot that changed: by default only its current version's games count; with
    --all-versions every version's games count, each version named apart as NAME@VERSION."""
    from arena.records import GameRecord, Reason
    from arena.rules import Role
    from arena.store.database import BotVersion, Store

    db = tmp_path / "versions.sqlite"

    def game(order: str, chaos: str, versions: tuple[str, str], won: bool) -> GameRecord:
        return GameRecord(
            order, chaos, Role.ORDER if won else Role.CHAOS, Reason.FIVE if won else Reason.FULL,
            moves=["a1X"] * 9, order_version=versions[0], chaos_version=versions[1],
        )  # fmt: skip

    with Store.open(db) as store:
        store.register_bots(
            [BotVersion("a", "old00000aaaa", "a.py"), BotVersion("b", "bbb", "b.py")]
        )
        for slot in range(4):
            store.add_game(game("a", "b", ("old00000aaaa", "bbb"), True), slot)
        store.register_bots(
            [BotVersion("a", "new11111aaaa", "a.py"), BotVersion("b", "bbb", "b.py")]
        )
        for slot in range(2):
            store.add_game(game("b", "a", ("bbb", "new11111aaaa"), True), slot)

    current = json.loads(run_arena("ratings", db, "--json").stdout)
    assert {b["name"]: b["games"] for b in current["bots"]} == {"a": 2, "b": 2}
    every = json.loads(run_arena("ratings", db, "--json", "--all-versions").stdout)
    games = {b["name"]: b["games"] for b in every["bots"]}
    assert games == {"a@new11111": 2, "a@old00000": 4, "b@bbb": 6}


def test_exact_ties_share_a_rank_and_are_said() -> None:
    """Two bots with the same results against the same opponent are fitted equal: they share
    a place (``2=``), a line names them, the legend explains ``=``, and JSON says so; a bot
    with other results is never tied, even next to them."""
    games = [GameResult("t1", "z", True), GameResult("z", "t1", False)] * 2
    games += [GameResult("t2", "z", True), GameResult("z", "t2", False)] * 2
    games += [GameResult("ace", "z", True), GameResult("z", "ace", False)] * 3
    games += [GameResult("ace", "t1", True), GameResult("ace", "t2", True)]
    standings = compute_all(games)
    assert [b.place for b in standings.bots] == ["1", "2=", "2=", "4"]
    lines = [line.text for line in render_standings(standings)]
    assert re.match(r"^2=\s+t1\s", lines[3]) and re.match(r"^2=\s+t2\s", lines[4]), lines
    text = " ".join(lines)
    assert "Tied: 2= t1 and t2 (the same games, wins per role and rating" in text
    assert "=: a rank shared by an exact tie" in text
    bots = {b["name"]: b for b in standings.to_json()["bots"]}
    assert (bots["t2"]["rank"], bots["t2"]["shared_rank"], bots["t2"]["tied"]) == (3, 2, True)
    assert bots["ace"]["tied"] is False and bots["ace"]["score"] == 1.0

    apart = compute_all(games + [GameResult("t1", "z", True)])
    assert [b.place for b in apart.bots] == ["1", "2", "3", "4"]
    assert "Tied" not in " ".join(line.text for line in render_standings(apart))


def test_ratings_csv_is_a_gradebook_of_the_table(store: Path, tmp_path: Path) -> None:
    printed = run_arena("ratings", store, "--csv")
    assert printed.returncode == 0, printed.stderr
    rows = list(csv.DictReader(io.StringIO(printed.stdout)))
    data = json.loads(run_arena("ratings", store, "--json").stdout)
    assert [row["bot"] for row in rows] == [b["name"] for b in data["bots"]]
    for row, bot in zip(rows, data["bots"], strict=True):
        assert (int(row["rank"]), int(row["games"]), int(row["wins"])) == (
            bot["shared_rank"], bot["games"], bot["wins"],
        )  # fmt: skip
        assert float(row["score_percent"]) == round(100 * bot["wins"] / bot["games"], 1)
        assert int(row["faults"]) == bot["fault_total"]
        bound = {None: "", ">": "lower bound", "<": "upper bound"}[bot["rating"]["bound"]]
        assert row["elo_bound"] == bound and int(row["elo"]) == round(bot["elo"])
    file = tmp_path / "marks.csv"
    written = run_arena("ratings", store, "--csv", "-o", file)
    assert written.returncode == 0 and written.stdout == ""
    assert file.read_text() == printed.stdout
    refused = run_arena("ratings", store, "--csv", "--out", store)
    assert refused.returncode == 2 and "refusing to write" in refused.stderr
    both = run_arena("ratings", store, "--csv", "--json")
    assert both.returncode == 2 and "choose one" in both.stderr


def test_standings_csv_cells_cannot_be_formulas() -> None:
    """A name a bot gave itself is the bot's own text: escaped as the games' CSV escapes it."""
    games = [GameResult("a", "b", True), GameResult("b", "a", False)]
    standings = compute_all(games, display_names={"a": '=HYPERLINK("http://x")', "b": "@SUM"})
    out = io.StringIO()
    assert write_standings_csv(standings, out) == 2
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [row["display_name"] for row in rows] == ['\'=HYPERLINK("http://x")', "'@SUM"]
    assert [row["rank"] for row in rows] == ["1", "2"] and rows[0]["elo_bound"] == "lower bound"
