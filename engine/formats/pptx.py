"""PowerPoint 2007+ presentations (PPTX): slides, notes, masters, charts, SmartArt, alt text.

Read with lxml from the package (python-pptx rewrites every part it saves and
reaches neither SmartArt nor chart text).  Order: the slides as
``p:sldIdLst`` lists them, each slide's own text, then its charts and
SmartArt in the order the slide refers to them, then its speaker notes; after
the slides, each slide master followed by its layouts.  A hidden slide is read
(its context says so).  After its notes come the slide's reviewer comments
(see :mod:`engine.formats.pptx_comments`).  In every part each
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
from engine.formats import drawingml, pptx_comments
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.opc import rels, sniff_ooxml
from engine.formats.package import Package, unknown_keys

P = "http://schemas.openxmlformats.org/presentationml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def _main_part(pkg: Package) -> str:
    for _, (typ, target) in rels(pkg, "").items():
        if typ == "officeDocument":
            return target
    return "ppt/presentation.xml"


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
        hidden = pkg.xml(slide).getroot().get("show") in ("0", "false")
        out.append((f"slide {n}" + (" (hidden)" if hidden else ""), slide))
        out.extend((f"{kind}, slide {n}", target) for kind, target in drawingml.referenced(pkg, slide))
        notes = [t for typ, t in rels(pkg, slide).values() if typ == "notesSlide" and pkg.has(t)]
        out.extend((f"notes, slide {n}", t) for t in notes[:1])
        out.extend((f"comment, slide {n}", t) for t in pptx_comments.slide_parts(pkg, slide))
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


class PptxFormat:
    name = "pptx"
    extensions = (".pptx", ".pptm", ".potx", ".ppsx")

    def sniff(self, path: Path, head: bytes) -> bool:
        return sniff_ooxml(path, head, b"ppt/", b"presentationml", self.extensions)

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        path = Path(path)
        doc = ParsedDocument(path=str(path), format=self.name, src_lang=src_lang, tgt_lang=tgt_lang)
        with Package(path) as pkg:
            people = pptx_comments.authors(pkg, _main_part(pkg))
            for context, part in parts(pkg):
                if context.startswith("comment, "):
                    doc.segments.extend(ParsedSegment(key=key, source=src, context=context, note=note)
                                        for key, src, note in pptx_comments.read_part(pkg, part, src_lang, people))
                    continue
                for key, src in drawingml.read_part(pkg, part, src_lang):
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
                if context.startswith("comment, "):
                    pptx_comments.write_part(pkg, part, src_lang, translations, known, replaced)
                    continue
                if context.startswith(("slide ", "master ", "layout ")):
                    owner = part
                drawingml.write_part(pkg, part, src_lang, translations, known, replaced,
                                     smartart_owner=owner if context.startswith("SmartArt") else None)
            unknown_keys(original, translations, known)
            pkg.write(out, replaced)


FORMAT = PptxFormat()
