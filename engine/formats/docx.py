"""Word 2007+ documents (DOCX): paragraphs -> sentences -> segments.

Read with lxml straight from the package (python-docx rewrites every part it
saves and reaches neither text boxes, footnotes nor fields, so it does not
help a byte-faithful round trip).  Parts read: the main document, headers,
footers, footnotes and endnotes, every ``w:p`` in them (table cells and text
boxes included).  Segment keys are ``<part>:p<paragraph>.s<sentence>``.

Inside a paragraph
    * runs whose visible formatting differs from the paragraph's most common
      one become a pair of codes; differences nobody sees (``w:lang``,
      ``w:noProof``, revision ids, ``w:proofErr`` marks, a font hint, the run
      split itself) do not: such runs merge;
    * a hyperlink (``w:hyperlink``, its target kept), smart tags and custom XML
      become a pair of codes around their text;
    * a field: its instruction (``w:fldChar`` begin .. separate) and its end are
      a pair of codes around the result text; a field without result, a
      ``w:fldSimple`` and an inline content control are one code;
    * breaks, tabs, symbols, drawings, footnote/endnote and comment references,
      bookmarks and comment ranges are standalone codes;
    * hidden text (``w:vanish``) is one code, never shown as text;
    * tracked changes are resolved as the user chooses: format ``docx`` accepts
      them (inserted text read, deleted text left out), ``docx-reject`` refuses
      them (deleted text read, inserted left out); the export writes the
      paragraph so resolved, never a mix;
    * comments anchored in the paragraph become the note of its segments.

A text box is in a DOCX twice, for Word (``mc:Choice``) and for older readers
(``mc:Fallback``): the Choice copy is read, and the export writes its translation into
both (when the two copies have the same paragraphs, text and codes; else the fallback
stays as it was).

Export rebuilds only the paragraphs with a translated sentence; every other
byte of each part, and every other member of the package, stays as it was.
"""
from __future__ import annotations

import copy
import posixpath
from pathlib import Path

from lxml import etree

from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.docx_build import MC, MC_FALLBACK, OFFICE_DOC, _main_part, _parts, w  # noqa: F401
from engine.formats.docx_revisions import (  # noqa: F401  (tracked_changes: asked of engine.formats.docx)
    has_tracked_changes, rebuild_marked, tracked_changes, with_sentinels,
)
from engine.formats.package import (
    Package, Paragraph, Token, apply_translations, is_zip, paragraph_text, segment_keys,
    unknown_keys,
)
from engine.formats.partsplice import PartSplice, part_keys

R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
MC_CHOICE = f"{{{MC}}}Choice"
MC_ALTERNATE = f"{{{MC}}}AlternateContent"

#: rPr children that change nothing visible
_INVISIBLE_RPR = {w("lang"), w("noProof"), w("rPrChange"), w("webHidden"), w("specVanish")}
_CONTAINERS = {w("hyperlink"), w("smartTag"), w("customXml")}
_RUN_CODE_LABELS = {
    "br": "br", "cr": "br", "tab": "tab", "ptab": "tab", "sym": "sym", "noBreakHyphen": "nbhy",
    "softHyphen": "shy", "drawing": "img", "pict": "img", "object": "obj",
    "footnoteReference": "fn", "endnoteReference": "en", "commentReference": "cmt",
    "footnoteRef": "fn", "endnoteRef": "en", "annotationRef": "cmt", "separator": "sep",
    "continuationSeparator": "sep", "pgNum": "page", "dayShort": "date", "monthShort": "date",
    "yearShort": "date", "dayLong": "date", "monthLong": "date", "yearLong": "date",
}
_DROPPED_IN_RUN = {w("lastRenderedPageBreak"), w("rPr")}
#: tag names the walk compares every element with, made once (w() per element: 0.02 s of 3 MB of DOCX)
_PPR, _R, _PROOF_ERR, _RPR, _VANISH, _VAL, _T, _DEL_TEXT, _P = map(
    w, ("pPr", "r", "proofErr", "rPr", "vanish", "val", "t", "delText", "p"))


def _child(el, tag: str):
    """``el.find(tag)``, without lxml's path language: 2-3 us a call there, 0.3 here (two a formatted run)."""
    for child in el:
        if child.tag == tag:
            return child
    return None


def _local(el) -> str:
    t = el.tag
    return t.rsplit("}", 1)[-1] if isinstance(t, str) else ""


def fmt_key(rpr) -> str:
    """The visible formatting of a run's ``w:rPr`` as a string (``""`` for none)."""
    if rpr is None:
        return ""
    c = copy.deepcopy(rpr)
    for child in list(c):
        if not isinstance(child.tag, str) or child.tag in _INVISIBLE_RPR:
            c.remove(child)
        elif child.tag == w("rFonts"):
            child.attrib.pop(w("hint"), None)
            if not child.attrib:
                c.remove(child)
    c.attrib.clear()
    if len(c) == 0:
        return ""
    return etree.tostring(c, method="c14n").decode()


class _Extractor:
    """Turns the ``w:p`` of one part into :class:`Paragraph` tokens."""

    def __init__(self, reject: bool):
        self.reject = reject
        self.fmts: dict[str, object] = {}   # key -> a w:rPr with that formatting
        self._keys: dict[bytes, str] = {}    # a w:rPr as serialized -> its key
        self.pairs = 0

    def paragraph(self, p) -> Paragraph:
        self.tokens: list[Token] = []
        self.fields: list[dict] = []        # open fields: {"state": "code"/"result", "buf": [...], "nest": n}
        self.comments: list[str] = []
        self._walk(p)
        for f in self.fields:               # a field that goes on in the next paragraph
            if f["state"] == "code":
                self.tokens.append(Token("ph", payload=("multi", f["buf"]), label="field"))
        return Paragraph(p, self.tokens, note="\x00".join(self.comments))

    # -- emitting ---------------------------------------------------------
    def _code(self, payload, label: str) -> None:
        """A standalone code, or part of a field instruction being collected."""
        if self.fields and self.fields[-1]["state"] == "code":
            self.fields[-1]["buf"].append(payload)
        else:
            self.tokens.append(Token("ph", payload=payload, label=label))

    def _text(self, text: str, rpr) -> None:
        if self.fields and self.fields[-1]["state"] == "code":
            self.fields[-1]["buf"].append(("text", text, rpr))
            return
        if rpr is None:
            key = ""
        else:  # runs of one formatting share the key: their w:rPr serialize alike (a copy and its
            # canonical form for each run: 0.03 s of reading 3 MB of DOCX with a bold word a paragraph)
            raw = etree.tostring(rpr, with_tail=False)
            key = self._keys.get(raw)
            if key is None:
                key = self._keys[raw] = fmt_key(rpr)
        self.fmts.setdefault(key, rpr)
        if self.tokens and self.tokens[-1].kind == "text" and self.tokens[-1].fmt == key:
            self.tokens[-1].text += text
        else:
            self.tokens.append(Token("text", text=text, fmt=key))

    def _pair(self) -> str:
        self.pairs += 1
        return str(self.pairs)

    # -- walking ----------------------------------------------------------
    def _walk(self, parent) -> None:
        for el in parent:
            tag = el.tag
            if not isinstance(tag, str):
                continue  # comments, processing instructions: kept only in untouched paragraphs
            if tag == _PPR:
                continue
            if tag == _R:
                self._run(el)
            elif tag == _PROOF_ERR:
                continue  # spelling/grammar marks change nothing visible
            elif tag in (w("ins"), w("moveTo")):
                if not self.reject:
                    self._walk(el)
            elif tag in (w("del"), w("moveFrom")):
                if self.reject:
                    self._walk(el)
            elif tag in _CONTAINERS:
                if self.fields and self.fields[-1]["state"] == "code":
                    self.fields[-1]["buf"].append(("para", el))
                    continue
                pair = self._pair()
                label = {"hyperlink": "link"}.get(_local(el), _local(el))
                self.tokens.append(Token("open", payload=("container", el), label=label, pair=pair))
                self._walk(el)
                self.tokens.append(Token("close", payload=("end",), label=label, pair=pair))
            elif tag == w("fldSimple"):
                self._code(("para", el), "field")
            elif tag == w("sdt"):
                self._code(("para", el), "sdt")
            else:  # bookmarks, comment ranges, permissions, math: kept where they are
                if tag in (w("commentRangeStart"),) and el.get(w("id")) is not None:
                    self.comments.append(el.get(w("id")))
                self._code(("para", el), _local(el)[:8])

    def _run(self, r) -> None:
        rpr = _child(r, _RPR)
        vanish = _child(rpr, _VANISH) if rpr is not None else None
        if vanish is not None and vanish.get(_VAL, "true") not in ("0", "false", "off"):
            self._code(("para", r), "hidden")
            return
        if len(r) == (1 if rpr is None else 2):  # the common run: its formatting and one w:t, nothing else
            el = r[-1]
            if el.tag == _T:
                self._text(el.text or "", rpr)
                return
        for el in r:
            tag = el.tag
            if not isinstance(tag, str) or tag in _DROPPED_IN_RUN:
                continue
            if tag == _T or (tag == _DEL_TEXT and self.reject):
                self._text(el.text or "", rpr)
                continue
            name = _local(el)
            if tag == w("fldChar"):
                self._fldchar(el, rpr)
            elif tag == w("instrText") or tag == w("delInstrText"):
                self._code(("run", rpr, [el]), "field")
            else:
                if name == "commentReference" and el.get(w("id")) is not None:
                    if el.get(w("id")) not in self.comments:
                        self.comments.append(el.get(w("id")))
                self._code(("run", rpr, [el]), _RUN_CODE_LABELS.get(name, name[:8]))

    def _fldchar(self, el, rpr) -> None:
        kind = el.get(w("fldCharType"))
        payload = ("run", rpr, [el])
        top = self.fields[-1] if self.fields else None
        if top is not None and top["state"] == "code":
            top["buf"].append(payload)
            if kind == "begin":
                top["nest"] += 1
            elif kind == "end":
                if top["nest"]:
                    top["nest"] -= 1
                else:  # a field without a result: one code
                    self.fields.pop()
                    self._code(("multi", top["buf"]), "field")
            elif kind == "separate" and not top["nest"]:
                top["state"] = "result"
                pair = self._pair()
                top["pair"] = pair
                self.tokens.append(Token("open", payload=("multi", top["buf"]), label="field", pair=pair))
            return
        if kind == "begin":
            self.fields.append({"state": "code", "buf": [payload], "nest": 0})
        elif kind == "end" and top is not None:
            self.fields.pop()
            self.tokens.append(Token("close", payload=payload, label="field", pair=top["pair"]))
        else:  # the end of a field begun in an earlier paragraph
            self.tokens.append(Token("ph", payload=payload, label="field"))


# ------------------------------------------------------------------ format
def _comments(pkg: Package, main: str) -> dict[str, str]:
    name = posixpath.join(posixpath.dirname(main), "comments.xml")
    if not pkg.has(name):
        return {}
    out = {}
    for c in pkg.xml(name).getroot().iter(w("comment")):
        text = "\n".join("".join(t.text or "" for t in p.iter(w("t"))) for p in c.iter(w("p")))
        author = c.get(w("author"), "")
        out[c.get(w("id"), "")] = f"{author}: {text}" if author else text
    return out


def _own_paragraphs(branch) -> list:
    """The ``w:p`` of an ``mc:Choice``/``mc:Fallback``, not those of an alternative nested in it."""
    out = []
    for p in branch.iter(w("p")):
        for a in p.iterancestors():
            if a is branch:
                out.append(p)
                break
            if a.tag in (MC_CHOICE, MC_FALLBACK):
                break
    return out


def _twins(root, ex: "_Extractor", lang: str, wanted) -> dict:
    """A text box's text is there twice: for Word (``mc:Choice``, the copy that is read and
    translated) and for older readers (``mc:Fallback``, VML).  Maps each Choice paragraph of
    ``wanted`` to its Fallback copy, paired in order, when both copies have the same paragraphs
    with the same text and codes; the export writes the translation into both."""
    twins = {}
    for ac in root.iter(MC_ALTERNATE):
        choice, fallback = ac.find(MC_CHOICE), ac.find(MC_FALLBACK)
        if choice is None or fallback is None:
            continue
        cps, fps = _own_paragraphs(choice), _own_paragraphs(fallback)
        if len(cps) != len(fps):
            continue
        for cp, fp in zip(cps, fps):
            if cp in wanted:
                twin = ex.paragraph(fp)
                paragraph_text(twin, lang)
                twins[cp] = twin
    return twins


def _same_codes(a: Paragraph, b: Paragraph) -> bool:
    return a.text.text == b.text.text and [(t.kind, t.label) for t in a.text.tags] == [
        (t.kind, t.label) for t in b.text.tags]


def _extract(tree, part: str, reject: bool, lang: str, wanted: set[str] | None = None, path=None):
    """``(paragraphs as (key prefix, Paragraph), formattings)`` of a part; ``wanted``: the key
    prefixes whose sentences are needed (an export reads only the paragraphs it translates: the
    sentence splitting was 91 % of a 30,000-paragraph DOCX's untouched export)."""
    ex = _Extractor(reject)
    return list(_paragraphs(ex, tree, part, lang, wanted, path)), ex


def _paragraphs(ex: "_Extractor", tree, part: str, lang: str, wanted: set[str] | None = None, path=None):
    """:func:`_extract`'s paragraphs one at a time: an import keeps their sentences, not each paragraph's
    runs, codes and text (half the objects a 3 MB DOCX's read left for the garbage collector to scan)."""
    # a drawing's text is there twice: for Word (mc:Choice) and for older readers
    # (mc:Fallback); the Choice copy is read (and, on export, written to both)
    root = tree.getroot()
    ps = list(root.iter(_P))
    if next(root.iter(MC_FALLBACK), None) is not None:  # the ancestors looked at only where there is a
        # fallback (each paragraph's ancestors as lxml proxies: 0.007 s of 3 MB of DOCX)
        ps = [p for p in ps if not any(a.tag == MC_FALLBACK for a in p.iterancestors())]
    for i, p in enumerate(ps, 1):
        para = ex.paragraph(p)
        prefix = f"{part}:p{i}"
        if wanted is None or prefix in wanted:
            paragraph_text(para, lang, path, f"paragraph {prefix}")
        yield prefix, para


class DocxFormat:
    name = "docx"
    extensions = (".docx", ".docm", ".dotx")
    reject = False

    def sniff(self, path: Path, head: bytes) -> bool:
        if not is_zip(head):
            return False
        if b"word/" in head:
            return True
        return Path(path).suffix.lower() in self.extensions

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        path = Path(path)
        doc = ParsedDocument(path=str(path), format=self.name, src_lang=src_lang, tgt_lang=tgt_lang,
                             meta={"tracked_changes": "reject" if self.reject else "accept"})
        with Package(path) as pkg:
            parts = _parts(pkg)
            comments = _comments(pkg, parts[0])
            for part in parts:
                context = part.rsplit("/", 1)[-1]
                for prefix, para in _paragraphs(_Extractor(self.reject), pkg.xml(part), part, src_lang, path=path):
                    note = "\n".join(comments[c] for c in para.note.split("\x00") if c in comments) \
                        if comments else ""
                    for key, src in zip(segment_keys(prefix, para), para.sentences):
                        doc.segments.append(ParsedSegment(key=key, source=src, note=note, context=context))
        if not doc.segments:
            doc.problems.append("no translatable text found")
        return doc

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "", src_lang: str = "") -> None:
        original = Path(original)
        translations, marks = with_sentinels(translations)  # a reviewer's tracked changes as Word revisions
        replaced: dict[str, bytes] = {}
        known: set[str] = set()
        wanted = {k.rpartition(".s")[0] for k in translations}
        with Package(original) as pkg:
            for part in set(_parts(pkg)) & part_keys(translations):  # untouched parts are copied
                splice = PartSplice(pkg, part)
                paras, ex = _extract(splice.tree, part, self.reject, src_lang, wanted, original)
                twins = _twins(splice.tree.getroot(), ex, src_lang, {p.element for k, p in paras if k in wanted})
                for prefix, para in reversed(paras):  # text boxes (inner paragraphs) before their paragraph
                    if prefix not in wanted:
                        continue
                    known.update(segment_keys(prefix, para))
                    text = apply_translations(para, prefix, translations)
                    if text is not None:
                        twin = twins.get(para.element)
                        if twin is not None and _same_codes(para, twin):
                            splice.edit(twin.element)
                            rebuild_marked(twin, text, ex.fmts, marks.get(prefix))  # the text box's copy for old readers
                        splice.edit(para.element)
                        rebuild_marked(para, text, ex.fmts, marks.get(prefix))
                if splice.changed:
                    replaced[part] = splice.data()
            unknown_keys(original, translations, known)
            pkg.write(out, replaced)


class DocxRejectFormat(DocxFormat):
    """DOCX with tracked changes refused on import (choose with ``--format docx-reject``)."""

    name = "docx-reject"
    reject = True

    def sniff(self, path: Path, head: bytes) -> bool:
        return False  # chosen by name only


FORMAT = DocxFormat()
REJECT_FORMAT = DocxRejectFormat()
