"""Bots shipped to remote workers: each bot's folder packed once, unpacked safely into a cache.

The driver packs each bot's folder (``pack_bot``) into a deterministic gzipped tar named by the
SHA-256 of its bytes; a worker unpacks it once (``unpack``) into ``<cache>/<digest>/``, and the
bot runs from there, reading what it could read here: its folder. A link is packed as a link, and
only one that stays inside the folder (``UnsafePackError`` otherwise). A worker trusts nothing in a
pack: the digest is checked, anything that could write outside the folder is refused, the size and
member count are bounded, and a folder appears only complete. Details: ``docs/scaling.md``.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import os
import shutil
import stat
import tarfile
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from arena.botspec import _CACHE_DIRS, _CACHE_SUFFIXES, MAX_BOT_BYTES, MAX_BOT_FILES, BotSpec
from arena.errors import ArenaError

MAX_PACK_BYTES = MAX_BOT_BYTES
"""The most bytes a pack may unpack to (a bot's own folder is bounded by as much)."""
MAX_PACK_MEMBERS = 4 * MAX_BOT_FILES
"""The most members (files, folders, links) a pack may hold."""
CACHE_ENV = "ARENA_BOT_CACHE"
"""Environment variable naming a worker's cache of unpacked bots (default: in the temp folder)."""


class UnsafePackError(ArenaError):
    """A pack that could write outside its folder, or beyond the bounds: nothing is unpacked."""


@dataclass(frozen=True)
class BotPack:
    """A bot's files as one gzipped tar, named by its content."""

    digest: str
    """SHA-256 (hex) of ``data``: the pack's name in every worker's cache."""
    data: bytes
    """The tar (gzip), deterministic: the same files give the same bytes."""
    files: int
    """Files packed."""
    size: int
    """Bytes of the files packed (before compression)."""


def inner_link_target(link: PurePosixPath, target: str) -> PurePosixPath | None:
    """Where link ``link`` (its path in the folder) leads, inside the folder; None when it could
    lead out: absolute, empty, or with a ``..`` step that is not among its first ones or that
    climbs above the folder. (A ``..`` after another step could climb out through a link.)"""
    if not target or "\0" in target or target.startswith("/"):
        return None
    parts = [part for part in PurePosixPath(target).parts if part != "."]
    ups = 0
    while ups < len(parts) and parts[ups] == "..":
        ups += 1
    if ".." in parts[ups:] or ups > len(link.parent.parts):
        return None
    base = link.parent.parts[: len(link.parent.parts) - ups]
    return PurePosixPath(*base, *parts[ups:])


def _hidden_set(hidden: Sequence[str | os.PathLike[str]]) -> set[str]:
    return {os.path.realpath(path) for path in hidden}


def _walk(folder: Path, hidden: set[str], bot: str) -> list[tuple[str, Path]]:
    """(name in the pack, path here) of every file and link of ``folder``, sorted: caches and
    ``hidden`` paths skipped, bounded as a bot's own folder is (``UnsafePackError`` beyond)."""
    found: list[tuple[str, Path]] = []
    size = 0
    for top, dirs, names in os.walk(folder, followlinks=False):
        here = Path(top)
        kept = []
        for name in sorted(dirs):
            if name in _CACHE_DIRS or os.path.realpath(here / name) in hidden:
                continue
            if (here / name).is_symlink():
                names.append(name)  # a link to a folder: packed as a link, not entered
            else:
                kept.append(name)
        dirs[:] = kept
        for name in sorted(names):
            path = here / name
            if name.endswith(_CACHE_SUFFIXES) or str(path) in hidden:
                continue
            if not path.is_symlink() and os.path.realpath(path) in hidden:
                continue
            try:
                info = path.lstat()
            except OSError:
                continue
            if not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
                continue  # a FIFO, socket or device: nothing a bot ships
            size += info.st_size if stat.S_ISREG(info.st_mode) else 0
            found.append((path.relative_to(folder).as_posix(), path))
            if len(found) > MAX_BOT_FILES or size > MAX_BOT_BYTES:
                raise UnsafePackError(
                    f"bot {bot}: its folder {folder} holds more than {MAX_BOT_FILES} files or"
                    f" {MAX_BOT_BYTES >> 20} MiB (caches skipped), too much to ship to a"
                    " cluster's workers: give the bot a folder with only its files"
                )
    return sorted(found)


def pack_folder(
    folder: Path, hidden: Sequence[str | os.PathLike[str]] = (), bot: str = "?"
) -> BotPack:
    """Pack every file and inner link of ``folder`` (read now), but caches and ``hidden`` paths
    (the results store, the config: what no bot may see): regular files with their exec bit,
    links as links. ``UnsafePackError`` (one line) for a link that could lead out of the folder,
    or a folder too large. Owners and times are not kept, so that only the names, contents, exec
    bits and link targets decide the digest."""
    raw = io.BytesIO()
    size = count = 0
    with (
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=6) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for name, path in _walk(folder, _hidden_set(hidden), bot):
            info = tarfile.TarInfo(name)
            info.mtime = 0
            try:
                if path.is_symlink():
                    target = os.readlink(path)
                    if inner_link_target(PurePosixPath(name), target) is None:
                        raise UnsafePackError(
                            f"bot {bot}: {path} is a link leading out of its folder (to"
                            f" {target!r}): a bot shipped to a cluster may link only inside its"
                            " folder (copy the file in instead)"
                        )
                    info.type = tarfile.SYMTYPE
                    info.linkname = target
                    info.mode = 0o777
                    tar.addfile(info)
                    count += 1
                    continue
                # Not through a link put there since the walk: the driver's rights read it.
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
                with os.fdopen(fd, "rb") as f:
                    mode = os.fstat(f.fileno()).st_mode
                    if not stat.S_ISREG(mode):
                        raise OSError(f"not a regular file any more ({stat.filemode(mode)})")
                    data = f.read(MAX_BOT_BYTES + 1)
                executable = bool(mode & 0o111)
            except UnsafePackError:
                raise
            except OSError as exc:
                raise ArenaError(f"bot {bot}: cannot read {path} to ship it: {exc}") from exc
            info.size = len(data)
            info.mode = 0o755 if executable else 0o644
            tar.addfile(info, io.BytesIO(data))
            size += len(data)
            count += 1
    data = raw.getvalue()
    return BotPack(hashlib.sha256(data).hexdigest(), data, count, size)


def pack_bot(spec: BotSpec, hidden: Sequence[str | os.PathLike[str]] = ()) -> BotPack:
    """Pack ``spec``'s folder (``pack_folder``): what it may read here, its own or shared.

    A file its command names outside its folder (an absolute path) is not packed: it must be at
    the same place on every worker, as for a program found on PATH."""
    return pack_folder(spec.dir, hidden, spec.name)


def default_cache_root() -> Path:
    """Where this machine keeps unpacked bots: ``$ARENA_BOT_CACHE``, else a folder of the
    temp folder of this user's own."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured)
    return Path(tempfile.gettempdir()) / f"arena-bot-cache-{os.getuid()}"


def _member_path(name: str) -> PurePosixPath:
    """A member's name as a path inside the folder, or ``UnsafePackError``."""
    path = PurePosixPath(name)
    if not name or "\0" in name or path.is_absolute() or name.startswith("/"):
        raise UnsafePackError(f"pack member {name!r}: an absolute or empty name")
    parts = [part for part in path.parts if part != "."]
    if not parts:
        raise UnsafePackError(f"pack member {name!r}: names the folder itself")
    if ".." in parts:
        raise UnsafePackError(f"pack member {name!r}: '..' leads out of the folder")
    return PurePosixPath(*parts)


def _check_members(tar: tarfile.TarFile) -> list[tuple[tarfile.TarInfo, PurePosixPath]]:
    """Every member checked before anything is written (bounds, types, names, links)."""
    members: list[tuple[tarfile.TarInfo, PurePosixPath]] = []
    links: set[PurePosixPath] = set()
    regular: set[PurePosixPath] = set()
    total = 0
    for info in tar:
        if len(members) >= MAX_PACK_MEMBERS:
            raise UnsafePackError(f"more than {MAX_PACK_MEMBERS} members")
        path = _member_path(info.name)
        if any(parent in links for parent in path.parents):
            raise UnsafePackError(f"pack member {info.name!r}: would be written through a link")
        if info.issym():
            if inner_link_target(path, info.linkname) is None:
                raise UnsafePackError(
                    f"pack member {info.name!r}: a link pointing out ({info.linkname!r})"
                )
            links.add(path)
        elif info.islnk():
            if _member_path(info.linkname) not in regular:
                raise UnsafePackError(
                    f"pack member {info.name!r}: a hard link to {info.linkname!r}, not to a"
                    " file of the pack before it"
                )
        elif info.isreg():
            total += info.size
            if total > MAX_PACK_BYTES:
                raise UnsafePackError(f"unpacks to more than {MAX_PACK_BYTES >> 20} MiB")
            regular.add(path)
        elif not info.isdir():
            raise UnsafePackError(
                f"pack member {info.name!r}: not a file, folder or link (a device, FIFO or"
                " other special file)"
            )
        members.append((info, path))
    return members


def _extract(
    tar: tarfile.TarFile, members: list[tuple[tarfile.TarInfo, PurePosixPath]], root: Path
) -> None:
    """Write checked members under ``root`` (links last: nothing is written through one)."""
    for info, path in members:
        target = root.joinpath(*path.parts)
        if info.isdir():
            target.mkdir(parents=True, exist_ok=True)
        elif info.isreg():
            target.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(info)
            assert source is not None  # a regular member always has a file
            mode = 0o755 if info.mode & 0o111 else 0o644
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
            with source, os.fdopen(os.open(target, flags, mode), "wb") as out:
                shutil.copyfileobj(source, out)
        elif info.islnk():
            target.parent.mkdir(parents=True, exist_ok=True)
            os.link(root.joinpath(*_member_path(info.linkname).parts), target)
    for info, path in members:
        if info.issym():
            target = root.joinpath(*path.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(info.linkname, target)


def unpack(data: bytes, digest: str, cache_root: Path | None = None) -> Path:
    """The folder of pack ``digest`` in the cache, unpacked from ``data`` unless already there.

    ``UnsafePackError`` when ``data`` is not the pack ``digest`` names, or is not safe."""
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise UnsafePackError(f"pack name {digest!r}: not a SHA-256 digest")
    root = default_cache_root() if cache_root is None else cache_root
    final = root / digest
    if final.is_dir():
        return final
    if hashlib.sha256(data).hexdigest() != digest:
        raise UnsafePackError(f"pack {digest[:16]}: its bytes do not match its name")
    if len(data) > MAX_PACK_BYTES:
        raise UnsafePackError(f"pack {digest[:16]}: more than {MAX_PACK_BYTES >> 20} MiB")
    # Searchable by others (not listable): bots may run as another user, who must reach their
    # own folder in here (an unpacked folder is readable by all, as a bot's folder is).
    root.mkdir(parents=True, exist_ok=True, mode=0o711)
    aside = Path(tempfile.mkdtemp(prefix=f".{digest[:16]}-", dir=root))
    try:
        try:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
                _extract(tar, _check_members(tar), aside)
        except (tarfile.TarError, EOFError, OSError, gzip.BadGzipFile) as exc:
            raise UnsafePackError(f"pack {digest[:16]}: unreadable ({exc})") from exc
        aside.chmod(stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
        try:
            aside.rename(final)
        except OSError:  # another worker unpacked it meanwhile: theirs is the same
            if not final.is_dir():
                raise
    finally:
        with contextlib.suppress(OSError):
            if aside.exists():
                shutil.rmtree(aside)
    return final
