"""OpenDocument tracked changes (ODF 1.2 section 5.5), resolved as the user chooses before the
paragraphs are read (see :mod:`engine.formats.odf`), and counted for the editor's question."""
from __future__ import annotations

import copy
import re
from pathlib import Path

from lxml import etree

from engine.errors import FormatError
from engine.formats.package import Package
from engine.formats.revmarks import TrackedChanges

TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"


def t(name: str) -> str:
    return f"{{{TEXT}}}{name}"


_PARA = {t("p"), t("h")}


def _raw_text(parent, s: str) -> None:
    if len(parent):
        parent[-1].tail = (parent[-1].tail or "") + s
    else:
        parent.text = (parent.text or "") + s


# ------------------------------------------------------------ tracked changes
_TRACKED = t("tracked-changes")
_REGION = t("changed-region")
_CHANGE, _START, _END = t("change"), t("change-start"), t("change-end")
_CHANGE_ID = t("change-id")
_KINDS = {t("insertion"): "insertion", t("deletion"): "deletion", t("format-change"): "format-change"}
_XML_ID = "{http://www.w3.org/XML/1998/namespace}id"
_CHANGE_INFO = f"{{{OFFICE}}}change-info"
#: a member whose bytes hold none of these has no tracked change (it is not parsed to count them)
_CHANGE_BYTES = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?(?:tracked-changes|changed-region|change|change-start|"
                           rb"change-end)[\s/>]")


def _regions(root) -> dict[str, tuple[str, object]]:
    """change id -> (``insertion``/``deletion``/``format-change``, that element)."""
    out: dict[str, tuple[str, object]] = {}
    for region in root.iter(_REGION):
        rid = region.get(t("id")) or region.get(_XML_ID)
        for child in region:
            if child.tag in _KINDS and rid:
                out.setdefault(rid, (_KINDS[child.tag], child))
                break
    return out


def _para_of(el):
    for a in el.iterancestors():
        if a.tag in _PARA:
            return a
    return None


def _inside(el, root) -> bool:
    return any(a is root for a in el.iterancestors())


def _text_before(el, text: str | None) -> None:
    """Append ``text`` to what comes just before ``el`` (the previous sibling's tail, or the parent's text)."""
    if not text:
        return
    prev = el.getprevious()
    if prev is not None:
        prev.tail = (prev.tail or "") + text
    else:
        parent = el.getparent()
        parent.text = (parent.text or "") + text


def _drop(el) -> None:
    """Remove ``el``, its tail (text after it) kept in place."""
    _text_before(el, el.tail)
    el.getparent().remove(el)


def _cut_between(a, b) -> None:
    """Remove everything between ``a`` and ``b`` (``a`` before ``b`` in document order), both kept."""
    above_b = set(b.iterancestors())
    node = a
    node.tail = None
    while True:
        sib = node.getnext()
        while sib is not None and sib is not b and sib not in above_b:
            nxt = sib.getnext()
            node.getparent().remove(sib)  # its tail (text between) goes with it
            sib = nxt
        if sib is not None:
            break
        node = node.getparent()
        if node is None:
            return
        node.tail = None
    node = sib
    while node is not b:
        node.text = None
        for child in list(node):
            if child is b or child in above_b:
                node = child
                break
            node.remove(child)


def _put_inline(mark, src) -> None:
    """Put the content of the paragraph ``src`` (its text and children) just before ``mark``."""
    parent = mark.getparent()
    _text_before(mark, src.text)
    idx = parent.index(mark)
    for i, child in enumerate(list(src)):
        parent.insert(idx + i, child)


class _Resolver:
    """Accepts or refuses the tracked changes of one member (see the module doc)."""

    def __init__(self, path, regions: dict, reject: bool):
        self.path, self.regions, self.reject = path, regions, reject
        self.restored: set[str] = set()

    def _error(self, cid: str, why: str) -> FormatError:
        return FormatError(self.path, f"cannot refuse the tracked change {cid!r}: {why}")

    def resolve(self, root) -> bool:
        """Resolve every mark under ``root``; True when anything changed."""
        changed = False
        for block in list(root.iter(_TRACKED)):
            _drop(block)
            changed = True
        for _ in range(len(self.regions) + 2):  # restored deletions may hold marks of their own
            marks = list(root.iter(_CHANGE, _START, _END))
            if not marks:
                break
            changed = True
            if self.reject:  # a mark of an unknown change: refusing it would be a guess
                for m in marks:
                    if m.get(_CHANGE_ID) not in self.regions:
                        raise self._error(m.get(_CHANGE_ID) or "", "it is not in the document's list of changes")
            ends = {}
            for m in marks:
                if m.tag == _END:
                    ends.setdefault(m.get(_CHANGE_ID), m)
            for m in marks:
                if m.tag != _START or not _inside(m, root):
                    continue  # or cut with refused inserted text
                cid = m.get(_CHANGE_ID) or ""
                end = ends.pop(cid, None)
                if self.reject and self.regions.get(cid, ("",))[0] == "insertion":
                    if end is None or end.getparent() is None:
                        raise self._error(cid, "the end of the inserted text is missing")
                    self._unsert(m, end, cid)
                if _inside(m, root):
                    _drop(m)
                if end is not None and _inside(end, root):
                    _drop(end)
            for m in marks:
                if not _inside(m, root):
                    continue  # cut with refused inserted text
                cid = m.get(_CHANGE_ID) or ""
                if m.tag == _CHANGE and self.reject and cid not in self.restored and \
                        self.regions.get(cid, ("",))[0] == "deletion":
                    self.restored.add(cid)
                    self._restore(m, self.regions[cid][1], cid)
                _drop(m)
        else:
            if any(True for _ in root.iter(_CHANGE, _START, _END)):
                raise FormatError(self.path, "tracked changes nested too deep")
        return changed

    def _unsert(self, start, end, cid: str) -> None:
        """Refuse an insertion: the text between ``start`` and ``end`` goes; the paragraphs it
        split are one again (the first one's style kept)."""
        pa, pb = _para_of(start), _para_of(end)
        _cut_between(start, end)
        if pa is None or pb is None or pa is pb:
            return
        if pa.getparent() is not pb.getparent():
            raise self._error(cid, "the inserted text ends in another list, table or frame than it starts")
        if pb.text:
            _raw_text(pa, pb.text)
        for child in list(pb):
            pa.append(child)
        pb.getparent().remove(pb)

    def _restore(self, mark, deletion, cid: str) -> None:
        """Refuse a deletion: its content goes back where ``mark`` is."""
        content = [copy.deepcopy(c) for c in deletion if isinstance(c.tag, str) and c.tag != _CHANGE_INFO]
        if not content:
            return
        p = _para_of(mark)
        if p is None:  # between paragraphs: the deleted paragraphs, tables, lists come back as they were
            tail, mark.tail = mark.tail, None
            for el in content:
                mark.addprevious(el)
            mark.tail = tail
            return
        first, last = content[0], content[-1]
        if first.tag not in _PARA or last.tag not in _PARA:
            raise self._error(cid, "the deleted content is not paragraphs (a list or table inside a paragraph)")
        if len(content) == 1:
            _put_inline(mark, first)
            return
        if mark.getparent() is not p:
            raise self._error(cid, "the deletion spans paragraphs from inside formatted text or a link")
        # the paragraph splits at the mark: its head ends with the first deleted paragraph's text,
        # the last deleted paragraph (its style) goes on with the rest of it
        rest = etree.Element(last.tag, dict(last.attrib))
        rest.text = last.text
        for child in list(last):
            rest.append(child)
        if mark.tail:
            _raw_text(rest, mark.tail)
            mark.tail = None
        idx = p.index(mark)
        for child in list(p)[idx + 1:]:
            rest.append(child)
        _put_inline(mark, first)
        rest.tail = p.tail
        p.tail = None
        at = p
        for el in content[1:-1] + [rest]:
            at.addnext(el)
            at = el


def tracked_changes(path: str | Path) -> TrackedChanges:
    """How many tracked insertions and deletions an OpenDocument text has, for the editor to ask
    whether to accept or refuse them before the import.  Read through the same checked package and safe parser as the import; a member
    whose bytes hold no change element is not parsed.  Format changes do not count: both
    choices read the same text."""
    counts = {"insertions": 0, "deletions": 0}
    with Package(path) as pkg:
        if pkg.has("content.xml"):
            data = pkg.read("content.xml")
            if _CHANGE_BYTES.search(data):
                for kind, _ in _regions(pkg.xml("content.xml").getroot()).values():
                    if kind in ("insertion", "deletion"):
                        counts[kind + "s"] += 1
    return TrackedChanges(**counts)


def has_tracked_changes(path: str | Path) -> bool:
    """True when accepting or refusing the document's tracked changes reads different text."""
    return bool(tracked_changes(path))


def _resolved(pkg: Package, members: list[str], reject: bool) -> dict[str, tuple]:
    """member -> (its tree with the tracked changes resolved, True when that changed it)."""
    out = {}
    regions: dict = {}
    for member in members:  # content.xml first: it holds the change list
        tree = pkg.xml(member)
        changed = False
        if _CHANGE_BYTES.search(pkg.read(member)):
            regions.update(_regions(tree.getroot()))
            changed = _Resolver(pkg.path, regions, reject).resolve(tree.getroot())
        out[member] = (tree, changed)
    return out
