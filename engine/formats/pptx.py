"""PowerPoint 2007+ presentations (PPTX): slides, notes, masters, charts, SmartArt, alt text.

Read with lxml from the package (python-pptx rewrites every part it saves and
reaches neither SmartArt nor chart text).  Order: the slides as
``p:sldIdLst`` lists them, each slide's own text, then its charts and
SmartArt in the order the slide refers to them, then its speaker notes; after
the slides, each slide master followed by its layouts.  In every part each
DrawingML paragraph (``a:p``: text boxes, placeholders, table cells, chart
titles, SmartArt nodes) and each shape's alt text (``descr`` of ``cNvPr``)
is read, in document order; see :mod:`engine.formats.drawingml` for the
paragraph's codes.  Segment keys: ``<part>:p<n>.s<k>`` and ``<part>:alt<n>.s<k>``.

SmartArt text is there twice: the diagram's data (``dgm:pt``, what PowerPoint
edits, read and translated) and the drawing PowerPoint rendered from it
(``dsp:sp``, what other readers show): a drawing paragraph with the same text
and codes as a translated data paragraph gets its translation too.  The
values cached in a chart's series (``c:strCache``) come from the chart's
embedded workbook and are left as they are.

Export rebuilds only the paragraphs with a translated sentence; every other
byte of each part, and every other member, stays as it was.
"""
from __future__ import annotations

from pathlib import Path

from engine.errors import FormatError
from engine.formats import drawingml
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.opc import rels
from engine.formats.package import (
    Package, apply_translations, is_zip, member_head, paragraph_text, segment_keys, unknown_keys, xml_bytes,
)

P = "http://schemas.openxmlformats.org/presentationml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_KINDS = {"chart": "chart", "diagramData": "SmartArt", "notesSlide": "notes"}


def _local(el) -> str:
    return el.tag.rsplit("}", 1)[-1] if isinstance(el.tag, str) else ""


def _main_part(pkg: Package) -> str:
    for _, (typ, target) in rels(pkg, "").items():
        if typ == "officeDocument":
            return target
    return "ppt/presentation.xml"


def _referenced(pkg: Package, part: str) -> list[tuple[str, str]]:
    """``(kind, part)`` of the charts and SmartArt data ``part`` refers to, in the order it does."""
    by_id = rels(pkg, part)
    out, seen = [], set()
    for el in pkg.xml(part).getroot().iter():
        for k, v in el.attrib.items():
            if k.startswith(f"{{{R}}}") and v in by_id and v not in seen:
                typ, target = by_id[v]
                if typ in ("chart", "diagramData") and pkg.has(target):
                    seen.add(v)
                    out.append((_KINDS[typ], target))
    return out


def parts(pkg: Package) -> list[tuple[str, str]]:
    """``(context, part)`` of every part read, in reading order (see the module doc)."""
    main = _main_part(pkg)
    if not pkg.has(main):
        raise FormatError(pkg.path, f"not a PowerPoint presentation: no main part {main!r}")
    root = pkg.xml(main).getroot()
    by_id = rels(pkg, main)
    out: list[tuple[str, str]] = []

    def ids(list_name: str) -> list[str]:
        lst = root.find(f"{{{P}}}{list_name}")
        return [] if lst is None else [el.get(f"{{{R}}}id", "") for el in lst]

    for n, rid in enumerate(ids("sldIdLst"), 1):
        slide = by_id.get(rid, ("", ""))[1]
        if not pkg.has(slide):
            continue
        out.append((f"slide {n}", slide))
        out.extend((f"{kind}, slide {n}", target) for kind, target in _referenced(pkg, slide))
        notes = [t for typ, t in rels(pkg, slide).values() if typ == "notesSlide" and pkg.has(t)]
        out.extend((f"notes, slide {n}", t) for t in notes[:1])
    for m, rid in enumerate(ids("sldMasterIdLst"), 1):
        master = by_id.get(rid, ("", ""))[1]
        if not pkg.has(master):
            continue
        out.append((f"master {m}", master))
        mrels = rels(pkg, master)
        lst = pkg.xml(master).getroot().find(f"{{{P}}}sldLayoutIdLst")
        layouts = [] if lst is None else [mrels.get(el.get(f"{{{R}}}id", ""), ("", ""))[1] for el in lst]
        out.extend((f"layout {k}, master {m}", t) for k, t in enumerate(layouts, 1) if pkg.has(t))
    seen: set[str] = set()
    return [(c, p) for c, p in out if not (p in seen or seen.add(p))]


def _units(tree, lang: str, part: str):
    """``(prefix, paragraph, rebuild)`` of each paragraph and alt text of a part, in document order."""
    ex = drawingml.Extractor()
    out = []
    np = nalt = 0
    for el in tree.getroot().iter(drawingml.a("p"), "{*}cNvPr"):
        if el.tag == drawingml.a("p"):
            np += 1
            para = ex.paragraph(el)
            paragraph_text(para, lang)
            out.append((f"{part}:p{np}", para, lambda pa, text: drawingml.rebuild(pa, text, ex.fmts)))
        elif el.get("descr", "").strip():
            nalt += 1
            alt = drawingml.AltText(el, "descr")
            para = alt.paragraph()
            paragraph_text(para, lang)
            out.append((f"{part}:alt{nalt}", para, lambda pa, text, alt=alt: alt.rebuild(pa, text)))
    return out


def _drawing_of(pkg: Package, data_part: str, owner: str) -> str | None:
    """The SmartArt drawing PowerPoint rendered from ``data_part`` (``dsp:dataModelExt relId`` names
    it among the slide's relationships)."""
    owner_rels = rels(pkg, owner)
    for el in pkg.xml(data_part).getroot().iter("{*}dataModelExt"):
        typ, target = owner_rels.get(el.get("relId", ""), ("", ""))
        if typ == "diagramDrawing" and pkg.has(target):
            return target
    return None


class PptxFormat:
    name = "pptx"
    extensions = (".pptx", ".pptm", ".potx", ".ppsx")

    def sniff(self, path: Path, head: bytes) -> bool:
        if not is_zip(head):
            return False
        if b"ppt/" in head:
            return True
        ct = member_head(path, "[Content_Types].xml", 65536) or b""
        return b"presentationml" in ct or (not ct and Path(path).suffix.lower() in self.extensions)

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        path = Path(path)
        doc = ParsedDocument(path=str(path), format=self.name, src_lang=src_lang, tgt_lang=tgt_lang)
        with Package(path) as pkg:
            for context, part in parts(pkg):
                for prefix, para, _ in _units(pkg.xml(part), src_lang, part):
                    for key, src in zip(segment_keys(prefix, para), para.sentences):
                        doc.segments.append(ParsedSegment(key=key, source=src, context=context))
        if not doc.segments:
            doc.problems.append("no translatable text found")
        return doc

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "", src_lang: str = "") -> None:
        original = Path(original)
        replaced: dict[str, bytes] = {}
        known: set[str] = set()
        owner = ""
        with Package(original) as pkg:
            for context, part in parts(pkg):
                if context.startswith(("slide ", "master ", "layout ")):
                    owner = part
                tree = pkg.xml(part)
                done: dict[tuple, str] = {}
                for prefix, para, rebuild in _units(tree, src_lang, part):
                    known.update(segment_keys(prefix, para))
                    text = apply_translations(para, prefix, translations)
                    if text is not None:
                        done.setdefault(drawingml.signature(para), text)
                        rebuild(para, text)
                if not done:
                    continue
                replaced[part] = xml_bytes(tree)
                drawing = _drawing_of(pkg, part, owner) if context.startswith("SmartArt") else None
                if drawing:
                    dtree = pkg.xml(drawing)
                    for _, para, rebuild in _units(dtree, src_lang, drawing):
                        if drawingml.signature(para) in done:
                            rebuild(para, done[drawingml.signature(para)])
                    replaced[drawing] = xml_bytes(dtree)
            unknown_keys(original, translations, known)
            pkg.write(out, replaced)


FORMAT = PptxFormat()
