"""The keyed seal of a TM's search index: Verso reads only index files it wrote.

The SQLite store is the truth and the Whoosh index a cache that Whoosh reads
with :func:`pickle.loads`; an index folder from someone else must never be
read.  Each index file Verso writes gets a MAC,

    mac(f) = HMAC-SHA256(K, name(f) || 0x00 || bytes(f))

with ``K`` a 32-byte key of this installation (:func:`installation_key`, kept
outside every TM folder, mode 0600), stored in the TM's own SQLite (table
``index_seal``: name, size, mac).  Before Whoosh opens the index, the table
of contents it would read and every file of the segments that table names
are checked (:func:`verify`); a missing or different MAC means the index is
not ours, and it is rebuilt from SQLite.  Someone who sends a TM folder cannot
forge a MAC without ``K``; files no table of contents names (left by a crash
half way through a commit) are never read, so they need no MAC.

A file is sealed when Whoosh renames a new table of contents into place
(:class:`SealedStorage`): by then the segment files it names are complete, and
the rows are committed before the rename, so a crash at any moment leaves the
latest table of contents with its MAC.  Files are verified once per process
(while their size, mtime and inode stay the same).
"""
from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import sqlite3
import threading
from pathlib import Path
from typing import Callable, Iterable

from whoosh.filedb.filestore import FileStorage

from engine.errors import TMError

KEY_FILE = "index.key"
KEY_BYTES = 32
#: Whoosh's table of contents of the index named MAIN, by generation.
TOC_RE = re.compile(r"^_MAIN_(\d+)\.toc$")
_CHUNK = 1 << 20

_key_lock = threading.Lock()


def key_path() -> Path:
    """``$VERSO_INDEX_KEY``, else ``index.key`` in the user data folder."""
    env = os.environ.get("VERSO_INDEX_KEY")
    if env:
        return Path(env)
    from engine.resources import user_data_dir

    return user_data_dir() / KEY_FILE


def installation_key() -> bytes:
    """This installation's key, created (0600, never replaced) on first use."""
    path = key_path()
    with _key_lock:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            data = b""
        except OSError as e:
            raise TMError(f"{path}: the search-index key cannot be read ({e.strerror})") from None
        if len(data) == KEY_BYTES:
            return data
        if data:
            raise TMError(f"{path}: not a search-index key ({len(data)} bytes, expected {KEY_BYTES}); "
                          "remove it and Verso makes a new one (TM indexes are then rebuilt)")
        path.parent.mkdir(parents=True, exist_ok=True)
        key = secrets.token_bytes(KEY_BYTES)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first: use theirs
            data = path.read_bytes()
            if len(data) != KEY_BYTES:
                raise TMError(f"{path}: not a search-index key") from None
            return data
        with os.fdopen(fd, "wb") as fh:
            fh.write(key)
            fh.flush()
            os.fsync(fh.fileno())
        return key


def file_mac(key: bytes, path: Path, name: str | None = None) -> str:
    """The MAC of the file ``path`` under ``name`` (its own name unless given: a file sealed
    under the name it is about to be renamed to)."""
    h = hmac.new(key, (name or path.name).encode("utf-8") + b"\x00", hashlib.sha256)
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def create_table(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE IF NOT EXISTS index_seal (name TEXT PRIMARY KEY, size INTEGER NOT NULL, "
                 "mac TEXT NOT NULL)")


class Untrusted(TMError):
    """The index folder holds files this installation did not write."""


class Seal:
    """The MACs of one TM's index files, kept in the TM's SQLite database.

    ``conn_factory`` gives the connection to write with (the TM's own, or a
    private one for a build on another thread)."""

    def __init__(self, conn_factory: Callable[[], sqlite3.Connection]):
        self._conn = conn_factory
        self._key: bytes | None = None
        self._verified: dict[str, tuple] = {}   # name -> (size, mtime_ns, ino) checked this process

    @property
    def key(self) -> bytes:
        if self._key is None:
            self._key = installation_key()
        return self._key

    # ------------------------------------------------------------ writing
    def record(self, folder: Path, names: Iterable[str], *, as_names: dict[str, str] | None = None) -> None:
        """Seal the files ``names`` of ``folder`` (``as_names``: a file sealed
        under the name it is about to be renamed to)."""
        as_names = as_names or {}
        rows = []
        for name in names:
            p, final = folder / name, as_names.get(name, name)
            rows.append((final, p.stat().st_size, file_mac(self.key, p, final)))
        if not rows:
            return
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            create_table(conn)
            conn.executemany("INSERT INTO index_seal(name, size, mac) VALUES (?, ?, ?) "
                             "ON CONFLICT(name) DO UPDATE SET size=excluded.size, mac=excluded.mac", rows)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def record_all(self, folder: Path) -> None:
        """Seal every file of a freshly built index folder (a rebuild)."""
        self.record(folder, [p.name for p in folder.iterdir() if _sealable(p)])

    def prune(self, keep: set[str]) -> None:
        """Forget the MACs of files that no longer exist (names not in ``keep``)."""
        conn = self._conn()
        create_table(conn)
        gone = [n for (n,) in conn.execute("SELECT name FROM index_seal") if n not in keep]
        if gone:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany("DELETE FROM index_seal WHERE name=?", [(n,) for n in gone])
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    # ------------------------------------------------------------ reading
    def _sealed(self, names: list[str]) -> dict[str, tuple[int, str]]:
        conn = self._conn()
        create_table(conn)
        out = {}
        for i in range(0, len(names), 500):
            part = names[i:i + 500]
            q = "SELECT name, size, mac FROM index_seal WHERE name IN (%s)" % ",".join("?" * len(part))
            for n, size, mac in conn.execute(q, part):
                out[n] = (size, mac)
        return out

    def verify(self, folder: Path, names: list[str]) -> None:
        """Raise :class:`Untrusted` unless every file ``names`` of ``folder``
        carries this installation's MAC."""
        sealed = self._sealed(names)
        for name in names:
            p = folder / name
            try:
                st = p.stat()
            except OSError:
                raise Untrusted(f"{p}: missing") from None
            if p.is_symlink() or not p.is_file():
                raise Untrusted(f"{p}: not a regular file")
            ident = (st.st_size, st.st_mtime_ns, st.st_ino)
            if self._verified.get(name) == ident:
                continue
            want = sealed.get(name)
            if want is None:
                raise Untrusted(f"{p}: not written by this Verso installation")
            if want[0] != st.st_size or not hmac.compare_digest(want[1], file_mac(self.key, p)):
                raise Untrusted(f"{p}: changed since this Verso installation wrote it")
            self._verified[name] = ident

    def latest_toc(self, folder: Path) -> str | None:
        best = None
        try:
            names = os.listdir(folder)
        except OSError:
            return None
        for n in names:
            m = TOC_RE.match(n)
            if m and (best is None or int(m.group(1)) > best[0]):
                best = (int(m.group(1)), n)
        return best[1] if best else None


def _sealable(p: Path) -> bool:
    return p.is_file() and not p.name.endswith("WRITELOCK") and p.name != "state.json"


class SealedStorage(FileStorage):
    """A Whoosh file storage that seals new files as a table of contents is
    renamed into place (Whoosh writes it under a temporary name first)."""

    def __init__(self, path: str, seal: Seal, **kw):
        super().__init__(path, **kw)
        self.seal = seal

    def rename_file(self, oldname, newname, safe=False):
        if TOC_RE.match(newname):
            folder = Path(self.folder)
            sealed = self.seal._sealed([p.name for p in folder.iterdir()])
            fresh = [p.name for p in folder.iterdir()
                     if _sealable(p) and p.name != oldname and not TOC_RE.match(p.name)
                     and (p.name not in sealed or sealed[p.name][0] != p.stat().st_size)]
            self.seal.record(folder, fresh + [oldname], as_names={oldname: newname})
        return super().rename_file(oldname, newname, safe=safe)


__all__ = ["Seal", "SealedStorage", "Untrusted", "installation_key", "key_path", "file_mac", "TOC_RE"]
