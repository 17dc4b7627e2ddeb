"""One writer for the XML parts of the document packages (DOCX, PPTX, XLSX, ODF, IDML): an edited
part is its original bytes with only the edited elements' content replaced.

A format edits the parsed tree as before and names each element whose content it is about to
rewrite (:meth:`PartSplice.edit`, called before the change: a paragraph, a text box, a cell's
string).  :meth:`PartSplice.data` then copies the part's original bytes and replaces, for each
such element, the text between its start tag and its end tag by lxml's serialisation of its new
content; an element edited inside another edited one is written with the outer.  Everything
else -- the XML declaration (quotes, standalone, CR, BOM), character references (``&#xA;``),
namespace declarations, attribute order, other paragraphs -- keeps its bytes.  Serialising the
whole tree instead changed the declaration or character references of 7 of the 74 DOCX
samples (``tests/formats/test_part_splice.py``) outside the edited paragraph.

Where an element is in the bytes comes from :mod:`engine.formats.xmlspans`'s locator (the part
was already parsed by lxml through :mod:`engine.formats.xmlsafe`): the n-th start tag is lxml's
n-th element, and only the edited elements' end tags are looked for.  The numbers are taken, in
one pass, before the first edit changes the tree.  When the locator and lxml disagree, or the
spliced bytes do not read as the edited tree (an edit the writer did not name), the whole tree is
serialised (:func:`package.xml_bytes`) rather than writing a wrong splice.  This module does no
parsing of its own: the locator is shared with the XLIFF and string writers, as Okapi's filters
share one skeleton writer.
"""
from __future__ import annotations

from lxml import etree

from engine.formats import xmlsafe
from engine.formats.package import Package, xml_bytes
from engine.formats.xmlspans import Locator
from engine.formats.xmlsplice import SpliceError, _decode, attr_edits, inner_xml, outer_xml


class PartSplice:
    """The part ``name`` of ``pkg``: its tree (``.tree``) and the elements a writer edits."""

    def __init__(self, pkg: Package, name: str, tree: etree._ElementTree | None = None):
        self.name = name
        self.raw = pkg.read(name)
        self.tree = tree if tree is not None else pkg.xml(name)
        self._order: dict | None = None    # element -> its number in document order, before any edit
        self._edited: dict = {}            # the edited elements, in the order named
        self._attrs: dict = {}             # element -> its attributes before the first change
        self._inserted: list = []          # (original element, new element put right after it)
        self._prepended: list = []         # (original element, new element put first in it)

    @property
    def changed(self) -> bool:
        return bool(self._edited or self._attrs or self._inserted or self._prepended)

    def _number(self) -> None:
        if self._order is None:
            self._order = {e: i for i, e in enumerate(self.tree.getroot().iter(etree.Element))}

    def edit(self, el) -> None:
        """``el``'s content is about to be rewritten (call before changing the tree)."""
        self._number()
        self._edited[el] = True  # one the writer made (not in the order): the tree is serialised

    def insert_after(self, ref, new) -> None:
        """``new`` is about to be put right after ``ref`` (call before inserting it)."""
        self._number()
        self._inserted.append((ref, new))

    def prepend(self, parent, new) -> None:
        """``new`` is about to be put first in ``parent`` (call before inserting it)."""
        self._number()
        self._prepended.append((parent, new))

    def edit_attrs(self, el) -> None:
        """``el``'s attributes are about to change (call before changing them)."""
        self._number()
        self._attrs.setdefault(el, dict(el.attrib))

    def data(self) -> bytes:
        """The part's bytes with the edits spliced in (its original bytes when nothing was edited)."""
        if not self.changed:
            return self.raw
        try:
            out = self._spliced()
            if _c14n(etree.fromstring(out, xmlsafe.safe_parser())) != _c14n(self.tree.getroot()):
                raise SpliceError("the spliced part does not read as the edited tree")  # an edit not named
            return out
        except (SpliceError, etree.XMLSyntaxError):
            return xml_bytes(self.tree)

    def _spliced(self) -> bytes:
        bom, codec, text = _decode(self.raw, self.tree.docinfo.encoding)
        loc = Locator(text, self.tree.getroot(), numbered=self._order or {})
        crlf = text.count("\r\n")
        newline = "\r\n" if crlf and crlf == text.count("\n") else "\n"
        edits: list[tuple[int, int, str]] = []

        def span(el, closed: bool = True):
            if el not in loc:
                raise SpliceError("an edited element was not in the original")
            return loc.span(el, closed)  # its start tag checked against el's name

        for ref, new in self._inserted:
            sp = span(ref)
            edits.append((sp.end, sp.end, outer_xml(new, new.getparent()).replace("\n", newline)))
        for parent, new in self._prepended:
            sp = span(parent)
            ws = text[sp.stag_end:sp.etag_start][:len(text[sp.stag_end:sp.etag_start]) - len(
                text[sp.stag_end:sp.etag_start].lstrip())]
            edits.append((sp.stag_end, sp.stag_end, ws + outer_xml(new, parent).replace("\n", newline)))
        for el, before in self._attrs.items():
            edits.extend(attr_edits(text, el, span(el, False), before))
        for el in self._edited:
            sp = span(el)
            inner = inner_xml(el)
            if newline != "\n":
                inner = inner.replace("\n", newline)
            if not sp.empty:
                edits.append((sp.stag_end, sp.etag_start, inner))
            elif inner:
                slash = text.rindex("/", sp.start, sp.stag_end)
                edits.append((slash, sp.stag_end, f">{inner}</{sp.name}>"))
        edits.sort(key=lambda e: (e[0], -e[1]))  # an attribute edit is in a start tag: never nested
        parts: list[str] = []
        pos = 0
        for a, b, s in edits:
            if a < pos:  # inside an edit already written (a text box in an edited paragraph)
                continue
            parts.append(text[pos:a])
            parts.append(s)
            pos = b
        parts.append(text[pos:])
        return bom + "".join(parts).encode(codec, errors="xmlcharrefreplace")


def _c14n(root) -> bytes:
    return etree.tostring(root, method="c14n")


class Splices(dict):
    """The :class:`PartSplice` of each part a writer edits, made at its first edit."""

    def __init__(self, pkg: Package):
        super().__init__()
        self.pkg = pkg

    def of(self, name: str, tree: etree._ElementTree) -> PartSplice:
        if name not in self:
            self[name] = PartSplice(self.pkg, name, tree)
        return self[name]

    def data(self, name: str, tree: etree._ElementTree) -> bytes:
        """The part's new bytes: spliced where it was edited through this, else the tree serialised."""
        return self[name].data() if name in self and self[name].tree is tree else xml_bytes(tree)


def part_keys(translations: dict) -> set[str]:
    """The parts named by segment keys of the form ``<part>:<where>`` (a writer skips the others)."""
    return {k.rpartition(":")[0] for k in translations}
