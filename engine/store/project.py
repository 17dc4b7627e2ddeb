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
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator, Sequence

from engine.errors import ProjectError
from engine.formats.base import ParsedDocument, SegmentStatus
from engine.inline import TaggedText
from engine.langs import normalize_lang
from engine.store import migrations
from engine.store.bulk import insert_rows
from engine.store.guarded import GuardedConnection
from engine.store.tx import Transaction
from engine.store.locks import refusal
from engine.store.project_export import EXPORTS, ProjectExport
from engine.store.project_settings import (  # noqa: F401  (asked of engine.store.project)
    DICTIONARY, GLOSSARIES_SETTING, GLOSSARY_TRUST_FLAG, TMS_SETTING, ProjectSettings,
)
from engine.store.records import DocumentInfo, PendingTMWrite, Segment, TMRef  # noqa: F401

DB_NAME = "project.verso"
ORIGINALS = "originals"
ORIGINS = ("", "file", "human", "tm", "mt")
__all__ = ["DB_NAME", "DICTIONARY", "DocumentInfo", "EXPORTS", "ORIGINALS", "ORIGINS", "PendingTMWrite",
           "Project", "Segment", "TMRef"]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _now_and_next() -> tuple[str, str]:
    """Now, and one millisecond later (same format as :func:`_now`)."""
    t = datetime.now(timezone.utc)
    return t.isoformat(timespec="milliseconds"), (t + timedelta(milliseconds=1)).isoformat(timespec="milliseconds")


class Project(ProjectSettings, ProjectExport):
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
        self._conn = GuardedConnection(conn)  # a job's read never meets close() half way
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
        return Transaction(self)

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
            try:
                doc_id = self._store_parsed(parsed, name, stem, src, tgt, original, now)
            except BaseException:
                kept.unlink(missing_ok=True)   # the document is absent: so is its copy
                raise
            return doc_id

    def _store_parsed(self, parsed: ParsedDocument, name: str, stem: str, src: str, tgt: str,
                      original: Path, now: str) -> int:
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
            insert_rows(self._conn, "INSERT INTO segments (document_id, idx, key, source, source_tags, target,"
                        " target_tags, status, origin, note, context, meta, created_at, updated_at, confirmed_at,"
                        " locked)", 16, _segment_rows(doc_id, parsed, now))
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
