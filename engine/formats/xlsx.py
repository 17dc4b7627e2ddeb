"""Excel 2007+ workbooks (XLSX): text cells, sheet names and comments.

Read with lxml from the package (openpyxl loads and rewrites the whole
workbook and drops what it does not model).  Order: the sheets as
``workbook.xml`` lists them; for each, its name, its text cells row by row,
then its comments.  A cell is read when it holds text: a shared string
(``t="s"``) or an inline one (``t="inlineStr"``); numbers, dates, booleans,
errors and formulas (even one whose result is text) are not segments.  Cells
of a ``veryHidden`` sheet (one Excel's interface cannot show: lookup tables,
technical data) are not read.  Rich text runs are paired tags as in DOCX.
A sheet's drawings (text boxes, alt text) and the charts and SmartArt they
show come after its comments (see :mod:`engine.formats.drawingml`).
Segment keys: ``<sheet part>:<cell>.s<k>``, ``xl/workbook.xml:sheet<n>.s<k>``,
``<comments part>:<cell>.s<k>``.  Threaded comments (Excel 365's, with replies) follow the
sheet's comments, in place of their legacy copy (see :mod:`engine.formats.xlsx_threaded`).

A shared string is read once per cell that shows it, so each cell can be
translated in its own context.  The export rewrites ``sharedStrings.xml`` only
for strings with a translated cell: a string all of whose cells have one
translation is rewritten in place; otherwise the cells keeping the source
keep the string, and each other translation is a new string the cells that
have it point to (the string is split).

A translated header cell of an Excel table renames its column (see
:mod:`engine.formats.xlsxtables`).  A translated sheet name is written into
every reference to the sheet (formulas, defined names, data validations,
conditional formats, charts), those bytes only (:mod:`engine.formats.xlsx_rename`); a name
Excel would refuse is refused with one line naming the sheet.

Bounded: a workbook part larger than :data:`MAX_PART_BYTES`, more than
:data:`MAX_SHARED_STRINGS` shared strings or more text cells than a document
may have segments is refused before it is parsed whole.
"""
from __future__ import annotations

import copy
import re
from pathlib import Path


from engine.errors import FormatError
from engine.formats import drawingml, textutil
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.glossary_hint import glossary_hint
from engine.formats.opc import rels, sniff_ooxml
from engine.formats.xlsx_rename import rename_sheets
from engine.formats.xlsx_text import rebuild_rich, rich
from engine.formats.xlsx_threaded import Threads
from engine.formats.xlsxtables import rename_tables
from engine.formats.package import (
    Package, Paragraph, Token, apply_translations, events, paragraph_text, segment_keys,
    unknown_keys,
)
from engine.formats.partsplice import Splices

S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
#: Limits: Excel's own sheets reach 1,048,576 rows, but a workbook sent for translation is
#: text; a part past 64 MiB or a million strings is a bomb or a data dump (Verso stops at
#: :data:`textutil.MAX_SEGMENTS` segments anyway).
MAX_PART_BYTES = 64 << 20
MAX_SHARED_STRINGS = 1_000_000
_TEXT_CELL = re.compile(rb"""<(?:\w+:)?c\s[^>]*?\bt\s*=\s*["'](?:s|inlineStr)["']""")


def s(name: str) -> str:
    return f"{{{S}}}{name}"


def _local(el) -> str:
    return el.tag.rsplit("}", 1)[-1] if isinstance(el.tag, str) else ""


def _check_size(pkg: Package, name: str) -> None:
    """Refuse a part past :data:`MAX_PART_BYTES` before it is inflated."""
    info = next(i for i in pkg.infos if i.filename == name)
    if info.file_size > MAX_PART_BYTES:
        raise FormatError(pkg.path, f"refused: {info.file_size:,} bytes, more than the {MAX_PART_BYTES >> 20} MiB "
                                    "Verso reads of one workbook part", f"member {name!r}")


def _xml(pkg: Package, name: str):
    _check_size(pkg, name)
    return pkg.xml(name)


def _plain(para: Paragraph, text: str) -> str:
    """A translated paragraph's text without its codes (a sheet's name, a table's header)."""
    return "".join(ev[1] for ev in events(para, text) if ev[0] == "text")


def _cell_refs(sheet_root):
    """``(cell reference, cell element)`` of every cell, row by row (a cell without ``r`` follows the last)."""
    for row_no, row in enumerate(sheet_root.iter(s("row")), 1):
        row_no = int(row.get("r") or row_no)
        col = 0
        for c in row.iter(s("c")):
            ref = c.get("r")
            if ref:
                m = re.match(r"([A-Z]+)", ref)
                col = sum((ord(ch) - 64) * 26 ** i for i, ch in enumerate(reversed(m.group(1)))) if m else col + 1
            else:
                col += 1
                n, letters = col, ""
                while n:
                    n, rem = divmod(n - 1, 26)
                    letters = chr(65 + rem) + letters
                ref = f"{letters}{row_no}"
            yield ref, c


class _Book:
    """The workbook's parts and its text, as the reader and the writer walk them."""

    def __init__(self, pkg: Package, lang: str):
        self.pkg, self.lang = pkg, lang
        top = {typ: t for typ, t in rels(pkg, "").values()}
        self.main = top.get("officeDocument", "xl/workbook.xml")
        if not pkg.has(self.main):
            raise FormatError(pkg.path, f"not an Excel workbook: no main part {self.main!r}")
        self.workbook = _xml(pkg, self.main)
        by_id = rels(pkg, self.main)
        self.sheets = []  # (element in workbook.xml, sheet part)
        for el in self.workbook.getroot().iter(s("sheet")):
            part = by_id.get(el.get(f"{{{R}}}id", ""), ("", ""))[1]
            if pkg.has(part):
                self.sheets.append((el, part))
        self.sst_part = next((t for typ, t in by_id.values() if typ == "sharedStrings" and pkg.has(t)), None)
        self.sst = None
        self.items: list = []
        if self.sst_part:
            data = pkg.read(self.sst_part)
            if len(data) > MAX_PART_BYTES or data.count(b"<si") > MAX_SHARED_STRINGS:
                raise FormatError(pkg.path, f"refused: more than {MAX_SHARED_STRINGS:,} shared strings or "
                                            f"{MAX_PART_BYTES >> 20} MiB of them (a shared-string bomb?)",
                                  f"member {self.sst_part!r}")
            self.sst = pkg.xml(self.sst_part)
            self.items = self.sst.getroot().findall(s("si"))
        self.fmts: dict = {}
        self._paras: dict[int, Paragraph] = {}
        self.cells = self.counted = 0

    def sheet(self, part: str):
        """A worksheet parsed, refused before parsing when its text cells (counted in its bytes) and
        those of the sheets before it are more than a document may have segments: a sheet of a
        hundred thousand cells takes 40 s to read cell by cell, its bytes are counted in 0.1 s."""
        _check_size(self.pkg, part)
        self.counted += len(_TEXT_CELL.findall(self.pkg.read(part)))
        if self.counted > textutil.MAX_SEGMENTS:
            raise FormatError(self.pkg.path, f"more than {textutil.MAX_SEGMENTS:,} text cells: more than Verso "
                                             "imports as one document; split it", f"member {part!r}")
        return self.pkg.xml(part)

    def shared(self, idx: int) -> Paragraph:
        para = self._paras.get(idx)
        if para is None:
            para = rich(self.items[idx], self.fmts)
            paragraph_text(para, self.lang)
            self._paras[idx] = para
        return para

    def name_para(self, el) -> Paragraph:
        para = Paragraph(el, [Token("text", text=el.get("name", ""))])
        paragraph_text(para, self.lang)
        return para

    def text_cells(self, part: str, tree):
        """``(prefix, paragraph, cell, shared index or None)`` of the sheet's text cells."""
        for ref, c in _cell_refs(tree.getroot()):
            kind = c.get("t")
            if kind == "s":
                try:
                    idx = int(c.findtext(s("v")) or "")
                    para = self.shared(idx)
                except (ValueError, IndexError):
                    raise FormatError(self.pkg.path, "a cell refers to a shared string the workbook does not have",
                                      f"member {part!r}, cell {ref}") from None
            elif kind == "inlineStr" and c.find(s("is")) is not None:
                idx, para = None, rich(c.find(s("is")), self.fmts)
                paragraph_text(para, self.lang)
            else:
                continue
            self.cells += 1
            if self.cells > textutil.MAX_SEGMENTS:
                raise FormatError(self.pkg.path, f"more than {textutil.MAX_SEGMENTS:,} text cells: more than Verso "
                                                 "imports as one document; split it", f"member {part!r}, cell {ref}")
            yield f"{part}:{ref}", para, c, idx

    def drawings(self, sheet_part: str) -> list[tuple[str, str, str]]:
        """``(kind, part, the part showing it)`` of the sheet's drawings (text boxes, pictures' alt
        text) and of the charts and SmartArt each shows."""
        out = []
        for typ, target in rels(self.pkg, sheet_part).values():
            if typ == "drawing" and self.pkg.has(target):
                out.append(("drawing", target, sheet_part))
                out.extend((kind, t, target) for kind, t in drawingml.referenced(self.pkg, target))
        return out

    def comments(self, sheet_part: str):
        """``(comments part, tree, [(prefix, paragraph, ref)])`` of the sheet's comments, or None."""
        part = next((t for typ, t in rels(self.pkg, sheet_part).values() if typ == "comments"
                     and self.pkg.has(t)), None)
        if part is None:
            return None
        tree = _xml(self.pkg, part)
        authors = [a.text or "" for a in tree.getroot().iter(s("author"))]
        out = []
        for cm in tree.getroot().iter(s("comment")):
            text = cm.find(s("text"))
            if text is None:
                continue
            para = rich(text, self.fmts)
            paragraph_text(para, self.lang)
            aid = int(cm.get("authorId") or 0)
            out.append((f"{part}:{cm.get('ref', '')}", para, cm.get("ref", ""),
                        authors[aid].strip() if aid < len(authors) else ""))
        return part, tree, out


class XlsxFormat:
    name = "xlsx"
    extensions = (".xlsx", ".xlsm", ".xltx")

    def sniff(self, path: Path, head: bytes) -> bool:
        return sniff_ooxml(path, head, b"xl/", b"spreadsheetml", self.extensions)

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        path = Path(path)
        doc = ParsedDocument(path=str(path), format=self.name, src_lang=src_lang, tgt_lang=tgt_lang)

        def add(prefix: str, para: Paragraph, context: str, note: str = "") -> None:
            for key, src in zip(segment_keys(prefix, para), para.sentences):
                doc.segments.append(ParsedSegment(key=key, source=src, context=context, note=note))

        with Package(path) as pkg:
            book = _Book(pkg, src_lang)
            people = Threads(pkg, book.main, src_lang, _xml)
            for n, (el, part) in enumerate(book.sheets, 1):
                name = el.get("name", "")
                if el.get("state") == "veryHidden":
                    continue
                add(f"{book.main}:sheet{n}", book.name_para(el), f"name of sheet {n}")
                for prefix, para, _, _ in book.text_cells(part, book.sheet(part)):
                    add(prefix, para, f"{name}!{prefix.rsplit(':', 1)[1]}")
                found, threads = book.comments(part), people.sheet(part)
                for prefix, para, ref, author in (found[2] if found else []):
                    if ref not in threads.refs:
                        add(prefix, para, f"comment, {name}!{ref}", note=f"comment by {author}" if author else "")
                for prefix, para, ref, note, _ in threads.items:
                    add(prefix, para, f"comment, {name}!{ref}", note=note)
                for kind, dpart, _ in book.drawings(part):
                    doc.segments.extend(ParsedSegment(key=key, source=src, context=f"{kind}, {name}")
                                        for key, src in drawingml.read_part(pkg, dpart, src_lang))
        doc.problems.extend(people.problems)
        if not doc.segments:
            doc.problems.append("no translatable text found")
        elif hint := glossary_hint(doc.segments):
            doc.problems.append(hint)
        return doc

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "", src_lang: str = "") -> None:
        original = Path(original)
        replaced: dict[str, bytes] = {}
        known: set[str] = set()
        with Package(original) as pkg:
            book = _Book(pkg, src_lang)
            splices = book.splices = Splices(pkg)
            people = Threads(pkg, book.main, src_lang, _xml)
            renames: dict[str, str] = {}
            trees = book.trees = {}
            for n, (el, part) in enumerate(book.sheets, 1):
                trees[part] = book.sheet(part)
                if el.get("state") == "veryHidden":
                    continue
                prefix = f"{book.main}:sheet{n}"
                para = book.name_para(el)
                known.update(segment_keys(prefix, para))
                text = apply_translations(para, prefix, translations)
                if text is not None:
                    renames[el.get("name", "")] = _plain(para, text)
            uses: dict[int, list] = {}  # shared index -> [(cell, translated text or None)]
            changed: set[str] = set()
            cell_texts: dict[tuple[str, str], str] = {}  # (sheet part, cell) -> translated text
            for el, part in book.sheets:
                if el.get("state") == "veryHidden":
                    for _, _, c, idx in book.text_cells(part, trees[part]):
                        if idx is not None:
                            uses.setdefault(idx, []).append((c, None, part))
                    continue
                for prefix, para, c, idx in book.text_cells(part, trees[part]):
                    known.update(segment_keys(prefix, para))
                    text = apply_translations(para, prefix, translations)
                    if text is not None:
                        cell_texts[(part, prefix.rsplit(":", 1)[1])] = _plain(para, text)
                    if idx is not None:
                        uses.setdefault(idx, []).append((c, text, part))
                    elif text is not None:
                        splices.of(part, trees[part]).edit(c.find(s("is")))
                        rebuild_rich(c.find(s("is")), para, text, book.fmts)
                        changed.add(part)
                found, threads = book.comments(part), people.sheet(part)
                if found:
                    cpart, ctree, items = found
                    for prefix, para, ref, _ in items:
                        known.update(segment_keys(prefix, para))
                        text = None if ref in threads.refs else apply_translations(para, prefix, translations)
                        if text is not None:
                            splices.of(cpart, ctree).edit(para.element)
                            rebuild_rich(para.element, para, text, book.fmts)
                            replaced[cpart] = b""  # spliced below, once
                people.write(threads, found, translations, known, replaced)
                for kind, dpart, owner in book.drawings(part):
                    drawingml.write_part(pkg, dpart, src_lang, translations, known, replaced,
                                         smartart_owner=owner if kind == "SmartArt" else None)
            unknown_keys(original, translations, known)
            if self._split_shared(book, uses, changed):
                replaced[book.sst_part] = splices.data(book.sst_part, book.sst)
            rename_tables(pkg, [p for _, p in book.sheets], trees, cell_texts, changed, replaced, _xml, splices)
            if renames:
                rename_sheets(book, renames, trees, changed, replaced, _xml)
            for part in changed:
                replaced[part] = splices.data(part, trees[part])
            replaced.update({part: sp.data() for part, sp in splices.items() if replaced.get(part) == b""})
            pkg.write(out, replaced)

    @staticmethod
    def _split_shared(book: _Book, uses: dict[int, list], changed: set[str]) -> bool:
        """Give each translated cell its string (see the module doc); True when the strings changed."""
        root = book.sst.getroot() if book.sst is not None else None
        added = False
        for idx, cells in uses.items():
            texts = {t for _, t, _ in cells if t is not None}
            if not texts:
                continue
            para = book.shared(idx)
            keep_source = any(t is None for _, t, _ in cells)
            new_index: dict[str, int] = {}
            for text in sorted(texts, key=lambda t: [t2 for _, t2, _ in cells].index(t)):
                splice = book.splices.of(book.sst_part, book.sst)
                if not keep_source and not new_index:
                    splice.edit(book.items[idx])
                    rebuild_rich(book.items[idx], para, text, book.fmts)
                    new_index[text] = idx
                    continue
                item = copy.deepcopy(book.items[idx])
                rebuild_rich(item, para, text, book.fmts)
                splice.insert_after(book.items[-1], item)
                root.append(item)
                new_index[text] = len(root.findall(s("si"))) - 1
            added = True
            for c, text, part in cells:
                if text is not None and new_index[text] != idx:
                    book.splices.of(part, book.trees[part]).edit(c.find(s("v")))
                    c.find(s("v")).text = str(new_index[text])
                    changed.add(part)
        if added and root.get("uniqueCount") is not None:
            splice.edit_attrs(root)
            root.set("uniqueCount", str(len(root.findall(s("si")))))
        return added


FORMAT = XlsxFormat()
