"""``arena report``: the page of a real tournament, opened in a real headless browser.

The browser tests run a small real tournament (copies of the bundled ``random`` and ``greedy``
bots and the ``markup_reply`` fixture, which answers its 3rd turn with HTML markup, so the
faults section holds bot-written markup), write its report with the ``arena`` command, and load
the file in Debian's chromium through chromedriver (selenium), from a ``file://`` URL with the
browser's own network features off. They check what a person would: no console error, every
bot named, nothing fetched but the page itself, the markup shown as text and never run, and the
game viewer stepped to the end of a five, a full board and a fault, its final board, highlights
and words compared with the stored game (read back from the store and recomputed here, not
through the report's own code). Every wait is bounded (page load, WebDriverWait).

Without chromium or chromedriver the browser tests skip, saying what to install, unless
``ARENA_REQUIRE_BROWSER=1`` or ``CI`` is set: then they fail, so that a CI run (``.ci/run``
installs both and sets ``ARENA_REQUIRE_BROWSER``) cannot pass without having looked at the page.

The other tests need no browser: hostile bot names, a hostile tournament name and fault details
are escaped in the HTML (and reach the viewer's data intact); a synthetic store of many bots (the
builder of ``benchmarks/report_scale.py``) gives a page of a few MB that still names every bot
and lets each be watched in both roles; the command's printed line and ``--help``.
"""

from __future__ import annotations

import html
import importlib.util
import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import REPO_ROOT, TEST_BOTS_DIR, bundled_program, run_arena

from arena.botspec import BotSpec
from arena.limits import Measure, SandboxMode, TimeControl
from arena.records import GameRecord
from arena.referee import Match, MatchSettings
from arena.report import write_report
from arena.rules import Reason, Role
from arena.store.database import BotVersion, Store

ROOT = REPO_ROOT
FIXTURES = TEST_BOTS_DIR
MARKUP = "<img src=x onerror=alert(1)><script>document.title='owned'</script>&amp;"
"""What ``tests/bots/markup_reply.py`` answers on its 3rd turn (its fault's detail)."""

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1000",
)
PAGE_LOAD_S = 30.0
"""Bound on loading the page (a loaded CI machine is slow, the page is small)."""
WAIT_S = 10.0
"""Bound on each wait for the page's script to react."""


# --- the tournament --------------------------------------------------------------------------


@dataclass(frozen=True)
class Tournament:
    """A small real tournament and its report."""

    db: Path
    page: Path
    printed: str
    """What ``arena report`` printed."""
    games: dict[int, GameRecord]
    """The stored games by number (``arena replay``'s numbering)."""
    names: tuple[str, ...]


def _bot(folder: Path, name: str, source: Path) -> dict[str, str]:
    """A copy of ``source`` as ``folder/name/main.py`` (a folder of its own), as a config entry."""
    target = folder / name / "main.py"
    target.parent.mkdir(parents=True)
    shutil.copyfile(source, target)
    return {"name": name, "path": str(target)}


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Tournament:
    """random, greedy and markup (a faulting fixture), 4 games per ordered pairing, reported."""
    folder = tmp_path_factory.mktemp("report")
    bots = [
        _bot(folder / "bots", "random", bundled_program("random")),
        _bot(folder / "bots", "greedy", bundled_program("greedy")),
        _bot(folder / "bots", "markup", FIXTURES / "markup_reply.py"),
    ]
    db = folder / "t.sqlite"
    config = folder / "t.yaml"
    config.write_text(
        json.dumps(
            {
                "name": "report test",
                "bots": bots,
                "games_per_pairing": 4,
                "time_control": {"move_ms": 1000, "startup_ms": 10000},
                "workers": 2,
                "seed": 1,
                "db": str(db),
            }
        )
    )
    played = run_arena("tournament", config, "--quiet", timeout=180)
    assert played.returncode == 0, played.stdout + played.stderr
    page = folder / "report.html"
    written = run_arena("report", db, "--out", page, timeout=120)
    assert written.returncode == 0, written.stdout + written.stderr
    with Store.open(db, readonly=True) as store:
        games = dict(store.numbered_games())
    assert len(games) == 24
    return Tournament(db, page, written.stdout, games, ("random", "greedy", "markup"))


@dataclass(frozen=True)
class Clocked:
    """A store of real games with their times and clocks, and its report."""

    db: Path
    page: Path
    games: dict[int, GameRecord]
    """The stored games by number."""


CLOCK = TimeControl(clock_ms=3000, increment_ms=100)
"""The clocked games' time control (3+0.1)."""


@pytest.fixture(scope="module")
def clocked(tmp_path_factory: pytest.TempPathFactory) -> Clocked:
    """Three real games of ``spender.py`` (3 ms of sleep a move against 0) stored as ``arena
    play --db`` stores them: two under a 3+0.1 clock, the second from a one-ply opening (so that
    Chaos moves first and Order's clock waits at its start), and one with a time per move under
    ``measure: cpu`` (no clock); and the report."""
    folder = tmp_path_factory.mktemp("clocked")
    program = folder / "spender.py"
    shutil.copyfile(FIXTURES / "spender.py", program)
    slow = BotSpec.from_command([sys.executable, str(program), "3"], "slow")
    quick = BotSpec.from_command([sys.executable, str(program), "0"], "quick")
    records = []
    clock = MatchSettings(time_control=CLOCK, sandbox=SandboxMode.NONE)
    with Match(slow, quick, clock) as match:
        records.append(match.play(0))
        records.append(match.play(1, opening=["f6O"]))
    per_move = TimeControl(move_ms=1000, measure=Measure.CPU)
    with Match(slow, quick, MatchSettings(time_control=per_move, sandbox=SandboxMode.NONE)) as m:
        records.append(m.play(0))
    db = folder / "clocked.sqlite"
    with Store.open(db) as store:
        versions = {(r.order, r.order_version) for r in records}
        versions |= {(r.chaos, r.chaos_version) for r in records}
        store.register_bots([BotVersion(n, v, (n,)) for n, v in sorted(versions)])
        for slot, record in enumerate(records):
            assert store.add_game(record, slot)
        games = dict(store.numbered_games())
    assert len(games) == 3
    page = folder / "clocked.html"
    write_report(db, page)
    return Clocked(db, page, games)


def _one(tournament: Tournament, reason: str, order: str | None = None) -> int:
    """The number of the first stored game that ended by ``reason`` (with Order ``order``)."""
    for number, record in tournament.games.items():
        if record.reason.value == reason and order in (None, record.order):
            return number
    raise AssertionError(f"the tournament has no {reason} game: {tournament.games}")


# --- the rules, written out here (not the report's code) -------------------------------------


def _cell(token: str) -> str:
    return token[:2].lower()


def final_board(record: GameRecord) -> dict[str, str]:
    """Cell name (``c4``) -> mark, after the opening and the bots' moves."""
    return {_cell(t): t[2].upper() for t in [*record.opening, *record.moves]}


def five_cells(board: dict[str, str]) -> set[str]:
    """Every cell of a line of five identical marks on ``board``."""
    found: set[str] = set()
    for row in range(6):
        for col in range(6):
            for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
                line = [(row + d_row * k, col + d_col * k) for k in range(5)]
                if not all(0 <= r < 6 and 0 <= c < 6 for r, c in line):
                    continue
                names = [f"{'abcdef'[c]}{r + 1}" for r, c in line]
                marks = {board.get(n) for n in names}
                if len(marks) == 1 and None not in marks:
                    found.update(names)
    return found


# --- the browser -----------------------------------------------------------------------------


def _browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if missing:
        return (
            f"{' and '.join(missing)} missing: the report's browser test needs Debian's chromium"
            " and chromium-driver (apt-get install chromium chromium-driver)"
        )
    return None


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    """A headless chromium through chromedriver, with a fresh profile in ``tmp_path`` (so the
    suite's leftover check sees any of its processes that outlive the test)."""
    why = _browser_missing()
    if why is not None:
        if os.environ.get("ARENA_REQUIRE_BROWSER") == "1" or os.environ.get("CI"):
            pytest.fail(f"{why} (required here: ARENA_REQUIRE_BROWSER=1 or CI is set)")
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'profile'}")
    # The browser console and the network events (every request the page makes) are logged.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    service = Service(CHROMEDRIVER, log_output=str(tmp_path / "chromedriver.log"))
    driver = webdriver.Chrome(options=options, service=service)
    try:
        driver.set_page_load_timeout(PAGE_LOAD_S)
        driver.set_script_timeout(WAIT_S)
        yield driver
    finally:
        driver.quit()


def console_errors(driver: Any) -> list[str]:
    """The browser console's errors since the last call (the log is drained)."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def requested_urls(driver: Any, page: Path) -> list[str]:
    """Every URL the browser asked for since the last call (from the network events) for
    ``page``, and any the browser asked for by network (http, ws...) for whatever document.

    Chromium's own start page fetches ``chrome://`` resources as the browser opens: those are
    not the report's, and not network."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            url = message["params"]["request"]["url"]
            if message["params"].get("documentURL") == page.as_uri() or not url.startswith(
                ("chrome:", "chrome-untrusted:", "about:")
            ):
                urls.append(url)
    return urls


def load(driver: Any, page: Path) -> None:
    """Open ``page`` and wait (bounded) until the viewer has drawn its first game."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(page.as_uri())
    WebDriverWait(driver, WAIT_S).until(
        lambda d: d.find_element(By.ID, "v-ply").text.startswith("ply ")
    )


def external_resources(urls: list[str], page: Path) -> list[str]:
    """The requests that were neither the page itself nor inline ``data:``."""
    return [u for u in urls if u != page.as_uri() and not u.startswith("data:")]


def test_detectors_see_errors_and_requests(browser: Any, tmp_path: Path) -> None:
    """The control: a page with a script error and an image from the network is caught by both
    detectors, so that finding nothing on the report means something."""
    from selenium.webdriver.support.ui import WebDriverWait

    control = tmp_path / "control.html"
    control.write_text(
        "<!DOCTYPE html><html><head><title>control</title></head><body>"
        '<img src="http://127.0.0.1:9/fetched.png"><script>undefinedFunction();</script>'
        "</body></html>"
    )
    browser.get(control.as_uri())
    WebDriverWait(browser, WAIT_S).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )
    assert any("undefinedFunction" in m for m in console_errors(browser))
    urls = requested_urls(browser, control)
    assert "http://127.0.0.1:9/fetched.png" in external_resources(urls, control)


def test_report_page_in_headless_chromium(browser: Any, tournament: Tournament) -> None:
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    load(browser, tournament.page)
    assert console_errors(browser) == []
    urls = requested_urls(browser, tournament.page)
    assert tournament.page.as_uri() in urls  # the detector sees the page's own request
    assert external_resources(urls, tournament.page) == []
    # Nor does the markup point anywhere: every link is in the page, every image inline.
    links = browser.execute_script(
        "return Array.from(document.querySelectorAll('[src],[href],[srcset]'))"
        ".map(e => e.getAttribute('src') || e.getAttribute('href') || e.getAttribute('srcset'))"
    )
    assert links and all(link.startswith(("#", "data:")) for link in links), links

    # Every bot, in the standings, the faults table (markup only), the viewer's list and the text.
    rows = browser.find_elements(By.CSS_SELECTOR, "#standings-table tbody tr")
    assert sorted(r.get_attribute("data-bot") for r in rows) == sorted(tournament.names)
    options = browser.find_elements(By.CSS_SELECTOR, "#v-bot option")
    assert sorted(o.text for o in options[1:]) == sorted(tournament.names)
    text = browser.find_element(By.TAG_NAME, "body").text
    for name in tournament.names:
        assert re.search(rf"\b{name}\b", text), name
    assert "round-robin · 3 bots · 4 games per ordered pairing" in text
    assert "· 24 of 24 games played" in text
    # The faults: markup's 16 (a loaded machine might add a timeout of another bot).
    faults = [r for r in tournament.games.values() if r.reason.is_fault]
    at_fault = {r.chaos if r.winner.value == "order" else r.order for r in faults}
    faulty = browser.find_elements(By.CSS_SELECTOR, "#faults-table tbody td.name")
    assert "markup" in at_fault and sorted(f.text for f in faulty) == sorted(at_fault)

    # The bot's markup is shown as text in the faults section, and never ran.
    details = [d.text for d in browser.find_elements(By.CSS_SELECTOR, "#fault-games td.detail")]
    assert len(details) == len(faults)
    assert sum("<img src=x onerror=alert(1)>" in d for d in details) == 16
    assert browser.execute_script("return document.querySelectorAll('#faults img').length") == 0
    assert browser.title == "report test: arena report"
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018 - reading it is the check
    assert console_errors(browser) == []


def _choose(driver: Any, bot: str, role: str, number: int) -> int:
    """Filter the viewer by ``bot`` in ``role``, pick game ``number``; its option count."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    Select(driver.find_element(By.ID, "v-bot")).select_by_visible_text(bot)
    Select(driver.find_element(By.ID, "v-role")).select_by_value(role)
    picker = Select(driver.find_element(By.ID, "v-game"))
    listed = [o.text for o in picker.options]
    wanted = [i for i, t in enumerate(listed) if t.startswith(f"#{number} ")]
    assert wanted, (number, listed)
    picker.select_by_index(wanted[0])
    WebDriverWait(driver, WAIT_S).until(
        lambda d: d.find_element(By.ID, "v-ply").text.startswith("ply 0 / ")
    )
    return len(listed)


def _board(driver: Any) -> list[tuple[str, str, str]]:
    """The viewer's 36 cells: (name, mark or "", classes)."""
    cells = driver.execute_script(
        "return Array.from(document.querySelectorAll('#v-board .cell'))"
        ".map(c => [c.getAttribute('data-cell'), c.textContent, c.className])"
    )
    assert len(cells) == 36
    return [tuple(c) for c in cells]


def _check_final(driver: Any, record: GameRecord) -> str:
    """The viewer shows ``record``'s last position: marks, last move, five; its status text."""
    from selenium.webdriver.common.by import By

    expected = final_board(record)
    cells = _board(driver)
    assert {name: mark for name, mark, _ in cells if mark} == expected
    last = _cell([*record.opening, *record.moves][-1])
    assert [name for name, _, css in cells if "last" in css.split()] == [last]
    highlighted = {name for name, _, css in cells if "win" in css.split()}
    assert highlighted == (five_cells(expected) if record.reason.value == "five" else set())
    assert driver.find_element(By.ID, "v-next").get_attribute("disabled") is not None
    return str(driver.find_element(By.ID, "v-status").text)


def _wait_ply(driver: Any, ply: int, plies: int) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, WAIT_S).until(
        lambda d: d.find_element(By.ID, "v-ply").text == f"ply {ply} / {plies}"
    )


def test_viewer_steps_games_to_their_final_position(browser: Any, tournament: Tournament) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    load(browser, tournament.page)
    as_order = {n: sum(r.order == n for r in tournament.games.values()) for n in tournament.names}

    # A five, stepped with the button: no highlight until the last mark, then exactly the line.
    number = _one(tournament, "five", order="greedy")
    record = tournament.games[number]
    plies = len(record.moves)
    assert _choose(browser, "greedy", "order", number) == as_order["greedy"]
    assert all(mark == "" for _, mark, _ in _board(browser))
    button = browser.find_element(By.ID, "v-next")
    for ply in range(1, plies + 1):
        if ply == plies:
            assert not any("win" in css.split() for _, _, css in _board(browser))
        button.click()
        _wait_ply(browser, ply, plies)
    status = _check_final(browser, record)
    cells = " ".join(sorted(five_cells(final_board(record)), key=lambda c: (c[1], c[0])))
    assert "Order (greedy) won: five in a row" in status, status
    assert sorted(cells.split()) == sorted(status.split("(")[-1].rstrip(")").split())

    # A full board, stepped with the arrow key (focus off the list, as a person would click).
    number = _one(tournament, "full")
    record = tournament.games[number]
    _choose(browser, record.chaos, "chaos", number)
    browser.execute_script("document.activeElement.blur()")
    for ply in range(1, 37):
        ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
        _wait_ply(browser, ply, 36)
    status = _check_final(browser, record)
    assert f"Chaos ({record.chaos}) won: full board" in status, status

    # A fault, jumped to with End: the bot at fault named, its markup shown as text.
    number = _one(tournament, "malformed", order="markup")
    record = tournament.games[number]
    _choose(browser, "markup", "order", number)
    browser.execute_script("document.activeElement.blur()")
    ActionChains(browser).send_keys(Keys.END).perform()
    _wait_ply(browser, len(record.moves), len(record.moves))
    status = _check_final(browser, record)
    assert "malformed reply by Order (markup): not a move" in status, status
    assert "<img src=x onerror=alert(1)>" in status
    assert browser.execute_script("return document.querySelectorAll('#viewer img').length") == 0
    assert console_errors(browser) == []


def _shown_times(text: str) -> tuple[float | None, tuple[float, float] | None]:
    """The time used and (Order's, Chaos's) clocks in seconds in the viewer's time line."""
    used = re.search(r"used ([0-9.]+) ms", text)
    clocks = re.search(r"clocks: Order ([0-9.]+) s, Chaos ([0-9.]+) s", text)
    return (
        None if used is None else float(used.group(1)),
        None if clocks is None else (float(clocks.group(1)), float(clocks.group(2))),
    )


def test_viewer_shows_each_moves_time_and_both_clocks(browser: Any, clocked: Clocked) -> None:
    """Issue 23: stepped ply by ply, the viewer shows the time control in the game's header, the
    time the mover used and, under a clock, Order's and Chaos's clocks after the ply (a clock
    that has not run yet at its start), compared with the stored game (clocks recomputed here
    from the stored ``clock_ms``, not through arena's code); a game without a clock shows the
    time and its measure, and no clocks."""
    from selenium.webdriver.common.by import By

    load(browser, clocked.page)
    by_opening = {len(r.opening): (n, r) for n, r in clocked.games.items() if r.clock_ms}
    number, record = by_opening[1]  # Chaos moves first, after the opening's one ply
    assert record.clock_ms is not None and record.clock_start_ms == CLOCK.clock_ms
    _choose(browser, record.chaos, "chaos", number)
    head = browser.find_element(By.ID, "v-head").text
    assert head.startswith(f"#{number} {record.order} (Order) vs {record.chaos} (Chaos)"), head
    assert head.endswith(f"; clock 3000+100 ms ({CLOCK.measure.value})"), head
    plies = len(record.opening) + len(record.moves)
    button = browser.find_element(By.ID, "v-next")
    clocks = [3.0, 3.0]  # Order's and Chaos's, in seconds
    for ply in range(plies + 1):
        if ply:
            button.click()
            _wait_ply(browser, ply, plies)
        text = browser.find_element(By.ID, "v-time").text
        used, shown = _shown_times(text)
        move = ply - 1 - len(record.opening)
        if move < 0:
            assert used is None, (ply, text)
        else:
            mover = "Order" if (ply - 1) % 2 == 0 else "Chaos"
            assert text.startswith(f"{mover} used "), (ply, text)
            assert used is not None and abs(used - record.ms[move]) <= 0.051, (ply, text)
            clocks[(ply - 1) % 2] = record.clock_ms[move] / 1000
        assert shown is not None, (ply, text)
        assert all(abs(s - c) <= 0.0005001 for s, c in zip(shown, clocks, strict=True)), (ply, text)
        if ply == 2:  # Chaos has moved, Order not yet: its clock is still at its start
            assert shown[0] == 3.0 and text.startswith("Chaos used "), text

    # Without a clock: the measure in the header and after the time, and no clocks.
    (number, record), *_ = [(n, r) for n, r in clocked.games.items() if r.clock_ms is None]
    _choose(browser, record.order, "order", number)
    assert browser.find_element(By.ID, "v-head").text.endswith("; time per move (cpu)")
    assert browser.find_element(By.ID, "v-time").text == ""
    button.click()
    _wait_ply(browser, 1, len(record.moves))
    text = browser.find_element(By.ID, "v-time").text
    assert re.fullmatch(r"Order used [0-9]+\.[0-9] ms \(cpu\)", text), text
    assert console_errors(browser) == []


# --- no browser ------------------------------------------------------------------------------


def test_the_command_prints_one_plain_line(tournament: Tournament, tmp_path: Path) -> None:
    """The printed line says what was written; NO_COLOR changes nothing (there is no colour);
    ``--viewer-games`` is reported; ``--help`` has an example."""
    size = tournament.page.stat().st_size
    assert tournament.printed == (
        f"wrote {tournament.page} ({size / 1e6:.2f} MB): 3 bots, 24 games;"
        " the viewer holds every game\n"
    )
    page = tmp_path / "few.html"
    env = {**os.environ, "NO_COLOR": "1"}
    few = run_arena("report", tournament.db, "--out", page, "--viewer-games", "5", env=env)
    assert few.returncode == 0, few.stderr
    assert "\x1b" not in few.stdout + few.stderr
    games = viewer_data(page.read_text())["games"]
    kept = len(games)
    assert kept < 24
    assert {g[1] for g in games} == {g[2] for g in games} == {0, 1, 2}  # each bot, both roles
    assert few.stdout.endswith(f"the viewer holds {kept} of the games\n"), few.stdout
    helped = run_arena("report", "--help", env={**env, "COLUMNS": "200"})
    assert "arena report tournaments/results/example.sqlite \\\n" in helped.stdout


def viewer_data(text: str) -> dict[str, Any]:
    """The viewer's JSON, as the page's script reads it."""
    found = re.search(r'<script type="application/json" id="viewer-data">(.*?)</script>', text)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def test_the_viewer_carries_each_moves_time_and_the_clocks(clocked: Clocked) -> None:
    """Issue 23: the viewer's data holds each bot move's time and the game's measure, and,
    only for a game under a clock, the clock's start, increment and the mover's clock after
    each move, as stored (to the precision shown: 0.1 ms, 1 ms)."""
    data = viewer_data(clocked.page.read_text())
    assert len(data["games"]) == 3
    seen_clocks = 0
    for game in data["games"]:
        record = clocked.games[game[0]]
        times, measure = game[9], game[10]
        assert measure == record.measure
        assert len(times) == len(record.ms) == len(record.moves) > 0
        assert all(abs(t - ms) <= 0.05 + 1e-9 for t, ms in zip(times, record.ms, strict=True))
        if record.clock_ms is None:
            assert len(game) == 11, game  # nothing more for a game without a clock
            continue
        seen_clocks += 1
        assert len(game) == 12
        start, increment, clocks = game[11]
        assert (start, increment) == (CLOCK.clock_ms, CLOCK.increment_ms)
        assert len(clocks) == len(record.clock_ms)
        assert all(abs(c - left) <= 0.5 for c, left in zip(clocks, record.clock_ms, strict=True))
    assert seen_clocks == 2


def report_scale() -> ModuleType:
    """``benchmarks/report_scale.py``, whose synthetic store builder these tests share (so that
    the benchmark cannot rot unnoticed)."""
    spec = importlib.util.spec_from_file_location(
        "report_scale", ROOT / "benchmarks" / "report_scale.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("report_scale", module)
    spec.loader.exec_module(module)
    return module


HOSTILE_NAMES = [
    "<script>alert(1)</script>",
    "quote\"and'apos&amp;",
    "$\\frac{1}{2}$ maths",
    "</script><!--",
    "plain",
]


def test_hostile_names_and_details_are_escaped(tmp_path: Path) -> None:
    db = tmp_path / "hostile.sqlite"
    detail = "<img src=x onerror=alert(1)> & </td></tr></table><b>bold</b>"
    report_scale().build_store(db, 0, names=HOSTILE_NAMES, pairs=2, detail=detail, fault_share=0.5)
    with Store.open(db) as store:
        store.set_meta("name", "<title>&</title>")
    out = tmp_path / "report.html"
    summary = write_report(db, out)
    text = out.read_text()
    assert summary.bots == len(HOSTILE_NAMES) and summary.games == 40

    # Exactly the page's own elements: the two scripts, no markup from the store.
    assert text.count("<script") == 2 and text.count("</script>") == 2
    assert "<img" not in text and "<b>" not in text and "<!--" not in text
    assert text.count("<title>") == 1
    assert "<title>&lt;title&gt;&amp;&lt;/title&gt;: arena report</title>" in text
    for name in HOSTILE_NAMES:
        assert f'<tr data-bot="{html.escape(name, quote=True)}">' in text, name
    assert f'<td class="detail">{html.escape(detail, quote=True)}</td>' in text
    # The viewer's data carries the names and details unchanged, to be set as text.
    data = viewer_data(text)
    assert sorted(data["names"]) == sorted(HOSTILE_NAMES)
    assert {g[8] for g in data["games"]} == {"", detail}


def test_many_bots_give_a_page_of_a_few_mb(tmp_path: Path) -> None:
    """64 bots, every ordered pairing once (4,032 games): past the charts' labels (40 bots) and
    the viewer's limit (3,000 games), the page stays small, names every bot and keeps each in
    both roles. (``benchmarks/report_scale.py`` measures 300 bots.)"""
    db = tmp_path / "many.sqlite"
    games = report_scale().build_store(db, 64)
    assert games == 64 * 63
    out = tmp_path / "report.html"
    summary = write_report(db, out)
    assert summary.bots == 64 and summary.games == games
    assert summary.size == out.stat().st_size < 3_000_000
    text = out.read_text()
    for i in range(64):
        assert f'<tr data-bot="bot{i:03d}">' in text
    data = viewer_data(text)
    assert len(data["games"]) == summary.viewer_games < 3000
    assert {g[1] for g in data["games"]} == {g[2] for g in data["games"]} == set(range(64))


def test_chaos_survival_has_one_definition_everywhere(tmp_path: Path) -> None:
    """Survival counts the games a Chaos bot lost to a five, nowhere its
    own faults. The standings (`arena ratings --json` and the table), the report's table
    (mean, shortest and longest loss) and its matrix agree, game for game, with the games
    read back from the store."""
    db = tmp_path / "faulty.sqlite"
    report_scale().build_store(db, 4, pairs=6, fault_share=0.4)
    with Store.open(db) as store:
        records = list(store.games())
    fives: dict[str, list[int]] = {}
    per_pair: dict[tuple[str, str], list[int]] = {}
    for r in records:
        if r.reason.value == "five":
            plies = len(r.opening) + len(r.moves)
            fives.setdefault(r.chaos, []).append(plies)
            per_pair.setdefault((r.chaos, r.order), []).append(plies)
    assert any(r.reason.value == "timeout" and r.winner.value == "order" for r in records)

    done = run_arena("ratings", db, "--json")
    assert done.returncode == 0, done.stderr
    bots = {b["name"]: b for b in json.loads(done.stdout)["bots"]}
    out = tmp_path / "report.html"
    write_report(db, out)
    text = out.read_text()
    table = text.split('<table id="survival-table">', 1)[1].split("</table>", 1)[0]
    for name, plies in fives.items():
        survival = bots[name]["survival"]
        assert survival["mean_plies_lost"] == pytest.approx(sum(plies) / len(plies)), name
        assert (survival["shortest_loss"], survival["longest_loss"]) == (min(plies), max(plies))
        for order, cell in survival["by_order"].items():
            mine = per_pair.get((name, order))
            expected = None if not mine else sum(mine) / len(mine)
            assert cell["mean_plies_lost"] == pytest.approx(expected), (name, order)
        row = re.search(
            rf'<td class="name">{re.escape(name)}</td><td>\d+</td><td>[^<]*</td>'
            r"<td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td>",
            table,
        )
        assert row is not None, name
        assert row.groups() == (
            f"{sum(plies) / len(plies):.1f}",
            str(min(plies)),
            str(max(plies)),
        )
    # The matrix's cells print the same one decimal as the table.
    title = text.index("losing, per Order opponent")
    matrix = text[text.rindex("<svg", 0, title) : text.index("</svg>", title)]
    for (chaos, order), plies in per_pair.items():
        assert f">{sum(plies) / len(plies):.1f}<" in matrix, (chaos, order)


def test_the_standings_show_the_names_the_bots_gave_themselves(tmp_path: Path) -> None:
    """As the CLI's table does: ``py (PyBot <1>)``, escaped; a bot that gave none, or its own
    name, is shown by its name alone."""
    db = tmp_path / "named.sqlite"
    with Store.open(db) as store:
        store.register_bots([BotVersion("py", "v1", ("py",)), BotVersion("c", "v1", ("c",))])
        for slot, (order, chaos) in enumerate((("py", "c"), ("c", "py"))):
            record = GameRecord(
                order, chaos, Role.CHAOS, Reason.FULL, moves=["a1X"], order_version="v1",
                chaos_version="v1", order_display="PyBot <1>" if order == "py" else "c",
                chaos_display="PyBot <1>" if chaos == "py" else "",
            )  # fmt: skip
            assert store.add_game(record, slot)
    write_report(db, tmp_path / "report.html")
    text = (tmp_path / "report.html").read_text()
    assert '<td class="name"><a href="#bot-py">py (PyBot &lt;1&gt;)</a></td>' in text
    assert '<td class="name"><a href="#bot-c">c</a></td>' in text
