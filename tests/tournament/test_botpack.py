"""Bots shipped to a cluster's workers (``arena.tournament.executors.botpack``): packing and safe
unpacking.

A pack is named by the SHA-256 of its bytes, so the name must cover every file of the bot (a
changed file, a new file, an exec bit: a new name) and nothing else (where the bot lies, file
times: the same name). A worker trusts nothing in a pack: hostile packs are built here by hand,
member by member, as an attacker would, and each must be refused with nothing written.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import multiprocessing
import os
import shutil
import tarfile
from pathlib import Path

import pytest

from arena.botspec import BotSpec
from arena.tournament.executors import botpack
from arena.tournament.executors.botpack import UnsafePackError, pack_bot, unpack


def make_bot(folder: Path) -> BotSpec:
    """A folder bot with a program, a data file in a subfolder and an executable helper."""
    (folder / "data").mkdir(parents=True)
    (folder / "main.py").write_text("print('hello')\n")
    (folder / "data" / "book.txt").write_text("opening book\n")
    helper = folder / "helper.sh"
    helper.write_text("#!/bin/sh\necho hi\n")
    helper.chmod(0o755)
    return BotSpec.from_path(folder)


def members(data: bytes) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        return {info.name: info for info in tar}


def hostile(*entries: tuple[tarfile.TarInfo, bytes]) -> tuple[bytes, str]:
    """A gzipped tar of exactly ``entries`` (no checks), and its digest."""
    raw = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for info, content in entries:
            tar.addfile(info, io.BytesIO(content) if info.isreg() else None)
    data = raw.getvalue()
    return data, hashlib.sha256(data).hexdigest()


def regular(name: str, content: bytes = b"x") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(content)
    return info, content


def special(name: str, kind: bytes, linkname: str = "") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info, b""


# --- the content hash -------------------------------------------------------------------------


def test_a_pack_holds_every_file_of_the_bots_folder_and_unpacks_to_the_same_files(
    tmp_path: Path,
) -> None:
    spec = make_bot(tmp_path / "bot")
    pack = pack_bot(spec)
    assert sorted(members(pack.data)) == ["data/book.txt", "helper.sh", "main.py"]
    assert pack.files == 3
    assert pack.size == sum(p.stat().st_size for p in spec.identity_files())
    assert pack.digest == hashlib.sha256(pack.data).hexdigest()
    folder = unpack(pack.data, pack.digest, tmp_path / "cache")
    assert folder == tmp_path / "cache" / pack.digest
    for name in ("main.py", "data/book.txt", "helper.sh"):
        assert (folder / name).read_bytes() == (spec.dir / name).read_bytes()
    assert os.access(folder / "helper.sh", os.X_OK)
    assert not os.access(folder / "main.py", os.X_OK)
    # The unpacked bot is the same bot (same version), only elsewhere.
    assert spec.relocated(folder).version() == spec.version()


def test_the_digest_is_stable_and_depends_on_every_file_and_nothing_else(tmp_path: Path) -> None:
    spec = make_bot(tmp_path / "bot")
    first = pack_bot(spec).digest
    assert pack_bot(spec).digest == first  # deterministic
    # Elsewhere, with other file times and owners' clocks: the same bytes, the same name.
    copy = tmp_path / "elsewhere" / "bot"
    shutil.copytree(spec.dir, copy)
    for path in copy.rglob("*"):
        os.utime(path, (1_000_000, 1_000_000))
    assert pack_bot(BotSpec.from_path(copy)).digest == first
    # Any change to any file, a new file, or an exec bit: a new name.
    changed = set()
    (copy / "data" / "book.txt").write_text("another book\n")
    changed.add(pack_bot(BotSpec.from_path(copy)).digest)
    (copy / "data" / "book.txt").write_text("opening book\n")
    assert pack_bot(BotSpec.from_path(copy)).digest == first
    (copy / "data" / "extra.bin").write_bytes(b"\0")
    changed.add(pack_bot(BotSpec.from_path(copy)).digest)
    (copy / "data" / "extra.bin").unlink()
    (copy / "main.py").chmod(0o755)
    changed.add(pack_bot(BotSpec.from_path(copy)).digest)
    (copy / "main.py").chmod(0o644)
    (copy / "helper.sh").rename(copy / "helper2.sh")
    changed.add(pack_bot(BotSpec.from_path(copy)).digest)
    assert len(changed) == 4 and first not in changed


def test_bots_sharing_a_folder_ship_all_of_it_once_but_what_no_bot_may_see(
    tmp_path: Path,
) -> None:
    """Two bots of one folder import a module of it: each pack holds the whole folder (what the
    bot reads here), the same pack for both; the store and config (hidden) are not shipped."""
    (tmp_path / "a.py").write_text("import common\n")
    (tmp_path / "b.py").write_text("import common\n")
    (tmp_path / "common.py").write_text("X = 1\n")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "common.cpython-312.pyc").write_bytes(b"\0")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "t.sqlite").write_bytes(b"the store")
    (tmp_path / "t.yaml").write_text("bots: []\n")
    a = BotSpec.from_path(tmp_path / "a.py")
    b = BotSpec.from_path(tmp_path / "b.py")
    assert not a.own_dir and not b.own_dir
    hidden = [str(tmp_path / "results" / "t.sqlite"), str(tmp_path / "results"),
              str(tmp_path / "t.yaml")]  # fmt: skip
    pack_a, pack_b = pack_bot(a, hidden), pack_bot(b, hidden)
    assert sorted(members(pack_a.data)) == ["a.py", "b.py", "common.py"]
    assert pack_a.digest == pack_b.digest


# --- links: carried as links, never as what they point to ---------------------------------------


def test_links_out_of_the_folder_refuse_the_pack_and_nothing_they_point_to_is_read(
    tmp_path: Path,
) -> None:
    """A bot folder linking to a rival's program, a secret and the driver's environment: the
    pack is refused in one line naming the link; none of their text is in any pack."""
    rival = make_bot(tmp_path / "rival")
    (rival.dir / "main.py").write_text("RIVAL_STRATEGY = 42\n")
    secret = tmp_path / "shadow"
    secret.write_text("root:SECRET_HASH:19000\n")
    for target in (rival.dir / "main.py", secret, Path("/proc/self/environ"),
                   Path("../rival/main.py")):  # fmt: skip
        bot = make_bot(tmp_path / f"evil{len(list(tmp_path.iterdir()))}")
        (bot.dir / "stolen").symlink_to(target)
        with pytest.raises(UnsafePackError, match="a link leading out of its folder") as caught:
            pack_bot(bot)
        assert "\n" not in str(caught.value) and "stolen" in str(caught.value)


def test_inner_links_are_packed_as_links_and_unpack_to_the_same_links(tmp_path: Path) -> None:
    spec = make_bot(tmp_path / "bot")
    (spec.dir / "alias.py").symlink_to("main.py")
    (spec.dir / "data" / "up.py").symlink_to("../main.py")
    (spec.dir / "book").symlink_to("data", target_is_directory=True)
    pack = pack_bot(spec)
    found = members(pack.data)
    assert found["alias.py"].issym() and found["alias.py"].linkname == "main.py"
    assert found["data/up.py"].linkname == "../main.py"
    assert found["book"].issym() and "book/book.txt" not in found
    folder = unpack(pack.data, pack.digest, tmp_path / "cache")
    assert (folder / "data" / "up.py").is_symlink()
    assert (folder / "data" / "up.py").read_text() == "print('hello')\n"
    assert (folder / "book" / "book.txt").read_text() == "opening book\n"


# --- unpacking: what is refused ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("entries", "why"),
    [
        ([regular("/etc/evil")], "absolute"),
        ([regular("../evil")], r"'\.\.' leads out"),
        ([regular("sub/../../evil")], r"'\.\.' leads out"),
        ([special("link", tarfile.SYMTYPE, "/etc/passwd")], "a link pointing out"),
        ([special("link", tarfile.SYMTYPE, "../../outside")], "a link pointing out"),
        ([special("sub/link", tarfile.SYMTYPE, "../../outside")], "a link pointing out"),
        ([special("link", tarfile.SYMTYPE, "sub/../../outside")], "a link pointing out"),
        ([special("link", tarfile.SYMTYPE, "sub"), regular("link/evil")], "through a link"),
        ([special("hard", tarfile.LNKTYPE, "/etc/passwd")], "absolute"),
        ([special("hard", tarfile.LNKTYPE, "not-in-the-pack")], "a hard link"),
        ([special("dev", tarfile.CHRTYPE)], "a device, FIFO"),
        ([special("blk", tarfile.BLKTYPE)], "a device, FIFO"),
        ([special("fifo", tarfile.FIFOTYPE)], "a device, FIFO"),
        ([regular("")], "absolute or empty"),
    ],
    ids=[
        "absolute", "dotdot", "inner-dotdot", "symlink-absolute", "symlink-dotdot",
        "symlink-up-too-far", "symlink-dotdot-after-step",
        "write-through-link", "hardlink-absolute", "hardlink-unknown",
        "char-device", "block-device", "fifo", "empty",
    ],
)  # fmt: skip
def test_unpack_refuses_anything_that_could_write_outside_or_is_not_a_plain_file(
    tmp_path: Path, entries: list[tuple[tarfile.TarInfo, bytes]], why: str
) -> None:
    data, digest = hostile(regular("main.py", b"print(1)\n"), *entries)
    cache = tmp_path / "cache"
    with pytest.raises(UnsafePackError, match=why):
        unpack(data, digest, cache)
    # Nothing was written: no folder under its name, no half-unpacked folder aside, nothing out.
    assert list(cache.iterdir()) == []
    assert not (tmp_path / "evil").exists()
    assert not (tmp_path / "outside").exists()


def test_inner_links_are_kept_and_lead_nowhere_out(tmp_path: Path) -> None:
    data, digest = hostile(
        regular("lib/real.py", b"X = 1\n"),
        special("alias.py", tarfile.SYMTYPE, "lib/real.py"),
        special("lib/hard.py", tarfile.LNKTYPE, "lib/real.py"),
    )
    folder = unpack(data, digest, tmp_path / "cache")
    assert (folder / "alias.py").is_symlink()
    assert (folder / "alias.py").resolve() == (folder / "lib" / "real.py").resolve()
    assert (folder / "lib" / "hard.py").read_text() == "X = 1\n"


def test_unpack_checks_the_bytes_against_their_name(tmp_path: Path) -> None:
    pack = pack_bot(make_bot(tmp_path / "bot"))
    other = "0" * 64
    with pytest.raises(UnsafePackError, match="do not match its name"):
        unpack(pack.data, other, tmp_path / "cache")
    with pytest.raises(UnsafePackError, match="not a SHA-256 digest"):
        unpack(pack.data, "../" + pack.digest[3:], tmp_path / "cache")
    corrupt = pack.data[: len(pack.data) // 2]
    with pytest.raises(UnsafePackError, match="unreadable"):
        unpack(corrupt, hashlib.sha256(corrupt).hexdigest(), tmp_path / "cache")
    assert list((tmp_path / "cache").iterdir()) == []


def test_unpack_is_bounded_in_bytes_and_members(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    # A member whose header claims more than the bound: refused on its header, before any
    # byte of it is read or written (the pack itself is tiny).
    huge = tarfile.TarInfo("huge.bin")
    huge.size = botpack.MAX_PACK_BYTES + 1
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as zipped:
        zipped.write(huge.tobuf(tarfile.PAX_FORMAT))
    data = raw.getvalue()
    with pytest.raises(UnsafePackError, match="unpacks to more than"):
        unpack(data, hashlib.sha256(data).hexdigest(), cache)
    # The bounds are the module's (made small here so that a test can reach them honestly).
    # Zeros: the pack is far under the bound, what it unpacks to is over it.
    monkeypatch.setattr(botpack, "MAX_PACK_BYTES", 4096)
    data, digest = hostile(regular("a", bytes(3000)), regular("b", bytes(3000)))
    assert len(data) < 4096
    with pytest.raises(UnsafePackError, match="unpacks to more than"):
        unpack(data, digest, cache)
    monkeypatch.setattr(botpack, "MAX_PACK_BYTES", 1 << 20)
    monkeypatch.setattr(botpack, "MAX_PACK_MEMBERS", 3)
    data, digest = hostile(*(regular(f"f{i}") for i in range(4)))
    with pytest.raises(UnsafePackError, match="more than 3 members"):
        unpack(data, digest, cache)
    data, digest = hostile(*(regular(f"f{i}") for i in range(3)))
    assert len(list(unpack(data, digest, cache).iterdir())) == 3
    assert [p.name for p in cache.iterdir()] == [digest]


# --- the cache ---------------------------------------------------------------------------------


def test_a_pack_already_in_the_cache_is_reused_not_unpacked_again(tmp_path: Path) -> None:
    pack = pack_bot(make_bot(tmp_path / "bot"))
    cache = tmp_path / "cache"
    folder = unpack(pack.data, pack.digest, cache)
    inode = (folder / "main.py").stat().st_ino
    (folder / "marker").write_text("left by the first unpack")
    assert unpack(pack.data, pack.digest, cache) == folder
    assert (folder / "marker").exists()  # the same folder, untouched
    assert (folder / "main.py").stat().st_ino == inode
    assert sorted(p.name for p in cache.iterdir()) == [pack.digest]


def test_the_cache_defaults_to_the_environments_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(botpack.CACHE_ENV, str(tmp_path / "mine"))
    assert botpack.default_cache_root() == tmp_path / "mine"
    pack = pack_bot(make_bot(tmp_path / "bot"))
    assert unpack(pack.data, pack.digest) == tmp_path / "mine" / pack.digest


def _unpack_at_once(data: bytes, digest: str, cache: str, barrier: object) -> None:
    barrier.wait(timeout=30)  # type: ignore[attr-defined]
    folder = unpack(data, digest, Path(cache))
    assert (folder / "main.py").is_file()


def test_concurrent_unpacks_of_the_same_pack_all_see_one_complete_folder(tmp_path: Path) -> None:
    spec = make_bot(tmp_path / "bot")
    big = spec.dir / "data" / "weights.bin"
    big.write_bytes(os.urandom(2 << 20))  # long enough to unpack that the processes overlap
    pack = pack_bot(BotSpec.from_path(spec.dir))
    cache = tmp_path / "cache"
    ctx = multiprocessing.get_context("fork")
    count = 6
    barrier = ctx.Barrier(count)
    processes = [
        ctx.Process(target=_unpack_at_once, args=(pack.data, pack.digest, str(cache), barrier))
        for _ in range(count)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=60)
    assert [p.exitcode for p in processes] == [0] * count
    # One folder, complete; no half-unpacked folder left aside by the losers of the race.
    assert [p.name for p in cache.iterdir()] == [pack.digest]
    folder = cache / pack.digest
    assert (folder / "data" / "weights.bin").read_bytes() == big.read_bytes()
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) == [
        "data/book.txt",
        "data/weights.bin",
        "helper.sh",
        "main.py",
    ]
