"""Writing XLIFF 1.x: the translations of the edited units spliced into the original bytes.

Each edited segment's ``<target>`` (or its ``<mrk mtype="seg">``) is refilled from the
translation, a missing target is inserted after the source with its indentation, and the
status is written in the file's own convention (:mod:`engine.formats.xliff12_status`).  Only the
edited units change; see :mod:`engine.formats.xliff12` for the rules.
"""
from __future__ import annotations

import copy
from pathlib import Path

from engine.errors import FormatError
from engine.formats.base import Translation
from engine.formats.xliff12_doc import Doc, Site
from engine.formats.xliff12_status import (
    MQ_STATUS, MQ_STATUSES, STATUS_MQ, set_sdl_status, set_unit_state,
)
from engine.formats.xliff_revisions import revision_codes, stamp_mq_unit
from engine.formats.xmlsafe import INVALID_XML_CHARS as _XML_INVALID
from engine.formats.xmlsplice import Splice
from engine.formats.xliffcommon import (
    XML_LANG, append_text, clear_content, fill_content, keep_edges, localname, min_status,
)


def changes(doc: Doc, translations: dict[str, Translation]) -> tuple[dict[str, Translation], set[str]]:
    """The translations that change something, and the keys of those whose text changed (a
    confirmation alone is not an edit: an SDL segment keeps its origin).  One whose target and
    status are what the file already says is an untouched segment: writing it would only trim
    its whitespace or restate its status in another attribute."""
    out = dict(translations)
    edited: set[str] = set()
    for site in doc.sites:
        tr = out.get(site.key)
        if tr is None:
            continue
        cur = doc.read_target(site)
        if (cur.text if cur is not None else "") != tr.target.text:
            edited.add(site.key)
        elif cur is not None and tr.status == doc.status(site, cur)[0]:
            del out[site.key]
    return out, edited


class Writer:
    """Applies the translations of one trans-unit."""

    def __init__(self, doc: Doc, unit, sites: list[Site], translations, tgt_lang: str, out: Path,
                 sp: Splice, edited: set[str]):
        self.doc, self.unit, self.sites = doc, unit, sites
        self.edited = edited  # keys whose target text changed
        self.sp = sp
        self.translations = translations
        self.out = out
        file_el = sites[0].file_el
        self.lang = file_el.get("target-language") or tgt_lang

    # -- text and isolated codes
    def _text(self, key: str):
        def add(parent, s: str) -> None:
            m = _XML_INVALID.search(s)
            if m:
                raise FormatError(self.out, f"the translation contains U+{ord(m.group(0)):04X}, "
                                            "a character XML 1.0 cannot hold", f"segment {key!r}")
            append_text(parent, s)
        return add

    def _isolate(self, el, role, partner_present):
        if localname(el) != "g":
            return None  # an <mrk> annotation half is dropped
        gid = el.get("id", "")
        attrs = {"id": gid, "rid": gid}
        if el.get("ctype") and role == "open":
            attrs["ctype"] = el.get("ctype")
        return el.makeelement(self.doc.q("bx" if role == "open" else "ex"), attrs)

    def _fill(self, container, site: Site, tr: Translation) -> None:
        # the codes of the target already there (its own <mrk>s, codes only it
        # has) and its trimmed whitespace, read before the content is replaced
        codes, (lead, trail) = self.doc.target_codes(site, container)
        codes = revision_codes(tr.target, codes, self.doc.root)
        target = tr.target if self.doc.preserve(container, self.unit) else keep_edges(tr.target, lead, trail)
        fill_content(container, target, codes, isolate=self._isolate,
                     add_text=self._text(site.key))
        self.sp.content(container)

    # -- target element
    def _new_target(self):
        unit = self.unit
        ref = self.doc.child(unit, "seg-source")
        if ref is None:
            ref = self.doc.child(unit, "source")
        target = unit.makeelement(self.doc.q("target"), {})
        src = self.doc.child(unit, "source")
        if self.lang and src is not None and src.get(XML_LANG):
            target.set(XML_LANG, self.lang)
        _insert_after(unit, ref, target)
        self.sp.inserted(ref, target)
        return target

    def apply(self) -> None:
        todo = [s for s in self.sites if s.key in self.translations]
        if self.sites[0].mid is None:
            site = self.sites[0]
            target = self.doc.child(self.unit, "target")
            if target is None:
                target = self._new_target()
            self._fill(target, site, self.translations[site.key])
        else:
            mrks = self._segmented_target()
            for site in todo:
                self._fill(mrks[site.mid], site, self.translations[site.key])
        self._set_status(todo)

    def _segmented_target(self) -> dict:
        doc, unit = self.doc, self.unit
        target = doc.child(unit, "target")
        mids = [s.mid for s in self.sites]
        have = doc.target_mrks(unit, target) if target is not None else {}
        if target is None or any(m not in have for m in mids):
            seg_source = doc.child(unit, "seg-source")
            new = copy.deepcopy(seg_source)
            new.tag = doc.q("target")
            for k in list(new.attrib):
                del new.attrib[k]
            if target is not None:
                for k, v in target.attrib.items():
                    new.set(k, v)
            elif self.lang and seg_source.get(XML_LANG):
                new.set(XML_LANG, self.lang)
            for mid, mrk in doc.target_mrks(unit, new).items():
                clear_content(mrk)
                old = have.get(mid)
                if old is not None:
                    mrk.text = old.text
                    for c in old:
                        mrk.append(copy.deepcopy(c))
            if target is not None:
                new.tail = target.tail
                unit.replace(target, new)
                self.sp.replaced(target, new)
            else:
                new.tail = None
                _insert_after(unit, seg_source, new)
                self.sp.inserted(seg_source, new)
            target = new
        return doc.target_mrks(unit, target)

    # -- status
    def _set_status(self, todo: list[Site]) -> None:
        doc, unit = self.doc, self.unit
        statuses = {s.key: self.translations[s.key].status for s in todo
                    if self.translations[s.key].target.text}
        sdl_done = False
        for site in todo:
            seg = doc.sdl_seg(site)
            if seg is not None and site.key in statuses:
                set_sdl_status(self.sp, seg, statuses[site.key], site.key in self.edited)
                sdl_done = True
        if sdl_done:
            return
        # unit-level status: the weakest of its segments that have a target
        for site in self.sites:
            if site.key in statuses:
                continue
            tt = doc.read_target(site)
            if tt is not None:
                statuses[site.key] = doc.status(site, tt)[0]
        if not statuses:
            return
        st = min_status(statuses.values())
        if unit.get(MQ_STATUS) is not None:  # memoQ: its status, who changed the unit and when
            changed = MQ_STATUSES.get(unit.get(MQ_STATUS).lower(), "draft") != st
            return stamp_mq_unit(self.sp, unit, MQ_STATUS, STATUS_MQ[st], changed)
        set_unit_state(self.sp, doc.child(unit, "target"), unit, st)


def _insert_after(parent, ref, new) -> None:
    """Insert ``new`` right after ``ref``, copying the indentation before ``ref``."""
    idx = list(parent).index(ref)
    prev_ws = parent[idx - 1].tail if idx > 0 else parent.text
    new.tail = ref.tail
    if prev_ws is not None and not prev_ws.strip():
        ref.tail = prev_ws
    parent.insert(idx + 1, new)
