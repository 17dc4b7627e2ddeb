"""XLIFF 1.2 documents (and 1.0/1.1, SDLXLIFF, memoQ mqxliff: all XLIFF 1.x).

Reading
    Every ``<trans-unit>`` gives segments; ``translate="no"`` (on itself or the
    nearest ``<group>``), SDL ``locked`` and memoQ ``mq:locked`` make them locked
    (:mod:`~engine.formats.xlifflocks`).  With a ``<seg-source>`` holding
    ``<mrk mtype="seg">`` there is one segment per mrk (key
    ``"<unit id>#<mid>"``), otherwise one per unit (key = unit id; a missing
    or repeated id gets a stable synthesized key, see
    :class:`~engine.formats.xliffcommon.KeyMaker`).  Inline codes become
    protected tags; each keeps its element's XML in ``Tag.original``.  Segments
    with no text to translate (only codes or whitespace) are not segments.

Status
    SDL ``<sdl:seg conf>``, memoQ ``mq:status``, ``approved="yes"`` and the
    ``<target state>`` are read in that order of precedence::

        new, needs-translation (or empty target)        -> new
        needs-review-*, needs-adaptation, needs-l10n    -> draft
        translated, signed-off, final, approved="yes"   -> confirmed

    (``translated`` is what a translator's confirmation is called in XLIFF 1.2.)
    The raw values are kept in ``meta``.

Writing
    The original file is parsed again; each translated segment's ``<target>``
    (or the ``<mrk>`` in it) is replaced, tag ``n`` of the translation being the
    source's code ``n``; the state is written in the file's own convention
    (SDL ``conf``, ``mq:status``, or ``state``: ``translated`` /
    ``needs-review-translation`` / ``needs-translation``), keeping a raw value
    that already means the same status.  Everything else is kept.

    The file is not re-serialised: the edited targets, the status
    attributes set and a new ``<target>`` (after ``</source>`` or
    ``</seg-source>``, with the indentation before the source) are spliced
    into the original bytes (:mod:`engine.formats.xmlsplice`), so an export
    with nothing edited is the original file byte for byte and an edited one
    differs only inside the edited units.  A segment absent from
    ``translations`` (one the translator did not touch) is not written at
    all, SDL ``conf``/``origin`` and memoQ ``mq:status`` included, and
    ``target-language`` is only added to a ``<file>`` that receives a
    translation.  An edited target is rebuilt from the codes of the target
    already in the file where it has them (see
    :mod:`engine.formats.xliffcommon`), so codes only the target has are kept.

Tracked changes and protected text
    What the translator sees is the text as it would read with the changes
    accepted, the changes themselves kept as codes so that they come back:

    * a deletion (SDL ``<mrk mtype="x-sdl-deleted">``, memoQ
      ``<mrk mtype="x-mq-tc" mq:tctype="del">``) is one opaque code labelled
      ``deleted``: its text is not live text (not counted, not matched, not
      sent to MT), the code puts the markup back, and removing the code
      accepts the deletion;
    * an insertion (``x-sdl-added``, memoQ ``tctype="ins"``) is a pair labelled
      ``inserted`` around its text, which is live;
    * ``<mrk mtype="protected">`` (text that must not be translated) is one
      opaque code labelled ``protected``, so its text cannot be edited.
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from engine.errors import FormatError
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.xlifflocks import tool_locked, translate_no
from engine.formats.xliff_revisions import revision_codes, stamp_mq_unit, tracked_change, write_rev_defs
from engine.formats.xmlsplice import Splice, copy_file
from engine.formats.xliffcommon import (
    XML_LANG, Extracted, Extractor, KeyMaker, append_text, clear_content, code_label, edges,
    fill_content, inner_text, keep_edges, load, localname, min_status, normalize, preserve_space,
    remap_target, root_of, sniff_version, target_codes, where, write_tree,
)
from engine.inline import TaggedText
from engine.langs import normalize_lang

SDL_NS = "http://sdl.com/FileTypes/SdlXliff/1.0"
MQ_NS = "MQXliff"
_SCOPES = ("trans-unit", "group")  # where translate="no" is inherited from
MQ_STATUS = f"{{{MQ_NS}}}status"

_STATE_STATUS = {
    "new": "new", "needs-translation": "new",
    "needs-adaptation": "draft", "needs-l10n": "draft", "needs-review-adaptation": "draft",
    "needs-review-l10n": "draft", "needs-review-translation": "draft",
    "translated": "confirmed", "signed-off": "confirmed", "final": "confirmed",
}
_STATUS_STATE = {"new": "needs-translation", "draft": "needs-review-translation",
                 "confirmed": "translated"}
_SDL_STATUS = {
    "nottranslated": "new", "unspecified": "new", "draft": "draft", "translated": "confirmed",
    "approvedtranslation": "confirmed", "approvedsignoff": "confirmed",
    "rejectedtranslation": "draft", "rejectedsignoff": "draft",
}
_STATUS_SDL = {"new": "", "draft": "Draft", "confirmed": "Translated"}  # "": no conf (Trados: Unspecified)
_MQ_STATUS = {
    "notstarted": "new", "manuallyconfirmed": "confirmed", "reviewer1confirmed": "confirmed",
    "reviewer2confirmed": "confirmed", "proofread": "confirmed",
}
_STATUS_MQ = {"new": "NotStarted", "draft": "PartiallyEdited", "confirmed": "ManuallyConfirmed"}

_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


# ------------------------------------------------------------------ inline
class _Inline12(Extractor):
    """XLIFF 1.2 inline elements -> protected tags."""

    def __init__(self, path: Path, ns: str):
        super().__init__(path)
        self.ns = ns

    def handle(self, el) -> bool:
        if etree.QName(el).namespace != (self.ns or None):
            return False
        name = localname(el)
        ident = el.get("id", "")
        attrs = {"element": name, "id": ident} if ident else {"element": name}
        if name == "mrk":
            attrs["mtype"] = el.get("mtype", "")
            change = tracked_change(el)
            if change == "del":
                self.ph(el, "deleted", attrs)
            elif change == "ins":
                self.wrap(el, "inserted", attrs)
            elif attrs["mtype"] == "protected":
                self.ph(el, "protected", attrs)
            else:
                self.wrap(el, code_label(name, ident), attrs)
        elif name == "g":
            self.wrap(el, code_label(name, ident), attrs)
        elif name in ("bx", "bpt"):
            self.ph(el, code_label(name, ident), attrs, kind="open",
                    pair=f"{name}:{el.get('rid') or ident}")
        elif name in ("ex", "ept"):
            opener = "bx" if name == "ex" else "bpt"
            self.ph(el, code_label(name, ident), attrs, kind="close",
                    pair=f"{opener}:{el.get('rid') or ident}")
        elif name in ("x", "ph", "it"):
            self.ph(el, code_label(name, ident), attrs)
        else:
            return False
        return True


def _extract(path: Path, ns: str, el) -> Extracted:
    return _Inline12(path, ns).run(el)


# ------------------------------------------------------------------ sites
@dataclass
class _Site:
    """One segment's place in the tree (shared by reader and writer)."""

    key: str
    unit: etree._Element
    src: etree._Element          # <source>, or <mrk mtype="seg"> in <seg-source>
    mid: str | None              # None: the whole unit is the segment
    ext: Extracted
    preserve: bool
    file_el: etree._Element
    edges: tuple[str, str]       # whitespace that normalising trimmed from the source


class _Doc:
    """A parsed XLIFF 1.x tree and its segments in document order."""

    def __init__(self, path: Path):
        self.path = path
        self.tree = load(path)
        self.root = root_of(path, self.tree, "1")
        self.ns = etree.QName(self.root).namespace or ""
        self.problems: list[str] = []
        self.sites: list[_Site] = []
        self._collect()

    def q(self, name: str) -> str:
        return f"{{{self.ns}}}{name}" if self.ns else name

    def child(self, el, name: str):
        return el.find(self.q(name))

    def seg_mrks(self, container) -> list:
        return [m for m in container.iter(self.q("mrk")) if m.get("mtype") == "seg"]

    def _collect(self) -> None:
        units = list(self.root.iter(self.q("trans-unit")))
        keys = KeyMaker({u.get("id") for u in units if u.get("id")})
        for ordinal, unit in enumerate(units, 1):
            uid = unit.get("id") or f"tu{ordinal}"
            ukey = keys.take(uid)
            source = self.child(unit, "source")
            if source is None:
                self.problems.append(f"unit {uid!r} ({where(unit)}): no <source>, skipped")
                continue
            file_el = next((a for a in unit.iterancestors(self.q("file"))), self.root)
            seg_source = self.child(unit, "seg-source")
            mrks = self.seg_mrks(seg_source) if seg_source is not None else []
            if not mrks:
                self._add(ukey, unit, source, None, file_el)
                continue
            for i, mrk in enumerate(mrks, 1):
                mid = mrk.get("mid") or f"#{i}"
                self._add(keys.take(f"{ukey}#{mid}"), unit, mrk, mid, file_el)

    def _add(self, key, unit, src, mid, file_el) -> None:
        preserve = preserve_space(src)
        raw = _extract(self.path, self.ns, src)
        ext = Extracted(normalize(raw.text, preserve), raw.codes)
        if not ext.text.plain().strip():
            return  # nothing to translate: only codes or whitespace
        self.sites.append(_Site(key, unit, src, mid, ext, preserve, file_el, edges(raw.text)))

    # -------------------------------------------------------------- targets
    def target_container(self, site: _Site):
        """The element holding this segment's current target, or None."""
        target = self.child(site.unit, "target")
        if target is None or site.mid is None:
            return target
        return self.target_mrks(site.unit, target).get(site.mid)

    def target_mrks(self, unit, target) -> dict:
        return {m.get("mid") or f"#{i}": m for i, m in enumerate(self.seg_mrks(target), 1)}

    def read_target(self, site: _Site) -> TaggedText | None:
        cont = self.target_container(site)
        if cont is None:
            return None
        tgt = _extract(self.path, self.ns, cont)
        tt = normalize(remap_target(site.ext, tgt).text, preserve_space(cont))
        return tt if tt.text else None

    def sdl_seg(self, site: _Site):
        if site.mid is None:
            return None
        defs = site.unit.find(f"{{{SDL_NS}}}seg-defs")
        if defs is None:
            return None
        return next((s for s in defs.findall(f"{{{SDL_NS}}}seg") if s.get("id") == site.mid), None)


# ------------------------------------------------------------------ status
def _read_status(doc: _Doc, site: _Site, target: TaggedText | None) -> tuple[str, dict]:
    meta: dict = {}
    unit = site.unit
    t_el = doc.child(unit, "target")
    state = t_el.get("state") if t_el is not None else None
    if state:
        meta["state"] = state
    if unit.get("approved"):
        meta["approved"] = unit.get("approved")
    sdl = doc.sdl_seg(site)
    if sdl is not None and sdl.get("conf"):
        meta["sdl_conf"] = sdl.get("conf")
    if unit.get(MQ_STATUS):
        meta["mq_status"] = unit.get(MQ_STATUS)
    if target is None or not target.text:
        return "new", meta
    if "sdl_conf" in meta:
        return _SDL_STATUS.get(meta["sdl_conf"].lower(), "draft"), meta
    if "mq_status" in meta:
        return _MQ_STATUS.get(meta["mq_status"].lower(), "draft"), meta
    if meta.get("approved") == "yes":
        return "confirmed", meta
    if state:
        return _STATE_STATUS.get(state, "draft"), meta
    return "draft", meta


def _variant(root) -> str:
    nsvals = set((root.nsmap or {}).values())
    if SDL_NS in nsvals:
        return "sdlxliff"
    if MQ_NS in nsvals:
        return "mqxliff"
    return "xliff"


# ------------------------------------------------------------------ format
class Xliff12Format:
    """Reader/writer for XLIFF 1.x files (see the module docstring)."""

    name = "xliff12"
    extensions = (".xlf", ".xliff", ".sdlxliff", ".mqxliff", ".txlf")

    def sniff(self, path: Path, head: bytes) -> bool:
        v = sniff_version(head)
        if v is None:
            return Path(path).suffix.lower() in self.extensions  # root beyond the head
        return v in ("1", "")

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        path = Path(path)
        doc = _Doc(path)
        first_file = doc.root.find(doc.q("file"))
        fsrc = first_file.get("source-language") if first_file is not None else None
        ftgt = first_file.get("target-language") if first_file is not None else None
        out = ParsedDocument(
            path=str(path), format=self.name,
            src_lang=normalize_lang(fsrc or src_lang), tgt_lang=normalize_lang(ftgt or tgt_lang),
            meta={"variant": _variant(doc.root), "version": doc.root.get("version", "")},
            problems=list(doc.problems),
        )
        for site in doc.sites:
            target = doc.read_target(site)
            status, meta = _read_status(doc, site, target)
            meta["unit"] = site.unit.get("id", "")
            if site.mid is not None:
                meta["mid"] = site.mid
            notes = [inner_text(n).strip() for n in site.unit.findall(doc.q("note"))]
            out.segments.append(ParsedSegment(
                key=site.key, source=site.ext.text, target=target, status=status,
                note="\n".join(n for n in notes if n), context=site.unit.get("resname", ""),
                meta=meta, locked=translate_no(site.unit, _SCOPES) or tool_locked(site.unit, doc.sdl_seg(site)),
            ))
        return out

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "") -> None:
        original, out = Path(original), Path(out)
        doc = _Doc(original)
        translations = _changes(doc, translations)
        by_unit: dict[int, list[_Site]] = {}
        units: dict[int, etree._Element] = {}
        for site in doc.sites:
            by_unit.setdefault(id(site.unit), []).append(site)
            units[id(site.unit)] = site.unit
        edited = [uid for uid, sites in by_unit.items()
                  if any(s.key in translations for s in sites)]
        if not edited:  # untouched: the original bytes
            copy_file(original, out)
            return
        files = list(dict.fromkeys(by_unit[uid][0].file_el for uid in edited))
        sp = Splice(original, doc.tree, [units[uid] for uid in edited], files)
        for uid in edited:
            _Writer(doc, units[uid], by_unit[uid], translations, tgt_lang, out, sp).apply()
        if tgt_lang:
            for f in files:
                if localname(f) == "file" and not f.get("target-language"):
                    sp.set(f, "target-language", tgt_lang)
        sp.write(out, lambda: write_tree(doc.tree, original, out))
        write_rev_defs(out, doc.root, translations)  # a reviewer's tracked changes (engine/review/export.py)


def _changes(doc: _Doc, translations: dict[str, Translation]) -> dict[str, Translation]:
    """The translations that change something.  One whose target and status
    are what the file already says is an untouched segment: writing it would
    only trim its whitespace or restate its status in another attribute."""
    out = dict(translations)
    for site in doc.sites:
        tr = out.get(site.key)
        if tr is None:
            continue
        cur = doc.read_target(site)
        if cur is not None and tr.target.text == cur.text \
                and tr.status == _read_status(doc, site, cur)[0]:
            del out[site.key]
    return out


class _Writer:
    """Applies the translations of one trans-unit."""

    def __init__(self, doc: _Doc, unit, sites: list[_Site], translations, tgt_lang: str, out: Path,
                 sp: Splice):
        self.doc, self.unit, self.sites = doc, unit, sites
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

    def _fill(self, container, site: _Site, tr: Translation) -> None:
        # the codes of the target already there (its own <mrk>s, codes only it
        # has) and its trimmed whitespace, read before the content is replaced
        codes, (lead, trail) = target_codes(site.ext, site.edges, container,
                                            lambda el: _extract(self.doc.path, self.doc.ns, el))
        codes = revision_codes(tr.target, codes, self.doc.root)
        target = tr.target if preserve_space(container) else keep_edges(tr.target, lead, trail)
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
    def _set_status(self, todo: list[_Site]) -> None:
        doc, unit = self.doc, self.unit
        statuses = {s.key: self.translations[s.key].status for s in todo
                    if self.translations[s.key].target.text}
        sdl_done = False
        for site in todo:
            seg = doc.sdl_seg(site)
            if seg is not None and site.key in statuses:
                st = statuses[site.key]
                cur = seg.get("conf")
                if not cur or _SDL_STATUS.get(cur.lower(), "draft") != st:
                    self.sp.set(seg, "conf", _STATUS_SDL[st]) if _STATUS_SDL[st] else self.sp.delete(seg, "conf")
                if seg.get("origin") == "not-translated":
                    self.sp.set(seg, "origin", "interactive")
                sdl_done = True
        if sdl_done:
            return
        # unit-level status: the weakest of its segments that have a target
        for site in self.sites:
            if site.key in statuses:
                continue
            tt = doc.read_target(site)
            if tt is not None:
                statuses[site.key] = _read_status(doc, site, tt)[0]
        if not statuses:
            return
        st = min_status(statuses.values())
        if unit.get(MQ_STATUS) is not None:  # memoQ: its status, who changed the unit and when
            changed = _MQ_STATUS.get(unit.get(MQ_STATUS).lower(), "draft") != st
            return stamp_mq_unit(self.sp, unit, MQ_STATUS, _STATUS_MQ[st], changed)
        target = doc.child(unit, "target")
        cur = target.get("state")
        if not cur or _STATE_STATUS.get(cur, "draft") != st:
            self.sp.set(target, "state", _STATUS_STATE[st])
        if unit.get("approved") == "yes" and st != "confirmed":
            self.sp.set(unit, "approved", "no")


def _insert_after(parent, ref, new) -> None:
    """Insert ``new`` right after ``ref``, copying the indentation before ``ref``."""
    idx = list(parent).index(ref)
    prev_ws = parent[idx - 1].tail if idx > 0 else parent.text
    new.tail = ref.tail
    if prev_ws is not None and not prev_ws.strip():
        ref.tail = prev_ws
    parent.insert(idx + 1, new)


FORMAT = Xliff12Format()
