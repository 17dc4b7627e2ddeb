"""The one way into a file of a model folder (no torch).

A model folder may come from a stranger, so every file of it that Verso
reads, checksums or copies is opened here and nowhere else:

* the name is a relative path that stays inside the folder, symlinks
  followed (a link to another file of the folder is fine, a link leading out
  -- ``history.jsonl -> ~/.ssh/id_rsa`` -- is not);
* it is a regular file (not a FIFO that would block, not a device);
* it is no larger than the limit for its kind, checked on the open file
  *before* a byte is read, and no more than the limit is ever read;
* JSON nested too deeply for the parser is a one-line error, not a
  ``RecursionError``.

Every refusal is a :class:`~engine.errors.ModelError` of one line naming the
file (and, where given, the place that names it).
"""
from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import BinaryIO, Iterator

from engine.errors import ModelError

MiB = 1 << 20
#: bytes a file of a model folder may have, by name, then by suffix.  A Verso manifest, config or
#: knn.json is a few KB, a training record tens of KB, a history some MB after days of training;
#: a sentencepiece model of a 64k vocabulary is about 1.5 MB.
LIMITS = {"manifest.json": 1 * MiB, "config.json": 1 * MiB, "knn.json": 4 * MiB, "training.json": 32 * MiB,
          "run.json": 1 * MiB, "state.json": 4 * MiB, "history.jsonl": 256 * MiB}
SUFFIX_LIMITS = {".json": 4 * MiB, ".model": 64 * MiB, ".safetensors": 64 << 30}
DEFAULT_LIMIT = 64 * MiB


def limit_for(name: str) -> int:
    base = PurePosixPath(name.replace("\\", "/")).name
    if base in LIMITS:
        return LIMITS[base]
    return SUFFIX_LIMITS.get(PurePosixPath(base).suffix.lower(), DEFAULT_LIMIT)


def inside(folder: Path, name, where: str) -> Path:
    """``folder / name`` when ``name`` is a relative path that stays inside
    ``folder``, symlinks followed; else a :class:`ModelError` naming ``where``
    (the file and the place that names it).  Nothing is opened."""
    if not isinstance(name, str) or not name.strip() or "\x00" in name:
        raise ModelError(f"{where}: names no file ({name!r})")
    rel = PurePosixPath(name.replace("\\", "/"))
    win = PureWindowsPath(name)
    if rel.is_absolute() or win.is_absolute() or win.drive or ".." in rel.parts:
        raise ModelError(f"{where}: {name!r} is outside the model folder")
    path = Path(folder) / rel
    try:
        path.resolve().relative_to(Path(folder).resolve())
    except ValueError:
        raise ModelError(f"{where}: {name!r} is a link leading outside the model folder") from None
    except (OSError, RuntimeError) as e:  # a symlink loop, an unreadable folder
        raise ModelError(f"{where}: {name!r} cannot be resolved ({e})") from None
    return path


@contextlib.contextmanager
def open_file(folder: str | Path, name: str, *, where: str = "", limit: int | None = None) -> Iterator[BinaryIO]:
    """The file ``name`` of ``folder``, open for reading, once it passed every check of the module."""
    folder = Path(folder)
    path = inside(folder, name, where or str(folder / name))
    limit = limit_for(name) if limit is None else limit
    real = path.resolve()
    # O_NOFOLLOW: the resolved path must not have become a link since; O_NONBLOCK: a FIFO does not hang the open
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(real, flags)
    except FileNotFoundError:
        raise ModelError(f"{path}: file missing") from None
    except OSError as e:
        raise ModelError(f"{path}: cannot read ({e.strerror or e})") from None
    fh = os.fdopen(fd, "rb")
    with fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ModelError(f"{path}: not a regular file")
        if st.st_size > limit:
            raise ModelError(f"{path}: {st.st_size:,} bytes, more than the {limit:,} a model folder's "
                             f"{PurePosixPath(name).name} may have")
        yield fh


def checked(folder: str | Path, name: str, *, where: str = "", limit: int | None = None) -> Path:
    """``folder / name`` after the checks of :func:`open_file`, for a reader that opens it by path
    (safetensors maps the weights itself)."""
    with open_file(folder, name, where=where, limit=limit):
        pass
    return Path(folder) / PurePosixPath(name.replace("\\", "/"))


def read_bytes(folder: str | Path, name: str, *, where: str = "", limit: int | None = None) -> bytes:
    limit = limit_for(name) if limit is None else limit
    with open_file(folder, name, where=where, limit=limit) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:  # it grew while being read
        raise ModelError(f"{Path(folder) / name}: more than the {limit:,} bytes a model folder's "
                         f"{PurePosixPath(name).name} may have")
    return data


def read_json(folder: str | Path, name: str, *, where: str = "", limit: int | None = None,
              expect: type | None = dict):
    """The JSON value of ``folder / name`` (an object unless ``expect`` says otherwise)."""
    path = Path(folder) / name
    raw = read_bytes(folder, name, where=where, limit=limit)
    try:
        value = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ModelError(f"{path}: not UTF-8 (byte {e.start})") from None
    except RecursionError:
        raise ModelError(f"{path}: not valid JSON (nested too deeply)") from None
    except ValueError as e:
        raise ModelError(f"{path}: not valid JSON ({e})") from None
    if expect is not None and not isinstance(value, expect):
        kind = {dict: "a JSON object", list: "a JSON list"}.get(expect, expect.__name__)
        raise ModelError(f"{path}: expected {kind}, not {type(value).__name__}")
    return value


def sha256(folder: str | Path, name: str, *, where: str = "") -> str:
    import hashlib

    h = hashlib.sha256()
    with open_file(folder, name, where=where) as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def copy_file(folder: str | Path, name: str, dest: str | Path, *, where: str = "") -> Path:
    """Copy ``folder / name`` to ``dest / name`` (the bytes only: the copy gets the usual mode of a
    new file, not the source's)."""
    target = Path(dest) / PurePosixPath(name.replace("\\", "/"))
    target.parent.mkdir(parents=True, exist_ok=True)
    limit = limit_for(name)
    with open_file(folder, name, where=where, limit=limit) as src, open(target, "wb") as out:
        copied = 0
        for chunk in iter(lambda: src.read(1 << 20), b""):
            copied += len(chunk)
            if copied > limit:  # it grew while being copied
                raise ModelError(f"{Path(folder) / name}: more than the {limit:,} bytes a model folder's "
                                 f"{PurePosixPath(name).name} may have")
            out.write(chunk)
    return target


__all__ = ["LIMITS", "limit_for", "inside", "open_file", "checked", "read_bytes", "read_json", "sha256",
           "copy_file"]
