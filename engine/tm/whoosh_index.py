"""The Whoosh index of a TM: derived from SQLite, rebuilt or caught up when stale.

Layout inside the TM folder::

    index/          Whoosh index (schema below)
    index/state.json  {"format": F, "index_id": "...", "seq": n}

``seq`` is the last change of the SQLite journal (see :mod:`engine.tm.store`)
the index reflects.  ``state.json`` is written (atomically) *after* the
Whoosh commit, so a crash in between leaves an older ``seq``: replaying the
journal from there is idempotent (delete by unit id, then add).

Schema, built for the candidate stage (:mod:`engine.tm.candidates`):

* ``src`` / ``tgt``: distinct core terms of source / target
  (:func:`engine.tm.tokens.index_terms`), *existence* postings only -- no
  frequencies, positions or field lengths: the re-rank does the scoring.
* ``uid``: the unit id as a term (for deletes) and ``uidc`` as a column
  (docnum -> unit id), ``n``: the source's core-token count as a byte column
  (for the length bound of the candidate stage).
* ``lp``: the unit's language pair as one term, ``src|tgt`` (normalised
  codes; see :func:`pair_term`), so a search keeps only its own pair.

Note: Whoosh keeps its own table of contents and posting blocks in pickle
format; the index is a cache Verso writes itself and rebuilds from SQLite.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import uuid
from array import array
from itertools import accumulate
from pathlib import Path
from typing import Iterable, Iterator

from whoosh import columns, fields, formats, index
from whoosh.codec.whoosh3 import W3Codec, W3LeafMatcher

from engine.errors import TMError
from engine.fsutil import atomic_write
from engine.tm.tokens import core_length, index_terms

FORMAT = 2  # 2: language-pair field ``lp``
#: Postings per block: large blocks make reading a long posting list cheap.
BLOCK_LIMIT = 1024


class TermsField(fields.FieldType):
    """Existence-only field whose value is segment text, analysed by
    :func:`engine.tm.tokens.index_terms` (no Whoosh analyser chain)."""

    indexed = True
    scorable = False
    stored = False
    unique = False

    def __init__(self) -> None:
        self.format = formats.Existence()
        self.analyzer = None
        self.column_type = None
        self.vector = None

    def index(self, value, **kwargs):
        for t in index_terms(value):
            yield t.encode("utf-8"), 1, 1.0, b""

    def process_text(self, qstring, mode="", **kwargs):
        return iter(index_terms(qstring))

    def self_parsing(self):
        return False


def make_schema() -> fields.Schema:
    return fields.Schema(
        src=TermsField(),
        tgt=TermsField(),
        uid=fields.ID(unique=True),
        uidc=fields.COLUMN(columns.NumericColumn("I")),
        n=fields.COLUMN(columns.NumericColumn("B")),
        lp=fields.ID(),
    )


def pair_term(src_lang: str | None, tgt_lang: str | None) -> str:
    """Index term of a language pair (codes as stored: already normalised)."""
    return f"{src_lang or ''}|{tgt_lang or ''}"


def split_pair_term(term: str) -> tuple[str, str]:
    s, _, t = term.partition("|")
    return s, t


def doc_fields(uid: int, source: str, target: str, src_lang: str = "",
               tgt_lang: str = "") -> dict:
    return {"src": source, "tgt": target, "uid": str(uid), "uidc": uid,
            "n": min(255, core_length(source)), "lp": pair_term(src_lang, tgt_lang)}


class LeafView:
    """One Whoosh segment, with its columns loaded as arrays for the search."""

    __slots__ = ("reader", "base", "uids", "lengths", "deleted", "count")
    overlay = False

    def __init__(self, reader, base: int):
        self.reader = reader
        self.base = base
        self.count = reader.doc_count_all()
        self.uids = _load_column(reader, "uidc", "I", self.count)
        self.lengths = _load_column(reader, "n", "B", self.count)
        self.deleted = frozenset(reader.deleted_docs()) if reader.has_deletions() else frozenset()

    def doc_frequency(self, field: str, term: str) -> int:
        return self.reader.doc_frequency(field, term)

    def terms(self, field: str) -> list[str]:
        """Every term of ``field`` in this segment (used for the few ``lp`` terms)."""
        return [t.decode("utf-8") if isinstance(t, bytes) else t
                for t in self.reader.lexicon(field)]

    def postings(self, field: str, term: str) -> array:
        """Doc numbers (within this segment) of ``term``; empty when absent."""
        try:
            m = self.reader.postings(field, term)
        except Exception:  # whoosh raises TermNotFound
            return array("I")
        return read_ids(m)


def read_ids(m) -> array:
    """All ids of a fresh matcher, block by block (no per-posting Python call
    for Whoosh's own block format)."""
    if isinstance(m, W3LeafMatcher):
        out = array("I")
        while not m._atend:
            m._read_data()
            out.extend(accumulate(m._data[0]))
            m._next_block()
        return out
    return array("I", m.all_ids())


def _load_column(reader, name: str, typecode: str, count: int) -> array:
    """Whole column of a segment reader as an array (default 0 past its end)."""
    cr = reader.column_reader(name)
    arr = array(typecode)
    try:  # fast path: the fixed-width column as one byte string
        raw = cr._dbfile.get(cr._basepos, cr._count * cr._fixedlen)
        arr.frombytes(raw)
        if arr.itemsize > 1 and array("H", [1]).tobytes()[0] == 1:
            arr.byteswap()  # Whoosh stores big-endian
    except AttributeError:  # pragma: no cover - another column implementation
        arr = array(typecode, (cr[i] for i in range(count)))
    if len(arr) < count:
        arr.extend([0] * (count - len(arr)))
    return arr


class SourceIndex:
    """The Whoosh side of one TM folder."""

    def __init__(self, folder: Path):
        self.dir = Path(folder) / "index"
        self.state_path = self.dir / "state.json"
        self._ix = None
        self._reader = None
        self._leaves: list[LeafView] | None = None

    # ----------------------------------------------------------- state
    def state(self, check: bool = False) -> dict | None:
        """The committed state, or None when the index is missing or unreadable
        (``check``: also look for the Whoosh table of contents)."""
        try:
            st = json.loads(self.state_path.read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(st, dict) or st.get("format") != FORMAT:
            return None
        if check and not index.exists_in(str(self.dir)):
            return None
        return st

    def _write_state(self, index_id: str, seq: int) -> None:
        with atomic_write(self.state_path, "w", encoding="utf-8") as fh:
            json.dump({"format": FORMAT, "index_id": index_id, "seq": seq}, fh)

    # ----------------------------------------------------------- open / build
    def open(self) -> None:
        try:
            self._ix = index.open_dir(str(self.dir))
        except Exception as e:  # corrupt or foreign: caller rebuilds
            raise TMError(f"{self.dir}: search index unreadable ({e})") from None
        self._drop_reader()

    def rebuild(self, docs: Iterable[tuple[int, str, str, str, str]], index_id: str, seq: int,
                limitmb: int = 256) -> None:
        """Build a fresh index from ``docs`` (uid, source, target, src_lang,
        tgt_lang) beside the old one, then swap it in."""
        self.close()
        new = self.dir.with_name("index.new")
        shutil.rmtree(new, ignore_errors=True)
        new.mkdir(parents=True)
        ix = index.create_in(str(new), make_schema())
        w = ix.writer(limitmb=limitmb, codec=W3Codec(blocklimit=BLOCK_LIMIT))
        try:
            for uid, s, t, sl, tl in docs:
                w.add_document(**doc_fields(uid, s, t, sl, tl))
        except BaseException:
            w.cancel()
            shutil.rmtree(new, ignore_errors=True)
            raise
        w.commit(optimize=True)
        ix.close()
        with atomic_write(new / "state.json", "w", encoding="utf-8") as fh:
            json.dump({"format": FORMAT, "index_id": index_id, "seq": seq}, fh)
        old = self.dir.with_name("index.old")
        shutil.rmtree(old, ignore_errors=True)
        if self.dir.exists():
            os.replace(self.dir, old)
        os.replace(new, self.dir)
        shutil.rmtree(old, ignore_errors=True)
        self.open()

    def apply(self, changes: list[tuple], index_id: str, seq: int) -> None:
        """Apply journal changes: for each (uid, source, target, src_lang,
        tgt_lang) delete the unit's document and add it again unless
        ``source`` is None."""
        if self._ix is None:
            self.open()
        w = self._ix.writer(codec=W3Codec(blocklimit=BLOCK_LIMIT), timeout=5.0)
        try:
            for uid, s, t, sl, tl in changes:
                w.delete_by_term("uid", str(uid))
                if s is not None:
                    w.add_document(**doc_fields(uid, s, t or "", sl or "", tl or ""))
        except BaseException:
            w.cancel()
            raise
        w.commit()
        self._write_state(index_id, seq)
        self._drop_reader()

    def close(self) -> None:
        self._drop_reader()
        if self._ix is not None:
            with contextlib.suppress(Exception):
                self._ix.close()
        self._ix = None

    def _drop_reader(self) -> None:
        if self._reader is not None:
            with contextlib.suppress(Exception):
                self._reader.close()
        self._reader = None
        self._leaves = None

    # ----------------------------------------------------------- reading
    def leaves(self) -> list[LeafView]:
        """Segments of the current index (cached until the next change)."""
        if self._leaves is None:
            if self._ix is None:
                self.open()
            self._reader = self._ix.reader()
            self._leaves = [LeafView(r, base) for r, base in self._reader.leaf_readers()
                            if r.doc_count_all() > 0]
        return self._leaves

    def doc_frequency(self, field: str, term: str) -> int:
        return sum(leaf.reader.doc_frequency(field, term) for leaf in self.leaves())

    def size_on_disk(self) -> int:
        return sum(p.stat().st_size for p in self.dir.iterdir() if p.is_file())


def new_index_id() -> str:
    return uuid.uuid4().hex


__all__ = ["SourceIndex", "LeafView", "new_index_id", "read_ids", "doc_fields", "pair_term",
           "split_pair_term"]
