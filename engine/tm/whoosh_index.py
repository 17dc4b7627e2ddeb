"""The Whoosh index of a TM: derived from SQLite, rebuilt or caught up when stale.

Layout inside the TM folder::

    index/          Whoosh index (schema below)
    index/state.json  {"format": F, "index_id": "...", "seq": n}

``seq`` is the last change of the SQLite journal (see :mod:`engine.tm.store`) the index reflects.
``state.json`` is written (atomically) *after* the Whoosh commit, so a crash in between leaves an
older ``seq``: replaying the journal from there is idempotent (delete by unit id, then add).

Schema, built for the candidate stage (:mod:`engine.tm.candidates`):

* ``src``: occurrence terms of the source's core tokens
  (:func:`engine.tm.tokens.occurrence_terms`: a repeated token is counted
  again), ``tgt``: distinct core terms of the target
  (:func:`engine.tm.tokens.index_terms`); *existence* postings only -- no
  frequencies, positions or field lengths: the re-rank does the scoring.
* ``uid``: the unit id as a term (for deletes) and ``uidc`` as a column
  (docnum -> unit id), ``n``: the source's core-token count as a column
  (for the length bound of the candidate stage).
* ``lp``: the unit's language pair as one term, ``src|tgt`` (normalised
  codes; see :func:`pair_term`), so a search keeps only its own pair.
* ``e``: the source's core tokens as stored in SQLite (``units.enc``, one
  character per token), UTF-8, as a column: the re-rank computes the fuzzy
  score of thousands of candidates straight from the (memory-mapped) index;
  ``x``: its surface tokens and punctuation (``senc`` U+0001 ``penc``), for
  the case and punctuation penalties of the best ones.

Decoded posting lists are kept in a bounded in-memory cache (:class:`PostingCache`) keyed by
segment; a large segment's source postings are read from its posting file (:mod:`engine.tm.postfile`).

Trust: Whoosh keeps its table of contents, compound-file directories and
posting blocks as pickles.  The index is a cache Verso writes itself and
rebuilds from SQLite, and it is read only when this installation's keyed seal
says so (:mod:`engine.tm.seal`: the table of contents and every file of the
segments it names are checked before Whoosh reads them); every unpickling in
Whoosh admits only the classes a Verso index holds (:mod:`engine.tm.whoosh_pickle`),
and the schema is never unpickled (the index is opened with :func:`make_schema`).
"""
from __future__ import annotations

import contextlib
import json
import os
from array import array
from collections import OrderedDict
from itertools import accumulate
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
from whoosh.codec.whoosh3 import W3LeafMatcher
from whoosh.index import TOC, FileIndex

from engine.errors import TMError
from engine.fsutil import atomic_write
from engine.tm import whoosh_buffers, whoosh_pickle
from engine.tm.index_build import BuildCancelled, build_new, clear, new_index_id
from engine.tm.index_schema import (BLOCK_LIMIT, EXTRA_SEP, FORMAT, INDEX_NAME, SourceTermsField, TermsField,
                                    doc_fields, make_schema, pair_term, split_pair_term, writer_codec)
from engine.tm.postfile import Postfiles
from engine.tm.columns import BytesColumn
from engine.tm.seal import Seal, SealedStorage, Untrusted

whoosh_pickle.install()
whoosh_buffers.install()  # compound segments' files read in place, not copied
class PostingCache:
    """Decoded posting lists (int32 numpy arrays) by (segment, field, term),
    least recently used first out once ``max_postings`` are held; lists
    shorter than ``min_len`` are not kept.  Each size is kept: a short list is inlined in its
    term's entry and unpickled with it (through the restricted unpickler, 13 % of a 752k TM's
    search when read again each time); an entry costs ``ENTRY_COST`` postings of the budget."""

    ENTRY_COST = 16

    def __init__(self, max_postings: int = 16_000_000, min_len: int = 1):
        self.max_postings = max_postings
        self.min_len = min_len
        self.size = 0
        self._lists: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._df: dict[tuple, int] = {}

    def get(self, key: tuple) -> np.ndarray | None:
        a = self._lists.get(key)
        if a is not None:
            self._lists.move_to_end(key)
        return a

    def put(self, key: tuple, ids: np.ndarray) -> None:
        if len(ids) < self.min_len or len(ids) > self.max_postings // 4:
            return
        self._lists[key] = ids
        self.size += len(ids) + self.ENTRY_COST
        while self.size > self.max_postings and self._lists:
            _, old = self._lists.popitem(last=False)
            self.size -= len(old) + self.ENTRY_COST

    def df(self, key: tuple, compute) -> int:
        v = self._df.get(key)
        if v is None:
            if len(self._df) > 500_000:
                self._df.clear()
            v = self._df[key] = compute()
        return v

    def keep_segments(self, segids: set) -> None:
        """Drop the entries of segments no longer in the index."""
        for key in [k for k in self._lists if k[0] not in segids]:
            self.size -= len(self._lists.pop(key)) + self.ENTRY_COST
        for key in [k for k in self._df if k[0] not in segids]:
            del self._df[key]


class LeafView:
    """One Whoosh segment, with its columns loaded as arrays for the search (``postfile``: its
    memory-mapped source postings, :mod:`engine.tm.postfile`, once there is one)."""

    overlay, postfile = False, None

    def __init__(self, reader, base: int, cache: PostingCache | None = None):
        self.reader = reader
        self.base = base
        self.count = reader.doc_count_all()
        self.segid = _segment_id(reader)
        self.cache = cache if cache is not None else PostingCache()
        self.uids = _load_column(reader, "uidc", "I", self.count)
        self._lengths = np.frombuffer(_load_column(reader, "n", "H", self.count),
                                      dtype=np.uint16) if self.count else np.zeros(0, np.uint16)
        self.deleted = reader.deleted_docs_set if reader.has_deletions() else frozenset()
        self._columns: dict[str, BytesColumn] = {}
        self._uid_order: tuple[np.ndarray, np.ndarray] | None = None

    def lengths(self) -> np.ndarray:
        return self._lengths

    def doc_frequency(self, field: str, term: str) -> int:
        return self.cache.df((self.segid, field, term),
                             lambda: self.reader.doc_frequency(field, term))

    def terms(self, field: str) -> list[str]:
        """Every term of ``field`` in this segment (used for the few ``lp`` terms)."""
        return [t.decode("utf-8") if isinstance(t, bytes) else t
                for t in self.reader.lexicon(field)]

    def postings(self, field: str, term: str) -> np.ndarray:
        """Doc numbers (within this segment, int32) of ``term``; empty when absent."""
        key = (self.segid, field, term)
        ids = self.cache.get(key)
        if ids is not None:
            return ids
        if self.doc_frequency(field, term) == 0:
            return np.zeros(0, np.int32)
        try:
            m = self.reader.postings(field, term)
        except Exception:  # whoosh raises TermNotFound
            return np.zeros(0, np.int32)
        ids = np.frombuffer(read_ids(m), dtype=np.uint32).astype(np.int32)
        self.cache.put(key, ids)
        return ids

    def _column(self, name: str) -> BytesColumn:
        col = self._columns.get(name)
        if col is None:
            col = self._columns[name] = BytesColumn(self.reader, name, self.count)
        return col

    def encodings(self, local: np.ndarray, column: str = "e") -> list[str]:
        """Stored encodings of the local docs ``local``: core (column ``e``) or
        surface and punctuation (``x``)."""
        return self._column(column).texts(local)

    def encoding_bytes(self, local: np.ndarray, column: str = "x") -> list[bytes]:
        """:meth:`encodings` as their UTF-8 bytes, not decoded."""
        return self._column(column).raw(local)

    def local_of(self, uids: Sequence[int]) -> np.ndarray:
        """Local doc numbers holding the unit ids ``uids`` (those present)."""
        if not len(uids) or not self.count:
            return np.zeros(0, np.int64)
        if self._uid_order is None:
            u = np.frombuffer(self.uids, dtype=np.uint32)
            if len(u) < 2 or bool(np.all(u[1:] > u[:-1])):  # built in id order: no sort
                self._uid_order = (u, np.arange(len(u), dtype=np.int64))
            else:
                order = np.argsort(u, kind="stable")
                self._uid_order = (u[order], order)
        su, order = self._uid_order
        want = np.asarray(list(uids), dtype=np.int64)
        lo = np.searchsorted(su, want, side="left")
        hi = np.searchsorted(su, want, side="right")
        out = [order[a:b] for a, b in zip(lo.tolist(), hi.tolist()) if b > a]
        return np.concatenate(out).astype(np.int64) if out else np.zeros(0, np.int64)


def _segment_id(reader) -> str:
    try:
        return reader.segment().segment_id()
    except Exception:  # pragma: no cover - not a segment reader
        return str(id(reader))


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
    """Whole column of a segment reader as an array (default 0 past its end).  The column's own
    reader (``translate=False``): the translating wrapper has no file to read in one call, and
    751,951 values read one call each were 23 % of opening a 752k TM."""
    cr = reader.column_reader(name, translate=False)
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
    """The Whoosh side of one TM folder (``seal``: the TM's keyed seal of its files)."""

    def __init__(self, folder: Path, seal: Seal):
        self.dir = Path(folder) / "index"
        self.state_path = self.dir / "state.json"
        self.seal = seal
        self._ix = None
        self._reader = None
        self._leaves: list[LeafView] | None = None
        self.cache = PostingCache()
        self.postfiles = Postfiles(self.dir, seal)

    # ----------------------------------------------------------- state
    def state(self, check: bool = False) -> dict | None:
        """The committed state, or None when the index is missing or unreadable
        (``check``: also look for a table of contents, without reading it)."""
        try:
            st = json.loads(self.state_path.read_text("utf-8"))
        except (OSError, ValueError, RecursionError):
            return None
        if not isinstance(st, dict) or st.get("format") != FORMAT \
                or not isinstance(st.get("seq", 0), int) or not isinstance(st.get("index_id"), str):
            return None
        if check and self.seal.latest_toc(self.dir) is None:
            return None
        return st

    def _write_state(self, index_id: str, seq: int) -> None:
        with atomic_write(self.state_path, "w", encoding="utf-8") as fh:
            json.dump({"format": FORMAT, "index_id": index_id, "seq": seq}, fh)

    # ----------------------------------------------------------- open / build
    def open(self) -> None:
        """Open the index once its latest table of contents carries our seal
        (:class:`~engine.tm.seal.Untrusted` otherwise; the caller rebuilds)."""
        self._drop_reader()
        try:
            self._verified_toc()
            self._ix = FileIndex(SealedStorage(str(self.dir), self.seal), schema=make_schema(),
                                 indexname=INDEX_NAME)
        except Untrusted:
            raise
        except Exception as e:  # corrupt: caller rebuilds
            raise TMError(f"{self.dir}: search index unreadable ({e})") from None

    def _verified_toc(self) -> TOC:
        """The latest table of contents, read after checking its seal and
        that of every file of the segments it names."""
        toc_name = self.seal.latest_toc(self.dir)
        if toc_name is None:
            raise TMError(f"{self.dir}: no search index")
        self.seal.verify(self.dir, [toc_name])
        storage = SealedStorage(str(self.dir), self.seal)
        gen = int(toc_name.split("_")[-1].split(".")[0])
        toc = TOC.read(storage, INDEX_NAME, gen=gen, schema=make_schema())
        prefixes = tuple(f"{INDEX_NAME}_{seg.segid}." for seg in toc.segments)
        names = [n for n in os.listdir(self.dir) if n.startswith(prefixes)] if prefixes else []
        self.seal.verify(self.dir, names)
        self._toc_storage = storage
        return toc

    def rebuild(self, docs: Iterable[tuple], index_id: str, seq: int,
                limitmb: int = 256) -> None:
        """Build a fresh index from ``docs`` (uid, source, target, src_lang,
        tgt_lang, enc, senc, penc) beside the old one, then swap it in."""
        self.close()
        build_new(self.dir, docs, index_id, seq, self.seal, limitmb=limitmb)
        self.swap_in_new()

    def swap_in_new(self) -> None:
        """Put the index :func:`build_new` finished in place of the current one."""
        self.close()
        new = self.dir.with_name("index.new")
        old = self.dir.with_name("index.old")
        clear(old)  # links and files too, never followed (engine.tm.index_build.clear)
        if os.path.lexists(self.dir):
            os.replace(self.dir, old)
        os.replace(new, self.dir)
        clear(old)
        self.seal.prune(set(os.listdir(self.dir)))
        self.open()

    def apply(self, changes: list[tuple], index_id: str, seq: int) -> None:
        """Apply journal changes: for each (uid, source, target, src_lang,
        tgt_lang, enc, senc, penc) delete the unit's document and add it again
        unless ``source`` is None."""
        if self._ix is None:
            self.open()
        self._verified_toc()  # the writer reads the segments it appends to
        w = self._ix.writer(codec=writer_codec(), timeout=5.0)
        try:
            for uid, s, *rest in changes:
                w.delete_by_term("uid", str(uid))
                if s is not None:
                    w.add_document(**doc_fields(uid, s, *(x or "" for x in rest)))
        except BaseException:
            w.cancel()
            raise
        w.commit()
        self._write_state(index_id, seq)
        self.seal.prune(set(os.listdir(self.dir)))
        self._drop_reader()

    def close(self) -> None:
        self._drop_reader()
        self.postfiles.close()  # the builds under way end without leaving files
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
            toc = self._verified_toc()
            self._reader = FileIndex._reader(self._toc_storage, toc.schema, toc.segments, toc.generation)
            self._leaves = [LeafView(r, base, self.cache)
                            for r, base in self._reader.leaf_readers() if r.doc_count_all() > 0]
            self.cache.keep_segments({leaf.segid for leaf in self._leaves})
            self.postfiles.attach(self._leaves)
        return self._leaves

    def size_on_disk(self) -> int:
        if not self.dir.is_dir():
            return 0
        return sum(p.stat().st_size for p in self.dir.iterdir() if p.is_file())


__all__ = ["SourceIndex", "LeafView", "build_new", "BuildCancelled", "new_index_id", "read_ids", "doc_fields",
           "pair_term", "split_pair_term", "make_schema", "INDEX_NAME", "FORMAT", "EXTRA_SEP", "BLOCK_LIMIT",
           "TermsField", "SourceTermsField"]
