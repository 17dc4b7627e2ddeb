"""Tracked changes in DOCX: counting a received document's (:func:`tracked_changes`), and writing a
reviewer's as Word revisions.

A target handed over with revision tags (:mod:`engine.review.export`) is written as the paragraph's
text with its changes marked (:mod:`engine.formats.revmarks`); once the paragraph's runs are rebuilt,
:func:`rebuild_marked` cuts the runs at the marks and wraps the pieces in ``<w:del>`` (its text as
``w:delText``) and ``<w:ins>``, each with ``w:id`` (after the part's largest), ``w:author`` and
``w:date`` (UTC, ISO 8601) -- what Word writes for an edit with Track Changes on.  Accept All gives
the edited text, Reject All the text as it was.
"""
from __future__ import annotations

import copy
import re
from pathlib import Path

from lxml import etree

from engine.formats.docx_build import MC_FALLBACK, XML_SPACE, _parts, rebuild, w
from engine.formats.package import Package
from engine.formats.revmarks import DEL_END, DEL_START, INS_END, INS_START, with_sentinels  # noqa: F401
from engine.formats.revmarks import MARK as _MARK
from engine.formats.revmarks import TrackedChanges

_CHANGE_BYTES = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?(?:ins|del|moveFrom|moveTo)[\s/>]")
_TEXT_CHANGES = {w("ins"): "insertions", w("moveTo"): "insertions", w("del"): "deletions",
                 w("moveFrom"): "deletions"}


def tracked_changes(path: str | Path) -> TrackedChanges:
    """How many tracked insertions and deletions of text the document has, for the editor to ask
    whether to accept or refuse them before the import.  Read through the same checked package and safe parser as the import; a part
    whose bytes hold no change element is not parsed.  Changes that touch no text (a
    paragraph mark, formatting, a table cell) do not count: both choices read the same text."""
    counts = {"insertions": 0, "deletions": 0}
    with Package(path) as pkg:
        for part in _parts(pkg):
            if not _CHANGE_BYTES.search(pkg.read(part)):
                continue
            for el in pkg.xml(part).getroot().iter(*_TEXT_CHANGES):
                parent = el.getparent()
                if parent is None or parent.tag == w("rPr") or any(
                        a.tag == MC_FALLBACK for a in el.iterancestors()):
                    continue
                counts[_TEXT_CHANGES[el.tag]] += 1
    return TrackedChanges(**counts)


def has_tracked_changes(path: str | Path) -> bool:
    """True when accepting or refusing the document's tracked changes reads different text."""
    return bool(tracked_changes(path))


def rebuild_marked(para, text: str, fmts: dict, mark: tuple[str, str] | None) -> None:
    """:func:`~engine.formats.docx_build.rebuild`, then the marked pieces as Word revisions signed
    ``mark`` (author, ISO UTC date; None: a paragraph without tracked changes)."""
    rebuild(para, text, fmts)
    if mark is not None and _MARK.search(text):
        _wrap(para.element, mark[0], mark[1].replace("+00:00", "Z"))


def _wrap(p, author: str, date: str) -> None:
    root = p.getroottree().getroot()
    ids = [int(v) for v in (el.get(w("id")) for el in root.iter()) if v and v.isdigit()]
    next_id = [max(ids, default=0) + 1]
    mode = ""
    for run in list(p.iter(w("r"))):
        rpr = run.find(w("rPr"))
        pieces: list[tuple[str, object]] = []
        touched = bool(mode)
        for child in [c for c in run if c is not rpr]:
            if child.tag != w("t"):
                pieces.append((mode, child))
                continue
            for part in _MARK.split(child.text or ""):
                if part in (DEL_START, INS_START):
                    mode, touched = ("del" if part == DEL_START else "ins"), True
                elif part in (DEL_END, INS_END):
                    mode, touched = "", True
                elif part:
                    pieces.append((mode, part))
        if not touched:
            continue
        parent, at = run.getparent(), run.getparent().index(run)
        parent.remove(run)
        for kind, group in _groups(pieces):
            r = etree.Element(w("r"))
            if rpr is not None:
                r.append(copy.deepcopy(rpr))
            for item in group:
                if isinstance(item, str):
                    t = etree.SubElement(r, w("delText" if kind == "del" else "t"))
                    t.text = item
                    t.set(XML_SPACE, "preserve")
                else:
                    r.append(item)
            node = r
            if kind:
                node = etree.Element(w(kind), {w("id"): str(next_id[0]), w("author"): author, w("date"): date})
                next_id[0] += 1
                node.append(r)
            parent.insert(at, node)
            at += 1


def _groups(pieces):
    out: list[tuple[str, list]] = []
    for kind, item in pieces:
        if out and out[-1][0] == kind:
            out[-1][1].append(item)
        else:
            out.append((kind, [item]))
    return out
