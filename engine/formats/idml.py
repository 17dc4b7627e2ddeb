"""InDesign Markup Language packages (IDML): stories in document order.

An IDML is a zip of XML parts: ``designmap.xml`` lists the spreads, master
spreads and stories; a spread's text frames name the story they show
(``ParentStory``).  Order: the stories as the spreads show them (spreads in
``designmap.xml`` order, frames in each spread's order, a story threaded
through several frames once), then those on master spreads, then the stories
no frame shows, in ``designmap.xml`` order.  Read with lxml (no maintained
Python library reads IDML stories).

In a story, ``ParagraphStyleRange`` holds ``CharacterStyleRange`` elements
whose ``Content`` is the text; a paragraph ends at ``Br``.  A character style
range whose style or local formatting differs from the paragraph's most
common one becomes a pair of codes (as a DOCX run); ranges that differ in
nothing merge.  A hyperlink (``HyperlinkTextSource``) and an XML tag
(``XMLElement``, around text or around ranges) and a tracked insertion
(``Change``, text inserted: read as accepted) are a pair of codes around
their text (tracked deleted text is a code); an XML tag holding whole paragraphs holds them as a paragraph
style range does (its end ends a paragraph); tables, footnotes, anchored frames, notes, tracked changes
and special characters (``<?ACE n?>``) are standalone codes.  The paragraphs
of a table cell or a footnote are read after the paragraph holding it; an
editor's note (``Note``) is a code, its text not read.
Segment keys: ``<story part>:p<n>.s<k>``.

Export rebuilds only the paragraphs with a translated sentence (their style
ranges split at paragraph ends first: the same formatting in more ranges);
every other byte of each part, and every other member, stays as it was.
"""
from __future__ import annotations

from pathlib import Path

from engine.errors import FormatError
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.idml_story import Extractor, local, normalise, paragraphs, rebuild, split, story_psrs
from engine.formats.package import (
    Package, apply_translations, is_zip, paragraph_text, segment_keys, unknown_keys,
)
from engine.formats.partsplice import PartSplice, part_keys

MIMETYPE = b"application/vnd.adobe.indesign-idml-package"


def stories(pkg: Package) -> list[tuple[str, str]]:
    """``(context, story part)`` in reading order (see the module doc)."""
    if not pkg.has("designmap.xml"):
        raise FormatError(pkg.path, "not an InDesign IDML package: no designmap.xml")
    dm = pkg.xml("designmap.xml").getroot()
    src = [(local(el), el.get("src", "")) for el in dm if el.get("src")]
    by_id = {}
    for kind, part in src:
        if kind == "Story" and pkg.has(part):
            story = pkg.xml(part).getroot().find("Story")
            by_id[story.get("Self") if story is not None else part] = part
    out, seen = [], set()
    for kinds, label in ((("Spread",), "spread"), (("MasterSpread",), "master spread")):
        n = 0
        for kind, part in src:
            if kind not in kinds or not pkg.has(part):
                continue
            n += 1
            for el in pkg.xml(part).getroot().iter():
                sid = el.get("ParentStory")
                if sid in by_id and sid not in seen:
                    seen.add(sid)
                    out.append((f"{label} {n}", by_id[sid]))
    out.extend(("story not on a spread", part) for sid, part in by_id.items() if sid not in seen)
    return out


class IdmlFormat:
    name = "idml"
    extensions = (".idml",)

    def sniff(self, path: Path, head: bytes) -> bool:
        return is_zip(head) and (MIMETYPE in head or b"designmap.xml" in head)

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        path = Path(path)
        doc = ParsedDocument(path=str(path), format=self.name, src_lang=src_lang, tgt_lang=tgt_lang)
        with Package(path) as pkg:
            for context, part in stories(pkg):
                paras = paragraphs(story_psrs(pkg.xml(part).getroot()), Extractor(), src_lang)
                for n, para in enumerate(paras, 1):
                    for key, src in zip(segment_keys(f"{part}:p{n}", para), para.sentences):
                        doc.segments.append(ParsedSegment(key=key, source=src, context=context))
        if not doc.segments:
            doc.problems.append("no translatable text found")
        return doc

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "", src_lang: str = "") -> None:
        original = Path(original)
        replaced: dict[str, bytes] = {}
        known: set[str] = set()
        with Package(original) as pkg:
            for _, part in stories(pkg):
                if part not in part_keys(translations):
                    continue  # untouched: copied
                splice = PartSplice(pkg, part)
                tree = splice.tree
                ex = Extractor()
                todo: dict = {}  # psr -> {paragraph index in its psr: translated text}, in reading order
                index_in_psr: dict = {}
                for n, para in enumerate(paragraphs(story_psrs(tree.getroot()), ex, src_lang), 1):
                    psr = para.top
                    i = index_in_psr[psr] = index_in_psr.get(psr, -1) + 1
                    prefix = f"{part}:p{n}"
                    known.update(segment_keys(prefix, para))
                    text = apply_translations(para, prefix, translations)
                    todo.setdefault(psr, {})
                    if text is not None:
                        todo[psr][i] = text
                for psr, texts in reversed(list(todo.items())):  # table cells before the paragraph holding them
                    if not texts:
                        continue
                    splice.edit(psr)
                    normalise(psr)
                    ex2 = Extractor()
                    paras = [ex2.paragraph(raw) for raw in split(psr)]
                    for i, text in texts.items():
                        paragraph_text(paras[i], src_lang)
                        rebuild(paras[i], text, ex2.fmts)
                if splice.changed:
                    replaced[part] = splice.data()
            unknown_keys(original, translations, known)
            pkg.write(out, replaced)


FORMAT = IdmlFormat()
