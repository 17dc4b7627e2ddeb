"""Writing a translated DOCX paragraph: its runs rebuilt from the paragraph's events
(:func:`engine.formats.package.events`), its ``w:pPr`` kept (see :mod:`engine.formats.docx`); and
which parts of the package hold text (:func:`_parts`), shared with the tracked-change count."""
from __future__ import annotations

import copy
import posixpath
import re

from lxml import etree

from engine.errors import FormatError
from engine.formats.package import Package, Paragraph, events

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
OFFICE_DOC = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
MC_FALLBACK = f"{{{MC}}}Fallback"
_SUB_PARTS = re.compile(r"(header\d*|footer\d*|footnotes|endnotes)\.xml$")


def w(name: str) -> str:
    return f"{{{W}}}{name}"


def _new_run(rpr, text_or_els) -> etree._Element:
    r = etree.Element(w("r"))
    if rpr is not None:
        r.append(copy.deepcopy(rpr))
    if isinstance(text_or_els, str):
        for piece in re.split(r"(\t|\n)", text_or_els):
            if piece == "\t":
                etree.SubElement(r, w("tab"))
            elif piece == "\n":
                etree.SubElement(r, w("br"))
            elif piece:
                t = etree.SubElement(r, w("t"))
                t.text = piece
                if piece != piece.strip() or "  " in piece:
                    t.set(XML_SPACE, "preserve")
    else:
        for el in text_or_els:
            c = copy.deepcopy(el)
            c.tail = None
            r.append(c)
    return r


def _payload_elements(payload) -> list:
    kind = payload[0]
    if kind == "run":
        return [_new_run(payload[1], payload[2])]
    if kind == "text":
        return [_new_run(payload[2], payload[1])]
    if kind == "para":
        c = copy.deepcopy(payload[1])
        c.tail = None
        return [c]
    if kind == "multi":
        out = []
        for p in payload[1]:
            out.extend(_payload_elements(p))
        return out
    return []


def rebuild(para: Paragraph, text: str, fmts: dict) -> None:
    """Replace the content of ``para.element`` (its ``w:pPr`` kept) by ``text``."""
    p = para.element
    new_children: list = []
    stack: list = []  # open containers

    def add(el) -> None:
        (stack[-1].append if stack else new_children.append)(el)

    for ev in events(para, text):
        if ev[0] == "text":
            add(_new_run(fmts.get(ev[2]), ev[1]))
            continue
        tok = ev[1]
        if ev[0] == "open" and tok.payload and tok.payload[0] == "container":
            src = tok.payload[1]
            c = etree.Element(src.tag, dict(src.attrib), nsmap=None)
            for child in src:
                if isinstance(child.tag, str) and child.tag.endswith("Pr"):
                    c.append(copy.deepcopy(child))
            add(c)
            stack.append(c)
        elif ev[0] == "close" and tok.payload and tok.payload[0] == "end":
            if stack:
                stack.pop()
        elif tok.payload:
            for el in _payload_elements(tok.payload):
                add(el)
    ppr = p.find(w("pPr"))
    for child in list(p):
        if child is not ppr:
            p.remove(child)
    for el in new_children:
        p.append(el)


def _main_part(pkg: Package) -> str:
    if pkg.has("_rels/.rels"):
        rels = pkg.xml("_rels/.rels").getroot()
        for rel in rels:
            if rel.get("Type") == OFFICE_DOC:
                return posixpath.normpath(rel.get("Target", "").lstrip("/"))
    return "word/document.xml"


def _parts(pkg: Package) -> list[str]:
    main = _main_part(pkg)
    if not pkg.has(main):
        raise FormatError(pkg.path, f"not a Word document: no main part {main!r}")
    folder = posixpath.dirname(main)
    others = sorted((n for n in pkg.names()
                     if posixpath.dirname(n) == folder and _SUB_PARTS.search(posixpath.basename(n))),
                    key=lambda n: (re.sub(r"\d+", "", n), int(re.sub(r"\D", "", posixpath.basename(n)) or 0)))
    return [main] + others
