"""An XLIFF 1.x tree and its segments: where each is (unit, ``<mrk mtype="seg">``), its source
as tagged text, and its current target (see :mod:`engine.formats.xliff12` for the rules).

Shared by the reader, the writer (:mod:`engine.formats.xliff12_write`) and the comment export
(:mod:`engine.formats.comments_xliff`).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from engine.formats.xliff12_status import read_status, sdl_segs
from engine.formats.xliff_revisions import tracked_change
from engine.formats.xliffcommon import (
    XML_SPACE, Extracted, Extractor, KeyMaker, code_label, edges, load, localname, normalize, preserve_space,
    remap_target, root_of, where,
)
from engine.inline import TaggedText


# ------------------------------------------------------------------ inline
class Inline12(Extractor):
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


def extract(path: Path, ns: str, el) -> Extracted:
    return Inline12(path, ns).run(el)


# ------------------------------------------------------------------ sites
@dataclass
class Site:
    """One segment's place in the tree (shared by reader and writer)."""

    key: str
    unit: etree._Element
    src: etree._Element          # <source>, or <mrk mtype="seg"> in <seg-source>
    mid: str | None              # None: the whole unit is the segment
    ext: Extracted
    preserve: bool
    file_el: etree._Element
    edges: tuple[str, str]       # whitespace that normalising trimmed from the source


class Doc:
    """A parsed XLIFF 1.x tree and its segments in document order."""

    def __init__(self, path: Path):
        self.path = path
        self.tree = load(path)
        self.root = root_of(path, self.tree, "1")
        self.ns = etree.QName(self.root).namespace or ""
        self.problems: list[str] = []
        self.sites: list[Site] = []
        self._targets: dict = {}  # target container -> (its content as read, remapped to the source)
        self._mrks: dict = {}     # <target> -> its segments' <mrk>s by mid
        self._segs: dict = {}     # unit -> its <sdl:seg>s by id
        self._space: dict = {}    # unit -> xml:space="preserve" in force there
        self._collect()

    def q(self, name: str) -> str:
        return f"{{{self.ns}}}{name}" if self.ns else name

    def child(self, el, name: str):
        for c in el.iterchildren(self.q(name)):  # half the time of find()'s path parser
            return c
        return None

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

    def preserve(self, el, unit) -> bool:
        """``preserve_space(el)`` for ``el`` in ``unit``, the unit's ancestors asked once per unit."""
        while el is not unit:
            v = el.get(XML_SPACE)
            if v is not None:
                return v == "preserve"
            el = el.getparent()
        got = self._space.get(unit)
        if got is None:
            got = self._space[unit] = preserve_space(unit)
        return got

    def _add(self, key, unit, src, mid, file_el) -> None:
        preserve = self.preserve(src, unit)
        raw = extract(self.path, self.ns, src)
        ext = Extracted(normalize(raw.text, preserve), raw.codes)
        if not ext.text.plain().strip():
            return  # nothing to translate: only codes or whitespace
        self.sites.append(Site(key, unit, src, mid, ext, preserve, file_el, edges(raw.text)))

    # -------------------------------------------------------------- targets
    def target_container(self, site: Site):
        """The element holding this segment's current target, or None."""
        target = self.child(site.unit, "target")
        if target is None or site.mid is None:
            return target
        return self.target_mrks(site.unit, target).get(site.mid)

    def target_mrks(self, unit, target) -> dict:
        """The ``<mrk mtype="seg">`` of ``target`` by mid (looked up once per target: a writer edits
        only their content)."""
        got = self._mrks.get(target)
        if got is None:
            got = self._mrks[target] = {m.get("mid") or f"#{i}": m for i, m in enumerate(self.seg_mrks(target), 1)}
        return got

    def _target(self, site: Site, cont) -> tuple[Extracted, Extracted]:
        """``cont``'s content as read and in the source's numbering, read once: a writer asks for
        an edited segment's target twice (is it changed? which codes does it keep?), and reading
        it was a fifth of a 10,000-segment edited export."""
        got = self._targets.get(cont)
        if got is None:
            tgt = extract(self.path, self.ns, cont)
            got = self._targets[cont] = (tgt, remap_target(site.ext, tgt))
        return got

    def read_target(self, site: Site) -> TaggedText | None:
        cont = self.target_container(site)
        if cont is None:
            return None
        tt = normalize(self._target(site, cont)[1].text, self.preserve(cont, site.unit))
        return tt if tt.text else None

    def target_codes(self, site: Site, cont) -> tuple[dict, tuple[str, str]]:
        """What a writer keeps around a new target in ``cont`` (None: no target yet): the codes by
        number (those of the target in the file where it has content) and the whitespace of its
        ends (:func:`engine.formats.xliff_fill.target_codes`)."""
        if cont is not None:
            tgt, remapped = self._target(site, cont)
            if tgt.text.text.strip():
                return remapped.codes, edges(tgt.text)
        return site.ext.codes, site.edges

    def sdl_seg(self, site: Site):
        if site.mid is None:
            return None
        segs = self._segs.get(site.unit)
        if segs is None:
            segs = self._segs[site.unit] = sdl_segs(site.unit)
        return segs.get(site.mid)

    def status(self, site: Site, target: TaggedText | None) -> tuple[str, dict]:
        """(status, raw values) of ``site`` whose target text is ``target``."""
        return read_status(site.unit, self.child(site.unit, "target"), self.sdl_seg(site), target)
