"""``TranslationMemory``: a TM folder (SQLite truth + derived Whoosh index).

Consistency: every change is one SQLite transaction that also appends the
changed unit ids to the ``journal``.  The Whoosh index records the last
journal ``seq`` it reflects (``index/state.json``).  Units changed since
then live in an in-memory overlay searched together with the index, so a
pair added now is found by the very next search (also from another process:
each search first reads the journal's tail).  The overlay is committed to
Whoosh every ``FLUSH_AT`` changes and on :meth:`close`.  On open, a missing,
unreadable or foreign index is rebuilt from SQLite; a stale one is caught up
from the journal.
"""
from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from pathlib import Path
from typing import Callable, Iterable, Iterator

from engine.errors import FormatError, TMError
from engine.formats.base import TMUnit
from engine.inline import TaggedText, strip_tags
from engine.langs import normalize_lang, same_language
from engine.tm import limits, store
from engine.tm.candidates import CandidateStage, MemoryLeaf
from engine.tm.index_process import BackgroundBuild, counted
from engine.tm.model import ConcordanceHit, ImportResult, Match, TMEntry
from engine.tm.rerank import Verified, full_scores, verify
from engine.tm.rows import _entry, _export_meta, _merge_meta, _meta_columns, _now  # noqa: F401  (pg's too)
from engine.tm.scoring import Encoded, char_score, core_tokens, edit_ops
from engine.tm.pairs import any_lang as _any_lang, pair_filter as _pair_filter  # noqa: F401  (pg's too)
from engine.tm.scan import ScanProcess
from engine.tm.seal import Seal, Untrusted
from engine.tm.select import coverage_select
from engine.tm.tokens import analyse, tokenize
from engine.tm.whoosh_index import SourceIndex, new_index_id, pair_term

#: Most candidates scored per search (in batches; fewer when the top k is proven
#: exact sooner): one per ``VERIFY_PER`` units of the TM, within VERIFY_LIMIT
#: (more units, more near-ties in the bound); postings read per search; and
#: candidates the coverage selection (Algorithm 1) chooses from.
VERIFY_LIMIT = (1500, 2000)  # 752k TM, 200 held-out queries: recall 0.99 at 2,000 (shared bigrams in the order)
VERIFY_PER = 190
POSTINGS_BUDGET = 1_000_000  # 752k TM, 200 held-out queries: CPU p95 25.8 -> 22.9 ms (4M), same recall (benchmarks/RESULTS.md)
COVERAGE_POOL = 100
_MAX_ERRORS = 1000
#: A TM of at least this many units whose index must be rebuilt on opening is
#: rebuilt in the background while searches scan SQLite (engine.tm.scan): after a
#: crash half way through indexing a large import, the first search had waited
#: 62-327 s for the rebuild with no match meanwhile.
BACKGROUND_MIN = 20_000
_COLS = ("id, source, source_tags, target, target_tags, src_lang, tgt_lang, origin, created, "
         "changed, creator, changer, usage_count, last_used, meta")


_WORD = re.compile(r"\w")


def _tt(x: str | TaggedText) -> TaggedText:
    return x if isinstance(x, TaggedText) else TaggedText(str(x))


class TranslationMemory:
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

    def search_pair(self, src_lang: str | None = None,
                    tgt_lang: str | None = None) -> tuple[str, str]:
        """The (source, target) languages a search keeps ("" = any): the
        given ones, else this handle's, else the TM's own pair; ``*`` = any."""
        out = []
        for given, mine, declared in ((src_lang, self._want[0], self.src_lang),
                                      (tgt_lang, self._want[1], self.tgt_lang)):
            out.append(_any_lang(given) if given is not None else (mine or declared))
        return out[0], out[1]

    def _stage(self, field: str = "src", pair: tuple[str, str] = ("", "")) -> CandidateStage:
        key = (field, *pair)
        stage = self._stages.get(key)
        if stage is not None:
            return stage
        leaves = list(self.index.leaves())
        self._overlay.base = sum(leaf.count for leaf in leaves)
        stage = CandidateStage(leaves + [self._overlay], self._dead, field=field,
                               accept_pair=_pair_filter(*pair))
        if len(self._stages) > 8:
            self._stages.clear()
        self._stages[key] = stage
        return stage

    # ------------------------------------------------------------ writing
    def add(self, source: str | TaggedText, target: str | TaggedText, *, src_lang: str = "",
            tgt_lang: str = "", origin: str = "human", creator: str = "",
            meta: dict | None = None) -> int:
        """Store one pair (or refresh the metadata of its exact duplicate);
        return its unit id.  The pair is searchable as soon as this returns."""
        self._begin()
        try:
            uid, _ = self._put(_tt(source), _tt(target), src_lang or self.src_lang,
                               tgt_lang or self.tgt_lang,
                               {"origin": origin, "creationid": creator, **(meta or {})})
            self.conn.execute("COMMIT")
        except BaseException:
            self._rollback()
            self.vocab.reset()
            raise
        self._catch_up()
        return uid

    def add_many(self, pairs: Iterable[tuple], *, src_lang: str = "", tgt_lang: str = "",
                 origin: str = "import") -> ImportResult:
        """Store many (source, target[, meta]) pairs in one transaction."""
        def units():
            s, t = src_lang or self.src_lang or "und", tgt_lang or self.tgt_lang or "und"
            for p in pairs:
                meta = dict(p[2]) if len(p) > 2 and p[2] else {}
                yield TMUnit({s: _tt(p[0]), t: _tt(p[1])} if s != t else {s: _tt(p[0])}, meta)
        s, t = src_lang or self.src_lang or "und", tgt_lang or self.tgt_lang or "und"
        if s == t:
            raise TMError("source and target language are the same")
        return self.import_units(units(), src_lang=s, tgt_lang=t, origin=origin)

    def import_units(self, units: Iterable[TMUnit], *, src_lang: str = "", tgt_lang: str = "",
                     origin: str = "", problems: list[str] | None = None) -> ImportResult:
        """Import TM units as ONE transaction: if ``units`` raises half way
        (e.g. a :class:`~engine.errors.FormatError`), the TM is as before.

        ``problems``: the reader's list of skip reasons, copied into the
        result's ``errors`` (each counts as skipped).
        """
        res = ImportResult()
        want_s = normalize_lang(src_lang) or self.src_lang
        want_t = normalize_lang(tgt_lang) or self.tgt_lang
        self._begin()
        self.vocab.limit = 10_000_000
        try:
            for key, lang in (("src_lang", want_s), ("tgt_lang", want_t)):
                if lang and not store.get_meta(self.conn, key):
                    store.set_meta(self.conn, key, lang)
            for i, unit in enumerate(units, 1):
                picked = _pick(unit, want_s, want_t)
                if isinstance(picked, _Unclear):
                    _refuse_unclear(units, unit, origin, want_s, want_t)
                if isinstance(picked, str):
                    res.skipped += 1
                    _note(res, f"unit {i}" + (f" (line {unit.line})" if unit.line else "")
                          + f": {picked}")
                    continue
                (sl, src), (tl, tgt) = picked
                if not want_s:
                    want_s = sl
                    store.set_meta(self.conn, "src_lang", sl)
                if not want_t:
                    want_t = tl
                    store.set_meta(self.conn, "tgt_lang", tl)
                meta = dict(unit.meta or {})
                if origin and not meta.get("origin"):
                    meta["origin"] = origin
                _, new = self._put(src, tgt, sl, tl, meta)
                if new:
                    res.added += 1
                else:
                    res.updated += 1
            self.conn.execute("COMMIT")
        except BaseException:
            self._rollback()
            self.vocab.reset()
            raise
        finally:
            self.vocab.limit = 200_000
        for p in problems or ():
            res.skipped += 1
            _note(res, p)
        self._catch_up()
        return res

    def _put(self, source: TaggedText, target: TaggedText, src_lang: str, tgt_lang: str,
             meta: dict) -> tuple[int, bool]:
        """Insert or merge one unit inside the current transaction."""
        if not source.text.strip() or not target.text.strip():
            raise TMError("a TM unit needs a source and a target text")
        if why := limits.refusal(source, target):
            raise TMError(why)
        src_lang, tgt_lang = normalize_lang(src_lang), normalize_lang(tgt_lang)
        key = store.dup_key(source.text, target.text, src_lang, tgt_lang)
        cols = _meta_columns(meta)
        row = None
        # The same pair under a code of the same language (the editor maps a file's en-US to
        # the project's en) is the same unit: look under each stored pair of codes that
        # same_language() equates with these, so a re-import updates instead of duplicating.
        for s_l, t_l in [(src_lang, tgt_lang)] + [
                p for p in self._lang_pairs()
                if p != (src_lang, tgt_lang) and same_language(p[0], src_lang)
                and same_language(p[1], tgt_lang)]:
            row = self.conn.execute("SELECT id, meta, usage_count, created FROM units WHERE dkey=?",
                                    (store.dup_key(source.text, target.text, s_l, t_l),)).fetchone()
            if row is not None:
                break
        if row is not None:
            uid, old_meta, old_usage, created = row
            merged = _merge_meta(json.loads(old_meta or "{}"), cols["meta"])
            self.conn.execute(
                "UPDATE units SET changed=?, changer=?, usage_count=?, last_used=coalesce(?, last_used), "
                "meta=?, source_tags=?, target_tags=? WHERE id=?",
                (cols["changed"] or _now(), cols["changer"] or cols["creator"],
                 max(old_usage or 0, cols["usage_count"]), cols["last_used"],
                 json.dumps(merged, ensure_ascii=False), source.tags_json(), target.tags_json(), uid))
            return uid, False
        a = analyse(source.text)
        ids = self.vocab.ids_for_write(a.core + a.surface + a.punct)
        tc = store.token_char
        encs = ["".join(tc(ids[t]) for t in seq) for seq in (a.core, a.surface, a.punct)]
        cur = self.conn.execute(
            "INSERT INTO units(source, source_tags, target, target_tags, src_lang, tgt_lang, enc, "
            "senc, penc, origin, created, changed, creator, changer, usage_count, last_used, meta, "
            "dkey) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (source.text, source.tags_json(), target.text, target.tags_json(), src_lang, tgt_lang,
             *encs, cols["origin"], cols["created"], cols["changed"], cols["creator"],
             cols["changer"], cols["usage_count"], cols["last_used"],
             json.dumps(cols["meta"], ensure_ascii=False), key))
        uid = cur.lastrowid
        self.conn.execute("INSERT INTO journal(uid) VALUES (?)", (uid,))
        self._lang_pairs().add((src_lang, tgt_lang))
        return uid, True

    def _lang_pairs(self) -> set[tuple[str, str]]:
        """The (src_lang, tgt_lang) codes the TM's units are stored under (a handful): read once a
        handle -- a DISTINCT over every unit is a table scan, too dear for each confirm -- and kept
        up to date by this handle's own inserts (a pair of codes another process adds meanwhile is
        seen on reopening)."""
        if self._pairs is None:
            self._pairs = {tuple(r) for r in self.conn.execute(
                "SELECT DISTINCT src_lang, tgt_lang FROM units")}
        return self._pairs

    def update(self, uid: int, *, source: str | TaggedText | None = None,
               target: str | TaggedText | None = None, meta: dict | None = None) -> int:
        """Change a unit's text and/or metadata; returns the id now holding
        the pair (another one when the change made it a duplicate)."""
        e = self.get(uid)
        self._begin()
        try:
            new_meta = {**_export_meta(e), **(meta or {}), "changedate_iso": _now()}
            self.conn.execute("DELETE FROM units WHERE id=?", (uid,))
            self.conn.execute("INSERT INTO journal(uid) VALUES (?)", (uid,))
            s = _tt(source) if source is not None else e.source
            t = _tt(target) if target is not None else e.target
            new_id, created = self._put(s, t, e.src_lang, e.tgt_lang, new_meta)
            if created and new_id != uid:
                self.conn.execute("UPDATE units SET id=? WHERE id=?", (uid, new_id))
                self.conn.execute("UPDATE journal SET uid=? WHERE uid=?", (uid, new_id))
                new_id = uid
            self.conn.execute("COMMIT")
        except BaseException:
            self._rollback()
            self.vocab.reset()
            raise
        self._catch_up()
        return new_id

    def delete(self, uid: int) -> bool:
        """Delete a unit; False when there was none."""
        self._begin()
        try:
            n = self.conn.execute("DELETE FROM units WHERE id=?", (uid,)).rowcount
            if n:
                self.conn.execute("INSERT INTO journal(uid) VALUES (?)", (uid,))
            self.conn.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        self._catch_up()
        return bool(n)

    def record_use(self, uid: int) -> None:
        """Count one use of a unit (a match inserted by the translator)."""
        self._begin()
        self.conn.execute("UPDATE units SET usage_count=coalesce(usage_count,0)+1, last_used=? "
                          "WHERE id=?", (_now(), uid))
        self.conn.execute("COMMIT")

    # ------------------------------------------------------------ reading
    def get(self, uid: int) -> TMEntry:
        row = self.conn.execute(f"SELECT {_COLS} FROM units WHERE {limits.FITS} AND id=?", (uid,)).fetchone()
        if row is None:
            raise TMError(f"{self.folder}: no unit {uid}")
        return _entry(row)

    def _same_source(self, text: str, k: int, pair: tuple[str, str]) -> list[Match]:
        """Units whose source is ``text`` exactly (of the language pair), as 100 % matches."""
        uids = [r[0] for r in self.conn.execute("SELECT id FROM units WHERE source = ? ORDER BY id DESC", (text,))]
        out = []
        for e in self._entries(uids).values():
            if all(not want or want == "*" or same_language(have, want)
                   for have, want in ((e.src_lang, pair[0]), (e.tgt_lang, pair[1]))):
                out.append(Match(e, 1.0, 1.0, []))
        return sorted(out, key=lambda m: -m.entry.id)[:k]

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

    # ------------------------------------------------------------ search
    def search(self, query: str | TaggedText, k: int = 5, min_score: float = 0.0,
               coverage: bool = False, src_lang: str | None = None,
               tgt_lang: str | None = None) -> list[Match]:
        """The best ``k`` fuzzy matches of ``query`` (score >= ``min_score``),
        best first; with ``coverage`` the pairs Algorithm 1 selects from all
        re-ranked candidates instead.

        Only units of the language pair :meth:`search_pair` gives for
        ``src_lang`` / ``tgt_lang`` are returned (loose: ``en`` ~ ``en-US``).
        """
        text = query.text if isinstance(query, TaggedText) else str(query)
        qa = analyse(text)
        if k <= 0:
            return []
        if not _WORD.search(strip_tags(text)):
            # No word to find candidates by (a segment of tags only, or punctuation): the same
            # text is still a 100 % match -- KDE manuals hold such segments, and the command
            # line's recall on queries with markup was 97 % without this.
            return self._same_source(text, k, self.search_pair(src_lang, tgt_lang)) if text.strip() else []
        if not qa.core:
            return []
        self._catch_up()
        enc = self.vocab.encode_known
        qe = Encoded(enc(qa.core), enc(qa.surface), enc(qa.punct))
        if self._bg is not None:
            return self._scan_search(text, qa, qe, k, min_score, coverage,
                                     self.search_pair(src_lang, tgt_lang))
        self.index.postfiles.poll()
        stage = self._stage("src", self.search_pair(src_lang, tgt_lang))
        limit = max(VERIFY_LIMIT[0], min(VERIFY_LIMIT[1], stage.total // VERIFY_PER))
        r = stage.retrieve(qa.core, limit, POSTINGS_BUDGET, min_score, by_dice=True, enc=qe.core)
        v = verify(stage, r, qe.core, k, limit)
        self.last_search = {"candidates": len(r.keys), "verified": len(v.keys),
                            "postings": r.postings, "exact": v.exact}
        need = max(k, COVERAGE_POOL) if coverage else k
        ranked = self._full_scores(qe, stage, v, need, min_score)
        if not coverage:
            ranked = ranked[:k]
        return self._matches(text, qa, ranked, coverage)

    def _matches(self, text: str, qa, ranked: list[tuple[float, int]], coverage: bool) -> list[Match]:
        entries = self._entries([u for _, u in ranked])
        qt = core_tokens(text)
        matches = [Match(entries[u], s, char_score(text, entries[u].source.text),
                         edit_ops(qt, entries[u].source.text))
                   for s, u in ranked if u in entries]
        if coverage:
            return coverage_select(qa.core, matches, lambda m: analyse(m.source.text).core)
        return matches

    def _scan_search(self, text: str, qa, qe: Encoded, k: int, min_score: float, coverage: bool,
                     pair: tuple[str, str]) -> list[Match]:
        """The search while the index is rebuilt: the units of the pair, from SQLite, in the scan's process."""
        ranked, info = self._scan.best(qe, max(k, COVERAGE_POOL) if coverage else k, min_score, pair)
        self.last_search = {"candidates": info["scanned"], "verified": info["scanned"], "postings": 0,
                            "exact": info["exact"], "scan": True, "scan_pid": info["pid"]}
        return self._matches(text, qa, ranked if coverage else ranked[:k], coverage)

    def _full_scores(self, qe: Encoded, stage: CandidateStage, v: Verified, need: int,
                     min_score: float) -> list[tuple[float, int]]:
        return full_scores(qe, stage, v, need, min_score)  # (pg_search's too)

    # ------------------------------------------------------------ concordance
    def concordance(self, phrase: str, side: str = "source", limit: int = 50,
                    max_checked: int = 20_000, src_lang: str | None = None,
                    tgt_lang: str | None = None) -> list[ConcordanceHit]:
        """Units whose ``side`` (``source``/``target``) contains ``phrase``
        (case-insensitive, punctuation ignored), most occurrences first, then
        shorter texts; each with the character spans of the occurrences.
        Units of other language pairs are left out, as in :meth:`search`."""
        if side not in ("source", "target"):
            raise TMError(f"concordance side must be 'source' or 'target', not {side!r}")
        words = [t.norm for t in tokenize(phrase) if t.kind in ("word", "cjk")]
        if not words:
            return []
        self._catch_up()
        if self._bg is not None:  # the index is being rebuilt: the units from SQLite
            accept = _pair_filter(*self.search_pair(src_lang, tgt_lang))
            uids = [r[0] for r in self.conn.execute(
                f"SELECT id FROM units WHERE {limits.FITS} AND {side} LIKE ? LIMIT ?", (f"%{words[0]}%", max_checked))]
            entries = (e for chunk in _chunks(uids, 500) for e in self._entries(chunk).values()
                       if accept(pair_term(e.src_lang, e.tgt_lang)))
            return phrase_hits(entries, side, words, limit)
        stage = self._stage("src" if side == "source" else "tgt",
                            self.search_pair(src_lang, tgt_lang))
        uids = stage.units_with_all(words)[:max_checked]
        entries = (e for chunk in _chunks(uids, 500) for e in self._entries(chunk).values())
        return phrase_hits(entries, side, words, limit)


# ------------------------------------------------------------------ helpers
def phrase_hits(entries, side: str, words: list[str], limit: int) -> list[ConcordanceHit]:
    """The ``entries`` whose ``side`` holds the normalised word sequence ``words``, with the spans of
    each occurrence; most occurrences first, then shorter texts, then newer entries (every backend)."""
    hits: list[ConcordanceHit] = []
    n = len(words)
    for e in entries:
        text = (e.source if side == "source" else e.target).text
        toks = [t for t in tokenize(text) if t.kind in ("word", "cjk")]
        norms = [t.norm for t in toks]
        spans = [(toks[i].start, toks[i + n - 1].end) for i in range(len(toks) - n + 1) if norms[i:i + n] == words]
        if spans:
            hits.append(ConcordanceHit(e, side, spans))
    hits.sort(key=lambda h: (-len(h.spans), len(h.text.text), -h.entry.id))
    return hits[:limit]


def _chunks(seq: list, n: int):
    for i in range(0, len(seq), n):
        yield seq[i:i + n]


def _note(res: ImportResult, msg: str) -> None:
    if len(res.errors) < _MAX_ERRORS:
        res.errors.append(msg)
    elif len(res.errors) == _MAX_ERRORS:
        res.errors.append("... (more problems not listed)")


class _Unclear(str):
    """_pick's answer when the unit holds more languages than it can tell apart."""


def _refuse_unclear(units: Iterable[TMUnit], unit: TMUnit, origin: str, want_s: str, want_t: str):
    """Refuse an import whose languages are not known: once, naming the
    languages the file holds (the rest of it is read, unit by unit, to list
    them), instead of skipping unit after unit with the same reason."""
    langs = set(unit.variants)
    for other in units:
        langs.update(other.variants)
    flags = " and ".join(f for f, given in (("--src-lang", want_s), ("--tgt-lang", want_t)) if not given)
    raise FormatError(origin or None, f"the file holds {', '.join(sorted(langs))} and does not say which "
                                      f"to import: give {flags}")


def _pick(unit: TMUnit, want_s: str, want_t: str):
    """((src_lang, text), (tgt_lang, text)) of a unit, or a reason to skip it."""
    v = unit.variants
    def find(want: str, exclude: str = ""):
        for lang, tt in v.items():
            if lang != exclude and same_language(lang, want):
                return lang, tt
        return None
    if want_s:
        s = find(want_s)
    else:
        ref = normalize_lang((unit.meta or {}).get("srclang") or "")
        s = find(ref) if ref and ref != "*all*" else None
        if s is None and len(v) == 2 and want_t:
            s = next(((lang, tt) for lang, tt in v.items() if not same_language(lang, want_t)), None)
    if s is None:
        return f"no source text in {want_s}" if want_s else _Unclear("source")
    if want_t:
        t = find(want_t, exclude=s[0])
    else:
        others = [(lang, tt) for lang, tt in v.items() if lang != s[0]]
        t = others[0] if len(others) == 1 else None
        if t is None:
            return _Unclear("target")
    if t is None:
        return f"no target text in {want_t}"
    if not s[1].text.strip() or not t[1].text.strip():
        return "empty source or target"
    return limits.refusal(s[1], t[1], unit.meta) or (s, t)
