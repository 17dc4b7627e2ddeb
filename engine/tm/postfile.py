"""A pickle-free, memory-mapped posting file beside a large index segment.

Whoosh keeps its posting blocks as pickles: the first searches of a process
decode them (a 752k TM, 200 held-out queries: p95 13-16 ms in a fresh process
against 8 ms warm at 1,000-1,500 candidates, benchmarks/RESULTS.md).  For each
segment of at least :data:`MIN_DOCS` documents, this file holds the source
postings as plain numpy arrays (``np.save``, loaded ``mmap_mode="r"`` with
``allow_pickle=False``), keyed by the characters of the stored core encoding
(``units.enc``: one character per token, :mod:`engine.tm.store`):

* unigram occurrence terms, ``cp << 16 | k`` (the k-th occurrence of the token
  ``cp``: the same multiset overlap as :func:`engine.tm.tokens.occurrence_terms`);
* word bigrams, ``1 << 63 | a << 21 | b`` (distinct per document): the candidate
  stage orders candidates by the bigrams they share with the query as well, so
  a long query's true best is among the first candidates verified.

Files ``post_<segment id>.{meta,keys,offs,docs}.npy``: ``keys`` sorted,
``offs[i]:offs[i+1]`` the slice of ``docs`` (ascending local doc numbers) of
``keys[i]``.  Derived from the sealed segment's own ``e`` column, sealed with
the TM's keyed seal (:mod:`engine.tm.seal`) as they are written and checked
on open -- seal, then shapes, offsets monotone and in range, keys sorted, doc
numbers below the segment's count -- and built again when any check fails (a
received TM's index is rebuilt anyway: its segments are not sealed here).  A
segment without a file (new units since the last build, under the size) is
searched by Whoosh's postings as before.  How a search reads them: :mod:`engine.tm.postorder`.
"""
from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import threading
from pathlib import Path
from typing import Sequence

import numpy as np

from engine.fsutil import abandoned_temp, host_tag
from engine.tm.seal import Seal, Untrusted
from engine.tm.postorder import BIGRAM_BUDGET, BIGRAM_MIN_LEN, occurrence_codes, order_key, term_spans

FORMAT = 1
#: Segments this large get a posting file (a 752,000-document one: built in seconds, once).
MIN_DOCS = 20_000
_PARTS = ("meta", "keys", "offs", "docs")


def names(segid: str) -> list[str]:
    return [f"post_{segid}.{p}.npy" for p in _PARTS]


class PostFile:
    """The arrays of one segment's posting file (memory-mapped); ``cb``: bits of a code point,
    ``kb``: bits of an occurrence number (the key layout, see :func:`build_arrays`)."""

    def __init__(self, keys: np.ndarray, offs: np.ndarray, docs: np.ndarray, cb: int, kb: int):
        self.keys, self.offs, self.docs, self.cb, self.kb = keys, offs, docs, cb, kb

    def unigram(self, cp: int, k: int) -> int | None:
        """Key of the k-th occurrence of token ``cp`` (None: no document has it)."""
        if cp >> self.cb or k >> self.kb:
            return None
        return (cp << self.kb) | k

    def bigram(self, a: int, b: int) -> int | None:
        if a >> self.cb or b >> self.cb:
            return None
        return (1 << max(self.cb + self.kb, 2 * self.cb)) | (a << self.cb) | b

    def span(self, key: int | None) -> tuple[int, int]:
        """(start, end) of ``key``'s documents in ``docs`` (start == end: none)."""
        if key is None or not len(self.keys):
            return 0, 0
        i = int(np.searchsorted(self.keys, np.uint64(key)))
        if i < len(self.keys) and int(self.keys[i]) == key:
            return int(self.offs[i]), int(self.offs[i + 1])
        return 0, 0

    def spans(self, keys: Sequence[int | None]) -> tuple[list[int], list[int]]:
        """:meth:`span` of many keys in one ``searchsorted`` (a long query's 100-300 keys: one call
        each cost about 1 ms of a search)."""
        st, en = [0] * len(keys), [0] * len(keys)
        ok = [i for i, k in enumerate(keys) if k is not None]
        if ok and len(self.keys):
            ks = np.array([keys[i] for i in ok], dtype=np.uint64)
            at = np.searchsorted(self.keys, ks)
            hit = at < len(self.keys)
            hit[hit] = self.keys[at[hit]] == ks[hit]
            j = at[hit]
            for i, a, b in zip(np.asarray(ok)[hit].tolist(), self.offs[j].tolist(), self.offs[j + 1].tolist()):
                st[i], en[i] = a, b
        return st, en

    def postings(self, key: int | None) -> np.ndarray:
        """Local doc numbers of ``key`` as intp (a uint32 index array is converted on every
        fancy-indexed add: 6.1 against 4.3 ms a long query's 700,000 postings)."""
        a, b = self.span(key)
        return self.docs[a:b].astype(np.intp)


def _bits(n: int) -> int:
    return max(1, int(n).bit_length())


def build_arrays(cps: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """(keys, offs, docs, cb, kb) of documents given as their code points ``cps`` (document i:
    the next ``lens[i]`` of them).  Each posting is packed with its key into one uint64 so that
    one ``np.sort`` orders them (752k documents, 24 M postings: argsort took 8 s, the sort 0.5 s)."""
    count = len(lens)
    cps = cps.astype(np.uint64)
    doc = np.repeat(np.arange(count, dtype=np.uint64), lens)
    cb, db = _bits(int(cps.max()) if len(cps) else 1), _bits(count)
    # unigram occurrences: sort by (doc, cp); the k-th of a run of equal pairs is occurrence k
    dc = np.sort((doc << np.uint64(cb)) | cps)
    idx = np.arange(len(dc), dtype=np.int64)
    new = np.ones(len(dc), dtype=bool)
    new[1:] = dc[1:] != dc[:-1]
    k = (idx - np.maximum.accumulate(np.where(new, idx, 0)) + 1).astype(np.uint64)
    kb = _bits(int(k.max()) if len(k) else 1)
    flag = max(cb + kb, 2 * cb)
    if flag + 1 + db > 64:
        raise ValueError("too many documents or tokens for a posting file")
    m = np.uint64((1 << cb) - 1)
    uni = (((((dc & m) << np.uint64(kb)) | k)) << np.uint64(db)) | (dc >> np.uint64(cb))
    del dc, idx, new, k  # peak memory: a 752k segment's build held 2 GB with every intermediate kept
    same = doc[1:] == doc[:-1]
    bi = ((np.uint64(1 << flag) | (cps[:-1][same] << np.uint64(cb)) | cps[1:][same]) << np.uint64(db)) | doc[:-1][same]
    del same, doc, cps
    packed = np.concatenate([uni, bi])
    del uni, bi
    packed.sort()
    if len(packed):
        keep = np.ones(len(packed), dtype=bool)
        keep[1:] = packed[1:] != packed[:-1]  # a bigram twice in a document
        packed = packed[keep]
    docs = (packed & np.uint64((1 << db) - 1)).astype(np.uint32)
    keys = packed >> np.uint64(db)
    del packed
    first = np.ones(len(keys), dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    starts = np.flatnonzero(first)
    return keys[starts], np.append(starts, len(keys)).astype(np.int64), docs, cb, kb


def _code_points(leaf) -> tuple[np.ndarray, np.ndarray]:
    """The ``e`` column of a segment as code points and per-document lengths: its UTF-8 bytes
    decoded in numpy when they lie back to back in the segment file (Whoosh writes them so),
    else through Python strings (752k documents: 1.1 s against 5.4 s, machine loaded)."""
    texts = leaf.encodings(np.arange(min(1, leaf.count), dtype=np.int64))
    col = getattr(leaf, "_columns", {}).get("e")
    data = getattr(col, "_data", None)
    if data is not None and leaf.count:
        o, n = col._offsets, col._lens
        if bool(np.all(o[1:] == o[:-1] + n[:-1])):
            blob = np.asarray(data[o[0]:o[-1] + n[-1]])
            pos = np.flatnonzero((blob & 0xC0) != 0x80)  # the first byte of each character
            b = np.concatenate([blob, np.zeros(3, np.uint8)]).astype(np.uint32)
            b0, c1, c2, c3 = b[pos], b[pos + 1] & 0x3F, b[pos + 2] & 0x3F, b[pos + 3] & 0x3F
            cps = np.where(b0 < 0x80, b0, np.where(b0 < 0xE0, ((b0 & 0x1F) << 6) | c1, np.where(
                b0 < 0xF0, ((b0 & 0x0F) << 12) | (c1 << 6) | c2, ((b0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3)))
            rel = o - o[0]
            return cps, np.searchsorted(pos, rel + n) - np.searchsorted(pos, rel)
    texts = leaf.encodings(np.arange(leaf.count, dtype=np.int64))
    lens = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    return np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32), lens


def _check(folder: Path, segid: str, count: int) -> PostFile:
    """The segment's file, after its seal and every structural check (ValueError/OSError otherwise)."""
    # plain views of the maps: np.memmap's own __getitem__ is Python, 20,000 calls a 200 queries
    arrs = [np.asarray(np.load(folder / n, mmap_mode="r", allow_pickle=False)) for n in names(segid)]
    meta, keys, offs, docs = arrs
    if meta.dtype != np.int64 or meta.shape != (4,) or int(meta[0]) != FORMAT or int(meta[1]) != count \
            or not (0 < int(meta[2]) <= 21 and 0 < int(meta[3]) <= 32):
        raise ValueError("not a posting file of this segment")
    if keys.dtype != np.uint64 or offs.dtype != np.int64 or docs.dtype != np.uint32 \
            or keys.ndim != 1 or offs.ndim != 1 or docs.ndim != 1 or len(offs) != len(keys) + 1:
        raise ValueError("wrong array types or sizes")
    if len(offs) and (int(offs[0]) != 0 or int(offs[-1]) != len(docs) or bool(np.any(np.diff(offs) <= 0))):
        raise ValueError("offsets not increasing over the doc array")
    if len(keys) > 1 and bool(np.any(keys[1:] <= keys[:-1])):
        raise ValueError("keys not sorted")
    if len(docs) and int(docs.max()) >= count:
        raise ValueError("a doc number past the segment")
    return PostFile(keys, offs, docs, int(meta[2]), int(meta[3]))


def _load(folder: Path, seal: Seal, leaf) -> PostFile | None:
    try:
        seal.verify(folder, names(leaf.segid))
        return _check(folder, leaf.segid, leaf.count)
    except (Untrusted, ValueError, OSError):
        return None


#: a build's temporary file: ``post_SEGID.PART.npy.HOST-PID.N.tmp`` (HOST: engine.fsutil.host_tag)
_TMP = re.compile(r"post_.+\.(?:meta|keys|offs|docs)\.npy\.(?:([0-9a-f]{8})-(\d{1,10})\.|\d{1,10}\.)?\d+\.tmp")


def _identity(folder: Path, segid: str) -> tuple | None:
    """(size, mtime, inode) of the segment's four files, None when one is missing."""
    try:
        return tuple((st.st_size, st.st_mtime_ns, st.st_ino) for st in (os.stat(folder / n) for n in names(segid)))
    except OSError:
        return None


class _Build(threading.Thread):
    """Writes a segment's posting file under temporary names (sealed and renamed by :meth:`Postfiles.poll`).
    Whoever comes last of the build's end and :meth:`discard` removes the temporaries of a build
    discarded or failed (a finished one waits for a search to put it in place: ~100 MB at 752k)."""

    def __init__(self, folder: Path, leaf):
        super().__init__(name="verso-tm-postings", daemon=True)
        self.folder, self.leaf, self.error, self.ended = folder, leaf, None, False
        self.cancelled = threading.Event()
        self.lock = threading.Lock()  # the build's end against discard(): one of them unlinks
        self.tmp = [f"{n}.{host_tag()}-{os.getpid()}.{id(self)}.tmp" for n in names(leaf.segid)]

    def run(self) -> None:
        try:
            cps, lens = _code_points(self.leaf)
            if not self.cancelled.is_set():  # closed while reading: no sort's ~2 GB peak at 752k
                keys, offs, docs, cb, kb = build_arrays(cps, lens)
                del cps, lens
                meta = np.array([FORMAT, self.leaf.count, cb, kb], dtype=np.int64)
                for n, a in zip(self.tmp, (meta, keys, offs, docs)):
                    if self.cancelled.is_set():
                        break
                    with open(self.folder / n, "wb") as fh:
                        np.save(fh, a, allow_pickle=False)
        except Exception as e:  # a full disk, a closed segment: Whoosh's postings serve
            self.error = e
        with self.lock:
            self.ended = True
            if self.cancelled.is_set() or self.error is not None:
                self.unlink()

    def discard(self) -> None:
        """No search will put this build in place (the TM closed, its segment merged away)."""
        with self.lock:
            self.cancelled.set()
            if self.ended:
                self.unlink()

    def unlink(self) -> None:
        for n in self.tmp:
            with contextlib.suppress(OSError):
                os.unlink(self.folder / n)


class Postfiles:
    """The posting files of one index folder: checked and given to the segments as they are read
    (``leaf.postfile``; a file checked once is kept by segment id while it stays the same file:
    a re-attach after each index change read a 752k TM's 95 MB of doc numbers again).  A missing
    or failing one is built on a thread (numpy's sorts release the interpreter lock), started by
    :meth:`poll` -- the searching path -- from a handle's second search on, so that a command
    which searches once and exits never starts one it would not use; put in place by a later
    :meth:`poll`, on the searching thread, which seals it."""

    def __init__(self, folder: Path, seal: Seal):
        self.folder, self.seal = folder, seal
        self._jobs: dict[str, _Build] = {}
        self._waiting: list = []
        self._checked: dict[str, tuple[tuple, PostFile]] = {}
        self._polled = False

    def attach(self, leaves) -> None:
        segids = {leaf.segid for leaf in leaves}
        drop_others(self.folder, segids)
        self._checked = {s: v for s, v in self._checked.items() if s in segids}
        self._waiting = []
        for leaf in leaves:
            if leaf.count < MIN_DOCS:
                continue
            leaf.postfile = self._load(leaf)
            if leaf.postfile is None:
                self._waiting.append(leaf)
        waiting = {leaf.segid for leaf in self._waiting}
        for segid in [s for s in self._jobs if s not in waiting]:  # merged away (or built elsewhere):
            self._jobs.pop(segid).discard()  # never put in place; its leaf holds the old reader's maps

    def _load(self, leaf) -> PostFile | None:
        ident = _identity(self.folder, leaf.segid)
        kept = self._checked.get(leaf.segid)
        if kept is not None and ident is not None and kept[0] == ident:
            return kept[1]
        pf = _load(self.folder, self.seal, leaf)
        if pf is not None and ident is not None:
            self._checked[leaf.segid] = (ident, pf)
        return pf

    def close(self) -> None:
        """Discard the builds: a finished one's temporary files go now, one under way's when it ends."""
        for job in self._jobs.values():
            job.discard()
        self._jobs, self._waiting, self._checked, self._polled = {}, [], {}, False

    def poll(self, wait: bool = False) -> None:
        """Start the builds the segments read since need (from the second call on; ``wait``: now,
        and wait for them), and put the files built since in place."""
        if self._polled or wait:
            for leaf in self._waiting:
                if leaf.segid not in self._jobs:
                    _drop_orphans(self.folder, leaf.segid)
                    self._jobs[leaf.segid] = job = _Build(self.folder, leaf)
                    job.start()
        self._polled = True
        for leaf in list(self._waiting):
            job = self._jobs.get(leaf.segid)
            if job is not None and wait:
                job.join()
            if job is None or job.is_alive():
                continue
            del self._jobs[leaf.segid]
            self._waiting.remove(leaf)
            if job.error is None:
                with contextlib.suppress(OSError, sqlite3.Error):
                    ns = names(leaf.segid)
                    try:
                        self.seal.record(self.folder, job.tmp, as_names=dict(zip(job.tmp, ns)))
                        for tmp, n in zip(job.tmp, ns):
                            os.replace(self.folder / tmp, self.folder / n)
                    finally:  # a rename refused: what is left of the build goes (built again on the next read)
                        job.unlink()
                    leaf.postfile = self._load(leaf)


def _abandoned(folder: Path, name: str) -> bool:
    """``name`` is a build's temporary file and no build is writing it (engine.fsutil.abandoned_temp:
    this machine's and its process gone, or untouched an hour -- a TM on a team drive holds
    other machines' builds in progress, whose process numbers mean nothing here)."""
    m = _TMP.fullmatch(name)
    if m is None:
        return False
    try:
        mtime = os.stat(folder / name, follow_symlinks=False).st_mtime
    except OSError:
        return False
    return abandoned_temp(m.group(1), int(m.group(2)) if m.group(2) else None, mtime)


def _drop_orphans(folder: Path, segid: str) -> None:
    """Remove the temporary files of the segment's builds that ended unfinished (a command line that exited)."""
    with contextlib.suppress(OSError):
        for n in os.listdir(folder):
            if n.startswith(f"post_{segid}.") and _abandoned(folder, n):
                with contextlib.suppress(OSError):
                    os.unlink(folder / n)


def drop_others(folder: Path, segids: set[str]) -> None:
    """Remove the posting files of segments no longer in the index (a build in progress elsewhere
    is left: its segment may be newer than this reader's view)."""
    with contextlib.suppress(OSError):
        for n in os.listdir(folder):
            if n.startswith("post_") and n.split(".", 1)[0][5:] not in segids \
                    and (not n.endswith(".tmp") or _abandoned(folder, n)):
                with contextlib.suppress(OSError):
                    os.unlink(folder / n)


__all__ = ["PostFile", "Postfiles", "drop_others", "build_arrays", "MIN_DOCS",
           # the search side (engine.tm.postorder), read here by engine.tm.candidates
           "occurrence_codes", "order_key", "term_spans", "BIGRAM_BUDGET", "BIGRAM_MIN_LEN"]
