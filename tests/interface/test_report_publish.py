"""``arena report`` as a page to publish: the tournament's settings in the header, every row on
screen and in print, a section per bot and a row per game to link to, ``--public`` (no path of
the machine, no stderr, the names chosen) and a plain install without matplotlib.

The tournament is real: a config in a folder of submissions (``students/``), three bots that
speak the protocol by themselves (``doc_python.py``, written from the protocol's page alone), one
of which crashes after its third move naming a file of its own folder by its absolute path, and
calls itself ``<img src=x onerror=alert(1)>``. The layout checks load the page in the real
headless chromium of ``test_report.py``, on screen and with the print media emulated.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, TEST_BOTS_DIR, run_arena
from test_report import browser, console_errors, load, report_scale  # noqa: F401 - a fixture

from arena.limits import TimeControl
from arena.report.anchors import bot_anchor
from arena.store.database import Store

CRASH = (
    "            if board.count('.') < 33: open(os.path.join(os.path.dirname("
    "os.path.abspath(__file__)), 'missing.txt')).read()\n"
)
"""Put before ``doc_python.py``'s reply: the crash after its third move, naming its path."""
HOSTILE = "<img src=x onerror=alert(1)>"
ENTRIES = ("alice", "bob", "crashy")


@dataclass(frozen=True)
class Class:
    """A tournament of submissions and its pages."""

    folder: Path
    """The config's folder (``t.yaml``, ``students/``, ``results/``)."""
    db: Path
    page: Path
    """The organiser's page."""
    public: Path
    """``--public``."""


def _submissions(folder: Path) -> list[dict[str, str]]:
    source = (TEST_BOTS_DIR / "doc_python.py").read_text()
    reply = "            print(choose(board, role, rng), flush=True)\n"
    assert reply in source
    entries = []
    for name in ENTRIES:
        text = source
        if name == "crashy":
            text = text.replace(reply, CRASH + reply).replace(
                '"ready python doc bot"', f'"ready {HOSTILE}"'
            )
        program = folder / "students" / name / "main.py"
        program.parent.mkdir(parents=True)
        program.write_text(text)
        entries.append({"name": name, "path": f"students/{name}/main.py"})
    return entries


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Class:
    folder = tmp_path_factory.mktemp("class")
    config = folder / "t.yaml"
    config.write_text(
        "name: class 3B\n"
        f"bots: {_submissions(folder)}\n"
        "games_per_pairing: 2\ntime_control: {move_ms: 1000}\nworkers: 2\nseed: 7\n"
        "db: results/class.sqlite\n"
    )
    played = run_arena("tournament", config, "--quiet", timeout=180)
    assert played.returncode == 0, played.stdout + played.stderr
    db = folder / "results" / "class.sqlite"
    page, public = folder / "report.html", folder / "public.html"
    for out, extra in ((page, ()), (public, ("--public",))):
        written = run_arena("report", db, "--out", out, *extra, timeout=120)
        assert written.returncode == 0, written.stdout + written.stderr
    return Class(folder, db, page, public)


def _section(text: str, key: str) -> str:
    return text.split(f'<section id="{key}">', 1)[1].split("</section>", 1)[0]


def test_the_header_states_the_settings_and_the_dates(tournament: Class) -> None:
    text = tournament.page.read_text()
    with Store.open(tournament.db, readonly=True) as store:
        games = list(store.games())
    assert len(games) == 12
    settings = re.search(r'<p class="summary" id="settings">(.*?)</p>', text)
    assert settings is not None
    per_move = TimeControl(move_ms=1000).describe()  # 1000 ms/move, the default measure
    assert settings.group(1) == (
        f"round-robin · 3 bots · 2 games per ordered pairing · {per_move} · seed 7"
        " · 12 of 12 games played"
    )
    dates = re.search(r'<p class="summary" id="dates">(.*?)</p>', text)
    assert dates is not None
    day = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC")
    assert re.fullmatch(rf"played {day.pattern}( to {day.pattern})?; report written {day.pattern}",
                        dates.group(1)), dates.group(1)  # fmt: skip
    first = min(g.started_at for g in games)
    from arena.report.settings import utc_minute

    assert dates.group(1).startswith(f"played {utc_minute(first)}")


def test_a_store_without_settings_says_what_its_games_tell(tmp_path: Path) -> None:
    """A store no run described (the library, ``arena sprt``): bots and games, no invention."""
    db = tmp_path / "bare.sqlite"
    report_scale().build_store(db, 3)
    out = tmp_path / "bare.html"
    from arena.report import write_report

    write_report(db, out)
    assert '<p class="summary" id="settings">3 bots · 6 games</p>' in out.read_text()


def test_each_bot_has_a_section_and_each_game_a_row_to_link_to(tournament: Class) -> None:
    text = tournament.page.read_text()
    with Store.open(tournament.db, readonly=True) as store:
        games = dict(store.numbered_games())
    bots = _section(text, "bots")
    standings = _section(text, "standings")
    table = _section(text, "games")
    for name in ENTRIES:
        anchor = bot_anchor(name)
        assert f'<article class="bot" id="{anchor}">' in bots, name
        assert f'<a href="#{anchor}">' in standings, name
        article = bots.split(f'id="{anchor}">', 1)[1].split("</article>", 1)[0]
        mine = [n for n, r in games.items() if name in (r.order, r.chaos)]
        linked = {int(n) for n in re.findall(r'<a (?:class="won" )?href="#game-(\d+)">', article)}
        won = {n for n in mine if games[n].winner_name == name}
        assert {int(n) for n in re.findall(r'<a class="won" href="#game-(\d+)">', article)} == won
        assert set(mine) <= linked, (name, mine, linked)
    for number, record in games.items():
        row = re.search(rf'<tr id="game-{number}">(.*?)</tr>', table)
        assert row is not None, number
        assert f'href="#{bot_anchor(record.order)}"' in row.group(1)
    # The faults link their games and bots; crashy's section has its faults and stderr.
    faults = _section(text, "faults")
    crashed = [n for n, r in games.items() if r.reason.value == "crash"]
    assert crashed and all(f'<a href="#game-{n}">' in faults for n in crashed)
    crashy = bots.split(f'id="{bot_anchor("crashy")}">', 1)[1].split("</article>", 1)[0]
    assert f"{len(crashed)} games lost by its own fault: {len(crashed)} crash" in crashy
    assert "missing.txt" in crashy and '<pre class="stderr">' in crashy
    assert "FileNotFoundError" in crashy.split('<pre class="stderr">', 1)[1]


def test_anchors_are_one_word_and_distinct_for_any_name() -> None:
    names = [
        "alice",
        "a b",
        "a_b",
        "a_20_b",
        HOSTILE,
        "quote\"and'apos&amp;",
        "Zoë",
        "x" * 64,
        "",
    ]
    anchors = [bot_anchor(n) for n in names]
    assert len(set(anchors)) == len(names)
    assert all(re.fullmatch(r"bot-[A-Za-z0-9._-]*", a) for a in anchors), anchors
    assert bot_anchor("alice") == "bot-alice" and bot_anchor("g1.v2-b") == "bot-g1.v2-b"


def _absolute_folders(tournament: Class) -> list[str]:
    folders = [str(tournament.folder), str(tournament.db.parent), "/tmp", str(Path.home())]
    folders += [str(tournament.folder / "students" / n) for n in ENTRIES]
    return folders


def test_a_public_page_has_no_path_of_the_machine_and_no_stderr(tournament: Class) -> None:
    organiser, public = tournament.page.read_text(), tournament.public.read_text()
    assert str(tournament.folder / "students" / "crashy" / "missing.txt") in organiser  # control
    for folder in _absolute_folders(tournament):
        assert folder not in public, folder
    # The same fault detail, its path relative to the config's folder, in the page and viewer.
    assert "No such file or directory: &#x27;students/crashy/missing.txt&#x27;" in public
    assert "No such file or directory: 'students/crashy/missing.txt'" in public  # viewer's JSON
    # No stderr: the fault's detail quotes its telling line, the traceback stays private.
    for private in ('<pre class="stderr">', "end of its stderr", "Traceback (most recent"):
        assert private in organiser and private not in public, private


def test_the_names_shown_are_a_choice(tournament: Class, tmp_path: Path) -> None:
    """The organiser's page shows the names bots gave themselves (escaped); ``--public`` shows
    the entry names alone unless ``--names both``, and ``--names entry`` turns them off
    anywhere."""
    mine = f"crashy ({html.escape(HOSTILE)})"
    assert mine in tournament.page.read_text()
    public = tournament.public.read_text()
    assert "python doc bot" not in public and "&lt;img" not in public
    for extra, shown in ((("--public", "--names", "both"), True), (("--names", "entry"), False)):
        out = tmp_path / "names.html"
        done = run_arena("report", tournament.db, "--out", out, *extra)
        assert done.returncode == 0, done.stderr
        text = out.read_text()
        assert (mine in text) is shown and ("bob (python doc bot)" in text) is shown, extra
        assert HOSTILE not in text
    wrong = run_arena("report", tournament.db, "--names", "chosen")
    assert wrong.returncode == 2 and "entry" in wrong.stderr and "both" in wrong.stderr


def test_without_matplotlib_one_line_says_to_install_the_extra(tournament: Class) -> None:
    """A plain install (no matplotlib: its import fails here) gets one line and no page."""
    out = tournament.folder / "no-charts.html"
    program = (
        "import sys\n"
        "sys.modules['matplotlib'] = None  # what `import matplotlib` finds: ImportError\n"
        "from arena.cli import main\n"
        f"sys.argv = ['arena', 'report', {str(tournament.db)!r}, '--out', {str(out)!r}]\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO_ROOT,
        check=False,
    )
    assert done.returncode != 0
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "matplotlib" in done.stderr and "pip install -e '.[report]'" in done.stderr
    assert not out.exists()


# --- in the browser ----------------------------------------------------------------------------

CLIPPED = """
// The elements under `selector` that a box scrolling or hiding its overflow cuts off.
const clipped = [];
for (const el of document.querySelectorAll(arguments[0])) {
  const box = el.getBoundingClientRect();
  for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
    const style = getComputedStyle(up);
    if (style.overflowY === 'visible' && style.overflowX === 'visible') continue;
    const frame = up.getBoundingClientRect();
    if (box.bottom > frame.bottom + 1 || box.top < frame.top - 1 || box.right > frame.right + 1) {
      clipped.push(el.textContent.slice(0, 40));
      break;
    }
  }
  if (box.height === 0) clipped.push('hidden: ' + el.textContent.slice(0, 40));
}
return clipped;
"""


@pytest.fixture
def twenty(tmp_path: Path) -> Path:
    """The report of a synthetic 20-bot store with faults (a class: more rows than a screen)."""
    db = tmp_path / "twenty.sqlite"
    report_scale().build_store(db, 20, pairs=2, fault_share=0.1)
    page = tmp_path / "twenty.html"
    from arena.report import write_report

    write_report(db, page)
    return page


def test_every_row_shows_on_screen_and_in_print(browser: Any, twenty: Path) -> None:  # noqa: F811
    from selenium.webdriver.common.by import By

    load(browser, twenty)
    rows = browser.find_elements(By.CSS_SELECTOR, "#standings-table tbody tr")
    assert len(rows) == 20
    assert browser.execute_script(CLIPPED, "#standings-table tbody tr") == []
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        for table in ("#standings-table", "#faults-table", "#fault-games", "#games-table"):
            assert browser.execute_script(CLIPPED, f"{table} tbody tr") == [], table
        for key in ("standings", "ratings", "cross", "faults", "bots", "lengths", "games"):
            section = browser.find_element(By.ID, key)
            assert section.is_displayed() and section.size["height"] > 0, key
        assert browser.execute_script(CLIPPED, "article.bot") == []
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    assert console_errors(browser) == []


def test_a_bots_link_opens_its_section(browser: Any, tournament: Class) -> None:  # noqa: F811
    """The link an author is sent (``report.html#bot-crashy``) shows their section; a game's
    link its row."""
    from selenium.webdriver.common.by import By

    for target in (bot_anchor("crashy"), "game-5"):
        browser.get(f"{tournament.public.as_uri()}#{target}")
        element = browser.find_element(By.ID, target)
        top, bottom, height = browser.execute_script(
            "const box = arguments[0].getBoundingClientRect();"
            " return [box.top, box.bottom, window.innerHeight]",
            element,
        )
        assert top >= 0 and bottom <= height, (target, top, bottom)  # scrolled into view
        assert browser.execute_script("return window.scrollY") > 0, target
        assert browser.execute_script("return document.querySelector(':target').id") == target
    assert browser.execute_script("return document.querySelectorAll('img').length") == 0

    # The game's "watch" link opens it in the viewer.
    from selenium.webdriver.support.ui import WebDriverWait

    load(browser, tournament.public)
    browser.find_element(By.CSS_SELECTOR, '#game-5 a[data-view="5"]').click()
    WebDriverWait(browser, 10).until(
        lambda d: d.find_element(By.ID, "v-head").text.startswith("#5 ")
    )
    assert browser.find_element(By.ID, "v-ply").text.startswith("ply 0 / ")
    assert console_errors(browser) == []


def test_past_the_listing_limit_the_latest_games_are_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond ``MAX_LISTED_GAMES`` (here 10) the games table and the bots' sections list and link
    the latest games only, and say so; a bot's totals still count every game."""
    from arena.report import perbot, write_report

    monkeypatch.setattr(perbot, "MAX_LISTED_GAMES", 10)
    db = tmp_path / "many.sqlite"
    games = report_scale().build_store(db, 4, pairs=2)  # 24 games
    out = tmp_path / "many.html"
    write_report(db, out)
    text = out.read_text()
    with Store.open(db, readonly=True) as store:
        numbers = [n for n, _ in store.numbered_games()]
    assert len(numbers) == games == 24
    table = _section(text, "games")
    assert [int(n) for n in re.findall(r'<tr id="game-(\d+)">', table)] == numbers[-10:]
    assert "The latest 10 of 24 games" in table
    bots = _section(text, "bots")
    linked = {int(n) for n in re.findall(r'href="#game-(\d+)"', bots)}
    assert linked == set(numbers[-10:])
    assert "(among the latest 10 games)" in bots
    assert bots.count("12 games; won") == 4  # totals over all 24 games


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ('File "/srv/t/students/a/main.py", line 3', 'File "students/a/main.py", line 3'),
        ("/srv/t/students/go/main.go:103 +0x40f", "students/go/main.go:103 +0x40f"),
        ("panic: open /srv/t/../x/data.bin: no such file", "panic: open …/data.bin: no such file"),
        ('File "/usr/lib/python3.11/json/__init__.py"', 'File "…/__init__.py"'),
        ("cwd=/srv/t and /tmp/", "cwd=. and …/tmp"),
        ("relative students/a/main.py and a/b stay", "relative students/a/main.py and a/b stay"),
        ("1/2 of moves, http://example.org/x", "1/2 of moves, http:…/x"),
    ],
)
def test_public_paths_are_relative_to_the_config_folder(written: str, shown: str) -> None:
    from pathlib import PurePosixPath

    from arena.report.audience import without_host_paths

    assert without_host_paths(written, PurePosixPath("/srv/t")) == shown


WIDER_THAN_THE_PAGE = """
const width = document.documentElement.clientWidth;
return Array.from(document.querySelectorAll('body *'))
  .filter(el => el.getBoundingClientRect().right > width + 1)
  .map(el => el.tagName + '#' + el.id + '.' + el.className);
"""


def test_a_printed_page_fits_its_width(browser: Any, tournament: Class) -> None:  # noqa: F811
    """On an A4 page's width (about 720 px), with a long name in the standings (the name crashy
    gave itself), nothing in print runs past the right edge, where the paper would cut it."""
    browser.set_window_size(720, 1000)
    load(browser, tournament.page)
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        assert browser.execute_script(WIDER_THAN_THE_PAGE) == []
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
