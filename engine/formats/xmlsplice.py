"""Write an edited XML file by splicing its original bytes.

A writer edits the parsed tree as before and tells a :class:`Splice` what it
changed: an element's content (:meth:`Splice.content`), an attribute
(:meth:`Splice.set` / :meth:`Splice.delete`), an element inserted after
another (:meth:`Splice.inserted`) or put in another's place
(:meth:`Splice.replaced`).  :meth:`Splice.write` then copies the original
text and replaces only those byte ranges, so everything else -- attribute
order and quotes, namespace declarations, whitespace inside tags, ``<x></x>``,
``&quot;``, CDATA, comments, CRLF, the declaration, the encoding and its BOM
-- stays as the file had it.  Serialising the tree instead changed the bytes
of 87 of the 112 XLIFF samples under ``../shared/data/format-samples`` that
were exported untouched.

Where each element is in the file comes from :mod:`engine.formats.xmlspans`
(its n-th start tag is lxml's n-th element in document order): only the
elements under the units a writer touches are numbered, and only those it
changed are looked up in the text, so a large file with one edit keeps no
proxy per element.

What is spliced in is lxml's own serialisation of the changed part (the new
content of a target, a new ``<target>``), with the file's newline style; a
character the file's encoding cannot hold is written as a character
reference.  A changed start tag keeps the bytes of its unchanged attributes
(:mod:`engine.formats.xmlattrs`).  A unit whose text in the file is lxml's
serialisation of it (checked before its edit) is serialised whole after it
(:meth:`Splice.element`): the same bytes, in one C call.  When the tokenizer and lxml disagree (which no sample does), the
tree is serialised as before (:func:`engine.formats.xliffcommon.write_tree`)
rather than writing a wrong splice.
"""
from __future__ import annotations

import gc
import re
from contextlib import contextmanager
from operator import itemgetter
from pathlib import Path

from lxml import etree

from engine.errors import FormatError
from engine.formats.xmlattrs import _esc_attr, attr_edits, qname
from engine.formats.xmlspans import Locator, SpliceError, _decode, _localname, _Span, _tokenize, starts_within
from engine.fsutil import atomic_write

__all__ = ["Splice", "SpliceError", "_decode", "_localname", "_tokenize", "attr_edits", "collector_paused", "copy_file",
           "inner_xml", "outer_xml", "qname"]


def _start_tag_end(s: str) -> int:
    """Offset after the first start tag of lxml's output (lxml escapes '>' in attributes)."""
    return s.index(">") + 1


def inner_xml(el) -> str:
    """The serialised content of ``el`` (no start or end tag)."""
    if not len(el):  # text only (most edited segments): escaped as lxml does, in a third of its time
        t = el.text
        return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;") if t else ""
    s = etree.tostring(el, encoding="unicode", with_tail=False)
    if s.endswith("/>") and _start_tag_end(s) == len(s):
        return ""
    return s[_start_tag_end(s):s.rindex("</")]


_XMLNS = re.compile(r"\s+xmlns(?::([^\s=]+))?\s*=\s*([\"'])(.*?)\2", re.S)


def outer_xml(el, context) -> str:
    """``el`` serialised without its tail and without the namespace
    declarations ``context`` (its new parent) already has in scope."""
    s = etree.tostring(el, encoding="unicode", with_tail=False)
    cut = _start_tag_end(s)
    scope = context.nsmap or {}

    def drop(m: re.Match) -> str:
        return "" if scope.get(m.group(1)) == m.group(3) else m.group(0)
    return _XMLNS.sub(drop, s[:cut]) + s[cut:]


@contextmanager
def collector_paused():
    """Run the block without Python's cyclic collector (reference counting still frees what it
    drops), then collect as before.  An XLIFF export makes no reference cycles (tests/formats/
    test_splice_whole.py), yet the ~400 collections its allocations set off, three of them full
    passes over every object of the process, were 0.15-0.4 s of a 10,000-segment edited SDLXLIFF
    export's 1.0-1.3 s CPU (2-core VM, load 5)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def copy_file(original: Path, out: Path) -> None:
    """``out`` = the original bytes (an untouched export)."""
    data = Path(original).read_bytes()
    _write(out, data)


def _write(out: Path, data: bytes) -> None:
    try:
        with atomic_write(out, "wb") as fh:
            fh.write(data)
    except OSError as e:
        raise FormatError(out, f"cannot write: {e.strerror or e}") from None


class Splice:
    """The changes a writer made to ``tree`` (parsed from ``original``),
    written back into the original bytes.  ``scopes``: the elements whose
    subtree the writer may change (units), and single elements whose
    attributes it may change (``attr_only``: the root, a ``<file>``).  ``by_element``: every
    change to a scope is made inside ``with splice.element(scope)``."""

    def __init__(self, original: Path, tree: etree._ElementTree, scopes, attr_only=(), *,
                 by_element: bool = False):
        self.original = Path(original)
        self.tree = tree
        self._attrs: dict = {}        # element -> its attributes before the first change
        self._content: dict = {}      # elements whose content was replaced (a dict: in order, found in O(1))
        self._inserted: list = []     # (ref, new): new inserted right after ref
        self._replaced: list = []     # (old, new): new in the place of old
        self._prepended: list = []    # (parent, new): new first in parent
        self._loc: Locator | None = None
        self._whole: dict = {}        # element -> (start, end, spaced): written by serialising it again
        self._in_whole = False        # changes now are inside such an element: nothing to record
        self._tries = 0               # elements checked for that
        self._scopes: dict = {}       # parent -> its namespaces in scope
        self._crlf_file: bool | None = None
        self.error: str | None = None
        try:
            raw = self.original.read_bytes()
            self.bom, self.codec, self.text = _decode(raw, tree.docinfo.encoding)
            self._loc = Locator(self.text, tree.getroot(), list(scopes), list(attr_only), later=by_element)
        except SpliceError as e:
            self.error = str(e)

    # -- what the writer changed
    def set(self, el, name: str, value: str) -> None:
        if not self._in_whole and el not in self._attrs:
            self._attrs[el] = dict(el.attrib)
        el.set(name, value)

    def delete(self, el, name: str) -> None:
        attrib = el.attrib
        if name in attrib:
            if not self._in_whole and el not in self._attrs:
                self._attrs[el] = dict(attrib)
            del attrib[name]

    def content(self, el) -> None:
        if not self._in_whole:
            self._content.setdefault(el, None)

    def inserted(self, ref, new) -> None:
        if not self._in_whole:
            self._inserted.append((ref, new))

    def replaced(self, old, new) -> None:
        if not self._in_whole:
            self._replaced.append((old, new))

    def prepended(self, parent, new) -> None:
        """``new`` put first in ``parent`` (followed by the whitespace its first child had)."""
        if not self._in_whole:
            self._prepended.append((parent, new))

    @contextmanager
    def element(self, el):
        """The writer's changes to ``el`` (a unit: one of the ``scopes``) and its descendants, made
        in this block -- and no change outside it.  When lxml's serialisation of ``el`` before the
        block is exactly its text in the file, ``el`` is written by serialising it again after the
        block: what the block did not change serialises as it was, so every byte it did not change
        stays, and one C call replaces a lookup, a serialisation and an attribute rewrite per
        changed element (0.2 of the 0.75 s CPU of a 10,000-segment edited SDLXLIFF export).
        Written ``<x />`` as Trados Studio writes it, so are the empty elements written in it.
        Otherwise (``'`` quotes, ``&#xd;``, another attribute order: a quarter of the XLIFF sample
        units) its changes are spliced one by one; after 16 such units with few matching, no more
        are tried."""
        if self.error is None and (self._tries < 16 or 4 * len(self._whole) >= self._tries):
            self._tries += 1
            span = self._as_written(el)
            if span is not None:
                self._whole[el] = span
                self._in_whole = True
        if not self._in_whole and self._loc is not None:
            self._loc.number(el)  # spliced element by element: where each is, before the edit
        try:
            yield
        finally:
            self._in_whole = False

    def _as_written(self, el) -> tuple[int, int, bool] | None:
        """(start, end, spaced) of ``el`` in the text when that is lxml's serialisation of it --
        ``spaced``: with each empty element's ``/>`` written `` />``, as Trados Studio (.NET)
        writes them -- else None.  In lxml's output a ``/>`` ends an empty element (text and
        attribute values have ``&gt;``) or is inside a comment, CDATA or PI, which the file then
        has as lxml writes it: not spaced."""
        try:
            start = self._span(el, False).start
            s = self._serialise(el)
        except SpliceError:
            return None
        if self.text.startswith(s, start):
            return start, start + len(s), False
        s = s.replace("/>", " />")
        return (start, start + len(s), True) if self.text.startswith(s, start) else None

    def _serialise(self, el) -> str:
        """``el`` as lxml writes it, less the namespace declarations in scope at its parent, which
        lxml repeats on its start tag (as ``lxml`` writes them: a declaration written otherwise
        stays, so the text does not match and the unit is spliced element by element)."""
        parent = el.getparent()
        drop = self._scopes.get(parent)
        if drop is None:
            scope = (parent.nsmap or {}) if parent is not None else {}
            drop = self._scopes[parent] = tuple(
                f' xmlns{":" + p if p else ""}="{_esc_attr(uri, chr(34))}"' for p, uri in scope.items())
        s = etree.tostring(el, encoding="unicode", with_tail=False)
        cut = _start_tag_end(s)
        head = s[:cut]
        for d in drop:
            head = head.replace(d, "", 1)
        s = head + s[cut:]
        return s.replace("\n", "\r\n") if self._crlf() else s

    def _crlf(self) -> bool:
        """True when the file's newlines are all CRLF (what is spliced in is written so too)."""
        crlf = self._crlf_file
        if crlf is None:
            n = self.text.count("\r\n")
            crlf = self._crlf_file = bool(n) and n == self.text.count("\n")
        return crlf

    # -- writing
    def write(self, out: Path, fallback) -> None:
        """Write the spliced file to ``out``; ``fallback()`` writes it when
        the original could not be mapped."""
        if self.error is None:
            try:
                data = self._render()
            except SpliceError as e:
                self.error = str(e)
        if self.error is not None:
            fallback()
            return
        _write(out, data)

    def _span(self, el, closed: bool = True) -> _Span:
        return self._loc.span(el, closed)

    def _render(self) -> bytes:
        text = self.text
        newline = "\r\n" if self._crlf() else "\n"

        def fix(s: str) -> str:
            return s.replace("\n", newline) if newline != "\n" else s

        edits: list[tuple[int, int, str]] = [
            (a, b, self._serialise(el).replace("/>", " />") if spaced else self._serialise(el))
            for el, (a, b, spaced) in self._whole.items()]
        gone: list[tuple[int, int]] = []  # spans whose element was replaced whole (disjoint)
        for old, new in self._replaced:
            sp = self._span(old)
            gone.append((sp.start, sp.end))
            edits.append((sp.start, sp.end, fix(outer_xml(new, new.getparent()))))
        for ref, new in self._inserted:
            sp = self._span(ref)
            k = sp.start
            while k > 0 and text[k - 1] in " \t\r\n":
                k -= 1
            indent = text[k:sp.start] if k < sp.start else ""
            edits.append((sp.end, sp.end, indent + fix(outer_xml(new, new.getparent()))))
        for parent, new in self._prepended:
            sp = self._span(parent)
            ws = re.match(r"\s*", text[sp.stag_end:sp.etag_start]).group(0)
            edits.append((sp.stag_end, sp.stag_end, ws + fix(outer_xml(new, parent))))

        in_gone = starts_within(gone) if gone else None
        mapped, span = self._loc._order, self._loc.span

        def live(el, closed: bool) -> _Span | None:
            if el not in mapped:  # an element the writer created
                return None
            sp = span(el, closed)
            return None if in_gone is not None and in_gone(sp.start) else sp

        for el in self._content:
            sp = live(el, True)
            if sp is None:
                continue
            inner = fix(inner_xml(el))
            if not sp.empty:
                edits.append((sp.stag_end, sp.etag_start, inner))
            elif inner:
                slash = text.rindex("/", sp.start, sp.stag_end)
                edits.append((slash, sp.stag_end, f">{inner}</{sp.name}>"))
        for el, before in self._attrs.items():
            sp = live(el, False)
            if sp is not None:
                edits.extend(attr_edits(text, el, sp, before))
        edits.sort(key=itemgetter(0, 1), reverse=True)
        parts: list[str] = []
        tail_from = len(text)
        for a, b, s in edits:
            if b > tail_from:
                raise SpliceError("overlapping edits")
            parts.append(text[b:tail_from])
            parts.append(s)
            tail_from = a
        parts.append(text[:tail_from])
        out = "".join(reversed(parts))
        return self.bom + out.encode(self.codec, errors="xmlcharrefreplace")
