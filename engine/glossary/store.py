"""A glossary folder: one SQLite database (``glossary.sqlite``, WAL), like a TM.

Tables: ``entries`` (one row per source term: targets and forbidden variants as
JSON arrays, ``dkey`` the unique key of the languages, the source term and the
target terms, compared case-insensitively: meeting the same terms again updates
the row's part of speech, note, status and forbidden variants instead of adding
a second one; ``inflect`` 1 when the target terms may be inflected) and ``meta`` (schema version,
language pair).  Schema 2 added ``inflect``; a schema-1 glossary gains the column when opened.

Every import is one transaction: a file that fails half way leaves the glossary
as it was.  No torch, no Qt: the editor's first paint and ``verso glossary`` load
this module cheaply.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Iterable

from engine.errors import VersoError
from engine.glossary.model import STATUSES, GlossaryEntry, ImportResult
from engine.glossary.recognise import TermIndex
from engine.langs import normalize_lang, same_language
from engine.sqlguard import check_schema

SCHEMA_VERSION = 2


class GlossaryError(VersoError):
    """A glossary folder is missing, corrupt, of another language pair, or used wrongly."""


def entry_key(source: str, targets: Iterable[str], src_lang: str, tgt_lang: str) -> str:
    """The identity of an entry: languages, source term, target terms (case-insensitive)."""
    h = hashlib.blake2b(digest_size=16)
    parts = [normalize_lang(src_lang).casefold(), normalize_lang(tgt_lang).casefold(),
             " ".join(source.split()).casefold(), *sorted({" ".join(t.split()).casefold() for t in targets})]
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()


def clean_entry(e: GlossaryEntry) -> GlossaryEntry:
    """Whitespace trimmed, empty and repeated terms dropped, status one of :data:`STATUSES`."""
    def terms(ts: Iterable[str], drop: set[str]) -> tuple[str, ...]:
        out: list[str] = []
        seen = set(drop)
        for t in ts:
            t = " ".join((t or "").split())
            if t and t.casefold() not in seen:
                seen.add(t.casefold())
                out.append(t)
        return tuple(out)

    targets = terms(e.targets, set())
    forbidden = terms(e.forbidden, {t.casefold() for t in targets})
    status = (e.status or "preferred").strip().lower()
    if status not in STATUSES:
        status = "preferred"
    return GlossaryEntry(source=" ".join(e.source.split()), targets=targets, src_lang=normalize_lang(e.src_lang),
                         tgt_lang=normalize_lang(e.tgt_lang), pos=(e.pos or "").strip(), note=(e.note or "").strip(),
                         forbidden=forbidden, status=status, concept=(e.concept or "").strip(),
                         origin=e.origin or "", inflect=bool(e.inflect), id=e.id)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


_COLS = "id, source, targets, src_lang, tgt_lang, pos, note, forbidden, status, concept, origin, inflect"


def _row_entry(row) -> GlossaryEntry:
    (id_, source, targets, src, tgt, pos, note, forbidden, status, concept, origin, inflect) = row
    return GlossaryEntry(source=source, targets=tuple(json.loads(targets)), src_lang=src, tgt_lang=tgt,
                         pos=pos, note=note, forbidden=tuple(json.loads(forbidden)), status=status,
                         concept=concept, origin=origin, inflect=bool(inflect), id=id_)


def _tables(c: sqlite3.Connection) -> None:
    """The tables of a glossary database (what a received one is compared with)."""
    c.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    c.execute("""CREATE TABLE IF NOT EXISTS entries (
        id INTEGER PRIMARY KEY, dkey TEXT NOT NULL UNIQUE, source TEXT NOT NULL,
        targets TEXT NOT NULL, src_lang TEXT NOT NULL, tgt_lang TEXT NOT NULL,
        pos TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '',
        forbidden TEXT NOT NULL DEFAULT '[]', status TEXT NOT NULL DEFAULT 'preferred',
        concept TEXT NOT NULL DEFAULT '', origin TEXT NOT NULL DEFAULT '',
        created TEXT NOT NULL, changed TEXT NOT NULL, inflect INTEGER NOT NULL DEFAULT 0)""")


class Glossary:
    """A glossary folder.  ``Glossary(folder, create=True)`` makes it when missing.

    Use as a context manager (or call :meth:`close`).  One connection; calls from
    one thread at a time.
    """

    DB_NAME = "glossary.sqlite"

    def __init__(self, folder: str | Path, *, create: bool = False):
        self.folder = Path(folder)
        self.path = self.folder / self.DB_NAME
        if not self.path.exists():
            if not create:
                raise GlossaryError(f"{self.folder}: not a glossary (import a glossary file into it first)")
            if self.folder.exists() and not self.folder.is_dir():
                raise GlossaryError(f"{self.folder}: not a folder")
            self.folder.mkdir(parents=True, exist_ok=True)
        try:
            self.conn = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False,
                                        timeout=30.0)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self._create_schema()
        except sqlite3.DatabaseError as e:
            raise GlossaryError(f"{self.path}: not a readable glossary database ({e})") from None
        self._index: "TermIndex | None" = None
        self._index_key: tuple[int, int] | None = None
        self._writes = 0

    # ------------------------------------------------------------ lifecycle
    @classmethod
    def exists(cls, folder: str | Path) -> bool:
        return (Path(folder) / cls.DB_NAME).exists()

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "Glossary":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _create_schema(self) -> None:
        c = self.conn
        # a received glossary's triggers and views never run (engine.sqlguard); schema 1 lacked a column
        check_schema(c, self.path, _tables, GlossaryError, exact=False)
        _tables(c)
        c.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        version = int(self._meta("schema", "0") or 0)
        if version > SCHEMA_VERSION:
            raise GlossaryError(f"{self.path}: made by a newer Verso (glossary schema {version})")
        if version < 2:  # schema 1: no inflect column
            if "inflect" not in {r[1] for r in c.execute("PRAGMA table_info(entries)")}:
                c.execute("ALTER TABLE entries ADD COLUMN inflect INTEGER NOT NULL DEFAULT 0")
            self._set_meta("schema", str(SCHEMA_VERSION))

    def _meta(self, key: str, default: str = "") -> str:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def _set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT INTO meta(key, value) VALUES (?, ?) "
                          "ON CONFLICT(key) DO UPDATE SET value=excluded.value", (key, value))

    # ------------------------------------------------------------ reading
    @property
    def src_lang(self) -> str:
        return self._meta("src_lang")

    @property
    def tgt_lang(self) -> str:
        return self._meta("tgt_lang")

    def __len__(self) -> int:
        return self.conn.execute("SELECT count(*) FROM entries").fetchone()[0]

    def entries(self) -> list[GlossaryEntry]:
        """Every entry, in the order they were first added."""
        return [_row_entry(r) for r in self.conn.execute(f"SELECT {_COLS} FROM entries ORDER BY id")]

    def get(self, entry_id: int) -> GlossaryEntry | None:
        row = self.conn.execute(f"SELECT {_COLS} FROM entries WHERE id=?", (entry_id,)).fetchone()
        return _row_entry(row) if row else None

    def index(self) -> TermIndex:
        """The in-memory term index of the source terms (built once, rebuilt after a change)."""
        key = (self._writes, self.conn.execute("PRAGMA data_version").fetchone()[0])
        if self._index is None or self._index_key != key:
            self._index = TermIndex(self.entries(), self.src_lang)
            self._index_key = key
        return self._index

    # ------------------------------------------------------------ writing
    def import_entries(self, entries: Iterable[GlossaryEntry], *, src_lang: str = "", tgt_lang: str = "",
                       origin: str = "", problems: Iterable[str] = ()) -> ImportResult:
        """Add ``entries`` in one transaction (all or nothing).

        An entry whose languages and terms are already stored updates that row.
        The glossary takes the language pair of its first import; entries of
        another pair are refused (:class:`GlossaryError`), as is an entry without
        a source term.  ``problems``: rows the reader skipped, passed through to
        the result.
        """
        src = normalize_lang(src_lang) or self.src_lang
        tgt = normalize_lang(tgt_lang) or self.tgt_lang
        added = updated = 0
        now = _now()
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            for e in entries:
                e = clean_entry(e)
                es, et = e.src_lang or src, e.tgt_lang or tgt
                if not es or not et:
                    raise GlossaryError(f"{self.folder}: the language pair is unknown: give the source and "
                                        "target language (--src-lang, --tgt-lang)")
                if not src:
                    src = es
                if not tgt:
                    tgt = et
                if not (same_language(es, src) and same_language(et, tgt)):
                    raise GlossaryError(f"{self.folder}: a {src}->{tgt} glossary cannot take {es}->{et} "
                                        f"entries (\"{e.source}\")")
                if not e.source:
                    raise GlossaryError(f"{self.folder}: an entry without a source term")
                dkey = entry_key(e.source, e.targets, src, tgt)
                vals = (e.source, json.dumps(list(e.targets), ensure_ascii=False), src, tgt, e.pos, e.note,
                        json.dumps(list(e.forbidden), ensure_ascii=False), e.status, e.concept,
                        e.origin or origin, int(e.inflect))
                cur = c.execute(
                    "INSERT INTO entries(source, targets, src_lang, tgt_lang, pos, note, forbidden, status, "
                    "concept, origin, inflect, created, changed, dkey) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                    "ON CONFLICT(dkey) DO NOTHING", (*vals, now, now, dkey))
                if cur.rowcount:
                    added += 1
                else:
                    c.execute("UPDATE entries SET source=?, targets=?, src_lang=?, tgt_lang=?, pos=?, note=?, "
                              "forbidden=?, status=?, concept=?, origin=?, inflect=?, changed=? WHERE dkey=?",
                              (*vals, now, dkey))
                    updated += 1
            if src and not self.src_lang:
                self._set_meta("src_lang", src)
            if tgt and not self.tgt_lang:
                self._set_meta("tgt_lang", tgt)
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise
        finally:
            self._writes += 1
        problems = tuple(problems)
        return ImportResult(added, updated, len(problems), src, tgt, problems)

    def add(self, entry: GlossaryEntry) -> GlossaryEntry:
        """Store one entry (or update the one with the same terms); returns it with its id."""
        self.import_entries([entry])
        e = clean_entry(entry)
        dkey = entry_key(e.source, e.targets, self.src_lang, self.tgt_lang)
        row = self.conn.execute(f"SELECT {_COLS} FROM entries WHERE dkey=?", (dkey,)).fetchone()
        return _row_entry(row)

    def remove(self, entry_id: int) -> bool:
        """Delete an entry; False when there was none with that id."""
        self._writes += 1
        return bool(self.conn.execute("DELETE FROM entries WHERE id=?", (entry_id,)).rowcount)


def load_term_index(folders, lang: str | None) -> TermIndex | None:
    """One index over the glossaries in ``folders`` (highest priority first; a folder without a
    glossary is skipped), or None when they hold no entry."""
    entries: list[GlossaryEntry] = []
    for folder in folders:
        if Glossary.exists(folder):
            with Glossary(folder) as g:
                entries += g.entries()
    return TermIndex(entries, lang) if entries else None
