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

TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
STYLE = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"


def t(name: str) -> str:
    return f"{{{TEXT}}}{name}"


_PARA = {t("p"), t("h")}
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


def _raw_text(parent, s: str) -> None:
    if len(parent):
        parent[-1].tail = (parent[-1].tail or "") + s
    else:
        parent.text = (parent.text or "") + s


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


# ------------------------------------------------------------ tracked changes
_TRACKED = t("tracked-changes")
_REGION = t("changed-region")
_CHANGE, _START, _END = t("change"), t("change-start"), t("change-end")
_CHANGE_ID = t("change-id")
_KINDS = {t("insertion"): "insertion", t("deletion"): "deletion", t("format-change"): "format-change"}
_XML_ID = "{http://www.w3.org/XML/1998/namespace}id"
_CHANGE_INFO = f"{{{OFFICE}}}change-info"
#: a member whose bytes hold none of these has no tracked change (it is not parsed to count them)
_CHANGE_BYTES = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?(?:tracked-changes|changed-region|change|change-start|"
                           rb"change-end)[\s/>]")


def _regions(root) -> dict[str, tuple[str, object]]:
    """change id -> (``insertion``/``deletion``/``format-change``, that element)."""
    out: dict[str, tuple[str, object]] = {}
    for region in root.iter(_REGION):
        rid = region.get(t("id")) or region.get(_XML_ID)
        for child in region:
            if child.tag in _KINDS and rid:
                out.setdefault(rid, (_KINDS[child.tag], child))
                break
    return out


def _para_of(el):
    for a in el.iterancestors():
        if a.tag in _PARA:
            return a
    return None


def _inside(el, root) -> bool:
    return any(a is root for a in el.iterancestors())


def _text_before(el, text: str | None) -> None:
    """Append ``text`` to what comes just before ``el`` (the previous sibling's tail, or the parent's text)."""
    if not text:
        return
    prev = el.getprevious()
    if prev is not None:
        prev.tail = (prev.tail or "") + text
    else:
        parent = el.getparent()
        parent.text = (parent.text or "") + text


def _drop(el) -> None:
    """Remove ``el``, its tail (text after it) kept in place."""
    _text_before(el, el.tail)
    el.getparent().remove(el)


def _cut_between(a, b) -> None:
    """Remove everything between ``a`` and ``b`` (``a`` before ``b`` in document order), both kept."""
    above_b = set(b.iterancestors())
    node = a
    node.tail = None
    while True:
        sib = node.getnext()
        while sib is not None and sib is not b and sib not in above_b:
            nxt = sib.getnext()
            node.getparent().remove(sib)  # its tail (text between) goes with it
            sib = nxt
        if sib is not None:
            break
        node = node.getparent()
        if node is None:
            return
        node.tail = None
    node = sib
    while node is not b:
        node.text = None
        for child in list(node):
            if child is b or child in above_b:
                node = child
                break
            node.remove(child)


def _put_inline(mark, src) -> None:
    """Put the content of the paragraph ``src`` (its text and children) just before ``mark``."""
    parent = mark.getparent()
    _text_before(mark, src.text)
    idx = parent.index(mark)
    for i, child in enumerate(list(src)):
        parent.insert(idx + i, child)


class _Resolver:
    """Accepts or refuses the tracked changes of one member (see the module doc)."""

    def __init__(self, path, regions: dict, reject: bool):
        self.path, self.regions, self.reject = path, regions, reject
        self.restored: set[str] = set()

    def _error(self, cid: str, why: str) -> FormatError:
        return FormatError(self.path, f"cannot refuse the tracked change {cid!r}: {why}")

    def resolve(self, root) -> bool:
        """Resolve every mark under ``root``; True when anything changed."""
        changed = False
        for block in list(root.iter(_TRACKED)):
            _drop(block)
            changed = True
        for _ in range(len(self.regions) + 2):  # restored deletions may hold marks of their own
            marks = list(root.iter(_CHANGE, _START, _END))
            if not marks:
                break
            changed = True
            if self.reject:  # a mark of an unknown change: refusing it would be a guess
                for m in marks:
                    if m.get(_CHANGE_ID) not in self.regions:
                        raise self._error(m.get(_CHANGE_ID) or "", "it is not in the document's list of changes")
            ends = {}
            for m in marks:
                if m.tag == _END:
                    ends.setdefault(m.get(_CHANGE_ID), m)
            for m in marks:
                if m.tag != _START or not _inside(m, root):
                    continue  # or cut with refused inserted text
                cid = m.get(_CHANGE_ID) or ""
                end = ends.pop(cid, None)
                if self.reject and self.regions.get(cid, ("",))[0] == "insertion":
                    if end is None or end.getparent() is None:
                        raise self._error(cid, "the end of the inserted text is missing")
                    self._unsert(m, end, cid)
                if _inside(m, root):
                    _drop(m)
                if end is not None and _inside(end, root):
                    _drop(end)
            for m in marks:
                if not _inside(m, root):
                    continue  # cut with refused inserted text
                cid = m.get(_CHANGE_ID) or ""
                if m.tag == _CHANGE and self.reject and cid not in self.restored and \
                        self.regions.get(cid, ("",))[0] == "deletion":
                    self.restored.add(cid)
                    self._restore(m, self.regions[cid][1], cid)
                _drop(m)
        else:
            if any(True for _ in root.iter(_CHANGE, _START, _END)):
                raise FormatError(self.path, "tracked changes nested too deep")
        return changed

    def _unsert(self, start, end, cid: str) -> None:
        """Refuse an insertion: the text between ``start`` and ``end`` goes; the paragraphs it
        split are one again (the first one's style kept)."""
        pa, pb = _para_of(start), _para_of(end)
        _cut_between(start, end)
        if pa is None or pb is None or pa is pb:
            return
        if pa.getparent() is not pb.getparent():
            raise self._error(cid, "the inserted text ends in another list, table or frame than it starts")
        if pb.text:
            _raw_text(pa, pb.text)
        for child in list(pb):
            pa.append(child)
        pb.getparent().remove(pb)

    def _restore(self, mark, deletion, cid: str) -> None:
        """Refuse a deletion: its content goes back where ``mark`` is."""
        content = [copy.deepcopy(c) for c in deletion if isinstance(c.tag, str) and c.tag != _CHANGE_INFO]
        if not content:
            return
        p = _para_of(mark)
        if p is None:  # between paragraphs: the deleted paragraphs, tables, lists come back as they were
            tail, mark.tail = mark.tail, None
            for el in content:
                mark.addprevious(el)
            mark.tail = tail
            return
        first, last = content[0], content[-1]
        if first.tag not in _PARA or last.tag not in _PARA:
            raise self._error(cid, "the deleted content is not paragraphs (a list or table inside a paragraph)")
        if len(content) == 1:
            _put_inline(mark, first)
            return
        if mark.getparent() is not p:
            raise self._error(cid, "the deletion spans paragraphs from inside formatted text or a link")
        # the paragraph splits at the mark: its head ends with the first deleted paragraph's text,
        # the last deleted paragraph (its style) goes on with the rest of it
        rest = etree.Element(last.tag, dict(last.attrib))
        rest.text = last.text
        for child in list(last):
            rest.append(child)
        if mark.tail:
            _raw_text(rest, mark.tail)
            mark.tail = None
        idx = p.index(mark)
        for child in list(p)[idx + 1:]:
            rest.append(child)
        _put_inline(mark, first)
        rest.tail = p.tail
        p.tail = None
        at = p
        for el in content[1:-1] + [rest]:
            at.addnext(el)
            at = el


def tracked_changes(path: str | Path) -> dict[str, int]:
    """How many tracked insertions and deletions an OpenDocument text has (``{"insertions": n,
    "deletions": m}``), for the editor to ask whether to accept or refuse them before the
    import.  Read through the same checked package and safe parser as the import; a member
    whose bytes hold no change element is not parsed.  Format changes do not count: both
    choices read the same text."""
    counts = {"insertions": 0, "deletions": 0}
    with Package(path) as pkg:
        if pkg.has("content.xml"):
            data = pkg.read("content.xml")
            if _CHANGE_BYTES.search(data):
                for kind, _ in _regions(pkg.xml("content.xml").getroot()).values():
                    if kind in ("insertion", "deletion"):
                        counts[kind + "s"] += 1
    return counts


def has_tracked_changes(path: str | Path) -> bool:
    """True when accepting or refusing the document's tracked changes reads different text."""
    return any(tracked_changes(path).values())


def _resolved(pkg: Package, members: list[str], reject: bool) -> dict[str, tuple]:
    """member -> (its tree with the tracked changes resolved, True when that changed it)."""
    out = {}
    regions: dict = {}
    for member in members:  # content.xml first: it holds the change list
        tree = pkg.xml(member)
        changed = False
        if _CHANGE_BYTES.search(pkg.read(member)):
            regions.update(_regions(tree.getroot()))
            changed = _Resolver(pkg.path, regions, reject).resolve(tree.getroot())
        out[member] = (tree, changed)
    return out


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


def _extract(tree, member: str, lang: str):
    ex = _Extractor()
    paras = []
    for i, p in enumerate(_paragraphs(tree.getroot(), member), 1):
        para = ex.paragraph(p)
        paragraph_text(para, lang)
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
                _, paras, _ = _extract(trees[member][0], member, src_lang)
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
        replaced: dict[str, bytes] = {}
        known: set[str] = set()
        with Package(original) as pkg:
            members = self._members(pkg)
            trees = _resolved(pkg, members, self.reject)
            for member in members:
                tree, resolved = trees[member]
                tree, paras, spans = _extract(tree, member, src_lang)
                changed = resolved  # the tracked changes are written resolved as they were read
                for prefix, para in reversed(paras):  # notes and frames before their paragraph
                    known.update(segment_keys(prefix, para))
                    text = apply_translations(para, prefix, translations)
                    if text is not None:
                        rebuild(para, text, spans)
                        changed = True
                if changed:
                    replaced[member] = xml_bytes(tree)
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
