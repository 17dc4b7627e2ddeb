"""What a project may refer to outside its own folder: the user's word, kept outside every project.

A received project's settings are a stranger's: a ``tms`` entry ``../../tmA`` or ``/abs/X`` would
have Verso read another client's TM into this project's pre-translation, or create a TM folder
wherever the sender chose.  So a folder a project lists counts only when it lies inside the
project folder (symlinks followed), or when this installation's user confirmed it: by adding it
in Verso (:meth:`Project.add_tm_ref`), by answering the editor's question, or by a command-line
flag for one run.  The confirmations are kept in ``$VERSO_TRUST_FILE``, else ``trusted.json`` in
the user data folder -- never in the project, which could otherwise vouch for itself.

Glossary folders and files (setting ``glossaries``) follow the same rule as TM folders
(:func:`guarded`).  A shared TM's ``postgresql://`` address is confirmed once per server
(:func:`server_confirmed`): a team project names the same server for everyone, so the user's word
holds for every project that names it, never for another server.
"""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Iterable
from urllib.parse import urlsplit

from engine.errors import ProjectError

#: bytes of the trust file read at most (a few hundred bytes per confirmed folder)
LIMIT = 4 << 20
_lock = threading.Lock()


def trust_file() -> Path:
    env = os.environ.get("VERSO_TRUST_FILE")
    if env:
        return Path(env)
    from engine.resources import user_data_dir

    return user_data_dir() / "trusted.json"


def _key(path: Path) -> str:
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):  # a link loop: never equal to a confirmed folder
        return str(Path(path).absolute())


def inside(folder: Path, path: Path) -> bool:
    """True when ``path`` (resolved, links followed) lies inside ``folder``."""
    try:
        Path(_key(path)).relative_to(_key(folder))
        return True
    except ValueError:
        return False


def _read() -> dict[str, list[str]]:
    try:
        with open(trust_file(), "rb") as fh:
            data = json.loads(fh.read(LIMIT).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _update(key: str, new: list[str]) -> None:
    """Add ``new`` to the list the trust file keeps under ``key`` (a project's folder, or
    :data:`SERVERS`), each once: read, changed and written back under the lock, so that
    two confirmations made at once both stay."""
    from engine.fsutil import atomic_write

    with _lock:
        data = _read()
        have = data.get(key)
        have = have if isinstance(have, list) else []
        data[key] = have + [k for k in dict.fromkeys(new) if k not in have]
        with atomic_write(trust_file(), "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False, indent=1)


def confirmed(project_folder: Path, path: Path) -> bool:
    """True when ``path`` is inside the project folder or its user confirmed it for this project."""
    if inside(project_folder, path):
        return True
    listed = _read().get(_key(project_folder))
    return isinstance(listed, list) and _key(path) in listed


def confirm(project_folder: Path, paths: Iterable[Path]) -> None:
    """Record that the user lets the project ``project_folder`` use the folders ``paths``."""
    new = [_key(p) for p in paths if not inside(project_folder, p)]
    if new:
        _update(_key(project_folder), new)


def added(project_folder: Path, path, ref):
    """``ref``, the folder ``path`` (or a shared TM's address) the user just listed in the
    project, recorded as confirmed."""
    if isinstance(path, str) and "://" in path:
        confirm_servers([path])
    else:
        confirm(project_folder, [ref.path])
    return ref


#: trust-file key of the confirmed servers (a project's key is an absolute path, never this)
SERVERS = "servers"


def server_key(url: str) -> str:
    """``postgresql://user:pw@Host:5432/db?tm=x`` -> ``postgresql://host:5432/db``: the server and
    database, without credentials or TM name (every TM on it is the same server's)."""
    try:
        u = urlsplit(url)
        port = u.port or 5432
    except ValueError:
        return url  # unparsable: only this exact text is ever equal
    return f"{u.scheme.lower()}://{(u.hostname or '').lower()}:{port}{u.path or '/'}"


def server_confirmed(url: str) -> bool:
    listed = _read().get(SERVERS)
    return isinstance(listed, list) and server_key(url) in listed


def confirm_servers(urls: Iterable[str]) -> None:
    """Record that the user lets every project use the shared-TM servers of ``urls``."""
    _update(SERVERS, [server_key(u) for u in urls])


class Unconfirmed(ProjectError):
    """A project lists glossaries outside itself that its user never confirmed (``entries``)."""

    def __init__(self, message: str, entries: list):
        super().__init__(message)
        self.entries = entries


def guarded(project_folder: Path, setting: str, refs: list, outside: str, flag: str) -> list:
    """``refs`` (with ``.path``) the project may use: those inside it or confirmed.  One outside
    and unconfirmed is, by ``outside``: ``"skip"``ped, ``"refuse"``d (:class:`Unconfirmed`, one line
    naming the project file, the setting and the entry), or ``"allow"``ed (the user's ``flag``)."""
    if outside == "allow":
        return list(refs)
    ok = [r for r in refs if confirmed(project_folder, r.path)]
    strange = [r for r in refs if r not in ok]
    if strange and outside == "refuse":
        raise Unconfirmed(f"{Path(project_folder) / 'project.verso'}: setting {setting!r} lists "
                          f"'{strange[0].path}', outside the project and confirmed by no one here; not used "
                          f"(confirm it in the editor, or pass {flag})", strange)
    return ok


__all__ = ["trust_file", "inside", "confirmed", "confirm", "added", "server_key", "server_confirmed",
           "confirm_servers", "Unconfirmed", "guarded"]
