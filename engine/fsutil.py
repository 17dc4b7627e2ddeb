"""Atomic file writes: a reader never sees a half-written file, a crash
leaves either the old file or the new one."""
from __future__ import annotations

import contextlib
import hashlib
import os
import re
import socket
import stat
import tempfile
import threading
import time
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


#: A temporary file of atomic_write untouched for this long is no write in progress: a write
#: goes from the first byte to the rename within seconds (the 4-5.6 MB export temporaries the
#: kill run of issue 35 left behind had been written in under a second).
STALE_TEMP_S = 3600


def _host_tag() -> str:
    """8 hex digits naming this machine in temporary file names (a pid means something only on
    the machine that has it: a team drive holds the temporaries of several)."""
    return hashlib.sha1(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: someone else's live process
        return True
    return True


def host_tag() -> str:
    """:func:`_host_tag`, for other writers' temporary names (engine.tm.postfile's builds)."""
    return _host_tag()


def abandoned_temp(host: str | None, pid: int | None, mtime: float) -> bool:
    """True when a temporary file whose name carries ``host`` and ``pid`` (None: a name without
    them), last changed at ``mtime``, is no write in progress: its writer was on this machine and
    has ended, or it is untouched for :data:`STALE_TEMP_S`.  Another machine's file sharing the
    folder (a team drive) is left to its own writer until then."""
    if host == _host_tag() and pid is not None and pid != os.getpid() and not _pid_alive(pid):
        return True
    return time.time() - mtime > STALE_TEMP_S


def remove_stale_temps(path: str | Path) -> list[Path]:
    """Remove the temporary files an earlier :func:`atomic_write` of ``path`` left when it was
    killed, and nothing else: a regular file named ``.NAME.HOST-PID.XXXXXXXX.tmp`` whose writer
    (this machine, that pid) has ended, or any of ``.NAME.[HOST-PID.]XXXXXXXX.tmp`` (the second
    form is what Verso wrote before the pid was in the name) untouched for :data:`STALE_TEMP_S`.
    Returns what was removed."""
    path = Path(path)
    pattern = re.compile(r"\." + re.escape(path.name) + r"\.(?:([0-9a-f]{8})-(\d{1,10})\.)?[a-z0-9_]{8}\.tmp")
    removed: list[Path] = []
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return removed
    for entry in entries:
        m = pattern.fullmatch(entry.name)
        if m is None:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode):
                continue
            if abandoned_temp(m.group(1), int(m.group(2)) if m.group(2) else None, st.st_mtime):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:  # gone already, or not ours to remove: the write goes on
            continue
    return removed


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "wb", encoding: str | None = None,
                 newline: str | None = None) -> Iterator[IO]:
    """Write to a temporary file beside ``path``, fsync, then rename over it.

    The new file gets the mode of the file it replaces, or, for a new file, the usual
    0666 under the umask -- not mkstemp's private 0600, which made an exported file
    unreadable to the rest of a team.  On any error (or Ctrl+C) the temporary file is
    removed and ``path`` is left as it was; one a kill left (``.NAME.HOST-PID.XXXXXXXX.tmp``)
    is removed by the next write of ``path`` (:func:`remove_stale_temps`).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        perm = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        perm = 0o666 & ~_umask()
    remove_stale_temps(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{_host_tag()}-{os.getpid()}.", suffix=".tmp", dir=path.parent)
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

