"""The live page's server: the standard library's ``http.server``, with server-sent events.

Why this stack: one page for a handful of viewers needs no framework, and a dependency-free
server starts with the CLI anywhere arena runs. Each connection is answered by a thread of a
pool; a pushed update is a line of JSON written to every open event stream. The server only
reads (the store opened read-only, the run's live folder), answers ``GET`` and ``HEAD`` on its
own few paths, and runs in a process of its own beside a run (``serve_in_background``), so a
slow or hostile client costs the run nothing: a stream that is not read is dropped after
``SEND_TIMEOUT_S``. It runs at normal priority, so that it answers at once on a busy machine:
answering is cheap (what it sends is encoded once per state), and what is costly is computed
by a worker process at the lowest priority (``arena.report.livework``).
"""

from __future__ import annotations

import contextlib
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from arena.report.live import LiveState

DEFAULT_PORT = 8642
REQUEST_TIMEOUT_S = 30.0
"""A connection that sends nothing for this long is closed."""
SEND_TIMEOUT_S = 5.0
"""A client that reads nothing for this long is dropped."""
HEARTBEAT_S = 15.0
"""An event stream with nothing new gets a comment line this often (proxies keep it open)."""
FIRST_WAIT_S = 5.0
"""How long a request waits, at most, for the first standings or for standings brought up to
date after nobody looked (computed at the lowest priority): then it gets what there is, rather
than wait longer than a client would."""
FINISH_S = 10.0
"""How long a run's server, told to stop, may take to publish the final standings first."""
LINGER_S = 1.0
"""How long it serves them then, when anyone looks (a client polling once a second sees them)."""
LOOPBACK = re.compile(r"localhost|127(\.\d{1,3}){3}|::1")
MAX_STREAMS = 64
"""Open event streams at most; more are refused (503) so that clients cannot pile up threads."""

MAX_CONNECTIONS = 128
"""Connections open at once, streams included; another waits for one to close (the kernel keeps
it queued), so a flood of connections costs no thread, no memory and no CPU beyond these."""

ACCEPT_WAKE_S = 60.0
"""How often the accepting thread wakes up while no connection comes: only ``shutdown`` would
need it sooner, and the process stops without it (its threads are daemons)."""

REQUESTS_PER_S = 100
"""Requests answered each second at most, after a burst of as many: ten pages polling every
second ask for ten, and a client asking as fast as it can waits its turn, asleep, instead of
taking a core from the run (a request costs about half a millisecond)."""

SECURITY_HEADERS = {
    # Only the page's own script runs (never one in its content), nothing is fetched elsewhere.
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src data:;"
        " connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def parse_address(text: str) -> tuple[str, int]:
    """``[HOST:]PORT`` -> (host, port); the host is 127.0.0.1 unless given. ValueError if bad."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"expected [HOST:]PORT with a port from 0 to 65535, got {text!r}")
    return host, int(port)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: any free one). OSError when taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


class LiveServer(ThreadingHTTPServer):
    """The HTTP server of one store's live page, on a socket already listening."""

    daemon_threads = True

    def __init__(self, sock: socket.socket, state: LiveState) -> None:
        super().__init__(sock.getsockname()[:2], _Handler, bind_and_activate=False)
        self.socket.close()
        self.socket = sock
        self.state = state
        self.streams = threading.BoundedSemaphore(MAX_STREAMS)
        self.connections = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.pace = Pace(REQUESTS_PER_S)
        self.threads = ThreadPool()

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.connections.acquire(timeout=REQUEST_TIMEOUT_S):
            self.shutdown_request(request)  # a flood held them all that long: this one goes
            return
        try:
            self.threads.run(lambda: self.process_request_thread(request, client_address))
        except BaseException:
            self.connections.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.connections.release()


class ThreadPool:
    """Daemon threads that each answer connection after connection: starting a thread costs
    more than answering most requests. Another starts only when every one is busy (so at most
    ``MAX_CONNECTIONS``, which the server's semaphore bounds)."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._idle = 0
        self._lock = threading.Lock()

    def run(self, job: Callable[[], None]) -> None:
        """Run ``job`` in an idle thread, or a new one."""
        with self._lock:
            if self._idle:
                self._idle -= 1
            else:
                threading.Thread(target=self._serve, name="arena-live-http", daemon=True).start()
        self._jobs.put(job)

    def _serve(self) -> None:
        while True:
            self._jobs.get()()
            with self._lock:
                self._idle += 1


class Pace:
    """Spaces requests out to ``rate`` a second, after a burst of as many (a token bucket kept
    as the time at which the next request may be answered)."""

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.gap = 1.0 / rate
        self.clock = clock
        self.free_at = clock() - 1.0
        self.lock = threading.Lock()

    def delay(self) -> float:
        """Take the next turn: how long to wait for it, in seconds (0: at once)."""
        with self.lock:
            now = self.clock()
            self.free_at = max(self.free_at, now - 1.0) + self.gap
            return max(0.0, self.free_at - now)


class _Handler(BaseHTTPRequestHandler):
    server: LiveServer
    server_version = "arena-live"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    wbufsize = 1 << 16  # a response's head and body leave in one write (flushed after each)
    timeout = REQUEST_TIMEOUT_S  # a request never finished does not hold its thread for ever

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base's name)
        """Quiet: a page polled by ten clients would fill the terminal."""

    def do_GET(self) -> None:
        self._answer(body=True)

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def _refuse_method(self) -> None:
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, b"only GET and HEAD\n", "text/plain", True,
                   {"Allow": "GET, HEAD"})  # fmt: skip

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_CONNECT = do_TRACE = _refuse_method

    def _answer(self, body: bool) -> None:
        from arena.report.livepage import live_page
        from arena.report.page import resource

        delay = self.server.pace.delay()
        if delay:  # a flood's turn (no sleep, which is a system call, when there is none)
            time.sleep(delay)
        if not self._host_allowed():
            self._send(HTTPStatus.FORBIDDEN, b"not this host\n", "text/plain", body)
            return
        path = urlsplit(self.path).path
        state = self.server.state
        was_idle = state.asked(page=path in ("/", "/sections.json"))
        # The page itself waits for nothing: it shows its tables when they come.
        if path == "/standings.json" or path.startswith("/bot/"):
            state.computed.wait(FIRST_WAIT_S)  # the first of them, whole
            if was_idle:  # the standings of nobody's page may be old: brought up to date
                state.current(FIRST_WAIT_S)
        snapshot = state.snapshot
        if path == "/":
            page = live_page(snapshot.title, snapshot.games, snapshot.sections)
            self._send(HTTPStatus.OK, page.encode(), "text/html", body)
        elif path == "/live.js":
            self._send(HTTPStatus.OK, resource("live.js").encode(), "text/javascript", body)
        elif (encoded := snapshot.encoded(path)) is not None:
            self._send(HTTPStatus.OK, encoded, "application/json", body)
        elif path == "/events" and body:
            self._events()
        elif path.startswith("/bot/") and unquote(path[5:]) in _names(snapshot.standings):
            self._bot_page(unquote(path[5:]), body)
        else:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain", body)

    def _host_allowed(self) -> bool:
        """On a loopback address, only requests to a loopback name: a web page elsewhere that
        made its own name point here (DNS rebinding) reads nothing."""
        if not LOOPBACK.fullmatch(str(self.server.server_address[0])):
            return True
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0] if self.headers else ""
        return bool(LOOPBACK.fullmatch(host.strip("[]")))

    def _send(
        self,
        status: HTTPStatus,
        data: bytes,
        kind: str,
        body: bool,
        extra: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in {**SECURITY_HEADERS, **(extra or {})}.items():
            self.send_header(name, value)
        self.end_headers()
        if body:
            self.wfile.write(data)

    def _bot_page(self, name: str, body: bool) -> None:
        """A bot's page, read from the store by the worker (at the lowest priority: it reads
        every game), once per new game however often it is asked for."""
        from arena.report.anchors import e

        state = self.server.state
        bot = next(b for b in state.snapshot.standings["bots"] if b["name"] == name)
        value = (bot.get("rating") or {}).get("value")
        standing = (
            f"rank {e(bot.get('rank'))} · {e(bot.get('games'))} games · Elo "
            f"{'-' if value is None else round(value)}"
        )
        page = state.bot_page(name, standing, FIRST_WAIT_S)
        if page is None:
            self._send(HTTPStatus.SERVICE_UNAVAILABLE, b"not read yet\n", "text/plain", body)
        else:
            self._send(HTTPStatus.OK, page.encode(), "text/html", body)

    def _events(self) -> None:
        """Server-sent events: the state now, then each new one, until the client goes."""
        if not self.server.streams.acquire(blocking=False):
            self._send(HTTPStatus.SERVICE_UNAVAILABLE, b"too many streams\n", "text/plain", True)
            return
        self.server.state.viewing(True)
        try:
            self.connection.settimeout(SEND_TIMEOUT_S)
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            for name, value in SECURITY_HEADERS.items():
                self.send_header(name, value)
            self.end_headers()
            self.close_connection = True
            state, version = self.server.state, -1
            while not state.stopped:
                snapshot = state.wait(version, HEARTBEAT_S)
                if snapshot.version == version:
                    self.wfile.write(b": still here\n\n")
                else:
                    data = snapshot.encoded("/state.json") or b"{}"
                    self.wfile.write(b"event: state\ndata: " + data + b"\n\n")
                    version = snapshot.version
                self.wfile.flush()
        except OSError:  # gone, or not reading: dropped
            pass
        finally:
            self.server.state.viewing(False)
            self.server.streams.release()


def _names(standings: dict[str, Any]) -> set[str]:
    return {bot["name"] for bot in standings.get("bots", ())}


def serve(db: Path, sock: socket.socket, finish_s: float = 0.0) -> None:
    """Serve the live page of the store at ``db`` on ``sock`` until SIGTERM, SIGHUP or Ctrl-C
    (held for this thread's ``sigwait`` from the start: the server's threads inherit that).

    ``finish_s``: once told to stop, go on serving until the standings take every stored game
    in, at most that long, and ``LINGER_S`` more, when anyone looks (a run's end: its viewers
    keep its final state)."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
    state = LiveState(db).start()
    server = LiveServer(sock, state)
    # Daemon threads: a stop is at once (nothing is written; the kernel closes the sockets).
    thread = threading.Thread(target=server.serve_forever, args=(ACCEPT_WAKE_S,))
    thread.daemon = True
    thread.start()
    try:
        signal.sigwait({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
        if finish_s and state.finish(finish_s):
            time.sleep(LINGER_S)
    finally:
        state.stop(wait=False)
        server.server_close()


def serve_in_background(db: Path, sock: socket.socket) -> subprocess.Popen[bytes]:
    """The live page of ``db`` served from ``sock`` by a process of its own, killed by the
    kernel if this one dies (stop it with ``stop_background``)."""
    from arena.launch import procfs

    def preexec() -> None:
        procfs.die_with_parent(signal.SIGKILL)

    return subprocess.Popen(
        [sys.executable, "-m", "arena.report.server", str(db), str(sock.fileno())],
        pass_fds=(sock.fileno(),),
        stdin=subprocess.DEVNULL,
        preexec_fn=preexec,
    )


def stop_background(process: subprocess.Popen[bytes]) -> None:
    """The background server stopped and reaped: it publishes the final standings first when
    anyone looks (``FINISH_S`` at most, then serves them ``LINGER_S``), and is killed if it
    takes longer."""
    process.terminate()
    try:
        process.wait(timeout=FINISH_S + LINGER_S + 2)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def _main(argv: list[str]) -> None:
    """``python -m arena.report.server DB FD``: serve on the inherited listening socket FD."""
    db, fd = Path(argv[0]), int(argv[1])
    with contextlib.closing(socket.socket(fileno=fd)) as sock:
        serve(db, sock, finish_s=FINISH_S)


if __name__ == "__main__":
    _main(sys.argv[1:])
