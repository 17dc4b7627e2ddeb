"""Comments written into an exported XLIFF file as notes of the segment's unit.

XLIFF 1.2: ``<note from="AUTHOR">text</note>`` in the ``<trans-unit>``, after its last note (or
after ``<target>``, ``<seg-source>``, ``<source>``: where the schema allows notes).  XLIFF 2.0:
``<note category="comment">text</note>`` in the unit's ``<notes>``, made when the unit has none
(before ``<originalData>`` and the segments, after any module elements).  A note belongs to a
unit, so the comments of several segments of one unit are notes of that unit.  The notes are
spliced into the file's bytes (:class:`engine.formats.xmlsplice.Splice`): nothing but the
commented units changes.
"""
from __future__ import annotations

from pathlib import Path

from lxml import etree

from engine.formats.comments_export import ExportComment
from engine.formats.xliffcommon import write_tree
from engine.formats.xmlsplice import Splice


def write_notes(out: Path, format: str, comments: dict[str, list[ExportComment]]) -> None:
    """Add ``comments`` (by segment key) to the XLIFF file ``out`` (``format``: xliff12 or xliff20)."""
    if format == "xliff20":
        from engine.formats.xliff20 import NS, _Doc as Doc20

        doc, ns = Doc20(out), NS
    else:
        from engine.formats.xliff12_doc import Doc as Doc12

        doc = Doc12(out)
        ns = doc.ns
    by_unit: dict[int, tuple] = {}
    for site in doc.sites:
        for c in comments.get(site.key, ()):
            by_unit.setdefault(id(site.unit), (site.unit, []))[1].append(c)
    if not by_unit:
        return
    units = [u for u, _ in by_unit.values()]
    sp = Splice(out, doc.tree, units)
    for unit, cs in by_unit.values():
        if format == "xliff20":
            _notes20(unit, cs, ns, sp)
        else:
            _notes12(unit, cs, ns, sp)
    sp.write(out, lambda: write_tree(doc.tree, out, out))


def _q(ns: str, name: str) -> str:
    return f"{{{ns}}}{name}" if ns else name


def _note(ns: str, c: ExportComment, **attrs) -> etree._Element:
    el = etree.Element(_q(ns, "note"), **attrs)
    el.text = c.text
    return el


def _insert_after(parent, ref, new, sp: Splice) -> None:
    """``new`` right after ``ref`` in the tree, and in the file with the indentation before ``ref``."""
    idx = list(parent).index(ref)
    new.tail = ref.tail
    parent.insert(idx + 1, new)
    sp.inserted(ref, new)


def _notes12(unit, cs: list[ExportComment], ns: str, sp: Splice) -> None:
    after = None
    for name in ("source", "seg-source", "target"):
        el = unit.find(_q(ns, name))
        if el is not None:
            after = el
    notes = unit.findall(_q(ns, "note"))
    if notes:
        after = notes[-1]
    for c in cs:
        new = _note(ns, c, **({"from": c.author} if c.author else {}))
        if after is None:  # a unit without <source> has no segments: not reached
            return
        _insert_after(unit, after, new, sp)
        after = new


def _notes20(unit, cs: list[ExportComment], ns: str, sp: Splice) -> None:
    notes = unit.find(_q(ns, "notes"))
    if notes is not None:
        after = notes.findall(_q(ns, "note"))
        if after:
            ref = after[-1]
            for c in cs:
                new = _note(ns, c, category="comment")
                _insert_after(notes, ref, new, sp)
                ref = new
            return
    if notes is None:
        notes = etree.Element(_q(ns, "notes"))
        others = [el for el in unit if isinstance(el.tag, str) and etree.QName(el).namespace != ns]
        if others:
            _insert_after(unit, others[-1], notes, sp)
        else:
            unit.insert(0, notes)
            notes.tail = unit.text
            sp.content(unit)
    else:
        sp.content(notes)
    indent = (notes.tail or "\n") + "  "
    notes.text = indent
    for i, c in enumerate(cs):
        new = _note(ns, c, category="comment")
        new.tail = indent if i < len(cs) - 1 else (notes.tail or "\n")
        notes.append(new)
