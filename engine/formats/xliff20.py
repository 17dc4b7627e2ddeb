"""XLIFF 2.0 / 2.1 documents (``urn:oasis:names:tc:xliff:document:2.0``).

Reading
    Every ``<segment>`` of every ``<unit>`` is a segment, locked when ``translate="no"``
    (on the unit or the nearest group/file that says) marks it, with key
    ``"<unit id>/<segment id>"`` (the segment's 1-based index when it has no
    id; a repeated key gets a ``~2`` suffix).  ``<ignorable>`` parts are not
    segments; they stay in the file.  Inline ``<ph>/<pc>/<sc>/<ec>/<mrk>/<sm>/<em>``
    become protected tags; ``<cp hex="..."/>`` becomes its character.

Status (``<segment state>``)::

    initial (or an empty target)   -> new
    translated (or no state)       -> draft
    reviewed, final                -> confirmed

The raw ``state`` / ``subState`` are kept in ``meta``.

Writing
    Each translated segment's ``<target>`` is replaced (created after its
    ``<source>`` when missing), tag ``n`` of the translation being the source's
    code ``n``; ``state`` is set to ``initial`` / ``translated`` / ``reviewed``
    unless the present value already means that status.  Characters XML cannot
    hold are written as ``<cp>``.  ``trgLang`` is added when missing.

    The changes are spliced into the original bytes
    (:mod:`engine.formats.xmlsplice`): an export with nothing edited is the
    original file byte for byte, an edited one differs only in the edited
    targets and their ``state``/``subState`` (and a ``trgLang`` the file
    lacked).  A segment absent from ``translations`` (one the translator did
    not touch) is not written at all: its ``<target>``, ``state`` and whitespace stay as
    they were, and a file with nothing to write gets no ``trgLang`` either.  An
    edited target is rebuilt from the codes of the target already in the file
    where it has them (see :mod:`engine.formats.xliffcommon`): a target
    ``<mrk>`` keeps its own ``id``, ``type`` and ``value`` instead of taking
    the source's, and codes only the target has come back.

    The written targets are valid XLIFF 2.0 (:mod:`engine.formats.xliff20_valid` reads
    them back): an ``<sc>``/``<ec>`` pair split over segments, one of them not yet
    translated, is written as isolated halves (``isolated="yes"``), and joined again
    (in whichever target of the unit holds the other half) when both are translated;
    an end written before its start becomes an isolated ``<ec>`` with an id of its own.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from engine.errors import FormatError
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats import xliff20_valid
from engine.formats.xlifflocks import translate_no
from engine.formats.xliff20_ctr import add_change_track, received
from engine.formats.xmlsafe import INVALID_XML_CHARS
from engine.formats.xmlsplice import Splice, copy_file
from engine.formats.xliffcommon import (
    XML_SPACE, Extracted, Extractor, KeyMaker, append_text, code_label, edges, fill_content,
    inner_text, keep_edges, load, localname, normalize, preserve_space, remap_target, root_of,
    sniff_version, target_codes, where, write_tree,
)
from engine.inline import TaggedText
from engine.langs import normalize_lang

NS = "urn:oasis:names:tc:xliff:document:2.0"

_STATE_STATUS = {"initial": "new", "translated": "draft", "reviewed": "confirmed",
                 "final": "confirmed"}
_STATUS_STATE = {"new": "initial", "draft": "translated", "confirmed": "reviewed"}
_HEX = re.compile(r"^[0-9A-Fa-f]{1,6}$")


def q(name: str) -> str:
    return f"{{{NS}}}{name}"


# ------------------------------------------------------------------ inline
class _Inline20(Extractor):
    """XLIFF 2.0 inline elements -> protected tags."""

    def handle(self, el) -> bool:
        if etree.QName(el).namespace != NS:
            return False
        name = localname(el)
        ident = el.get("id", "")
        attrs = {"element": name, "id": ident} if ident else {"element": name}
        if name == "cp":
            self.text(_code_point(self.path, el))
        elif name in ("pc", "mrk"):
            self.wrap(el, code_label(name, ident), attrs)
        elif name == "ph":
            self.ph(el, code_label("ph", ident), attrs)
        elif name in ("sc", "sm"):
            self.ph(el, code_label(name, ident), attrs, kind="open", pair=f"{name}:{ident}")
        elif name in ("ec", "em"):
            opener = "sc" if name == "ec" else "sm"
            ref = el.get("startRef")
            pair = f"{opener}:{ref}" if ref else f"{name}:{ident}"
            label = code_label(opener, ref) if ref else code_label(name, ident)
            self.ph(el, label, attrs, kind="close", pair=pair)
        else:
            return False
        return True


def _code_point(path: Path, el) -> str:
    hx = el.get("hex", "")
    if not _HEX.match(hx):
        raise FormatError(path, f"<cp hex={hx!r}> is not a hexadecimal code point", where(el))
    cp = int(hx, 16)
    if cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
        raise FormatError(path, f"<cp hex={hx!r}> is outside the Unicode range", where(el))
    return chr(cp)


def _extract(path: Path, el) -> Extracted:
    return _Inline20(path).run(el)


# ------------------------------------------------------------------ sites
@dataclass
class _Site:
    key: str
    unit: etree._Element
    segment: etree._Element
    source: etree._Element
    ext: Extracted
    edges: tuple[str, str]  # whitespace that normalising trimmed from the source


class _Doc:
    """A parsed XLIFF 2.0 tree and its segments in document order."""

    def __init__(self, path: Path):
        self.path = path
        self.tree = load(path)
        self.root = root_of(path, self.tree, "2")
        self.problems: list[str] = []
        self.sites: list[_Site] = []
        self._collect()

    def _collect(self) -> None:
        units = list(self.root.iter(q("unit")))
        keys = KeyMaker({u.get("id") for u in units if u.get("id")})
        for ordinal, unit in enumerate(units, 1):
            uid = unit.get("id") or f"u{ordinal}"
            ukey = keys.take(uid)
            for i, seg in enumerate(unit.findall(q("segment")), 1):
                source = seg.find(q("source"))
                if source is None:
                    self.problems.append(f"unit {uid!r} ({where(seg)}): segment without "
                                         "<source>, skipped")
                    continue
                raw = _extract(self.path, source)
                ext = Extracted(normalize(raw.text, preserve_space(source)), raw.codes)
                if not ext.text.plain().strip():
                    continue
                key = keys.take(f"{ukey}/{seg.get('id') or i}")
                self.sites.append(_Site(key, unit, seg, source, ext, edges(raw.text)))

    def read_target(self, site: _Site) -> TaggedText | None:
        target = site.segment.find(q("target"))
        if target is None:
            return None
        tt = normalize(remap_target(site.ext, _extract(self.path, target)).text,
                       preserve_space(target))
        return tt if tt.text else None


def _read_status(site: _Site, target: TaggedText | None) -> tuple[str, dict]:
    meta: dict = {}
    state = site.segment.get("state")
    if state:
        meta["state"] = state
    if site.segment.get("subState"):
        meta["subState"] = site.segment.get("subState")
    if target is None or not target.text:
        return "new", meta
    if state:
        return _STATE_STATUS.get(state, "draft"), meta
    return "draft", meta


# ------------------------------------------------------------------ writing
def _isolate(el, role, partner_present):
    """A ``<pc>`` / ``<mrk>`` half that cannot be re-nested in the target."""
    name = localname(el)
    ident = el.get("id", "")
    if name == "mrk":
        if not partner_present:
            return None
        if role == "open":
            attrs = {k: v for k, v in el.attrib.items() if k in ("id", "translate", "type",
                                                                "value", "ref")}
            return el.makeelement(q("sm"), attrs)
        return el.makeelement(q("em"), {"startRef": ident})
    common = ("canCopy", "canDelete", "canOverlap", "canReorder", "copyOf", "type",
              "subType", "dir")
    attrs = {k: el.get(k) for k in common if el.get(k) is not None}
    suffix = "Start" if role == "open" else "End"
    for k, new in (("dataRef", "dataRef"), ("disp", "disp"), ("equiv", "equiv"),
                   ("subFlows", "subFlows")):
        if el.get(k + suffix) is not None:
            attrs[new] = el.get(k + suffix)
    if role == "open":
        attrs["id"] = ident
        if not partner_present:
            attrs["isolated"] = "yes"
        return el.makeelement(q("sc"), attrs)
    if partner_present:
        attrs["startRef"] = ident
    else:
        attrs["id"] = ident
        attrs["isolated"] = "yes"
    attrs.pop("copyOf", None)
    return el.makeelement(q("ec"), attrs)


def _add_text(parent, s: str) -> None:
    """Append text, writing characters XML cannot hold as ``<cp hex>``."""
    pos = 0
    for m in INVALID_XML_CHARS.finditer(s):
        append_text(parent, s[pos:m.start()])
        parent.append(parent.makeelement(q("cp"), {"hex": f"{ord(m.group(0)):04X}"}))
        pos = m.end()
    append_text(parent, s[pos:])


def _set_target(path: Path, site: _Site, tr: Translation, sp: Splice) -> None:
    seg = site.segment
    target = seg.find(q("target"))
    codes, (lead, trail) = target_codes(site.ext, site.edges, target,
                                        lambda el: _extract(path, el))
    if target is None:
        target = seg.makeelement(q("target"), {})
        if site.source.get(XML_SPACE) is not None:
            target.set(XML_SPACE, site.source.get(XML_SPACE))
        idx = list(seg).index(site.source)
        prev_ws = seg[idx - 1].tail if idx > 0 else seg.text
        target.tail = site.source.tail
        if prev_ws is not None and not prev_ws.strip():
            site.source.tail = prev_ws
        seg.insert(idx + 1, target)
        sp.inserted(site.source, target)
    text = tr.target if preserve_space(target) else keep_edges(tr.target, lead, trail)
    fill_content(target, text, codes, isolate=_isolate, add_text=_add_text)
    sp.content(target)
    status = tr.status if tr.target.text else "new"
    cur = seg.get("state")
    if cur and _STATE_STATUS.get(cur, "draft") == status:
        return
    sp.set(seg, "state", _STATUS_STATE[status])
    sp.delete(seg, "subState")


def _pair_codes(unit, sp: Splice) -> None:
    """Make the ``<sc>``/``<ec>`` of ``unit``'s targets (in ``order``) valid pairs after
    some were rewritten: an ``<sc>`` whose ``<ec>`` is in no target (its segment not
    translated yet) becomes ``isolated="yes"``, an ``<ec>`` without its ``<sc>`` before
    it becomes isolated with an id (the ``startRef`` unless a target code has that id),
    and halves isolated earlier are joined again once both are in the targets."""
    parts = [p for p in unit if p.tag in (q("segment"), q("ignorable"))]
    targets = sorted((int(t.get("order") or i), i, t) for i, p in enumerate(parts, 1)
                     for t in p.findall(q("target")))
    seq = [e for _, _, t in targets for e in t.iter(q("sc"), q("ec"))]
    used = {e.get("id") for _, _, t in targets for e in t.iter() if e.get("id")}
    open_: dict[str, etree._Element] = {}
    for e in seq:
        if e.tag == q("sc"):
            open_[e.get("id")] = e
        elif e.get("startRef") is None:  # an isolated end
            sc = open_.pop(e.get("id"), None)
            if sc is not None:
                ref = e.get("id")
                sp.delete(e, "id")
                sp.delete(e, "isolated")
                sp.set(e, "startRef", ref)
                sp.delete(sc, "isolated")
        else:
            ref = e.get("startRef")
            sc = open_.pop(ref, None)
            if sc is None:
                ident, k = ref, 1
                while ident in used:
                    ident, k = f"{ref}-end" + (str(k) if k > 1 else ""), k + 1
                used.add(ident)
                sp.delete(e, "startRef")
                sp.set(e, "id", ident)
                sp.set(e, "isolated", "yes")
            else:
                sp.delete(sc, "isolated")
    for sc in open_.values():
        if sc.get("isolated") != "yes":
            sp.set(sc, "isolated", "yes")


def _changes(doc: _Doc, site: _Site, tr: Translation) -> bool:
    """False when ``tr`` is what the file already says (target and status): an
    untouched segment, which writing would only trim or restate."""
    cur = doc.read_target(site)
    return not (cur is not None and tr.target.text == cur.text
                and tr.status == _read_status(site, cur)[0])


# ------------------------------------------------------------------ format
class Xliff20Format:
    """Reader/writer for XLIFF 2.x files (see the module docstring)."""

    name = "xliff20"
    extensions = (".xlf", ".xliff")

    def sniff(self, path: Path, head: bytes) -> bool:
        return sniff_version(head) == "2"

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        path = Path(path)
        doc = _Doc(path)
        xliff20_valid.check(path, doc.root)
        root = doc.root
        out = ParsedDocument(
            path=str(path), format=self.name,
            src_lang=normalize_lang(root.get("srcLang") or src_lang),
            tgt_lang=normalize_lang(root.get("trgLang") or tgt_lang),
            meta={"version": root.get("version", "")},
            problems=list(doc.problems),
        )
        for site in doc.sites:
            target = doc.read_target(site)
            status, meta = _read_status(site, target)
            target = received(site.unit, target)  # a reviewer's Change Tracking, shown as tracked changes
            meta["unit"] = site.unit.get("id", "")
            if site.segment.get("id"):
                meta["segment"] = site.segment.get("id")
            notes_el = site.unit.find(q("notes"))
            notes = [inner_text(n).strip() for n in notes_el.findall(q("note"))] \
                if notes_el is not None else []
            out.segments.append(ParsedSegment(
                key=site.key, source=site.ext.text, target=target, status=status,
                note="\n".join(n for n in notes if n), context=site.unit.get("name", ""),
                meta=meta, locked=translate_no(site.unit),
            ))
        return out

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "") -> None:
        original, out = Path(original), Path(out)
        doc = _Doc(original)
        todo = [s for s in doc.sites
                if s.key in translations and _changes(doc, s, translations[s.key])]
        if not todo:  # untouched: the original bytes
            copy_file(original, out)
            return
        sp = Splice(original, doc.tree, list(dict.fromkeys(s.unit for s in todo)), [doc.root])
        if not doc.root.get("trgLang"):
            if not tgt_lang:
                raise FormatError(original, "the file declares no target language (trgLang); "
                                            "give one to export translations", where(doc.root))
            sp.set(doc.root, "trgLang", tgt_lang)
        for site in todo:
            _set_target(original, site, translations[site.key], sp)
        for unit in dict.fromkeys(s.unit for s in todo):
            _pair_codes(unit, sp)
            add_change_track(unit, [s for s in todo if s.unit is unit], translations, sp)  # a reviewer's changes
        sp.write(out, lambda: write_tree(doc.tree, original, out))


FORMAT = Xliff20Format()
