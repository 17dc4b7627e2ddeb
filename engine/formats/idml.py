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
nothing merge.  A hyperlink (``HyperlinkTextSource``) is a pair of codes
around its text; tables, footnotes, anchored frames, notes, tracked changes
and special characters (``<?ACE n?>``) are standalone codes.  The paragraphs
of a table cell or a footnote are read after the paragraph holding it.
Segment keys: ``<story part>:p<n>.s<k>``.

Export rebuilds only the paragraphs with a translated sentence (their style
ranges split at paragraph ends first: the same formatting in more ranges);
every other byte of each part, and every other member, stays as it was.
"""
from __future__ import annotations

import copy
from pathlib import Path

from lxml import etree

from engine.errors import FormatError
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.package import (
    Package, Paragraph, Token, apply_translations, events, is_zip, paragraph_text, segment_keys, unknown_keys,
    xml_bytes,
)

MIMETYPE = b"application/vnd.adobe.indesign-idml-package"
PSR, CSR, PROPS, CONTENT, BR = "ParagraphStyleRange", "CharacterStyleRange", "Properties", "Content", "Br"
_CONTAINER = "HyperlinkTextSource"
_LABELS = {"Table": "table", "Footnote": "fn", "Note": "note", "Change": "change", "XMLElement": "xml",
           "TextFrame": "frame", "Rectangle": "img", "Group": "img", "Oval": "img", "Polygon": "img",
           "TextVariableInstance": "var", "HiddenText": "hidden"}


def _local(el) -> str:
    return el.tag.rsplit("}", 1)[-1] if isinstance(el.tag, str) else ""


def _key(csr) -> str:
    """A character style range's formatting: its attributes and its ``Properties``."""
    props = csr.find(PROPS)
    attrs = " ".join(f"{k}={v!r}" for k, v in sorted(csr.attrib.items()))
    return attrs + ("" if props is None else etree.tostring(props, method="c14n").decode())


class _Para:
    """One paragraph of a ``ParagraphStyleRange``: its items and the ``Br`` that ends it (or None)."""

    def __init__(self, psr):
        self.psr, self.items, self.br = psr, [], None  # items: ("csr", csr, [kids]) or ("el", element)


def _split(psr) -> list[_Para]:
    paras = [_Para(psr)]
    for child in psr:
        name = _local(child)
        if not name or name == PROPS:
            continue
        if name != CSR:
            paras[-1].items.append(("el", child))
            continue
        kids = []
        for g in child:
            if _local(g) == PROPS or not isinstance(g.tag, str) and not isinstance(g, etree._ProcessingInstruction):
                continue
            if _local(g) == BR:
                if kids:
                    paras[-1].items.append(("csr", child, kids))
                paras[-1].br = (child, g)
                paras.append(_Para(psr))
                kids = []
            else:
                kids.append(g)
        if kids:
            paras[-1].items.append(("csr", child, kids))
    return paras


class _Extractor:
    def __init__(self) -> None:
        self.fmts: dict[str, object] = {}
        self.pairs = 0

    def paragraph(self, para: _Para) -> Paragraph:
        tokens: list[Token] = []

        def text(s: str | None, key: str) -> None:
            if not s:
                return
            if tokens and tokens[-1].kind == "text" and tokens[-1].fmt == key:
                tokens[-1].text += s
            else:
                tokens.append(Token("text", text=s, fmt=key))

        def kid(g, key: str) -> None:
            name = _local(g)
            if name == CONTENT:
                text(g.text, key)
                for pi in g:
                    tokens.append(Token("ph", payload=("pi", key, pi), label="char"))
                    text(pi.tail, key)
            elif name == _CONTAINER:
                self.pairs += 1
                pair = str(self.pairs)
                tokens.append(Token("open", payload=("container", key, g), label="link", pair=pair))
                for inner in g:
                    kid(inner, key)
                tokens.append(Token("close", payload=("end",), label="link", pair=pair))
            else:
                tokens.append(Token("ph", payload=("kid", key, g), label=_LABELS.get(name, name[:8].lower() or "pi")))

        for item in para.items:
            if item[0] == "el":
                tokens.append(Token("ph", payload=("el", None, item[1]),
                                    label=_LABELS.get(_local(item[1]), _local(item[1])[:8].lower())))
                continue
            key = _key(item[1])
            self.fmts.setdefault(key, item[1])
            for g in item[2]:
                kid(g, key)
        return Paragraph(para, tokens)


def _nested(el) -> list:
    """The outermost ``ParagraphStyleRange`` elements inside ``el`` (a table's cells, a footnote)."""
    out = []
    for psr in el.iter(PSR):
        up = psr.getparent()
        while up is not None and up is not el and up.tag != PSR:
            up = up.getparent()
        if up is el:
            out.append(psr)
    return out


def _paragraphs(psrs: list, ex: _Extractor, lang: str):
    """``Paragraph`` of each paragraph of ``psrs`` in reading order, nested ones after their holder."""
    for psr in psrs:
        for raw in _split(psr):
            para = ex.paragraph(raw)
            paragraph_text(para, lang)
            yield para
            for tok in para.tokens:
                if tok.kind == "ph" and tok.payload[0] in ("kid", "el"):
                    yield from _paragraphs(_nested(tok.payload[2]), ex, lang)


def _story_psrs(root) -> list:
    story = root.find("Story") if root.tag != "Story" else root
    return _nested(story) if story is not None else []


def _new_csr(template, parent=None):
    el = etree.Element(CSR, dict(template.attrib)) if parent is None else \
        etree.SubElement(parent, CSR, dict(template.attrib))
    props = template.find(PROPS)
    if props is not None:
        el.append(copy.deepcopy(props))
    return el


def _normalise(psr) -> None:
    """Split every character style range of ``psr`` after each ``Br``: a paragraph is then whole ranges."""
    for csr in [c for c in psr if _local(c) == CSR]:
        kids = [g for g in csr if _local(g) != PROPS]
        cuts = [i for i, g in enumerate(kids) if _local(g) == BR and i < len(kids) - 1]
        at = psr.index(csr)
        for n, (a, b) in enumerate(zip([-1] + cuts, cuts + [len(kids) - 1])):
            if n == 0:
                continue
            piece = _new_csr(csr)
            for g in kids[a + 1:b + 1]:
                piece.append(g)  # moved, not copied: nested stories already translated stay so
            psr.insert(at + n, piece)


def _rebuild(p: Paragraph, text: str, fmts: dict) -> None:
    raw: _Para = p.element
    psr = raw.psr
    new: list = []
    cur = {"csr": None, "key": None, "target": None}

    def target(key: str):
        if cur["target"] is not None:
            return cur["target"]
        if cur["csr"] is None or cur["key"] != key:
            cur["csr"], cur["key"] = _new_csr(fmts[key]), key
            new.append(cur["csr"])
        return cur["csr"]

    def add_text(parent, s: str) -> None:
        last = parent[-1] if len(parent) else None
        if last is not None and _local(last) == CONTENT:
            if len(last):
                last[-1].tail = (last[-1].tail or "") + s
            else:
                last.text = (last.text or "") + s
        else:
            etree.SubElement(parent, CONTENT).text = s

    for ev in events(p, text):
        if ev[0] == "text":
            add_text(target(ev[2]), ev[1])
            continue
        kind, key, el = (ev[1].payload + (None, None))[:3] if ev[1].payload else ("", None, None)
        if kind == "el":
            cur["csr"] = None
            c = copy.deepcopy(el)
            c.tail = None
            new.append(c)
        elif kind in ("kid", "pi"):
            parent = target(key)
            c = copy.deepcopy(el)
            c.tail = None
            if kind == "pi":
                last = parent[-1] if len(parent) else None
                if last is None or _local(last) != CONTENT:
                    last = etree.SubElement(parent, CONTENT)
                last.append(c)
            else:
                parent.append(c)
        elif kind == "container" and ev[0] == "open":
            c = etree.Element(el.tag, dict(el.attrib))
            target(key).append(c)
            cur["target"] = c
        elif ev[0] == "close":
            cur["target"] = None
    br_csr, br = raw.br if raw.br is not None else (None, None)
    # the paragraph's end goes into its last new range when that has the Br's formatting
    merge = br_csr is not None and new and _local(new[-1]) == CSR and _key(new[-1]) == _key(br_csr)
    at = psr.index(raw.items[0][1])
    for item in raw.items:
        if item[1] is br_csr and not merge:
            for g in item[2]:
                br_csr.remove(g)  # the new ranges go before the one keeping the Br
        else:
            psr.remove(item[1])
    if merge:
        new[-1].append(br)
        if br_csr.getparent() is psr:
            psr.remove(br_csr)
    for i, el in enumerate(new):
        psr.insert(at + i, el)


def stories(pkg: Package) -> list[tuple[str, str]]:
    """``(context, story part)`` in reading order (see the module doc)."""
    if not pkg.has("designmap.xml"):
        raise FormatError(pkg.path, "not an InDesign IDML package: no designmap.xml")
    dm = pkg.xml("designmap.xml").getroot()
    src = [(_local(el), el.get("src", "")) for el in dm if el.get("src")]
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
                paras = _paragraphs(_story_psrs(pkg.xml(part).getroot()), _Extractor(), src_lang)
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
                tree = pkg.xml(part)
                ex = _Extractor()
                todo: dict = {}  # psr -> {paragraph index in its psr: translated text}, in reading order
                index_in_psr: dict = {}
                for n, para in enumerate(_paragraphs(_story_psrs(tree.getroot()), ex, src_lang), 1):
                    psr = para.element.psr
                    i = index_in_psr[psr] = index_in_psr.get(psr, -1) + 1
                    prefix = f"{part}:p{n}"
                    known.update(segment_keys(prefix, para))
                    text = apply_translations(para, prefix, translations)
                    todo.setdefault(psr, {})
                    if text is not None:
                        todo[psr][i] = text
                changed = False
                for psr, texts in reversed(list(todo.items())):  # table cells before the paragraph holding them
                    if not texts:
                        continue
                    _normalise(psr)
                    ex2 = _Extractor()
                    paras = [ex2.paragraph(raw) for raw in _split(psr)]
                    for i, text in texts.items():
                        paragraph_text(paras[i], src_lang)
                        _rebuild(paras[i], text, ex2.fmts)
                    changed = True
                if changed:
                    replaced[part] = xml_bytes(tree)
            unknown_keys(original, translations, known)
            pkg.write(out, replaced)


FORMAT = IdmlFormat()
