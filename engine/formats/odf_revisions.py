"""A reviewer's tracked changes in an OpenDocument text: ODF 1.2 section 5.5, as LibreOffice writes
an edit with Edit ▸ Track Changes ▸ Record on.

The paragraph comes rebuilt with its changes marked (:mod:`engine.formats.revmarks`); :func:`mark`
cuts the marked text out of the paragraph's text and tails: a deletion leaves ``<text:change
text:change-id=ID/>`` where its text stood, the text moving into a ``<text:changed-region
text:id=ID><text:deletion><office:change-info>`` (``dc:creator``, ``dc:date`` UTC) ``<text:p>``;
an insertion stays, between ``<text:change-start>`` and ``<text:change-end>`` of a region holding a
``<text:insertion>``.  :func:`add_regions` puts the regions in the body's ``<text:tracked-changes>``
(made first in ``<office:text>``, after any ``<office:forms>``, when missing).  A part without
``<office:text>`` (styles, a spreadsheet, a presentation) gets the changes accepted: the edited
text, marks removed.
"""
from __future__ import annotations

import uuid

from lxml import etree

from engine.formats.odf_changes import OFFICE, TEXT
from engine.formats.revmarks import DEL_END, DEL_START, INS_END, INS_START, MARK

DC = "http://purl.org/dc/elements/1.1/"


def _t(name: str) -> str:
    return f"{{{TEXT}}}{name}"


def mark(p, who: tuple[str, str] | None, regions: list | None) -> None:
    """Turn the marked pieces of paragraph ``p`` into tracked changes, their regions appended to
    ``regions`` (None: a part without a text body -- the marks are just removed, the deletions
    with them)."""
    if who is None:
        return
    slots = []

    def walk(el) -> None:
        slots.append((el, "text"))
        for c in el:
            walk(c)
            slots.append((c, "tail"))
    walk(p)
    state = {"mode": "", "id": "", "deleted": []}
    for el, attr in slots:
        s = getattr(el, attr)
        if not s or (not MARK.search(s) and state["mode"] != "del"):
            continue
        keep, new = [], []  # text kept before the first new element; (element, the text after it)
        for piece in MARK.split(s):
            if piece == DEL_START or piece == INS_START:
                state.update(mode="del" if piece == DEL_START else "ins", id=f"ct{uuid.uuid4().hex}", deleted=[])
                if regions is not None:
                    name = "change" if piece == DEL_START else "change-start"
                    new.append([etree.Element(_t(name), {_t("change-id"): state["id"]}), ""])
            elif piece == DEL_END or piece == INS_END:
                if regions is not None:
                    kind = "deletion" if piece == DEL_END else "insertion"
                    regions.append((state["id"], kind, who, "".join(state["deleted"])))
                    if piece == INS_END:
                        new.append([etree.Element(_t("change-end"), {_t("change-id"): state["id"]}), ""])
                state["mode"] = ""
            elif state["mode"] == "del":
                state["deleted"].append(piece)
            elif new:
                new[-1][1] += piece
            else:
                keep.append(piece)
        setattr(el, attr, "".join(keep) or None)
        parent, at = (el, 0) if attr == "text" else (el.getparent(), el.getparent().index(el) + 1)
        for child, tail in new:
            child.tail = tail or None
            parent.insert(at, child)
            at += 1


def body_of(tree):
    """The ``<office:text>`` of a content part, or None."""
    return tree.getroot().find(f"{{{OFFICE}}}body/{{{OFFICE}}}text")


def add_regions(splice, body, regions: list) -> None:
    """The regions in ``body``'s ``<text:tracked-changes>`` (see the module doc)."""
    if not regions:
        return
    tracked = body.find(_t("tracked-changes"))
    made = tracked is None
    if made:
        tracked = etree.Element(_t("tracked-changes"))
    else:
        splice.edit(tracked)
    for rid, kind, (author, date), deleted in regions:
        region = etree.SubElement(tracked, _t("changed-region"), {_t("id"): rid})
        change = etree.SubElement(region, _t(kind))
        info = etree.SubElement(change, f"{{{OFFICE}}}change-info")
        etree.SubElement(info, f"{{{DC}}}creator").text = author
        etree.SubElement(info, f"{{{DC}}}date").text = date.replace("+00:00", "Z")
        if kind == "deletion":
            etree.SubElement(change, _t("p")).text = deleted
    if made:
        forms = body.find(f"{{{OFFICE}}}forms")
        if forms is not None:
            splice.insert_after(forms, tracked)
            forms.addnext(tracked)
        else:
            splice.prepend(body, tracked)
            tracked.tail = body.text
            body.insert(0, tracked)
