"""The writes of a TM folder (:class:`WriteMixin` of :class:`engine.tm.memory.TranslationMemory`):
add, import, update, delete -- each one SQLite transaction that appends the changed unit ids
to the journal (the index catches up from it) -- and the import's choice of languages per unit."""
from __future__ import annotations

import json
from typing import Iterable

from engine.errors import FormatError, TMError
from engine.formats.base import TMUnit
from engine.inline import TaggedText
from engine.langs import normalize_lang, same_language
from engine.tm import limits, store
from engine.tm.model import ImportResult
from engine.tm.rows import _export_meta, _merge_meta, _meta_columns, _now
from engine.tm.tokens import analyse

_MAX_ERRORS = 1000


def _tt(x: str | TaggedText) -> TaggedText:
    return x if isinstance(x, TaggedText) else TaggedText(str(x))



class WriteMixin:
    """Adding, importing, changing and deleting units (``self``: a TranslationMemory)."""

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
               target: str | TaggedText | None = None, meta: dict | None = None, stamp: bool = True) -> int:
        """Change a unit's text and/or metadata; returns the id now holding
        the pair (another one when the change made it a duplicate).  ``stamp=False`` writes
        ``meta`` as the unit's whole metadata, dates included (an undo)."""
        e = self.get(uid)
        self._begin()
        try:
            new_meta = {**_export_meta(e), **(meta or {}), "changedate_iso": _now()} if stamp else dict(meta or {})
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
