"""The project store: one folder, one SQLite database (WAL), the originals.

Layout of a project folder::

    MyProject/
        project.verso          the SQLite database (WAL mode; -wal/-shm beside it)
        originals/             a copy of each imported file (exporters need it)
        tm/                    the project's own writable translation memory (optional)

Durability: every write that changes a segment commits before the call
returns, with ``synchronous=FULL``; a ``kill -9`` at any moment loses nothing
that a call had returned from.  Importing a document is one transaction: a
crash mid-import leaves either the whole document or none of it.
"""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator, Sequence

from engine.errors import ProjectError, TagErrorsError
from engine.formats.base import ParsedDocument, SegmentStatus, Translation
from engine.inline import TaggedText
from engine.langs import normalize_lang
from engine.store import migrations, trusted
from engine.store.locks import refusal

DB_NAME = "project.verso"
ORIGINALS = "originals"
EXPORTS = "exports"
TMS_SETTING = "tms"
GLOSSARIES_SETTING, GLOSSARY_TRUST_FLAG = "glossaries", "--trust-project-glossaries"
DICTIONARY = "dictionary.txt"
ORIGINS = ("", "file", "human", "tm", "mt")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _now_and_next() -> tuple[str, str]:
    """Now, and one millisecond later (same format as :func:`_now`)."""
    t = datetime.now(timezone.utc)
    return t.isoformat(timespec="milliseconds"), (t + timedelta(milliseconds=1)).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class DocumentInfo:
    id: int
    name: str
    format: str
    original: str
    src_lang: str
    tgt_lang: str
    imported_at: str
    meta: dict = field(default_factory=dict, compare=False)
    segment_count: int = 0
    confirmed_count: int = 0


@dataclass(frozen=True)
class TMRef:
    """A translation memory (setting ``tms``) or glossary (setting ``glossaries``) a project
    reads; paths relative to the project folder or absolute.  Confirmed segments go to the
    first writable TM."""

    path: Path
    writable: bool
    name: str


@dataclass(frozen=True)
class Segment:
    """One segment of a document as stored in the project."""

    id: int
    document_id: int
    idx: int
    key: str
    source: TaggedText
    target: TaggedText
    status: SegmentStatus
    origin: str
    origin_score: float | None
    note: str
    context: str
    meta: dict
    updated_at: str
    confirmed_at: str | None
    created_at: str = ""
    locked: bool = False  # the target may not change (engine/store/locks.py)

    @property
    def as_received(self) -> bool:
        """The target is the one the file came with, untouched in Verso (neither edited
        nor confirmed here): the client's, so a tag difference in it is theirs to answer
        for -- a QA warning, never a reason to refuse the export."""
        return self.origin == "file" and bool(self.target.text) and self.updated_at == self.created_at

    @classmethod
    def from_row(cls, r: dict) -> "Segment":
        source = TaggedText.from_parts(r["source"], r["source_tags"])
        return cls(
            id=r["id"], document_id=r["document_id"], idx=r["idx"], key=r["key"],
            source=source,
            target=TaggedText.from_parts(r["target"], r["target_tags"]),
            status=r["status"], origin=r["origin"], origin_score=r["origin_score"],
            note=r["note"], context=r["context"], meta=json.loads(r["meta"] or "{}"), locked=bool(r.get("locked")),
            updated_at=r["updated_at"], confirmed_at=r["confirmed_at"], created_at=r["created_at"],
        )


@dataclass(frozen=True)
class PendingTMWrite:
    """A confirmed segment the TM may not have yet, the unit metadata it goes with, and the
    target of the unit it corrects (None: a new unit)."""

    segment: Segment
    meta: dict
    replaces: TaggedText | None = None


class Project:
    """A translation project on disk.  Thread-safe for one writer at a time.

    >>> p = Project.create(tmp, src_lang="en", tgt_lang="de", name="Manual")   # doctest: +SKIP
    >>> doc = p.import_document("guide.xlf")                                  # doctest: +SKIP
    >>> p.confirm(p.segments(doc)[0].id, "Übersetzung")                       # doctest: +SKIP
    """

    def __init__(self, folder: str | Path, _create: dict | None = None):
        self.folder = Path(folder)
        self.path = self.folder / DB_NAME
        if _create is None and not self.path.exists():
            raise ProjectError(f"{self.folder}: not a Verso project (no {DB_NAME})")
        self._lock = threading.RLock()
        try:
            conn = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False,
                                   timeout=10.0)
            conn.row_factory = sqlite3.Row
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise ProjectError(f"{self.path}: cannot use write-ahead logging (journal mode {mode})")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            version = migrations.checked_version(conn, self.path)
            if version > migrations.LATEST:
                conn.close()
                raise ProjectError(f"{self.path}: made by a newer Verso (schema {version} > "
                                   f"{migrations.LATEST}); upgrade Verso to open it")
            migrations.migrate(conn)
        except sqlite3.DatabaseError as e:
            raise ProjectError(f"{self.path}: cannot open project database: {e}") from None
        self._conn = conn
        self.closed = False
        if _create is not None:
            with self._tx():
                for k, v in _create.items():
                    conn.execute("INSERT OR REPLACE INTO project (key, value) VALUES (?, ?)", (k, v))
        (self.folder / ORIGINALS).mkdir(exist_ok=True)

    # ------------------------------------------------------------ lifecycle
    @classmethod
    def create(cls, folder: str | Path, *, src_lang: str, tgt_lang: str, name: str = "") -> "Project":
        folder = Path(folder)
        if (folder / DB_NAME).exists():
            raise ProjectError(f"{folder}: a project already exists here")
        if not src_lang or not tgt_lang:
            raise ProjectError(f"{folder}: a new project needs a source and a target language")
        folder.mkdir(parents=True, exist_ok=True)
        return cls(folder, _create={
            "name": name or folder.name,
            "src_lang": normalize_lang(src_lang),
            "tgt_lang": normalize_lang(tgt_lang),
            "created_at": _now(),
        })

    @classmethod
    def open(cls, folder: str | Path) -> "Project":
        return cls(folder)

    @classmethod
    def open_or_create(cls, folder: str | Path, *, src_lang: str = "", tgt_lang: str = "") -> "Project":
        if (Path(folder) / DB_NAME).exists():
            return cls(folder)
        return cls.create(folder, src_lang=src_lang, tgt_lang=tgt_lang)

    def close(self) -> None:
        with self._lock:
            self.closed = True
            try:
                self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error:
                pass
            self._conn.close()

    def __enter__(self) -> "Project":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _tx(self):
        """One atomic transaction (nested calls use savepoints)."""
        return _Tx(self)

    # ------------------------------------------------------------- settings
    def setting(self, key: str, default: str | None = None) -> str | None:
        row = self._conn.execute("SELECT value FROM project WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_setting(self, key: str, value: str) -> None:
        with self._tx():
            self._conn.execute("INSERT OR REPLACE INTO project (key, value) VALUES (?, ?)", (key, value))

    @property
    def tm_key(self) -> str:
        """What a TM unit confirmed in this project is stamped with (meta ``project``), so the
        statistics can tell the project's own work from matches that were there before.
        The project's name and a random id made once: a shared TM shows it to the whole team,
        so never the folder's path; the id tells two projects of one name apart and stays
        when the folder moves."""
        key = self.setting("tm_key")
        if not key:
            import secrets

            key = f"{self.name}#{secrets.token_hex(4)}"
            self.set_setting("tm_key", key)
        return key

    def qa_options(self):
        """The QA checks this project runs (:class:`engine.qa.QAOptions`)."""
        from engine.qa import QAOptions

        return QAOptions.from_setting(self.setting(QAOptions.SETTING))

    def set_qa_options(self, options) -> None:
        self.set_setting(options.SETTING, options.to_setting())

    def dictionary_path(self) -> Path:
        """The project dictionary: words spelling must accept, one a line (UTF-8)."""
        return self.folder / DICTIONARY

    def spell_checker(self):
        """A :class:`engine.spelling.SpellChecker` for the target language with the project
        dictionary's words, or None when no hunspell dictionary for it is installed."""
        from engine.spelling import ProjectDictionary, SpellChecker

        return SpellChecker.for_language(self.tgt_lang, ProjectDictionary(self.dictionary_path()).words())

    def glossary_refs(self, *, outside: str = "skip") -> list[TMRef]:
        """The glossaries, highest priority first, as ``tms``; one outside: :func:`trusted.guarded`."""
        return trusted.guarded(self.folder, GLOSSARIES_SETTING, self._refs(GLOSSARIES_SETTING), outside,
                               GLOSSARY_TRUST_FLAG)

    def add_glossary_ref(self, path: str | Path, *, writable: bool = False) -> TMRef:
        """List a glossary in the project: a writable one goes first (highest priority)."""
        return trusted.added(self.folder, path, self._add_ref(GLOSSARIES_SETTING, path, writable, first=writable))

    def term_index(self, *, outside: str = "skip"):
        """One :class:`engine.glossary.TermIndex` over every glossary of the project (entries of
        higher-priority glossaries first), or None when the project has none."""
        from engine.glossary import load_term_index

        return load_term_index([r.path for r in self.glossary_refs(outside=outside)], self.src_lang)

    def _refs(self, key: str) -> list[TMRef]:
        raw = self.setting(key, "") or ""
        try:
            items = json.loads(raw) if raw else []
        except ValueError:
            items = []
        out = []
        for i in items if isinstance(items, list) else []:
            if isinstance(i, dict) and isinstance(i.get("path"), str) and i["path"]:
                p = Path(i["path"])
                out.append(TMRef(p if p.is_absolute() else self.folder / p, bool(i.get("writable")), p.name))
        return out

    def _add_ref(self, key: str, path: str | Path, writable: bool, first: bool = False) -> TMRef:
        raw = self.setting(key, "") or ""
        try:
            items = [i for i in (json.loads(raw) if raw else []) if isinstance(i, dict)]
        except ValueError:
            items = []
        item = {"path": str(path), "writable": writable}
        items = [item] + items if first else items + [item]
        self.set_setting(key, json.dumps(items))
        p = Path(path)
        return TMRef(p if p.is_absolute() else self.folder / p, writable, p.name)

    def tm_refs(self) -> list[TMRef]:
        """The project's TMs, in the order they are searched."""
        return self._refs(TMS_SETTING)

    def add_tm_ref(self, path: str | Path, *, writable: bool = False) -> TMRef:
        """List a TM in the project (relative paths are relative to the project folder).  A
        shared TM's URL is stored without credentials: libpq finds the password in
        ``~/.pgpass``, ``PGPASSWORD`` or a service file, never in the project."""
        if isinstance(path, str) and "://" in path:
            from engine.urls import strip_credentials

            path = strip_credentials(path)
        return trusted.added(self.folder, path, self._add_ref(TMS_SETTING, path, writable))

    @property
    def name(self) -> str:
        return self.setting("name", self.folder.name) or self.folder.name

    @property
    def src_lang(self) -> str:
        return self.setting("src_lang", "") or ""

    @property
    def tgt_lang(self) -> str:
        return self.setting("tgt_lang", "") or ""

    # ------------------------------------------------------------ documents
    def import_parsed(self, parsed: ParsedDocument, original: str | Path, *, name: str | None = None) -> int:
        """Store a parsed document and keep a copy of its original file.

        One transaction: after a crash the document is either complete or absent.
        Returns the new document id.
        """
        original = Path(original)
        name = name or original.name
        with self._lock:
            kept_dir = self.folder / ORIGINALS
            kept_dir.mkdir(exist_ok=True)
            # Copy first; a crash before the commit leaves only an unreferenced copy.
            stem = f"{int(datetime.now().timestamp() * 1000)}_{os.getpid()}_{original.name}"
            kept = kept_dir / stem
            shutil.copyfile(original, kept)
            now = _now()
            src = normalize_lang(parsed.src_lang) or self.src_lang
            tgt = normalize_lang(parsed.tgt_lang) or self.tgt_lang
            with self._tx():
                cur = self._conn.execute(
                    "INSERT INTO documents (name, format, original, src_lang, tgt_lang, meta, imported_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (name, parsed.format, f"{ORIGINALS}/{stem}", src, tgt,
                     # segmented with the SRX rules: the default ones unless the reader named others
                     json.dumps({"segmentation_srx": "", **parsed.meta, "problems": parsed.problems,
                                 "imported_from": str(original.resolve())}, ensure_ascii=False), now),
                )
                doc_id = int(cur.lastrowid)
                self._conn.executemany(
                    "INSERT INTO segments (document_id, idx, key, source, source_tags, target, target_tags,"
                    " status, origin, note, context, meta, created_at, updated_at, confirmed_at, locked)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    _segment_rows(doc_id, parsed, now),
                )
            return doc_id

    def import_document(self, path: str | Path, *, src_lang: str = "", tgt_lang: str = "",
                        format: str | None = None) -> int:
        """Read ``path`` with its format's reader and store it (see :meth:`import_parsed`)."""
        from engine.store.segrules import read_document  # with the project's sentence rules

        parsed = read_document(self, path, src_lang=src_lang or self.src_lang,
                               tgt_lang=tgt_lang or self.tgt_lang, format=format)
        return self.import_parsed(parsed, path)

    def documents(self) -> list[DocumentInfo]:
        rows = self._conn.execute(
            "SELECT d.*, COUNT(s.id) AS n, SUM(s.status = 'confirmed') AS c FROM documents d"
            " LEFT JOIN segments s ON s.document_id = d.id GROUP BY d.id ORDER BY d.id"
        ).fetchall()
        return [DocumentInfo(r["id"], r["name"], r["format"], r["original"], r["src_lang"], r["tgt_lang"],
                             r["imported_at"], json.loads(r["meta"] or "{}"), r["n"] or 0, r["c"] or 0)
                for r in rows]

    def document(self, ref: int | str) -> DocumentInfo:
        """A document by id or by name."""
        for d in self.documents():
            if (isinstance(ref, int) or str(ref).isdigit()) and d.id == int(ref):
                return d
            if d.name == str(ref):
                return d
        raise ProjectError(f"{self.folder}: no document {ref!r} (see `verso doc list --project {self.folder}`)")

    def remove_document(self, doc_id: int) -> None:
        info = self.document(doc_id)
        with self._tx():
            self._conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,))
        try:
            (self.folder / info.original).unlink()
        except OSError:
            pass

    # ------------------------------------------------------------- segments
    def segments(self, document_id: int) -> list[Segment]:
        rows = self._conn.execute("SELECT * FROM segments WHERE document_id = ? ORDER BY idx", (document_id,))
        return [Segment.from_row(dict(r)) for r in rows]

    def segment(self, segment_id: int) -> Segment:
        r = self._conn.execute("SELECT * FROM segments WHERE id = ?", (segment_id,)).fetchone()
        if r is None:
            raise ProjectError(f"{self.folder}: no segment {segment_id}")
        return Segment.from_row(dict(r))

    def iter_segments(self, status: str | None = None) -> Iterator[Segment]:
        sql = "SELECT * FROM segments" + (" WHERE status = ?" if status else "") + " ORDER BY document_id, idx"
        for r in self._conn.execute(sql, (status,) if status else ()):
            yield Segment.from_row(dict(r))

    def _target_tt(self, segment_id: int, target: TaggedText | str) -> TaggedText:
        if isinstance(target, TaggedText):
            return target
        # A plain string edited in the editor keeps the source's tag table, so
        # the placeholder characters it contains still map to their markup.
        seg = self.segment(segment_id)
        return seg.source.with_text(target)

    def set_target(self, segment_id: int, target: TaggedText | str, *, status: SegmentStatus = "draft",
                   origin: str = "human", origin_score: float | None = None) -> Segment:
        """Store a target (draft by default); committed before returning."""
        return self.set_targets([(segment_id, target)], status=status, origin=origin, origin_score=origin_score)[0]

    def set_targets(self, updates: Sequence[tuple[int, TaggedText | str]], *, status: SegmentStatus = "draft",
                    origin: str = "human", origin_score: float | None = None) -> list[Segment]:
        """Store several ``(segment id, target)`` in ONE transaction (one fsync): all of
        them or, if one fails (an unknown segment), none.  Committed before returning."""
        if origin not in ORIGINS:
            raise ValueError(f"origin must be one of {ORIGINS}")
        if status not in ("new", "draft", "confirmed"):
            raise ValueError(f"bad status {status!r}")
        with self._lock:
            rows = [(self._target_tt(segment_id, target), segment_id) for segment_id, target in updates]
            now, later = _now_and_next()
            with self._tx():
                for tt, segment_id in rows:
                    # "touched since the import" is updated_at != created_at (translations()): an edit in the
                    # millisecond of the import gets the next ms, or it would read as untouched (the original)
                    cur = self._conn.execute(
                        "UPDATE segments SET target = ?, target_tags = ?, status = ?, origin = ?, origin_score = ?,"
                        " updated_at = CASE WHEN created_at = ? THEN ? ELSE ? END,"
                        " confirmed_at = CASE WHEN ? = 'confirmed' THEN ? ELSE confirmed_at END"
                        " WHERE id = ? AND locked = 0",
                        (tt.text, tt.tags_json(), status, origin, origin_score, now, later, now, status, now,
                         segment_id),
                    )
                    if cur.rowcount != 1:  # not in the project, or locked
                        raise refusal(self._conn, self.folder, segment_id)
            return [self.segment(segment_id) for _, segment_id in rows]

    def confirm(self, segment_id: int, target: TaggedText | str | None = None, *, origin: str = "human",
                origin_score: float | None = None, tm_meta: dict | None = None,
                tm_replaces: TaggedText | None = None) -> Segment:
        """Confirm a segment (with a new target, or its current one).

        Durable when this returns (WAL, synchronous=FULL).  ``tm_meta``: the
        confirmation is owed to the writable TM, with this unit metadata; it is
        recorded in the same transaction and listed by :meth:`tm_pending` until
        :meth:`tm_written` says the TM has it, so a crash between the two
        writes loses nothing (the editor sends what is pending on opening).
        ``tm_replaces``: the target of the TM unit this confirmation corrects (a confirmed
        segment changed), so what is sent after a crash updates that unit, not a second one.
        """
        if target is None:
            seg = self.segment(segment_id)
            target, origin, origin_score = seg.target, seg.origin or origin, seg.origin_score
        with self._lock, self._tx():
            seg = self.set_target(segment_id, target, status="confirmed", origin=origin,
                                  origin_score=origin_score)
            if tm_meta is not None:
                replaces = (json.dumps({"text": tm_replaces.text, "tags": tm_replaces.tags_json()})
                            if tm_replaces is not None else None)
                self._conn.execute("INSERT OR REPLACE INTO tm_pending (segment_id, meta, queued_at, replaces) "
                                   "VALUES (?, ?, ?, ?)", (segment_id, json.dumps(tm_meta), _now(), replaces))
        return seg

    def tm_pending(self) -> list[PendingTMWrite]:
        """Confirmed segments whose TM write is not known to be done, oldest first
        (a segment no longer confirmed owes the TM nothing and is dropped)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT p.segment_id, p.meta, s.status, p.replaces FROM tm_pending p JOIN segments s "
                "ON s.id = p.segment_id ORDER BY p.queued_at, p.segment_id").fetchall()
            gone = [r[0] for r in rows if r[2] != "confirmed"]
            if gone:
                self.tm_written(gone)
            out = []
            for r in rows:
                if r[2] != "confirmed":
                    continue
                try:
                    meta = json.loads(r[1])
                except ValueError:
                    meta = {}
                out.append(PendingTMWrite(self.segment(r[0]), meta if isinstance(meta, dict) else {},
                                          _replaced_target(r[3])))
            return out

    def tm_written(self, segment_ids: Sequence[int]) -> None:
        """The TM (or the outbox of a shared one) holds these confirmations.  On a project already closed
        (the editor closed while the TM thread finished) nothing is recorded: the next opening sends
        them again, and the TM merges an exact duplicate into the unit it has."""
        if self.closed:
            return
        with self._tx():
            self._conn.executemany("DELETE FROM tm_pending WHERE segment_id = ?", [(i,) for i in segment_ids])

    def counts(self, document_id: int | None = None) -> dict[str, int]:
        sql = "SELECT status, COUNT(*) FROM segments" + (" WHERE document_id = ?" if document_id else "") \
              + " GROUP BY status"
        out = {"new": 0, "draft": 0, "confirmed": 0}
        for st, n in self._conn.execute(sql, (document_id,) if document_id else ()):
            out[st] = n
        return out

    # --------------------------------------------------------------- export
    def translations(self, document_id: int) -> dict[str, Translation]:
        """Targets by key for a document's writer.

        Left out: segments without a target, and segments nobody has touched since the
        import (``updated_at`` still its ``created_at``), so the writer leaves their units
        byte for byte as the original had them -- an untouched file exports unchanged.
        The pieces of a split segment share its key: the writer gets them as one target
        (:func:`engine.store.splitjoin.translations`), so the paragraph is rebuilt whole.
        """
        from engine.store.splitjoin import translations

        return translations(self._conn, document_id)

    def tag_errors(self, document_id: int) -> list:
        """The tag errors (:func:`engine.qa.tag_issues`) of the targets written or confirmed in
        Verso (what export refuses); a target as the file brought it is not checked here
        (:attr:`Segment.as_received`: the QA reports it as a warning)."""
        from engine.qa import tag_issues

        return [i for s in self.segments(document_id) if s.target.text and not s.as_received
                for i in tag_issues(s.id, s.idx, s.source, s.target)]

    def default_export_path(self, ref: int | str) -> Path:
        """Where a document's translation goes unless the user says otherwise: the project's
        ``exports/`` folder, the original's name with the target language before its
        extension (``guide.xlf`` -> ``exports/guide.de.xlf``; ``guide.en.po`` -> ``guide.de.po``)."""
        info = self.document(ref)
        name = Path(info.name).name
        stem, dot, ext = name.rpartition(".")
        if not dot:
            stem, ext = name, ""
        base, dot2, last = stem.rpartition(".")
        if dot2 and base and normalize_lang(last) and (
                normalize_lang(last) == normalize_lang(info.src_lang)
                or normalize_lang(last).split("-")[0] == normalize_lang(info.src_lang).split("-")[0]):
            stem = base
        return self.folder / EXPORTS / (f"{stem}.{info.tgt_lang}" + (f".{ext}" if ext else ""))

    def export_document(self, ref: int | str, out: str | Path, *, force: bool = False) -> Path:
        """Write the document, translated, in its original format.

        Refused (:class:`~engine.errors.TagErrorsError`, naming the segments) while a target
        has tag errors, unless ``force``: a broken tag breaks the client's file.  Never
        writes over the file the document was imported from.  Open comments go into the file
        where its format keeps comments (:func:`engine.store.comments.write_with_comments`).
        """
        from engine.store.comments import write_with_comments

        info = self.document(ref)
        if not force:
            errors = self.tag_errors(info.id)
            if errors:
                raise TagErrorsError(info.name, errors)
        imported = info.meta.get("imported_from")
        if imported and _same_file(Path(out), Path(imported)):
            raise ProjectError(f"{out}: this is the file {info.name!r} was imported from; "
                               "export to another file")
        original = self.folder / info.original
        if not original.exists():
            raise ProjectError(f"{self.folder}: the kept original of {info.name!r} is missing ({original})")
        write_with_comments(self, info, original, Path(out), self.translations(info.id))
        return Path(out)


#: ``json.dumps(obj, ensure_ascii=False)`` without building an encoder per call: json.dumps with
#: any option builds one (per-segment json.dumps: 3.1 s of a 20.8 s profiled 100,000-entry PO import).
_json = json.JSONEncoder(ensure_ascii=False).encode


def _segment_rows(doc_id: int, parsed: ParsedDocument, now: str) -> Iterator[tuple]:
    """The ``segments`` rows of ``parsed``, made as SQLite takes them: no list of all rows
    beside the parsed segments (100,000 PO entries: 524 -> 491 MiB peak with the other changes)."""
    empty = TaggedText("")
    for i, s in enumerate(parsed.segments):
        tgt_tt = s.target or empty
        src_tags = s.source.tags_json()
        has_target = bool(tgt_tt.text)
        yield (doc_id, i, s.key, s.source.text, src_tags,
               tgt_tt.text, tgt_tt.tags_json() if tgt_tt.tags else src_tags,
               s.status if has_target else "new", "file" if has_target else "",
               s.note, s.context, _json(s.meta) if s.meta else "{}", now, now,
               now if (s.status == "confirmed" and has_target) else None, int(s.locked))


def _replaced_target(raw: str | None) -> TaggedText | None:
    try:
        d = json.loads(raw) if raw else None
        return TaggedText.from_parts(d["text"], d["tags"]) if isinstance(d, dict) else None
    except (ValueError, KeyError, TypeError):
        return None


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


class _Tx:
    """BEGIN IMMEDIATE ... COMMIT, or a savepoint when nested."""

    def __init__(self, project: Project):
        self.p = project
        self.name: str | None = None

    def __enter__(self):
        self.p._lock.acquire()
        conn = self.p._conn
        if conn.in_transaction:
            self.name = f"sp{id(self)}"
            conn.execute(f"SAVEPOINT {self.name}")
        else:
            conn.execute("BEGIN IMMEDIATE")
        return self

    def __exit__(self, exc_type, exc, tb):
        conn = self.p._conn
        try:
            if self.name:
                if exc_type is not None:
                    conn.execute(f"ROLLBACK TO SAVEPOINT {self.name}")
                conn.execute(f"RELEASE SAVEPOINT {self.name}")
            elif exc_type is not None:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            else:
                conn.execute("COMMIT")
        finally:
            self.p._lock.release()
        return False
