"""OpenDocument text, spreadsheets and presentations (ODT, ODS, ODP).

Read with lxml from ``content.xml`` and ``styles.xml`` (headers and footers
of the master pages); odfpy would re-serialise the whole package.  Every
``text:p`` and ``text:h`` is a paragraph (table cells, text boxes, notes and
slides included; the paragraphs of a comment are its note instead).  Segment
keys are ``<member>:p<paragraph>.s<sentence>``.

Inside a paragraph
    * ``text:span`` styles become the formatting key: text in another style than
      the paragraph's most common one is wrapped in a pair of codes; spans whose
      style makes no difference cannot be told apart and count as formatting;
    * ``text:a`` is a pair of codes around its text, the link kept;
    * ``text:s`` is text (spaces), written back as ``text:s`` where XML would lose them;
    * tabs, line breaks, notes, frames, bookmarks and fields are standalone codes;
      ``text:soft-page-break`` (a layout cache) is dropped;
    * ``office:annotation`` (a comment) is a code and the note of the paragraph's segments
      (in a spreadsheet, the comment of a cell is the note of the cell's segments).

Spreadsheets: a cell whose ``office:value-type`` is not ``string`` (a number, a date, a
percentage...) is not read: its text is only the display of ``office:value``.  Sheet names
stay as they are.  Presentations: the text of every frame of every slide and the speaker
notes are read, and text written on a master page (``styles.xml``; LibreOffice's empty
placeholders there have nothing to read).

Tracked changes (ODF 1.2 section 5.5: ``text:tracked-changes``, and in the text the
``text:change-start``/``text:change-end`` marks around inserted or reformatted text and a
``text:change`` mark where text was deleted) are resolved on import as the user chooses, never
mixed: format ``odf`` accepts them (inserted text is plain text, deleted text is left out),
``odt-reject`` refuses them (inserted text is left out, the deleted content is put back at its
change mark; a deletion across paragraphs puts the paragraphs back, or is refused with a
:class:`~engine.errors.FormatError` naming the change where that cannot be done cleanly).  A
format change reads the same text either way and its marks go (ODF does not record the
formatting before it).  :func:`tracked_changes` counts them before the import.  The export
writes ``content.xml`` (and ``styles.xml`` if it has marks) resolved the same way, without the
change list or any mark; every other member stays byte for byte.
"""
from __future__ import annotations

import copy
import re
from pathlib import Path

from lxml import etree

from engine.errors import FormatError
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.package import (
    Package, Paragraph, Token, apply_translations, events, is_zip, member_head, paragraph_text, segment_keys,
    unknown_keys, xml_bytes,
)
from engine.formats.odf_changes import (  # noqa: F401  (tracked_changes: the editor's question)
    OFFICE, TEXT, _raw_text, _resolved, has_tracked_changes, t, tracked_changes,
)
from engine.formats.odf_revisions import add_regions, body_of, mark
from engine.formats.partsplice import PartSplice, part_keys
from engine.formats.revmarks import with_sentinels

STYLE = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
_ANNOTATION = f"{{{OFFICE}}}annotation"
TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_CELLS = {f"{{{TABLE}}}table-cell", f"{{{TABLE}}}covered-table-cell"}
_VALUE_TYPE = f"{{{OFFICE}}}value-type"
_MIMETYPES = {
    b"application/vnd.oasis.opendocument.text": "odt",
    b"application/vnd.oasis.opendocument.spreadsheet": "ods",
    b"application/vnd.oasis.opendocument.presentation": "odp",
    b"application/vnd.oasis.opendocument.text-template": "ott",
}
_LABELS = {"tab": "tab", "line-break": "br", "note": "fn", "bookmark": "bookmark", "bookmark-start": "bookmark",
           "bookmark-end": "bookmark", "frame": "img", "annotation": "cmt", "annotation-end": "cmt"}


def _local(el) -> str:
    return el.tag.rsplit("}", 1)[-1] if isinstance(el.tag, str) else ""


class _Extractor:
    def __init__(self) -> None:
        self.spans: dict[str, list] = {"": []}  # formatting key -> the spans (outermost first)
        self.pairs = 0

    def paragraph(self, p) -> Paragraph:
        self.tokens: list[Token] = []
        self.notes: list[str] = []
        self._content(p, [])
        return Paragraph(p, self.tokens, note="\n".join(self.notes))

    def _text(self, s: str | None, spans: list, literal: bool = False) -> None:
        if not s:
            return
        if not literal:  # ODF: white space in text collapses (text:s, text:tab are the real thing)
            s = re.sub(r"[ \t\r\n]+", " ", s)
        key = "/".join(sp.get(t("style-name"), "") for sp in spans)
        self.spans.setdefault(key, list(spans))
        if self.tokens and self.tokens[-1].kind == "text" and self.tokens[-1].fmt == key:
            self.tokens[-1].text += s
        else:
            self.tokens.append(Token("text", text=s, fmt=key))

    def _content(self, el, spans: list) -> None:
        self._text(el.text, spans)
        for child in el:
            tag = child.tag
            if not isinstance(tag, str):
                self._text(child.tail, spans)
                continue
            name = _local(child)
            if tag == t("span"):
                self._content(child, spans + [child])
            elif tag == t("s"):
                self._text(" " * int(child.get(t("c"), "1") or 1), spans, literal=True)
            elif tag == t("soft-page-break"):
                pass
            elif tag == t("a"):
                self.pairs += 1
                pair = str(self.pairs)
                self.tokens.append(Token("open", payload=("container", child), label="link", pair=pair))
                self._content(child, spans)
                self.tokens.append(Token("close", payload=("end",), label="link", pair=pair))
            else:
                if tag == _ANNOTATION:
                    self.notes.append("\n".join("".join(q.itertext()) for q in child.iter(t("p"))))
                self.tokens.append(Token("ph", payload=("el", child, spans), label=_LABELS.get(name, name[:8])))
            self._text(child.tail, spans)


def _append_text(parent, s: str) -> None:
    """Add text at the end of ``parent``; runs of spaces (and a leading one) as ``text:s``."""
    pieces = re.split(r"( {2,}|\t|\n)", s)
    for piece in pieces:
        if not piece:
            continue
        if piece == "\t":
            etree.SubElement(parent, t("tab"))
        elif piece == "\n":
            etree.SubElement(parent, t("line-break"))
        elif piece.startswith("  ") and not piece.strip():
            _raw_text(parent, " ")
            s_el = etree.SubElement(parent, t("s"))
            if len(piece) > 2:
                s_el.set(t("c"), str(len(piece) - 1))
        else:
            _raw_text(parent, piece)


def rebuild(para: Paragraph, text: str, spans_by_key: dict) -> None:
    p = para.element
    for child in list(p):
        p.remove(child)
    p.text = None
    stack = [p]
    for ev in events(para, text):
        parent = stack[-1]
        if ev[0] == "text":
            s = ev[1]
            if parent is p and not len(p) and not p.text and s.startswith(" "):
                etree.SubElement(p, t("s"))
                s = s[1:]
            target = parent
            for sp in spans_by_key.get(ev[2], []):
                target = etree.SubElement(target, sp.tag, dict(sp.attrib))
            _append_text(target, s)
            continue
        tok = ev[1]
        if ev[0] == "open" and tok.payload and tok.payload[0] == "container":
            src = tok.payload[1]
            stack.append(etree.SubElement(parent, src.tag, dict(src.attrib)))
        elif ev[0] == "close" and tok.payload and tok.payload[0] == "end":
            if len(stack) > 1:
                stack.pop()
        elif tok.payload and tok.payload[0] == "el":
            c = copy.deepcopy(tok.payload[1])
            c.tail = None
            parent.append(c)


def _value_cell(p) -> bool:
    """True when ``p`` shows the value of a spreadsheet cell that is not text (a number, a
    date, a currency...): the spreadsheet computes and formats it from ``office:value``."""
    for a in p.iterancestors():
        if a.tag in _CELLS:
            return a.get(_VALUE_TYPE, "string") != "string"
    return False


def _cell_note(p) -> str:
    """The comment of the spreadsheet cell ``p`` is in (Calc anchors it to the cell, not the paragraph)."""
    for a in p.iterancestors():
        if a.tag in _CELLS:
            return "\n".join("\n".join("".join(q.itertext()) for q in ann.iter(t("p")))
                             for ann in a.findall(_ANNOTATION))
    return ""


def _paragraphs(root, member: str):
    for p in root.iter(t("p"), t("h")):
        if any(a.tag == _ANNOTATION for a in p.iterancestors()) or _value_cell(p):
            continue
        if member == "styles.xml" and not any(_local(a) == "master-page" for a in p.iterancestors()):
            continue
        yield p


def _extract(tree, member: str, lang: str, wanted: set[str] | None = None, path=None):
    """``wanted``: the key prefixes whose sentences are needed (an export splits only the
    paragraphs it translates)."""
    ex = _Extractor()
    paras = []
    for i, p in enumerate(_paragraphs(tree.getroot(), member), 1):
        para = ex.paragraph(p)
        if wanted is None or f"{member}:p{i}" in wanted:
            paragraph_text(para, lang, path, f"paragraph {member}:p{i}")
        paras.append((f"{member}:p{i}", para))
    return tree, paras, ex.spans


class OdfFormat:
    name = "odf"
    extensions = (".odt", ".ods", ".odp", ".ott")
    reject = False  # tracked changes accepted

    def sniff(self, path: Path, head: bytes) -> bool:
        # an ODF package starts with its stored, uncompressed mimetype member; LibreOffice also
        # opens one whose mimetype is compressed (or not first), so that is read from the zip
        if not is_zip(head):
            return False
        if head[30:38] == b"mimetype" and b"application/vnd.oasis.opendocument" in head[:200]:
            return True
        mimetype = member_head(path, "mimetype")
        return mimetype is not None and mimetype.strip().startswith(b"application/vnd.oasis.opendocument")

    def _members(self, pkg: Package) -> list[str]:
        if not pkg.has("content.xml"):
            raise FormatError(pkg.path, "not an OpenDocument file: no content.xml")
        return ["content.xml"] + (["styles.xml"] if pkg.has("styles.xml") else [])

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        path = Path(path)
        with Package(path) as pkg:
            kind = _MIMETYPES.get(pkg.read("mimetype").strip(), "odf") if pkg.has("mimetype") else "odf"
            doc = ParsedDocument(path=str(path), format=self.name, src_lang=src_lang, tgt_lang=tgt_lang,
                                 meta={"kind": kind, "tracked_changes": "reject" if self.reject else "accept"})
            members = self._members(pkg)
            trees = _resolved(pkg, members, self.reject)
            for member in members:
                _, paras, _ = _extract(trees[member][0], member, src_lang, path=path)
                for prefix, para in paras:
                    for key, src in zip(segment_keys(prefix, para), para.sentences):
                        doc.segments.append(ParsedSegment(key=key, source=src, note=para.note or _cell_note(
                            para.element), context=member))
        if not doc.segments:
            doc.problems.append("no translatable text found")
        return doc

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "", src_lang: str = "") -> None:
        original = Path(original)
        translations, marks = with_sentinels(translations)  # a reviewer's tracked changes (odf_revisions)
        replaced: dict[str, bytes] = {}
        known: set[str] = set()
        wanted = {k.rpartition(".s")[0] for k in translations}
        with Package(original) as pkg:
            members = self._members(pkg)
            trees = _resolved(pkg, members, self.reject)
            for member in members:
                tree, resolved = trees[member]
                if not resolved and member not in part_keys(translations):
                    continue  # untouched: copied
                splice = PartSplice(pkg, member, tree)
                tree, paras, spans = _extract(tree, member, src_lang, wanted)
                body, regions = body_of(tree), []
                for prefix, para in reversed(paras):  # notes and frames before their paragraph
                    if prefix not in wanted:
                        continue
                    known.update(segment_keys(prefix, para))
                    text = apply_translations(para, prefix, translations)
                    if text is not None:
                        splice.edit(para.element)
                        rebuild(para, text, spans)
                        mark(para.element, marks.get(prefix), regions if body is not None else None)
                if body is not None:
                    add_regions(splice, body, regions)
                if resolved:  # the tracked changes are written resolved as they were read
                    replaced[member] = xml_bytes(tree)
                elif splice.changed:
                    replaced[member] = splice.data()
            unknown_keys(original, translations, known)
            pkg.write(out, replaced)


class OdtRejectFormat(OdfFormat):
    """OpenDocument with tracked changes refused on import (choose with ``--format odt-reject``)."""

    name = "odt-reject"
    reject = True

    def sniff(self, path: Path, head: bytes) -> bool:
        return False  # chosen by name only


FORMAT = OdfFormat()
REJECT_FORMAT = OdtRejectFormat()
