"""DrawingML text (``a:p``): the paragraphs of PowerPoint slides, charts and SmartArt.

A paragraph is ``a:pPr?, (a:r | a:br | a:fld)*, a:endParaRPr?``.  A run's
``a:rPr`` is its formatting key, less the attributes nobody sees (``lang``,
``altLang``, ``dirty``, ``err``, ``noProof``, ``smtClean``, ``smtId``, ``bmk``):
PowerPoint splits runs on a spelling check or a language switch, and those
runs merge.  A line break, a field (slide number, date: its text is the
field's own) and anything else in the paragraph are standalone codes.

:func:`rebuild` writes a translated paragraph back: ``a:pPr`` and
``a:endParaRPr`` kept, the runs made anew from the events of
:func:`engine.formats.package.events`.  :class:`AltText` does the same for an
attribute (``descr``, a picture's alt text): plain text, no codes.
"""
from __future__ import annotations

import copy

from lxml import etree

from engine.formats.package import Paragraph, Token, events

A = "http://schemas.openxmlformats.org/drawingml/2006/main"
_P, _R, _BR, _FLD = f"{{{A}}}p", f"{{{A}}}r", f"{{{A}}}br", f"{{{A}}}fld"
_RPR, _T, _PPR, _END = f"{{{A}}}rPr", f"{{{A}}}t", f"{{{A}}}pPr", f"{{{A}}}endParaRPr"
_INVISIBLE = {"lang", "altLang", "dirty", "err", "noProof", "smtClean", "smtId", "bmk"}


def a(name: str) -> str:
    return f"{{{A}}}{name}"


def _local(el) -> str:
    return el.tag.rsplit("}", 1)[-1] if isinstance(el.tag, str) else ""


def fmt_key(rpr) -> str:
    """The visible formatting of an ``a:rPr`` as a string (``""`` for none)."""
    if rpr is None:
        return ""
    c = copy.deepcopy(rpr)
    for name in _INVISIBLE:
        c.attrib.pop(name, None)
    if not len(c) and not c.attrib:
        return ""
    return etree.tostring(c, method="c14n").decode()


class Extractor:
    """Turns ``a:p`` elements into :class:`Paragraph` tokens; ``fmts`` keeps one ``a:rPr`` per key."""

    def __init__(self) -> None:
        self.fmts: dict[str, object] = {}

    def paragraph(self, p) -> Paragraph:
        tokens: list[Token] = []
        for el in p:
            tag = el.tag
            if not isinstance(tag, str) or tag in (_PPR, _END):
                continue
            if tag == _R:
                rpr = el.find(_RPR)
                key = fmt_key(rpr)
                self.fmts.setdefault(key, rpr)
                text = "".join(t.text or "" for t in el.iter(_T))
                if not text:
                    continue
                if tokens and tokens[-1].kind == "text" and tokens[-1].fmt == key:
                    tokens[-1].text += text
                else:
                    tokens.append(Token("text", text=text, fmt=key))
            else:
                label = {"br": "br", "fld": "field"}.get(_local(el), _local(el)[:8] or "code")
                tokens.append(Token("ph", payload=el, label=label))
        return Paragraph(p, tokens)


def rebuild(para: Paragraph, text: str, fmts: dict) -> None:
    """Replace the runs of ``para.element`` by ``text`` (paragraph-level code numbers)."""
    p = para.element
    ppr, end = p.find(_PPR), p.find(_END)
    runs = []
    for ev in events(para, text):
        if ev[0] == "text":
            r = etree.Element(_R)
            rpr = fmts.get(ev[2])
            if rpr is not None:
                r.append(copy.deepcopy(rpr))
            etree.SubElement(r, _T).text = ev[1]
            runs.append(r)
        elif ev[0] == "ph" and isinstance(ev[1].payload, etree._Element):
            c = copy.deepcopy(ev[1].payload)
            c.tail = None
            runs.append(c)
    for child in list(p):
        if child is not ppr and child is not end:
            p.remove(child)
    at = 1 if ppr is not None else 0
    for i, r in enumerate(runs):
        p.insert(at + i, r)


class AltText:
    """An attribute read as one paragraph of plain text (a shape's ``descr``)."""

    def __init__(self, element, attr: str):
        self.element, self.attr = element, attr

    def paragraph(self) -> Paragraph:
        return Paragraph(self, [Token("text", text=self.element.get(self.attr, ""))])

    def rebuild(self, para: Paragraph, text: str) -> None:
        self.element.set(self.attr, "".join(ev[1] for ev in events(para, text) if ev[0] == "text"))


def signature(para: Paragraph) -> tuple:
    """What two copies of a paragraph share when they are the same text with the same codes."""
    return para.text.text, tuple((t.kind, t.label) for t in para.text.tags)
