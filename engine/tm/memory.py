"""``TranslationMemory``: a TM folder (SQLite truth + derived Whoosh index).

Consistency: every change is one SQLite transaction that also appends the
changed unit ids to the ``journal``.  The Whoosh index records the last
journal ``seq`` it reflects (``index/state.json``).  Units changed since
then live in an in-memory overlay searched together with the index, so a
pair added now is found by the very next search (also from another process:
each search first reads the journal's tail).  The overlay is committed to
Whoosh every ``FLUSH_AT`` changes and on :meth:`close`.  On open, a missing,
unreadable or foreign index is rebuilt from SQLite; a stale one is caught up
from the journal.  The search is :mod:`engine.tm.memory_search`'s, the writes
:mod:`engine.tm.memory_write`'s (mixins of :class:`TranslationMemory`).
"""
from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Callable, Iterator

from engine.errors import TMError
from engine.formats.base import TMUnit
from engine.langs import normalize_lang
from engine.tm import limits, store
from engine.tm.candidates import CandidateStage, MemoryLeaf
from engine.tm.index_process import BackgroundBuild, counted
from engine.tm.memory_search import (COVERAGE_POOL, POSTINGS_BUDGET, VERIFY_LIMIT, VERIFY_PER,  # noqa: F401
                                     _WORD, SearchMixin, _chunks, phrase_hits)
from engine.tm.memory_write import _MAX_ERRORS, WriteMixin, _note, _pick, _refuse_unclear, _tt, _Unclear  # noqa: F401
from engine.tm.model import ConcordanceHit, ImportResult, Match, TMEntry  # noqa: F401
from engine.tm.pairs import any_lang as _any_lang, pair_filter as _pair_filter  # noqa: F401  (pg's too)
from engine.tm.rows import _entry, _export_meta, _merge_meta, _meta_columns, _now  # noqa: F401  (pg's too)
from engine.tm.scan import ScanProcess
from engine.tm.seal import Seal, Untrusted
from engine.tm.tokens import analyse
from engine.tm.whoosh_index import SourceIndex, new_index_id, pair_term

#: A TM of at least this many units whose index must be rebuilt on opening is
#: rebuilt in the background while searches scan SQLite (engine.tm.scan): after a
#: crash half way through indexing a large import, the first search had waited
#: 62-327 s for the rebuild with no match meanwhile.
BACKGROUND_MIN = 20_000
_COLS = ("id, source, source_tags, target, target_tags, src_lang, tgt_lang, origin, created, "
         "changed, creator, changer, usage_count, last_used, meta")


class TranslationMemory(SearchMixin, WriteMixin):
    """A translation memory stored in ``folder`` (created when missing).

    ``src_lang`` / ``tgt_lang``: the languages of a new TM, and the pair
    this handle searches by default (a bare ``en`` also finds ``en-US``
    units); without them, the TM's own pair.  Searches return units of that
    pair only (see :meth:`search`).
    """

    DB_NAME = "tm.sqlite"
    FLUSH_AT = 2000

    def __init__(self, folder: str | Path, *, create: bool = True, src_lang: str = "",
                 tgt_lang: str = "", progress: Callable[[int, int], None] | None = None):
        self.folder = Path(folder)
        self._want = (_any_lang(src_lang), _any_lang(tgt_lang))
        db_path = self.folder / self.DB_NAME
        if self.folder.exists() and not self.folder.is_dir():
            raise TMError(f"{self.folder}: not a folder")
        if not db_path.exists():
            if not create:
                raise TMError(f"{self.folder}: not a translation memory (no {self.DB_NAME})")
            self.folder.mkdir(parents=True, exist_ok=True)
        self.conn = store.connect(db_path)
        try:
            self._begin()
            store.create_schema(self.conn)
            version = int(store.get_meta(self.conn, "schema", "0") or 0)
            if version > store.SCHEMA_VERSION:
                raise TMError(f"{self.folder}: made by a newer Verso (TM schema {version})")
            if not store.get_meta(self.conn, "created"):
                store.set_meta(self.conn, "created", _now())
            for key, lang in (("src_lang", src_lang), ("tgt_lang", tgt_lang)):
                if lang and not store.get_meta(self.conn, key):
                    store.set_meta(self.conn, key, normalize_lang(lang))
            self.conn.execute("COMMIT")
        except sqlite3.DatabaseError as e:
            self._rollback()
            self.conn.close()
            raise TMError(f"{db_path}: not a readable TM database ({e})") from None
        except BaseException:
            self._rollback()
            self.conn.close()
            raise
        self.vocab = store.VocabCache(self.conn)
        self.index = SourceIndex(self.folder, Seal(lambda: self.conn))
        #: why the index was last rebuilt ("" when it was not), for the caller to say
        self.rebuilt_because = ""
        self._progress = progress
        self._overlay = MemoryLeaf()
        self._dead: set[int] = set()
        #: what the last search did (candidates, verified, postings, exact)
        self.last_search: dict = {}
        self._index_seq = 0
        self._seen_seq = 0
        self._index_id = ""
        self._stages: dict[tuple[str, str, str], CandidateStage] = {}
        self._pairs: set[tuple[str, str]] | None = None
        self._bg: BackgroundBuild | None = None
        self._scan: ScanProcess | None = None  # the search while the index is rebuilt (its own process)
        self._open_index()

    # ------------------------------------------------------------ basics
    @property
    def src_lang(self) -> str:
        return store.get_meta(self.conn, "src_lang")

    @property
    def tgt_lang(self) -> str:
        return store.get_meta(self.conn, "tgt_lang")

    def __len__(self) -> int:
        return self.conn.execute("SELECT count(*) FROM units").fetchone()[0]

    def __enter__(self) -> "TranslationMemory":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Commit pending index changes and release the folder."""
        if self.conn is None:
            return
        if self._bg is not None:
            self._bg.cancel()  # stops a build under way; one that had finished is put in place
            with contextlib.suppress(Exception):
                if self._bg.result is not None:
                    self._finish_background()
            self._bg = None
        self._end_scan()
        with contextlib.suppress(Exception):
            self.flush()
        self.index.close()
        self.conn.close()
        self.conn = None  # type: ignore[assignment]

    def _begin(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def _rollback(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")

    # ------------------------------------------------------------ index upkeep
    def _open_index(self) -> None:
        self._index_id = store.get_meta(self.conn, "index_id")
        st = self.index.state(check=True)
        if st is None or not self._index_id or st.get("index_id") != self._index_id:
            self._rebuild_on_open("the search index is missing or belongs to another database")
            return
        try:
            self.index.open()
            self.index.leaves()
        except Untrusted as e:
            self._rebuild_on_open(f"the search index was not written by this Verso installation ({e})")
            return
        except Exception as e:
            self._rebuild_on_open(f"the search index is unreadable ({e})")
            return
        seq = int(st.get("seq", 0))
        behind = self.conn.execute("SELECT count(DISTINCT uid) FROM journal WHERE seq > ?", (seq,)).fetchone()[0]
        indexed = sum(leaf.count for leaf in self.index.leaves())
        if behind > max(50_000, indexed // 2):  # the catch-up would be a rebuild
            self._rebuild_on_open(f"the search index is {behind} changes behind (an indexing run was cut short)")
            return
        self._reset_overlay(seq)
        self._catch_up()

    def _rebuild_on_open(self, why: str) -> None:
        """Rebuild now, or, for a large TM, in the background (searches scan SQLite meanwhile)."""
        units = self.conn.execute("SELECT count(*) FROM units").fetchone()[0]
        if units < BACKGROUND_MIN:
            self.rebuild_index(why)
            return
        self.rebuilt_because = why
        self.index.close()
        self._reset_overlay(0)
        self._end_scan()
        self._scan = ScanProcess(self.folder / self.DB_NAME, self.search_pair())
        self._start_background()

    def _start_background(self, tries: int = 0) -> None:
        self._bg = BackgroundBuild(self.folder / self.DB_NAME, self.index.dir, self._progress)
        self._bg.tries = tries
        self._bg.start()

    @property
    def rebuilding(self) -> tuple[int, int] | None:
        """(units indexed, units) while the index is rebuilt in the background, else None."""
        return self._bg.done if self._bg is not None else None

    def wait_for_index(self, timeout: float | None = None) -> bool:
        """Wait until a background rebuild is in place; False on timeout."""
        if self._bg is not None:
            self._bg.join(timeout)
            if self._bg.is_alive():
                return False
            self._finish_background()
        return True

    def _finish_background(self) -> None:
        bg, self._bg = self._bg, None
        if bg.error is not None and not bg.stop.is_set() and getattr(bg, "tries", 0) < 2:
            self._start_background(bg.tries + 1)  # its process was killed: built again, the scan meanwhile
            return
        self._end_scan()
        if bg.error is not None:
            raise bg.error
        index_id, seq = bg.result
        self.index.swap_in_new()
        self._adopt_index(index_id, seq)

    def _end_scan(self) -> None:
        scan, self._scan = self._scan, None
        if scan is not None:
            scan.close()

    def rebuild_index(self, why: str = "") -> None:
        """Build the search index again from SQLite (used when it is missing,
        unreadable, not sealed by this installation or belongs to another
        database); ``progress(done, total)`` is called as units are indexed."""
        self.rebuilt_because = why or "asked for"
        row = self.conn.execute("SELECT max(seq) FROM journal").fetchone()
        seq = row[0] or 0
        index_id = new_index_id()
        total = self.conn.execute("SELECT count(*) FROM units").fetchone()[0]
        cur = self.conn.cursor()
        docs = cur.execute("SELECT id, source, target, src_lang, tgt_lang, enc, senc, penc "
                           f"FROM units WHERE {limits.FITS} ORDER BY id")  # a unit over the limit: never indexed
        self.index.rebuild(counted(docs, total, self._progress), index_id, seq)
        self._adopt_index(index_id, seq)

    def _adopt_index(self, index_id: str, seq: int) -> None:
        """A new index reflecting the journal up to ``seq`` is in place: the database names it,
        the journal it covers goes, and what came after is served from the overlay."""
        self._begin()
        store.set_meta(self.conn, "index_id", index_id)
        self.conn.execute("DELETE FROM journal WHERE seq <= ?", (seq,))
        self.conn.execute("COMMIT")
        self._index_id = index_id
        self._reset_overlay(seq)
        self._catch_up()

    def _reset_overlay(self, seq: int) -> None:
        self._overlay = MemoryLeaf()
        self._dead = set()
        self._index_seq = self._seen_seq = seq
        self._stages = {}

    def _catch_up(self) -> None:
        """Take in changes made since we last looked (by us or another process)."""
        if self._bg is not None:
            if self._bg.is_alive():
                self._scan_catch_up()
                return
            self._finish_background()
            return
        st = self.index.state()
        if st is None or st.get("index_id") != self._index_id:
            self._open_index()
            return
        if int(st.get("seq", 0)) != self._index_seq:  # another process committed the index
            try:
                self.index.open()
            except Untrusted as e:
                self.rebuild_index(f"the search index was not written by this Verso installation ({e})")
                return
            self._reset_overlay(int(st.get("seq", 0)))
        n = self.conn.execute("SELECT count(*) FROM journal WHERE seq > ?",
                              (self._seen_seq,)).fetchone()[0]
        if n == 0:
            return
        if self._overlay.count + n > self.FLUSH_AT:
            if self.flush():
                return
        self._load_journal(self._seen_seq)

    def _load_journal(self, after: int) -> None:
        rows = self.conn.execute("SELECT seq, uid FROM journal WHERE seq > ? ORDER BY seq",
                                 (after,)).fetchall()
        if not rows:
            return
        uids = list(dict.fromkeys(uid for _, uid in rows))
        texts = self._texts(uids)
        for uid in uids:
            self._dead.add(uid)
            self._overlay.remove(uid)
            if uid in texts:
                s, t, sl, tl, enc, senc, penc = texts[uid]
                self._overlay.add(uid, s, t, (enc, senc, penc), analyse(s).core,
                                  pair_term(sl, tl))
        self._seen_seq = rows[-1][0]
        self._stages = {}

    def _texts(self, uids: list[int]) -> dict[int, tuple]:
        """uid -> (source, target, src_lang, tgt_lang, enc, senc, penc) of the
        units that exist."""
        texts = {}
        for chunk in _chunks(uids, 500):
            q = ("SELECT id, source, target, src_lang, tgt_lang, enc, senc, penc FROM units "
                 f"WHERE {limits.FITS} AND id IN (%s)" % ",".join("?" * len(chunk)))
            for uid, s, t, sl, tl, enc, senc, penc in self.conn.execute(q, chunk):
                texts[uid] = (s, t, sl or "", tl or "", enc, senc or "", penc or "")
        return texts

    def _scan_catch_up(self) -> None:
        """While the index is rebuilt: the scans take in what changed since."""
        rows = self.conn.execute("SELECT seq, uid FROM journal WHERE seq > ? ORDER BY seq",
                                 (self._seen_seq,)).fetchall()
        if rows:
            if self._scan is not None:
                self._scan.changed(list(dict.fromkeys(uid for _, uid in rows)))
            self._seen_seq = rows[-1][0]

    def flush(self) -> bool:
        """Commit journal changes to the Whoosh index; False when another
        process holds the index lock (the overlay keeps serving them)."""
        if self._bg is not None:
            return False  # the rebuild's swap takes them in
        rows = self.conn.execute("SELECT seq, uid FROM journal WHERE seq > ? ORDER BY seq",
                                 (self._index_seq,)).fetchall()
        if not rows:
            return True
        last = rows[-1][0]
        uids = list(dict.fromkeys(uid for _, uid in rows))
        indexed = sum(leaf.count for leaf in self.index.leaves())
        if len(uids) > max(50_000, indexed // 2):
            self.rebuild_index()
            return True
        texts = self._texts(uids)
        changes = [(uid, *texts.get(uid, (None,) * 7)) for uid in uids]
        try:
            self.index.apply(changes, self._index_id, last)
        except Exception as e:  # lock held elsewhere: keep serving from the overlay
            if "lock" in type(e).__name__.lower() or "lock" in str(e).lower():
                self._load_journal(self._seen_seq)
                return False
            raise
        self._begin()
        self.conn.execute("DELETE FROM journal WHERE seq <= ?", (last,))
        self.conn.execute("COMMIT")
        self._reset_overlay(last)
        self._load_journal(last)
        return True

    # ------------------------------------------------------------ reading
    def get(self, uid: int) -> TMEntry:
        row = self.conn.execute(f"SELECT {_COLS} FROM units WHERE {limits.FITS} AND id=?", (uid,)).fetchone()
        if row is None:
            raise TMError(f"{self.folder}: no unit {uid}")
        return _entry(row)
    def _entries(self, uids: list[int]) -> dict[int, TMEntry]:
        out = {}
        for chunk in _chunks(uids, 500):
            q = f"SELECT {_COLS} FROM units WHERE {limits.FITS} AND id IN (%s)" % ",".join("?" * len(chunk))
            for row in self.conn.execute(q, chunk):
                out[row[0]] = _entry(row)
        return out

    def entries(self) -> Iterator[TMEntry]:
        """Every unit, oldest first (but those over the size limit: see :meth:`stats`)."""
        cur = self.conn.cursor()
        for row in cur.execute(f"SELECT {_COLS} FROM units WHERE {limits.FITS} ORDER BY id"):
            yield _entry(row)

    __iter__ = entries

    def tm_units(self) -> Iterator[TMUnit]:
        """Every unit as a :class:`TMUnit` (for TMX export)."""
        for e in self.entries():
            yield TMUnit({e.src_lang: e.source, e.tgt_lang: e.target}, _export_meta(e))

    def stats(self) -> dict:
        self._catch_up()
        origins = dict(self.conn.execute(
            "SELECT coalesce(origin, ''), count(*) FROM units GROUP BY 1 ORDER BY 2 DESC LIMIT 20"))
        size = sum(p.stat().st_size for p in self.folder.glob(self.DB_NAME + "*"))
        return {
            "path": str(self.folder), "units": len(self), "src_lang": self.src_lang,
            "tgt_lang": self.tgt_lang, "created": store.get_meta(self.conn, "created"),
            "indexed": (sum(leaf.count - len(leaf.deleted) for leaf in self.index.leaves())
                        if self._bg is None else 0),
            "pending": self._overlay.count - len(self._overlay.deleted),
            "index_segments": len(self.index.leaves()) if self._bg is None else 0,
            "rebuilding": list(self._bg.done) if self._bg is not None else None,
            "size_bytes": {"database": size, "index": self.index.size_on_disk()},
            "origins": origins, "oversized": limits.oversized(self.conn),  # left out of every read
        }
