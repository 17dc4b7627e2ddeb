"""PowerPoint reviewer comments on a slide: the legacy list and the modern threads.

A slide relates its comments part (``comments`` relationship, either namespace):

* legacy (PowerPoint 2007-2019, LibreOffice): ``p:cmLst`` of ``p:cm``, each
  with its plain ``p:text`` and an ``authorId`` among the ``p:cmAuthor`` of
  ``ppt/commentAuthors.xml``.  Keys ``<part>:c<n>.s<k>``.
* modern (PowerPoint 365): ``p188:cmLst`` of ``p188:cm``, each with its
  DrawingML ``p188:txBody`` and its replies (``p188:replyLst``), authors'
  ``p188:author`` in ``ppt/authors.xml``.  Read in thread order: a comment,
  then its replies (the part lists the replies first).  Each ``a:p`` is a
  paragraph with the codes of :mod:`engine.formats.drawingml`.  Keys
  ``<part>:c<n>.p<m>.s<k>``, ``n`` counting comments and replies.

Notes: "comment by NAME", "reply by NAME" ("comment"/"reply" when the author is
not in the list).  Export rebuilds only the translated texts.
"""
from __future__ import annotations

from engine.formats import drawingml
from engine.formats.opc import rels
from engine.formats.package import (
    Package, Paragraph, Token, apply_translations, events, paragraph_text, segment_keys,
)
from engine.formats.partsplice import PartSplice, part_keys

P = "http://schemas.openxmlformats.org/presentationml/2006/main"
P188 = "http://schemas.microsoft.com/office/powerpoint/2018/8/main"
A_P = f"{{{drawingml.A}}}p"


def authors(pkg: Package, main: str) -> dict[str, str]:
    """``{author id: name}`` of both author lists the presentation relates."""
    out: dict[str, str] = {}
    for typ, target in rels(pkg, main).values():
        if typ in ("commentAuthors", "authors") and pkg.has(target):
            for el in pkg.xml(target).getroot().iter(f"{{{P}}}cmAuthor", f"{{{P188}}}author"):
                out[el.get("id", "")] = (el.get("name") or "").strip()
    return out


def slide_parts(pkg: Package, slide: str) -> list[str]:
    """The comment parts ``slide`` relates that the package has."""
    return [t for typ, t in rels(pkg, slide).values() if typ == "comments" and pkg.has(t)]


def _note(kind: str, el, people: dict[str, str]) -> str:
    name = people.get(el.get("authorId", ""), "")
    return f"{kind} by {name}" if name else kind


def _plain(el) -> Paragraph:
    return Paragraph(el, [Token("text", text=el.text or "")])


def _set_plain(para: Paragraph, text: str) -> None:
    para.element.text = "".join(ev[1] for ev in events(para, text) if ev[0] == "text")


def _units(tree, part: str, lang: str, people: dict[str, str]):
    """``(prefix, paragraph, note, rebuild)`` of each comment text of the part, in reading order."""
    root = tree.getroot()
    out = []
    if root.tag == f"{{{P}}}cmLst":
        for n, cm in enumerate(root.findall(f"{{{P}}}cm"), 1):
            text = cm.find(f"{{{P}}}text")
            if text is not None:
                out.append((f"{part}:c{n}", _plain(text), _note("comment", cm, people), _set_plain))
    elif root.tag == f"{{{P188}}}cmLst":
        ex = drawingml.Extractor()
        n = 0
        for cm in root.findall(f"{{{P188}}}cm"):
            replies = [(r, "reply") for r in cm.iterfind(f"{{{P188}}}replyLst/{{{P188}}}reply")]
            for el, kind in [(cm, "comment")] + replies:
                n += 1
                body = el.find(f"{{{P188}}}txBody")
                for m, p in enumerate([] if body is None else body.iter(A_P), 1):
                    out.append((f"{part}:c{n}.p{m}", ex.paragraph(p), _note(kind, el, people),
                                lambda pa, text: drawingml.rebuild(pa, text, ex.fmts)))
    for _, para, _, _ in out:
        paragraph_text(para, lang)
    return out


def read_part(pkg: Package, part: str, lang: str, people: dict[str, str]):
    """``(key, source, note)`` of each segment of the comments part."""
    for prefix, para, note, _ in _units(pkg.xml(part), part, lang, people):
        for key, src in zip(segment_keys(prefix, para), para.sentences):
            yield key, src, note


def write_part(pkg: Package, part: str, lang: str, translations: dict, known: set, replaced: dict) -> None:
    """Translate the comments part into ``replaced`` (when a text changed); ``known`` gets its keys."""
    if part not in part_keys(translations):
        return
    splice = PartSplice(pkg, part)
    for prefix, para, _, rebuild in _units(splice.tree, part, lang, {}):
        known.update(segment_keys(prefix, para))
        text = apply_translations(para, prefix, translations)
        if text is not None:
            splice.edit(para.element)
            rebuild(para, text)
    if splice.changed:
        replaced[part] = splice.data()
