"""Atomic file writes: a reader never sees a half-written file, a crash
leaves either the old file or the new one."""
from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import threading
from pathlib import Path
from typing import IO, Iterator


_umask_lock = threading.Lock()


def _umask() -> int:
    """The process umask (os.umask can only be read by setting it; the lock keeps two
    threads from seeing each other's temporary 0)."""
    with _umask_lock:
        old = os.umask(0o022)
        os.umask(old)
    return old


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "wb", encoding: str | None = None,
                 newline: str | None = None) -> Iterator[IO]:
    """Write to a temporary file beside ``path``, fsync, then rename over it.

    The new file gets the mode of the file it replaces, or, for a new file, the usual
    0666 under the umask -- not mkstemp's private 0600, which made an exported file
    unreadable to the rest of a team.  On any error (or Ctrl+C) the temporary file is
    removed and ``path`` is left as it was.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        perm = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        perm = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with contextlib.suppress(OSError):  # a file system without modes (FAT) keeps its own
            os.fchmod(fd, perm)
        with os.fdopen(fd, mode, encoding=encoding, newline=newline) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        with contextlib.suppress(OSError):  # make the rename itself durable
            dfd = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def remove_created_store(folder: Path, folder_existed: bool, db_name: str, subfolders: tuple[str, ...] = ()) -> None:
    """Undo the creation of a SQLite store (a TM, a glossary) in ``folder`` after a refused first
    import: the whole folder when the command made it, else only the store's own files."""
    import shutil

    if not folder_existed:
        shutil.rmtree(folder, ignore_errors=True)
        return
    for name in subfolders:
        shutil.rmtree(folder / name, ignore_errors=True)
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(OSError):
            (folder / (db_name + suffix)).unlink()

