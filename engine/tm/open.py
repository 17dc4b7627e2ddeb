"""One way to open a TM named by the user: a folder (the local SQLite + Whoosh TM)
or a URL ``postgresql://host:port/dbname?tm=NAME`` (a shared TM on PostgreSQL,
see :mod:`engine.tm.pg`).  Every command, the editor and the pre-translation
open TMs through :func:`open_tm`."""
from __future__ import annotations

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


def open_tm(ref: str | Path, *, create: bool = True, src_lang: str = "", tgt_lang: str = ""):
    """Open the TM ``ref``: a folder or a ``postgresql://`` URL.  Both backends
    have one interface (search, concordance, add, import_units, entries, stats...)."""
    if is_tm_url(str(ref)):
        from engine.tm.pg import PgTranslationMemory

        return PgTranslationMemory(str(ref), create=create, src_lang=src_lang, tgt_lang=tgt_lang)
    from engine.tm.memory import TranslationMemory

    if not str(ref):
        raise TMError("no TM named")
    return TranslationMemory(Path(ref), create=create, src_lang=src_lang, tgt_lang=tgt_lang)
