"""``arena serve``: the live page of a store, running or finished, until Ctrl-C."""

from __future__ import annotations

import socket
from pathlib import Path

from arena.errors import ArenaError


def listening(host: str, port: int, option: str) -> socket.socket:
    """A socket listening on ``host:port``, or a one-line error naming ``option``."""
    from arena.report.server import bind

    try:
        return bind(host, port)
    except OSError as exc:
        raise ArenaError(f"{option}: cannot listen on {host}:{port}: {exc.strerror}") from None


def serve_command(db: Path, host: str, port: int) -> None:
    """``arena serve``: bind, say where, serve until Ctrl-C, SIGTERM or SIGHUP."""
    from arena.report.server import serve, url_of
    from arena.store.database import Store

    Store.open(db, readonly=True).close()  # a clear error now for a file that is no store
    sock = listening(host, port, "--port")
    print(f"serving the live page of {db} at {url_of(sock)} (Ctrl-C stops)", flush=True)
    with sock:
        serve(db, sock)
