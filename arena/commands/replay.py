"""``arena replay DB [GAME]``: list stored games, or look at one of them move by move.

A rating says who is stronger; a game shows why. Without GAME the command lists the store's games
(every game, of old bot versions and of ``arena play`` too), filtered. With GAME it draws the board
as ``arena.boardview`` does for every viewer (coordinates, ``[X]`` the last move, ``(X)`` the
winning five). On a terminal that is a viewer stepped with the arrow keys, or an animation
(``--play``); with ``--ply N``, or off a terminal, plain text to paste into a bug report. Games
are numbered by their row in the store, so a number stays the same however the list is filtered.
"""

from __future__ import annotations

import os
import select
import sys
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena import boardview
from arena.commands.stopping import wait_readable
from arena.errors import ArenaError
from arena.limits import Measure
from arena.protocol import shown
from arena.records import GameRecord
from arena.rules import Reason, Role

KEYS_HELP = "keys: <- -> step, Home/End first/last, q quit"
CLEAR = "\x1b[H\x1b[2J"


@dataclass(frozen=True)
class GameFilter:
    """Which games ``arena replay DB`` lists (every field None/0: all of them)."""

    bot: str | None = None
    """Only games of this bot (in either role, unless ``role`` is given)."""
    role: Role | None = None
    """With ``bot``: only the games it played in this role."""
    reason: str | None = None
    """Only games that ended so (``five``, ``full``, or a fault: ``timeout``...)."""
    winner: str | None = None
    """Only games won by this role (``order``/``chaos``, any case) or by this bot."""
    min_plies: int = 0
    """Only games at least this long (plies on the board at the end, the opening's included)."""

    def accepts(self, record: GameRecord) -> bool:
        if self.bot is not None:
            seats = {Role.ORDER: record.order, Role.CHAOS: record.chaos}
            if self.role is not None:
                if seats[self.role] != self.bot:
                    return False
            elif self.bot not in seats.values():
                return False
        if self.reason is not None and record.reason.value != self.reason:
            return False
        if self.winner is not None and (
            self.winner != record.winner_name and self.winner.lower() != record.winner.value
        ):
            return False
        return len(record.opening) + len(record.moves) >= self.min_plies


def select_games(
    games: Iterable[tuple[int, GameRecord]], wanted: GameFilter
) -> list[tuple[int, GameRecord]]:
    """The numbered games that ``wanted`` accepts, in store order."""
    return [(number, record) for number, record in games if wanted.accepts(record)]


def list_lines(
    rows: Sequence[tuple[int, GameRecord]], total: int, uncounted: Collection[int] = ()
) -> list[str]:
    """The game list as plain lines: a header, one line per game, a count. ``uncounted``: the
    numbers of games the standings leave out (an older version of a bot's, or beyond the
    tournament's ``games_per_pairing``), marked ``*``."""
    if not rows:
        return [f"No games match (the store holds {total})."]
    order_w = max(5, *(len(shown(r.order)) for _, r in rows))
    chaos_w = max(5, *(len(shown(r.chaos)) for _, r in rows))
    id_w = max(4, *(len(str(n)) for n, _ in rows))
    lines = [
        f"{'game':>{id_w}}  {'order':<{order_w}}  {'chaos':<{chaos_w}}  winner  reason     plies"
    ]
    marked = 0
    for number, r in rows:
        plies = len(r.opening) + len(r.moves)
        old = number in uncounted
        marked += old
        lines.append(
            f"{number:>{id_w}}  {shown(r.order):<{order_w}}  {shown(r.chaos):<{chaos_w}}  "
            f"{r.winner.value:<6}  {r.reason.value:<9}  {plies:>5}{'  *' if old else ''}"
        )
    lines.append(f"{len(rows)} of {total} games; see one with: arena replay DB GAME")
    if marked:
        lines.append(
            f"* {marked} of them the standings leave out (played by an older version of a bot,"
            " or beyond games_per_pairing)"
        )
    return lines


def game_header(number: int, record: GameRecord) -> str:
    """``game 7: greedy (Order) vs random (Chaos), seed 1``."""
    order, chaos = shown(record.order), shown(record.chaos)
    return f"game {number}: {order} (Order) vs {chaos} (Chaos), seed {record.seed}"


def _fault_line(record: GameRecord) -> str:
    """How a game lost by a fault ended: the bot, its role, the reason and what the referee saw."""
    from arena.referee.verdicts import DETAIL_WIDTH, shown_detail

    loser = record.winner.other
    detail = shown_detail(record.detail, DETAIL_WIDTH)
    tail = f": {detail}" if detail else ""
    return (
        f"{record.winner.value.capitalize()} wins: {shown(record.loser_name)}"
        f" ({loser.value.capitalize()})"
        f" lost by {record.reason.value}{tail}"
    )


def frame_lines(
    record: GameRecord, frames: Sequence[boardview.Frame], index: int
) -> tuple[boardview.Frame, str]:
    """The frame at ``index`` and the line under it (the fault, at the end of a faulted game)."""
    frame = frames[index]
    total = len(frames) - 1
    note = ""
    move = index - len(record.opening) - 1  # among the bots' own moves
    if 0 <= move < len(record.ms):
        note += f" in {record.ms[move]:.1f} ms"
        if record.measure != Measure.CPU.value:  # the default goes without saying
            note += f" ({record.measure})"
    clocks = record.clocks_after(move) if index > len(record.opening) else None
    if clocks is not None:
        note += f"; clocks: Order {clocks[0] / 1000:.2f} s, Chaos {clocks[1] / 1000:.2f} s"
    line = boardview.describe(frame, total, note)
    if index == total and record.reason not in (Reason.FIVE, Reason.FULL):
        line += "; " + _fault_line(record)
    return frame, line


# --- keys ----------------------------------------------------------------------------------------
class Key:
    """The viewer's commands, as the key reader names them."""

    BACK = "back"
    FORWARD = "forward"
    FIRST = "first"
    LAST = "last"
    QUIT = "quit"
    OTHER = "other"


_SEQUENCES = {
    b"\x1b[D": Key.BACK,
    b"\x1bOD": Key.BACK,
    b"\x1b[C": Key.FORWARD,
    b"\x1bOC": Key.FORWARD,
    b"\x1b[H": Key.FIRST,
    b"\x1bOH": Key.FIRST,
    b"\x1b[1~": Key.FIRST,
    b"\x1b[7~": Key.FIRST,
    b"\x1b[F": Key.LAST,
    b"\x1bOF": Key.LAST,
    b"\x1b[4~": Key.LAST,
    b"\x1b[8~": Key.LAST,
    b"h": Key.BACK,
    b"l": Key.FORWARD,
    b" ": Key.FORWARD,
    b"q": Key.QUIT,
    b"Q": Key.QUIT,
    b"\x04": Key.QUIT,  # Ctrl-D
}


def read_keys(data: bytes) -> Iterator[str]:
    """The keys in what a terminal sent: escape sequences (CSI/SS3) whole, other bytes one by one;
    anything unknown is ``Key.OTHER``."""
    i = 0
    while i < len(data):
        if data[i] == 0x1B and i + 1 < len(data) and data[i + 1] in b"[O":
            j = i + 2
            while j < len(data) and not 0x40 <= data[j] <= 0x7E:
                j += 1
            chunk = data[i : j + 1]
            i = j + 1
        else:
            chunk = data[i : i + 1]
            i += 1
        yield _SEQUENCES.get(chunk, Key.OTHER)


ESCAPE_WAIT_S = 0.05
"""How long the viewer waits for the rest of an escape sequence cut between two reads (a slow
link, ssh): long enough for a packet, short enough that a lone Esc is not noticed as a delay."""


def cut_short(data: bytes) -> bool:
    """Whether ``data`` ends inside an escape sequence: ESC alone, or CSI/SS3 without its final
    byte (a key whose rest is still on its way)."""
    start = data.rfind(b"\x1b")
    if start < 0:
        return False
    tail = data[start + 1 :]
    if not tail:
        return True
    if tail[:1] not in (b"[", b"O"):
        return False
    return not any(0x40 <= byte <= 0x7E for byte in tail[1:])


def read_input(fd: int) -> bytes:
    """What the terminal sent (b"" at its end), with an escape sequence cut between reads made
    whole when its rest comes within ``ESCAPE_WAIT_S``: otherwise one arrow key, split by the
    link, would read as three unknown keys."""
    data = os.read(fd, 64)
    while data and cut_short(data):
        ready, _, _ = select.select([fd], [], [], ESCAPE_WAIT_S)
        if not ready:
            break
        more = os.read(fd, 64)
        if not more:
            break
        data += more
    return data


def step(index: int, key: str, last: int) -> int:
    """The frame shown after ``key`` (``index`` when the key does not move)."""
    if key == Key.BACK:
        return max(0, index - 1)
    if key == Key.FORWARD:
        return min(last, index + 1)
    if key == Key.FIRST:
        return 0
    if key == Key.LAST:
        return last
    return index


# --- output --------------------------------------------------------------------------------------
class _Screen:
    """Where frames go: styled on a terminal (unless NO_COLOR), plain text otherwise."""

    def __init__(self, interactive: bool) -> None:
        self.interactive = interactive
        self.styled = interactive and not os.environ.get("NO_COLOR")

    def show(self, header: str, frame: boardview.Frame, line: str, footer: str = "") -> None:
        out = sys.stdout
        if self.interactive:
            out.write(CLEAR)
        out.write(header + "\n")
        if self.styled:
            from rich.console import Console

            console = Console(file=out, highlight=False, force_terminal=True, soft_wrap=True)
            console.print(boardview.render_rich(frame))
        else:
            out.write(boardview.render(frame) + "\n")
        out.write(line + "\n")
        if footer:
            out.write(footer + "\n")
        out.flush()


def _raw_stdin() -> tuple[int, list[Any] | None]:
    """Put the terminal on stdin in cbreak mode (keys arrive at once, unechoed); the old mode."""
    import termios
    import tty

    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    return fd, old


def _restore(fd: int, old: list[Any] | None) -> None:
    import termios

    if old is not None:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)


def _view(header: str, record: GameRecord, frames: Sequence[boardview.Frame]) -> None:
    """The interactive viewer: starts at the final position, arrow keys step, q quits."""
    screen = _Screen(interactive=True)
    last = len(frames) - 1
    index = last
    fd, old = _raw_stdin()
    try:
        footer = KEYS_HELP
        while True:
            frame, line = frame_lines(record, frames, index)
            screen.show(header, frame, line, footer)
            wait_readable(fd)  # a stop signal is acted on at once, even while no key comes
            data = read_input(fd)
            if not data:
                return
            footer = KEYS_HELP
            for key in read_keys(data):
                if key == Key.QUIT:
                    return
                if key == Key.OTHER:
                    footer = f"unknown key; {KEYS_HELP}"
                index = step(index, key, last)
    finally:
        _restore(fd, old)


def _animate(
    header: str, record: GameRecord, frames: Sequence[boardview.Frame], delay_ms: int
) -> None:
    """``--play``: every position in turn; on a terminal ``delay_ms`` apart (q stops)."""
    interactive = sys.stdout.isatty()
    screen = _Screen(interactive)
    keys = interactive and sys.stdin.isatty()
    fd, old = _raw_stdin() if keys else (-1, None)
    try:
        for index in range(len(frames)):
            frame, line = frame_lines(record, frames, index)
            if not interactive and index:
                sys.stdout.write("\n")
            screen.show(header, frame, line, "q stops" if keys else "")
            if not interactive or index == len(frames) - 1:
                continue
            if keys:
                ready = wait_readable(fd, delay_ms / 1000)
                if ready and Key.QUIT in read_keys(read_input(fd) or b"q"):
                    return
            else:
                time.sleep(delay_ms / 1000)
    finally:
        _restore(fd, old)


def _plain(number: int, record: GameRecord, frames: Sequence[boardview.Frame], ply: int) -> None:
    """One position as plain text, with the game's moves: for a bug report."""
    header = game_header(number, record)
    screen = _Screen(interactive=False)
    frame, line = frame_lines(record, frames, ply)
    screen.show(header, frame, line)
    if record.opening:
        print("opening: " + " ".join(record.opening))
    print("moves: " + (" ".join(record.moves) or "none"))


# --- the command ---------------------------------------------------------------------------------
def replay_command(
    db: Path,
    game: int | None,
    wanted: GameFilter,
    *,
    play: bool = False,
    ply: int | None = None,
    delay_ms: int = 500,
) -> None:
    """``arena replay``: the list of games (no ``game``), or one game drawn."""
    if wanted.role is not None and wanted.bot is None:
        raise ArenaError("--as needs --bot: the role of which bot?")
    if game is None:
        if play or ply is not None:
            raise ArenaError("--play and --ply need a GAME (arena replay DB lists them)")
        _list_games(db, wanted)
        return
    if wanted != GameFilter():
        raise ArenaError("--bot, --as, --reason, --winner and --min-plies filter the list: no GAME")
    if play and ply is not None:
        raise ArenaError("--play animates the whole game and --ply shows one position: not both")
    record = _stored_game(db, game)
    try:
        frames = boardview.frames(record.moves, record.opening)
    except ValueError as exc:
        raise ArenaError(f"{db}: game {game} cannot be replayed: {exc}") from None
    last = len(frames) - 1
    if ply is not None:
        if not 0 <= ply <= last:
            raise ArenaError(f"game {game} has {last} plies: --ply must be 0 to {last}")
        _plain(game, record, frames, ply)
    elif play:
        _until_stopped(lambda: _animate(game_header(game, record), record, frames, delay_ms))
    elif sys.stdout.isatty() and sys.stdin.isatty():
        _until_stopped(lambda: _view(game_header(game, record), record, frames))
    else:
        _plain(game, record, frames, last)


def _list_games(db: Path, wanted: GameFilter) -> None:
    """Print the games ``wanted`` accepts; a filter naming no bot of the store is an error."""
    from arena.store.database import Store

    with Store.open(db, readonly=True) as store:
        games = list(store.numbered_games(include_inactive=True))
        counted = store.counted_numbers()
    if not games:
        raise ArenaError(f"{db}: no games stored yet (nothing to list)")
    names = sorted({r.order for _, r in games} | {r.chaos for _, r in games})
    known = ", ".join(map(shown, names)) or "none"
    if wanted.bot is not None and wanted.bot not in names:
        raise ArenaError(f"{db}: no games of a bot named {wanted.bot!r} (its bots: {known})")
    roles = [role.value for role in Role]
    if wanted.winner is not None and (
        wanted.winner not in names and wanted.winner.lower() not in roles
    ):
        raise ArenaError(
            f"{db}: --winner {wanted.winner!r} is neither a role (order, chaos) nor one of its"
            f" bots ({known})"
        )
    # A store of `arena play`'s counts none: nothing to tell apart there.
    uncounted = {number for number, _ in games} - counted if counted else set()
    print("\n".join(list_lines(select_games(games, wanted), len(games), uncounted)))


def _stored_game(db: Path, game: int) -> GameRecord:
    """Game number ``game`` of the store; its absence is an error that names the numbers there."""
    from arena.store.database import Store

    with Store.open(db, readonly=True) as store:
        record = store.game(game)
        numbers = store.game_numbers() if record is None else None
    if record is not None:
        return record
    assert numbers is not None
    if numbers[0] is None:
        raise ArenaError(f"{db}: no game {game}: no games stored yet")
    raise ArenaError(
        f"{db}: no game {game} (its games are numbered {numbers[0]} to {numbers[1]};"
        f" `arena replay {db}` lists them)"
    )


def _until_stopped(show: Callable[[], None]) -> None:
    """Run the viewer or the animation; Ctrl-C, SIGTERM and SIGHUP end it as ``q`` does, with
    the terminal's mode restored (a bare SIGTERM would leave the shell unechoed, in cbreak
    mode) and the exit status a shell expects (128 + the signal)."""
    from arena.commands.stopping import exit_code, stopped_like_ctrl_c

    try:
        with stopped_like_ctrl_c():
            show()
    except KeyboardInterrupt as stop:  # the terminal is restored by now (the finally blocks)
        sys.stdout.write("\n")
        sys.stdout.flush()
        raise SystemExit(exit_code(stop)[0]) from None
