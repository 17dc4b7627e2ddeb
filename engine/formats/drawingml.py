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

:func:`read_part` and :func:`write_part` read and translate a whole part (a
slide, a chart, a SmartArt's data, a sheet's drawing): each ``a:p`` and each
``descr`` in document order, keys ``<part>:p<n>.s<k>`` and ``<part>:alt<n>.s<k>``.
SmartArt text is there twice: the diagram's data (read and translated) and
the drawing rendered from it, whose paragraphs with the same text and codes
as a translated data paragraph get its translation too.
"""
from __future__ import annotations

import copy

from lxml import etree

from engine.formats.opc import rels
from engine.formats.package import (
    Package, Paragraph, Token, apply_translations, events, paragraph_text, segment_keys,
)
from engine.formats.partsplice import PartSplice, part_keys

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


R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_KINDS = {"chart": "chart", "diagramData": "SmartArt"}


def referenced(pkg: Package, part: str) -> list[tuple[str, str]]:
    """``(kind, part)`` of the charts and SmartArt data ``part`` refers to, in the order it does."""
    by_id = rels(pkg, part)
    out, seen = [], set()
    for el in pkg.xml(part).getroot().iter():
        for k, v in el.attrib.items():
            if k.startswith(f"{{{R}}}") and v in by_id and v not in seen:
                typ, target = by_id[v]
                if typ in _KINDS and pkg.has(target):
                    seen.add(v)
                    out.append((_KINDS[typ], target))
    return out


def _units(tree, lang: str, part: str, fallback: bool = False):
    """``(prefix, paragraph, rebuild)`` of each paragraph and alt text of a part, in document order.
    A shape written twice, for newer readers (``mc:Choice``) and for older ones (``mc:Fallback``), is
    read once, from the Choice; ``fallback``: the Fallback copies' instead (no keys)."""
    ex = Extractor()
    out = []
    np = nalt = 0
    for el in tree.getroot().iter(_P, "{*}cNvPr"):
        if any(x.tag == MC_FALLBACK for x in el.iterancestors()) != fallback:
            continue
        if el.tag == _P:
            np += 1
            para = ex.paragraph(el)
            paragraph_text(para, lang)
            out.append((f"{part}:p{np}", para, lambda pa, text: rebuild(pa, text, ex.fmts)))
        elif el.get("descr", "").strip():
            nalt += 1
            alt = AltText(el, "descr")
            para = alt.paragraph()
            paragraph_text(para, lang)
            out.append((f"{part}:alt{nalt}", para, lambda pa, text, alt=alt: alt.rebuild(pa, text)))
    return out


def read_part(pkg: Package, part: str, lang: str):
    """``(key, source)`` of each segment of ``part``."""
    for prefix, para, _ in _units(pkg.xml(part), lang, part):
        yield from zip(segment_keys(prefix, para), para.sentences)


def _drawing_of(pkg: Package, data_part: str, owner: str) -> str | None:
    """The SmartArt drawing rendered from ``data_part`` (``dsp:dataModelExt relId`` names it among
    the relationships of ``owner``, the part showing the SmartArt)."""
    owner_rels = rels(pkg, owner)
    for el in pkg.xml(data_part).getroot().iter("{*}dataModelExt"):
        typ, target = owner_rels.get(el.get("relId", ""), ("", ""))
        if typ == "diagramDrawing" and pkg.has(target):
            return target
    return None


def _edit(splice: PartSplice, para: Paragraph) -> None:
    el = para.element
    if isinstance(el, AltText):
        splice.edit_attrs(el.element)
    else:
        splice.edit(el)


def write_part(pkg: Package, part: str, lang: str, translations: dict, known: set, replaced: dict,
               smartart_owner: str | None = None) -> None:
    """Translate ``part`` into ``replaced`` (its new bytes, when a paragraph changed: each edited
    paragraph spliced into the original bytes); ``known`` gets its keys.  ``smartart_owner``: for a
    SmartArt's data, the part showing it (its drawing follows)."""
    if part not in part_keys(translations):
        return
    splice = PartSplice(pkg, part)
    done: dict[tuple, str] = {}
    for prefix, para, rebuild_unit in _units(splice.tree, lang, part):
        known.update(segment_keys(prefix, para))
        text = apply_translations(para, prefix, translations)
        if text is not None:
            done.setdefault(signature(para), text)
            _edit(splice, para)
            rebuild_unit(para, text)
    if not done:
        return
    for _, para, rebuild_unit in _units(splice.tree, lang, part, fallback=True):  # the copies for older readers
        if signature(para) in done:
            _edit(splice, para)
            rebuild_unit(para, done[signature(para)])
    replaced[part] = splice.data()
    drawing = _drawing_of(pkg, part, smartart_owner) if smartart_owner else None
    if drawing:
        dsplice = PartSplice(pkg, drawing)
        for _, para, rebuild_unit in _units(dsplice.tree, lang, drawing):
            if signature(para) in done:
                _edit(dsplice, para)
                rebuild_unit(para, done[signature(para)])
        replaced[drawing] = dsplice.data()
