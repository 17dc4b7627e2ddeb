"""A PO entry whose msgid is HTML (an article of a web app's catalog: ``<p>Press <b>Save</b> &amp;
close.</p>``), read and written as the string formats read theirs (:mod:`engine.formats.htmlsub`).

Such an entry (not a plural one) gives one segment a sentence, keyed ``<entry key>#b<n>.s<j>``,
inline elements as paired codes, entities as text; a msgstr that is the same article translated
pairs sentence by sentence (draft when the entry is fuzzy).  On export an entry's sentence
translations become one translation of the whole msgstr -- the sentences spliced into the msgid's
HTML, so the markup comes back -- confirmed when every sentence is, else the entry is fuzzy; the
entry's lines are rewritten only when that msgstr differs from the file's.
"""
from __future__ import annotations

from pathlib import Path

from engine.formats import htmlsub
from engine.formats.base import ParsedSegment, Translation
from engine.formats.po_read import Entry, Parsed
from engine.formats.po_units import msgid_of, msgstr_forms
from engine.formats.strsplice import Unit
from engine.inline import TaggedText


def segments(e: Entry, path: Path, lang: str, note: str, context: str, meta: dict) -> list[ParsedSegment]:
    """The sentence segments of the HTML entry ``e``."""
    u = e.unit
    unit = Unit(key=e.keys[0], value=msgid_of(u)[0], start=0, end=0, line=e.first_line + 1, note=note,
                context=context, target=msgstr_forms(u, 1)[0] or None, meta=meta)
    segs = htmlsub.segments(unit, lang, path)
    if u.isfuzzy():
        for s in segs:
            if s.target is not None:
                s.status = "draft"
    return segs


def whole_translations(parsed: Parsed, translations: dict[str, Translation], lang: str,
                       path: Path) -> dict[str, Translation]:
    """``translations`` with those of an HTML entry's sentences made one translation of its msgstr."""
    html = {e.keys[0]: e for e in parsed.entries if e.html}
    if not html:
        return translations
    out: dict[str, Translation] = {}
    groups: dict[str, dict[str, Translation]] = {}
    for k, tr in translations.items():
        split = None if k in html else htmlsub.split_key(k)
        if split and split[0] in html:
            groups.setdefault(split[0], {})[split[1]] = tr
        else:
            out[k] = tr
    for key, trs in groups.items():
        e = html[key]
        msgid, msgstr, where = msgid_of(e.unit)[0], msgstr_forms(e.unit, 1)[0], f"line {e.first_line + 1}"
        keys = [k for k, _, _ in htmlsub.sources(msgid, lang, path, where)]
        held = _held(msgstr, keys, lang, path, where)
        status = "draft" if e.unit.isfuzzy() else "confirmed"
        trs = {**{k: Translation(t, status) for k, t in held.items()}, **trs}
        if held and all(k in held and tr.target.original() == held[k].original() for k, tr in trs.items()):
            value = msgstr  # the file's own translation (its markup may differ from the msgid's): kept
        else:
            value = htmlsub.spliced(msgid, trs, lang, path, where)
        draft = any(k not in trs or trs[k].status != "confirmed" for k in keys)
        out[key] = Translation(TaggedText(value), "draft" if draft else "confirmed")
    return out


def _held(msgstr: str, keys: list[str], lang: str, path: Path, where: str) -> dict[str, TaggedText]:
    """The file's translation of each sentence, where its msgstr is the article with the same sentences."""
    if not msgstr or not htmlsub.is_html(msgstr):
        return {}
    tgt = htmlsub.sources(msgstr, lang, path, where)
    return {k: t for k, t, _ in tgt} if [k for k, _, _ in tgt] == keys else {}
