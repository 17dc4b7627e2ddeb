"""Writing to a shared TM: adds (an exact duplicate merges, also between two
writers at once), imports as one transaction, edits, deletes, the shared
vocabulary.  A mixin of :class:`engine.tm.pg.PgTranslationMemory`.
"""
from __future__ import annotations

import json
import time
from typing import Iterable

from psycopg import errors as pgerrors

from engine.errors import TMError
from engine.formats.base import TMUnit
from engine.inline import TaggedText
from engine.langs import normalize_lang, same_language
from engine.tm import store
from engine.tm.memory import (
    _export_meta,
    _merge_meta,
    _meta_columns,
    _note,
    _now,
    _pick,
    _refuse_unclear,
    _tt,
    _Unclear,
)
from engine.tm.model import ImportResult, TMOffline, TMRefused
from engine.tm.pg_search import _db_token, _hashes, _py_token
from engine.tm.tokens import analyse, index_terms, occurrence_terms
from engine.tm.whoosh_index import pair_term

_INSERT = ("INSERT INTO {s}.units(source, source_tags, target, target_tags, src_lang, tgt_lang, lp, enc, "
           "senc, penc, n, src_terms, tgt_terms, src_h, origin, created, changed, creator, changer, usage_count, "
           "last_used, meta, dkey) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) "
           "ON CONFLICT (dkey) DO NOTHING RETURNING id")
#: Units imported per batch of statements (inside the one transaction of an import).
IMPORT_BATCH = 1000


class PgWrite:
    """Writes (see the module)."""

    # ------------------------------------------------------------ vocabulary
    def _ids_for_write(self, conn, tokens) -> dict[str, int]:
        want = list(dict.fromkeys(tokens))
        missing = [t for t in want if t not in self._vocab]
        if missing:
            keys = [_db_token(t) for t in missing]
            conn.execute(self._q("INSERT INTO {s}.vocab(token, id) SELECT t, nextval(%s) FROM unnest(%s::text[]) t "
                                 "WHERE NOT EXISTS (SELECT 1 FROM {s}.vocab v WHERE v.token = t) "
                                 "ORDER BY t ON CONFLICT (token) DO NOTHING"),
                         (f"{self.schema}.vocab_id", keys))
            for tok, i in conn.execute(self._q("SELECT token, id FROM {s}.vocab WHERE token = ANY(%s)"), (keys,)):
                self._vocab[_py_token(tok)] = i
        return {t: self._vocab[t] for t in want}

    # ------------------------------------------------------------ writing
    def _need_write(self) -> None:
        if self._pending is not None:  # opened with create="import": a plain write creates the TM
            with self._tx() as conn:
                self._create(conn)
            self._prepared(*self._pending)
        if not self.writable:
            raise self._read_only()

    def add(self, source: str | TaggedText, target: str | TaggedText, *, src_lang: str = "",
            tgt_lang: str = "", origin: str = "human", creator: str = "",
            meta: dict | None = None) -> int:
        self._need_write()
        reconnected = False
        for attempt in range(4):  # an add is idempotent (an exact duplicate merges): safe to repeat
            try:
                with self._tx() as conn:
                    uid = self._put_reviewed(conn, _tt(source), _tt(target), src_lang or self.src_lang,
                                             tgt_lang or self.tgt_lang,
                                             {"origin": origin, "creationid": creator, **(meta or {})})
                return uid
            except TMRefused:
                raise
            except TMOffline:  # once more after a server restart
                if reconnected or not self._stale():
                    raise
                reconnected = True
            except (pgerrors.DeadlockDetected, pgerrors.SerializationFailure):
                if attempt == 3:  # two writers took the same new words and pair in opposite orders
                    raise
                time.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    def add_many(self, pairs: Iterable[tuple], *, src_lang: str = "", tgt_lang: str = "",
                 origin: str = "import") -> ImportResult:
        s, t = src_lang or self.src_lang or "und", tgt_lang or self.tgt_lang or "und"
        if s == t:
            raise TMError("source and target language are the same")

        def units():
            for p in pairs:
                meta = dict(p[2]) if len(p) > 2 and p[2] else {}
                yield TMUnit({s: _tt(p[0]), t: _tt(p[1])}, meta)
        return self.import_units(units(), src_lang=s, tgt_lang=t, origin=origin)

    def import_units(self, units: Iterable[TMUnit], *, src_lang: str = "", tgt_lang: str = "",
                     origin: str = "", problems: list[str] | None = None) -> ImportResult:
        """Import as ONE transaction (all or nothing), as the local TM does."""
        if not self.writable:
            raise self._read_only()
        res = ImportResult()
        want_s = normalize_lang(src_lang) or self.src_lang
        want_t = normalize_lang(tgt_lang) or self.tgt_lang
        pending = self._pending
        try:
            res = self._import_tx(units, res, want_s, want_t, origin, pending)
        except BaseException:
            self._pending = pending  # rolled back: the TM was not created after all
            raise
        if pending is not None:
            self._prepared(*pending)
        for p in problems or ():
            res.skipped += 1
            _note(res, p)
        return res

    def _import_tx(self, units, res: ImportResult, want_s: str, want_t: str, origin: str,
                   pending) -> ImportResult:
        batch: list[tuple] = []
        with self._tx() as conn:
            if pending is not None:
                self._create(conn)
                self._pending = None
            for key, lang in (("src_lang", want_s), ("tgt_lang", want_t)):
                if lang and not self._meta_get(key):
                    self._meta_set(conn, key, lang)
            for i, unit in enumerate(units, 1):
                picked = _pick(unit, want_s, want_t)
                if isinstance(picked, _Unclear):
                    _refuse_unclear(units, unit, origin, want_s, want_t)
                if isinstance(picked, str):
                    res.skipped += 1
                    _note(res, f"unit {i}" + (f" (line {unit.line})" if unit.line else "") + f": {picked}")
                    continue
                (sl, src), (tl, tgt) = picked
                if not want_s:
                    want_s = sl
                    self._meta_set(conn, "src_lang", sl)
                if not want_t:
                    want_t = tl
                    self._meta_set(conn, "tgt_lang", tl)
                meta = dict(unit.meta or {})
                if origin and not meta.get("origin"):
                    meta["origin"] = origin
                batch.append((src, tgt, sl, tl, meta))
                if len(batch) >= IMPORT_BATCH:
                    self._count(res, self._put_many(conn, batch))
                    batch = []
            self._count(res, self._put_many(conn, batch))
        self._meta = None
        return res

    @staticmethod
    def _count(res: ImportResult, done: list[bool]) -> None:
        n = sum(done)
        res.added += n
        res.updated += len(done) - n

    def _put_many(self, conn, batch: list[tuple]) -> list[bool]:
        """:meth:`_put` for many units in a few statements (one vocabulary
        write, one pipelined insert); True for each unit added, False for each
        duplicate merged.  Units that may duplicate one stored under another
        code of the same languages go one by one."""
        if not batch:
            return []
        known = self._lang_pairs(conn)
        rows, params, done = [], [], []
        tokens: list[str] = []
        for src, tgt, sl, tl, meta in batch:
            if not src.text.strip() or not tgt.text.strip():
                raise TMError("a TM unit needs a source and a target text")
            sl, tl = normalize_lang(sl), normalize_lang(tl)
            lp = pair_term(sl, tl)
            if any(o != lp and same_language(o.partition("|")[0], sl) and same_language(o.partition("|")[2], tl)
                   for o in known):
                rows.append(None)
                continue
            a = analyse(src.text)
            tokens += a.core + a.surface + a.punct
            rows.append((src, tgt, sl, tl, lp, a, _meta_columns(meta)))
        ids = self._ids_for_write(conn, tokens)
        tc = store.token_char
        for r in rows:
            if r is None:
                continue
            src, tgt, sl, tl, lp, a, cols = r
            encs = ["".join(tc(ids[t]) for t in seq) for seq in (a.core, a.surface, a.punct)]
            params.append((src.text, src.tags_json(), tgt.text, tgt.tags_json(), sl, tl, lp, *encs, len(a.core),
                           occurrence_terms(a.core), index_terms(tgt.text), _hashes(occurrence_terms(a.core)),
                           cols["origin"], cols["created"],
                           cols["changed"], cols["creator"], cols["changer"], cols["usage_count"],
                           cols["last_used"], json.dumps(cols["meta"], ensure_ascii=False),
                           store.dup_key(src.text, tgt.text, sl, tl)))
        inserted: list[bool] = []
        if params:
            cur = conn.cursor()
            cur.executemany(self._q(_INSERT), params, returning=True)
            while True:
                inserted.append(cur.fetchone() is not None)
                if not cur.nextset():
                    break
        for lp in {r[4] for r in rows if r is not None} - known:
            conn.execute(self._q("INSERT INTO {s}.pairs VALUES (%s) ON CONFLICT DO NOTHING"), (lp,))
            known.add(lp)
        it = iter(inserted)
        for item, r in zip(batch, rows):
            if r is not None and next(it):
                done.append(True)
            else:  # a duplicate (merge its metadata), or one to look up under other codes
                done.append(self._put(conn, *item)[1])
        return done

    def _lang_pairs(self, conn) -> set[str]:
        if self._pairs is None:
            self._pairs = {r[0] for r in conn.execute(self._q("SELECT lp FROM {s}.pairs"))}
        return self._pairs

    def _put(self, conn, source: TaggedText, target: TaggedText, src_lang: str, tgt_lang: str,
             meta: dict) -> tuple[int, bool]:
        if not source.text.strip() or not target.text.strip():
            raise TMError("a TM unit needs a source and a target text")
        src_lang, tgt_lang = normalize_lang(src_lang), normalize_lang(tgt_lang)
        cols = _meta_columns(meta)
        lp = pair_term(src_lang, tgt_lang)
        keys = [store.dup_key(source.text, target.text, src_lang, tgt_lang)]
        for other in sorted(self._lang_pairs(conn)):
            s_l, _, t_l = other.partition("|")
            if other != lp and same_language(s_l, src_lang) and same_language(t_l, tgt_lang):
                keys.append(store.dup_key(source.text, target.text, s_l, t_l))
        row = None
        if len(keys) > 1:
            row = conn.execute(self._q("SELECT id, meta, usage_count FROM {s}.units WHERE dkey = ANY(%s) "
                                       "ORDER BY id LIMIT 1 FOR UPDATE"), (keys[1:],)).fetchone()
        if row is None:
            a = analyse(source.text)
            ids = self._ids_for_write(conn, a.core + a.surface + a.punct)
            tc = store.token_char
            encs = ["".join(tc(ids[t]) for t in seq) for seq in (a.core, a.surface, a.punct)]
            got = conn.execute(self._q(_INSERT),
                (source.text, source.tags_json(), target.text, target.tags_json(), src_lang, tgt_lang, lp,
                 *encs, len(a.core), occurrence_terms(a.core), index_terms(target.text),
                 _hashes(occurrence_terms(a.core)), cols["origin"],
                 cols["created"], cols["changed"], cols["creator"], cols["changer"], cols["usage_count"],
                 cols["last_used"], json.dumps(cols["meta"], ensure_ascii=False), keys[0])).fetchone()
            if got is not None:
                if lp not in self._lang_pairs(conn):
                    conn.execute(self._q("INSERT INTO {s}.pairs VALUES (%s) ON CONFLICT DO NOTHING"), (lp,))
                    self._lang_pairs(conn).add(lp)
                return int(got[0]), True
            row = conn.execute(self._q("SELECT id, meta, usage_count FROM {s}.units WHERE dkey = %s FOR UPDATE"),
                               (keys[0],)).fetchone()
        uid, old_meta, old_usage = row
        merged = _merge_meta(json.loads(old_meta or "{}"), cols["meta"])
        conn.execute(self._q(
            "UPDATE {s}.units SET changed=%s, changer=%s, usage_count=%s, last_used=coalesce(%s, last_used), "
            "meta=%s, source_tags=%s, target_tags=%s WHERE id=%s"),
            (cols["changed"] or _now(), cols["changer"] or cols["creator"], max(old_usage or 0, cols["usage_count"]),
             cols["last_used"], json.dumps(merged, ensure_ascii=False), source.tags_json(), target.tags_json(), uid))
        return int(uid), False

    def update(self, uid: int, *, source: str | TaggedText | None = None,
               target: str | TaggedText | None = None, meta: dict | None = None, stamp: bool = True) -> int:
        self._need_write()
        e = self.get(uid)
        with self._tx() as conn:
            new_meta = {**_export_meta(e), **(meta or {}), "changedate_iso": _now()} if stamp else dict(meta or {})
            conn.execute(self._q("DELETE FROM {s}.units WHERE id=%s"), (uid,))
            s = _tt(source) if source is not None else e.source
            t = _tt(target) if target is not None else e.target
            new_id, created = self._put(conn, s, t, e.src_lang, e.tgt_lang, new_meta)
            if created and new_id != uid:
                conn.execute(self._q("UPDATE {s}.units SET id=%s WHERE id=%s"), (uid, new_id))
                new_id = uid
        return new_id

    def delete(self, uid: int) -> bool:
        self._need_write()
        with self._tx() as conn:
            n = conn.execute(self._q("DELETE FROM {s}.units WHERE id=%s"), (uid,)).rowcount
        return bool(n)

    def record_use(self, uid: int) -> None:
        if not self.writable:
            return
        with self._tx() as conn:
            conn.execute(self._q("UPDATE {s}.units SET usage_count=coalesce(usage_count,0)+1, last_used=%s "
                                 "WHERE id=%s"), (_now(), uid))
