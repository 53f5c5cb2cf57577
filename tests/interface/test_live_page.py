"""Watching a tournament as it runs: ``--rating-interval``, ``--serve`` and ``arena serve``.

Real runs of the ``arena`` command with paced bots (so that games are in progress for a while),
a real server on 127.0.0.1 at a free port (the command picks it: ``--serve 127.0.0.1:0``, and
says where), plain HTTP from here, and a headless chromium (the report test's ``browser``
fixture) that must see the page follow the run without reload. Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import run_arena, wait_for_no_leftovers, wait_until
from factories import bot_entries, copy_bot, write_config
from ptyrun import PtyRun
from test_report import WAIT_S, browser, console_errors  # noqa: F401 (a fixture)

from arena.report.server import REQUESTS_PER_S, Pace, ThreadPool, parse_address

RUN_S = 120.0
"""Bound on a whole run."""
MARKUP = "<img src=x onerror=alert(1)><script>alert(2)</script>"
"""What the bot ``markup`` (``tests/bots/paced.py``) calls itself."""


def _config(folder: Path, games: int = 6, pace_ms: int = 40) -> Path:
    """Three paced bots (one naming itself in HTML), ``games`` per ordered pairing."""
    bots = bot_entries(folder, ["alpha", "beta"], pace_ms=pace_ms)
    paced = copy_bot(folder / "markup", "paced.py")
    bots.append({"name": "markup", "command": ["python3", str(paced), str(pace_ms), MARKUP]})
    return write_config(folder, bots, games_per_pairing=games, sandbox="none")


@dataclass
class Served:
    """A tournament running with ``--serve``, and where its page is."""

    process: subprocess.Popen[str]
    host: str
    port: int
    db: Path

    def get(
        self, path: str, method: str = "GET", headers: dict[str, str] | None = None
    ) -> tuple[int, bytes, dict[str, str]]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
        try:
            conn.request(method, path, headers=headers or {})
            answer = conn.getresponse()
            return answer.status, answer.read(), dict(answer.getheaders())
        finally:
            conn.close()

    def json(self, path: str) -> Any:
        status, body, _ = self.get(path)
        assert status == 200, body
        return json.loads(body)


def _url_line(process: subprocess.Popen[str], timeout: float) -> str:
    """The ``live page: URL`` line the command writes on stderr (bounded)."""
    assert process.stderr is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stderr], [], [], deadline - time.monotonic())
        if not ready:
            break
        line = process.stderr.readline()
        if not line:
            break
        found = re.search(r"live page: http://(\S+)/", line)
        if found:
            return found.group(1)
    raise AssertionError("the command never said where its live page is")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """``arena tournament CONFIG --serve 127.0.0.1:0 --quiet``, running (stopped at the end)."""
    config = _config(tmp_path, games=24, pace_ms=60)
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", str(config), "--quiet"]
        + ["--serve", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        host, port = parse_address(_url_line(process, 30))
        yield Served(process, host, port, tmp_path / "t.sqlite")
    finally:
        if process.poll() is None:
            process.terminate()
        process.communicate(timeout=30)
    # Neither the server nor its worker outlives the run.
    assert wait_for_no_leftovers([str(tmp_path / "t.sqlite")]) == []


def test_rating_interval_prints_the_table_in_a_pipe(tmp_path: Path) -> None:
    """In a pipe and quiet: the compact table every N games, then the final standings."""
    config = _config(tmp_path, games=4, pace_ms=1)
    done = run_arena("tournament", config, "--rating-interval", 4, "--quiet", timeout=RUN_S)
    assert done.returncode == 0, done.stdout + done.stderr
    tables = re.findall(r"^Standings: (\d+) games", done.stdout, re.MULTILINE)
    # 24 games: a table each 4 told (of the games stored by then: workers store theirs in
    # batches, so a table may count more), and the final standings.
    counts = [int(n) for n in tables]
    assert len(counts) == 24 // 4 + 1 and counts == sorted(counts), done.stdout
    assert counts[0] >= 4 and counts[-1] == 24
    assert "games 4/24" not in done.stdout  # quiet: no progress line


def test_the_bar_shows_standings_faults_and_the_games_in_progress(tmp_path: Path) -> None:
    """On a terminal, beneath the bar: the top of the standings, the latest faults (here a
    bot that crashes), and the games in progress with how long since their last move."""
    bots = bot_entries(tmp_path, ["alpha", "beta"], pace_ms=60)
    crash = copy_bot(tmp_path / "crash", "crash_midgame.py")
    bots.append({"name": "crasher", "path": str(crash)})
    config = write_config(tmp_path, bots, games_per_pairing=4, sandbox="none")
    with PtyRun("tournament", config, "--rating-interval", 6, rows=60) as run:
        run.expect(r"playing now:\s+\S+ vs \S+: ply \d+, \d+ s in, last move", timeout=60)
        run.expect(r"latest faults:\s+crasher \(crash against", timeout=60)
        run.expect(r"Standings: \d+ games", timeout=60)
        assert run.wait(timeout=RUN_S) == 0
    assert not (tmp_path / "t.sqlite.live").exists()  # the run took its live folder away


def test_a_stuck_game_shows_while_no_game_ends(tmp_path: Path) -> None:
    """One worker, and bots that think 25 s a move of 30 s: the bar is redrawn while no game
    ends, and says the game is stuck long before its move's time is up (the game's end would
    be the next redraw otherwise)."""
    bots = bot_entries(tmp_path, ["alpha", "beta"], pace_ms=25000)
    time_control = {"move_ms": 30000, "startup_ms": 5000}
    config = write_config(
        tmp_path, bots, games_per_pairing=1, workers=1, sandbox="none", time_control=time_control
    )
    with PtyRun("tournament", config, rows=40) as run:
        run.expect(r"playing now:\s+\S+ vs \S+: ply \d+", timeout=60)
        run.expect(r"last move 1\d\.\d s ago  STUCK\?", timeout=25)
        run.send(b"\x03")
        assert run.wait(timeout=60) == 130


def test_the_page_follows_the_run_and_refuses_what_is_not_its_own(served: Served) -> None:
    first = wait_until(lambda: served.json("/standings.json").get("games"), 60)
    assert first, "no game was stored in time"
    progress = served.json("/standings.json")["progress"]
    assert progress["running"] and progress["total"] == 144
    second = wait_until(lambda: served.json("/standings.json")["games"] > first, 30)
    assert second, "the games did not grow"
    live = wait_until(lambda: served.json("/state.json")["live"], 10)
    assert live and {"order", "chaos", "moves", "opening"} <= set(live[0])
    # It only reads, and only its own pages.
    status, _, headers = served.get("/", "POST")
    assert status == 405 and headers["Allow"] == "GET, HEAD"
    assert served.get("/", "DELETE")[0] == 405
    assert served.get("/../../etc/passwd")[0] == 404
    assert served.get("/bot/..%2F..%2Fetc%2Fpasswd")[0] == 404
    # A page elsewhere whose name was made to point here (DNS rebinding) reads nothing.
    assert served.get("/standings.json", headers={"Host": "evil.example:80"})[0] == 403
    assert served.get("/standings.json", headers={"Host": "localhost"})[0] == 200
    status, body, headers = served.get("/", "HEAD")
    assert (
        status == 200 and body == b"" and "script-src 'self'" in headers["Content-Security-Policy"]
    )
    # The bot's HTML name is escaped in the page the server renders.
    page = served.get("/")[1].decode()
    assert MARKUP not in page
    assert served.process.wait(timeout=RUN_S) == 0


def test_a_client_that_never_reads_does_not_stall_the_run(served: Served) -> None:
    """Streams opened and never read, and a request never finished: the run goes on, and the
    server still answers others."""
    hostile = []
    for _ in range(4):
        sock = socket.create_connection((served.host, served.port), timeout=5)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        hostile.append(sock)
    half = socket.create_connection((served.host, served.port), timeout=5)
    half.sendall(b"GET / HT")
    hostile.append(half)
    try:
        start = time.monotonic()
        assert served.get("/")[0] == 200
        assert time.monotonic() - start < 5
        assert served.process.wait(timeout=RUN_S) == 0
    finally:
        for sock in hostile:
            sock.close()
    finished = run_arena("ratings", served.db, "--json")
    assert json.loads(finished.stdout)["games"] == 144


def _serve_store(db: Path) -> tuple[subprocess.Popen[str], Served]:
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", str(db), "--port", "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], 30)
    assert ready, "arena serve said nothing"
    found = re.search(r"at http://(\S+)/", process.stdout.readline())
    assert found
    host, port = parse_address(found.group(1))
    return process, Served(process, host, port, db)


@contextlib.contextmanager
def _hogs_beside_us(count: int) -> Iterator[None]:
    """``count`` processes that compute for a minute at most, in this session (with the
    kernel's autogroups, a process at nice 19 yields to them only when they share its group),
    killed at the end of the block."""
    code = "import os, time\nos.write(1, b'on\\n')\nend = time.monotonic() + 60\n"
    code += "while time.monotonic() < end:\n    pass"
    hogs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)]
    try:
        hogs += [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
                 for _ in range(count - 1)]  # fmt: skip
        for hog in hogs:
            assert hog.stdout is not None and select.select([hog.stdout], [], [], 10)[0]
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.communicate(timeout=10)


def _nice_values(pid: int) -> set[int]:
    """The nice values of every thread of a process (but one that ends while they are read)."""
    values = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            values.add(int((task / "stat").read_text().rsplit(")", 1)[1].split()[16]))
    return values


def _children(pid: int) -> list[int]:
    """The children of a process, whichever of its threads started them (a thread that ends
    while they are read has none)."""
    children = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            children += (int(child) for child in (task / "children").read_text().split())
    return children


def test_the_page_answers_at_once_on_a_busy_machine(tmp_path: Path) -> None:
    """Two processes computing per core beside ``arena serve``: the page and its state are
    answered at once (the server runs at normal priority), while what is costly (the tables,
    the charts) is computed by a worker process at the lowest priority."""
    config = _config(tmp_path, games=2, pace_ms=1)
    assert run_arena("tournament", config, "--quiet", timeout=RUN_S).returncode == 0
    with _hogs_beside_us(2 * (os.cpu_count() or 1)):
        process, served = _serve_store(tmp_path / "t.sqlite")
        try:
            for path in ("/", "/state.json", "/live.js", "/sections.json"):
                start = time.monotonic()
                assert served.get(path)[0] == 200
                assert time.monotonic() - start < 2, path
            # The page asked for: the worker is started for its tables (it lowers its priority
            # once its code is imported).
            workers = wait_until(lambda: _children(process.pid), 10)
            assert _nice_values(process.pid) == {0} and workers
            assert wait_until(lambda: all(_nice_values(w) == {19} for w in workers), 10)
        finally:
            process.terminate()
            process.communicate(timeout=30)


@pytest.fixture
def finished_store(tmp_path: Path) -> Path:
    """The store of a small tournament played to its end."""
    config = _config(tmp_path, games=2, pace_ms=1)
    done = run_arena("tournament", config, "--quiet", timeout=RUN_S)
    assert done.returncode == 0, done.stderr
    return tmp_path / "t.sqlite"


def test_serve_a_finished_store_as_arena_ratings_sees_it(finished_store: Path) -> None:
    db = finished_store
    process, served = _serve_store(db)
    try:
        standings = served.json("/standings.json")
        progress = standings.pop("progress")
        assert not progress["running"]
        assert standings == json.loads(run_arena("ratings", db, "--json").stdout)
        page = served.get("/")[1].decode()
        assert 'id="standings-table"' in page and MARKUP not in page
        assert served.get("/bot/alpha")[0] == 200
        assert served.get("/bot/nobody")[0] == 404
    finally:
        process.terminate()
        process.communicate(timeout=30)
    assert process.returncode == 0


def test_the_page_in_a_browser(served: Served, browser: Any) -> None:  # noqa: F811
    """Headless chromium: the game count grows without reload, a game in progress is drawn,
    the HTML name shows as text and no script of it runs, a bot's page opens from the
    standings."""
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"http://{served.host}:{served.port}/")
    wait = WebDriverWait(browser, 60)
    count = wait.until(lambda d: int(d.find_element(By.ID, "games").text or 0))
    wait.until(lambda d: int(d.find_element(By.ID, "games").text) > count)
    drawn = wait.until(
        lambda d: d.execute_script(
            "return Array.from(document.querySelectorAll('.live-game .cell'))"
            ".map(c => c.textContent).filter(Boolean)"
        )
    )
    assert set(drawn) <= {"X", "O"}
    wait.until(
        lambda d: (
            MARKUP in d.execute_script("return document.getElementById('standings').textContent")
        )
    )
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018
    assert console_errors(browser) == []
    link = wait.until(  # the tables follow the run less often on a busy machine
        lambda d: d.find_element(By.CSS_SELECTOR, '#standings-table tr[data-bot="alpha"] a')
    )
    link.click()
    wait.until(lambda d: d.find_element(By.ID, "bot-name").text == "alpha")
    assert d_games(browser) > 0


def d_games(driver: Any) -> int:
    from selenium.webdriver.common.by import By

    return len(driver.find_elements(By.CSS_SELECTOR, "#bot-games tbody tr"))


def test_an_address_that_cannot_serve_is_a_one_line_error(tmp_path: Path) -> None:
    """A bad ``--serve`` or a port in use: one line naming the option, before any game."""
    config = _config(tmp_path, games=1, pace_ms=1)
    bad = run_arena("tournament", config, "--serve", "localhost:http")
    assert bad.returncode != 0 and not (tmp_path / "t.sqlite").exists()
    assert "--serve: expected [HOST:]PORT with a port from 0 to 65535, got" in bad.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = run_arena("tournament", config, "--serve", f"127.0.0.1:{port}")
        assert busy.returncode != 0 and not (tmp_path / "t.sqlite").exists()
        assert f"--serve: cannot listen on 127.0.0.1:{port}: Address already in use" in busy.stderr
        done = run_arena("tournament", config, "--quiet")
        assert done.returncode == 0, done.stderr
        served = run_arena("serve", tmp_path / "t.sqlite", "--port", port)
        assert f"--port: cannot listen on 127.0.0.1:{port}" in served.stderr


def test_a_flood_of_requests_is_answered_at_the_server_s_pace(finished_store: Path) -> None:
    """Eight clients asking as fast as they can: every request is answered, but no faster than
    ``REQUESTS_PER_S`` after the first burst, so a flood cannot take a core from a run."""
    process, served = _serve_store(finished_store)
    flood = 3 * REQUESTS_PER_S
    statuses: list[int] = []
    try:
        assert served.get("/standings.json")[0] == 200  # the standings are ready
        start = time.monotonic()
        with ThreadPoolExecutor(8) as pool:
            statuses += pool.map(lambda _: served.get("/state.json")[0], range(flood))
        took = time.monotonic() - start
    finally:
        process.terminate()
        process.communicate(timeout=30)
    assert statuses == [200] * flood
    assert took >= (flood - REQUESTS_PER_S - 1) / REQUESTS_PER_S, (
        f"{flood} answered in {took:.2f} s"
    )


def test_the_pace_spaces_requests_after_a_burst() -> None:
    now = [100.0]
    pace = Pace(10, clock=lambda: now[0])
    assert [pace.delay() for _ in range(10)] == [0.0] * 10  # a second's burst
    assert pace.delay() == pytest.approx(0.1)
    assert pace.delay() == pytest.approx(0.2)
    now[0] += 60  # a quiet minute gives back one burst, not sixty
    assert [pace.delay() for _ in range(10)] == [0.0] * 10
    assert pace.delay() == pytest.approx(0.1)


def test_the_server_s_threads_answer_connection_after_connection() -> None:
    """Twenty connections one after another: a few threads answer them all (starting a
    thread costs more than answering most requests)."""
    pool = ThreadPool()
    answered_by = []
    for _ in range(20):
        done = threading.Event()
        pool.run(lambda done=done: (answered_by.append(threading.get_ident()), done.set()))
        assert done.wait(10)
    assert len(set(answered_by)) <= 5, answered_by
