"""One way to open a TM named by the user: a folder (the local SQLite + Whoosh TM)
or a URL ``postgresql://host:port/dbname?tm=NAME`` (a shared TM on PostgreSQL,
see :mod:`engine.tm.pg`).  Every command, the editor and the pre-translation
open TMs through :func:`open_tm`."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from engine.errors import TMError


def is_tm_url(ref) -> bool:
    """True when ``ref`` names a shared TM on a database server."""
    return isinstance(ref, str) and ref.startswith(("postgresql://", "postgres://"))


def tm_ref(text: str | Path) -> str | Path:
    """A TM reference as typed (``--tm``, a project setting): the URL as is, else a Path."""
    s = str(text)
    return s if is_tm_url(s) else Path(text)


def tm_exists(ref: str | Path) -> bool:
    """True when a local TM folder holds a TM (URLs: always assumed; opening tells)."""
    if is_tm_url(str(ref)):
        return True
    from engine.tm.memory import TranslationMemory

    return (Path(ref) / TranslationMemory.DB_NAME).exists()


def open_tm(ref: str | Path, *, create: bool | str = True, src_lang: str = "", tgt_lang: str = "",
            progress=None):
    """Open the TM ``ref``: a folder or a ``postgresql://`` URL.  Both backends
    have one interface (search, concordance, add, import_units, entries, stats...).
    ``create="import"``: see :func:`open_for_import`.  ``progress(done, total)``:
    told while a local TM's search index is rebuilt (see :class:`TranslationMemory`),
    or while a shared TM's local replica is first synced (see :mod:`engine.tm.shared`:
    a URL opens a :class:`~engine.tm.shared.SharedTM`, searched in its replica)."""
    if is_tm_url(str(ref)):
        if create == "import":  # the TM may not exist yet: nothing to replicate
            from engine.tm.pg import PgTranslationMemory

            return PgTranslationMemory(str(ref), create=create, src_lang=src_lang, tgt_lang=tgt_lang)
        from engine.tm.shared import SharedTM

        return SharedTM(str(ref), create=create, src_lang=src_lang, tgt_lang=tgt_lang, progress=progress)
    from engine.tm.memory import TranslationMemory

    if not str(ref):
        raise TMError("no TM named")
    return TranslationMemory(Path(ref), create=bool(create), src_lang=src_lang, tgt_lang=tgt_lang,
                             progress=progress)


def stderr_progress(ref) -> "callable":
    """A ``progress`` for :func:`open_tm` that tells the command line's user, on
    stderr, that a TM's index is being rebuilt (a folder from elsewhere, a crash)."""
    import sys

    def report(done: int, total: int) -> None:
        if done == 0:
            print(f"verso: rebuilding the search index of {ref} ({total:,} units; an index this "
                  "installation did not write is never read)", file=sys.stderr, flush=True)
        elif done == total or done % 50_000 == 0:
            print(f"verso: {ref}: {done:,} / {total:,} units indexed", file=sys.stderr, flush=True)
    return report


@contextlib.contextmanager
def open_for_import(ref: str | Path, *, src_lang: str = "", tgt_lang: str = ""):
    """``with open_for_import(ref) as tm: tm.import_units(...)`` -- the TM ``ref``,
    created when missing, such that an import that fails (a file broken half way,
    a cancel) leaves no TM behind that was not there before: a new TM on
    PostgreSQL is created inside the import's own transaction (its rollback takes
    the TM away too); a new local TM's files are removed (the folder too when
    this call made it)."""
    if is_tm_url(str(ref)):
        with open_tm(ref, create="import", src_lang=src_lang, tgt_lang=tgt_lang) as tm:
            yield tm
        return
    folder = Path(ref)
    folder_existed = folder.exists()
    new_tm = not tm_exists(folder)
    try:
        with open_tm(folder, create=True, src_lang=src_lang, tgt_lang=tgt_lang) as tm:
            yield tm
    except BaseException:
        if new_tm:
            from engine.fsutil import remove_created_store
            from engine.tm.memory import TranslationMemory

            remove_created_store(folder, folder_existed, TranslationMemory.DB_NAME,
                                 ("index", "index.new", "index.old"))
        raise


@dataclass(frozen=True)
class ListedTM:
    """A TM a project lists (setting ``tms``): ``ref`` a folder (resolved against the
    project folder) or a shared TM's URL as written."""

    ref: Path | str
    writable: bool
    name: str

    @property
    def shared(self) -> bool:
        return is_tm_url(str(self.ref))


class OutsideProject(TMError):
    """A project lists a TM folder outside itself that its user never confirmed (``entries``)."""

    def __init__(self, message: str, entries: list[ListedTM]):
        super().__init__(message)
        self.entries = entries


def project_tms(project, *, outside: str = "refuse") -> list[ListedTM]:
    """The TMs of ``project`` in the order they are searched: folders as
    :meth:`Project.tm_refs` resolves them, URLs as written (a URL is no path).

    A folder outside the project, or a shared TM's server, that its user has not confirmed
    (:mod:`engine.store.trusted`: a received project decides nothing outside itself)
    is, by ``outside``: ``"refuse"``d (:class:`OutsideProject`, one line naming the
    project file and the entry), ``"skip"``ped, or ``"allow"``ed (a user's flag)."""
    import json

    from engine.store import trusted

    try:
        raw = json.loads(project.setting("tms", "") or "[]")
    except (ValueError, TypeError):
        raw = []
    # tm_refs() has one ref per valid item of the setting, URLs too (mangled as paths)
    items = [i for i in (raw if isinstance(raw, list) else [])
             if isinstance(i, dict) and isinstance(i.get("path"), str) and i["path"]]
    out, strange = [], []
    for i, r in zip(items, project.tm_refs()):
        if is_tm_url(i["path"]):
            from engine.tm.pg import redact, split_url

            listed = ListedTM(i["path"], r.writable, split_url(i["path"])[1])
            if outside == "allow" or trusted.server_confirmed(i["path"]):
                out.append(listed)
            else:  # a server no one here confirmed (asked once per server, not per project)
                strange.append((redact(i["path"]), listed))
        elif outside == "allow" or trusted.confirmed(project.folder, r.path):
            out.append(ListedTM(r.path, r.writable, r.name))
        else:
            strange.append((i["path"], ListedTM(r.path, r.writable, r.name)))
    if strange and outside == "refuse":
        raise OutsideProject(f"{Path(project.folder) / 'project.verso'}: setting 'tms' lists {strange[0][0]!r}, "
                             "outside the project and confirmed by no one here; not used (confirm it in "
                             "the editor, or pass --trust-project-tms)", [s for _, s in strange])
    return out


def unconfirmed_tms(project) -> list[ListedTM]:
    """The folders and servers ``project`` lists outside itself that its user has not confirmed."""
    try:
        project_tms(project)
    except OutsideProject as e:
        return e.entries
    return []
