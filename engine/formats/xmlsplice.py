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

Where each element is in the file comes from a small tokenizer over the
decoded text (the file has already been parsed by lxml through
:mod:`engine.formats.xmlsafe`, so it is well-formed and has no entities to
expand): its n-th start tag is lxml's n-th element in document order.  Only
the elements under the units a writer touches are mapped (a span each), so a
large file with one edit keeps no proxy per element.

What is spliced in is lxml's own serialisation of the changed part (the new
content of a target, a new ``<target>``), with the file's newline style; a
character the file's encoding cannot hold is written as a character
reference.  When the tokenizer and lxml disagree (which no sample does), the
tree is serialised as before (:func:`engine.formats.xliffcommon.write_tree`)
rather than writing a wrong splice.
"""
from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from engine.errors import FormatError
from engine.fsutil import atomic_write

XML_NS = "http://www.w3.org/XML/1998/namespace"

_START = re.compile(r"<([^\s/>!?]+)((?:\s+[^\s=/>]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*(/?)>")
_END = re.compile(r"</([^\s>]+)\s*>")
_ATTR = re.compile(r"(\s+)([^\s=/>]+)(\s*=\s*)([\"'])(.*?)\4", re.S)
_DOCTYPE = re.compile(r"<!DOCTYPE(?:[^\[>\"']|\"[^\"]*\"|'[^']*')*(?:\[.*?\]\s*)?>", re.S | re.I)


class SpliceError(Exception):
    """The original text could not be mapped onto the tree."""


@dataclass
class _Span:
    name: str          # the raw qualified name
    start: int         # the '<' of the start tag
    stag_end: int      # after the start tag's '>'
    etag_start: int    # the '<' of the end tag (== stag_end for an empty element)
    end: int           # after the end tag
    empty: bool        # written as <x/>


def _decode(raw: bytes, declared: str | None) -> tuple[bytes, str, str]:
    """(BOM, codec, text) of a file; the codec re-encodes the text to the same bytes."""
    for bom, codec in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                       (codecs.BOM_UTF16_BE, "utf-16-be")):
        if raw.startswith(bom):
            break
    else:
        bom = b""
        if len(raw) > 1 and raw[0] == 0:
            codec = "utf-16-be"
        elif len(raw) > 1 and raw[1] == 0:
            codec = "utf-16-le"
        else:
            codec = declared or "utf-8"
    body = raw[len(bom):]
    try:
        text = body.decode(codec)
        if text.encode(codec) != body:
            raise SpliceError(f"{codec} does not give the same bytes back")
    except (LookupError, UnicodeError) as e:
        raise SpliceError(str(e)) from None
    return bom, codec, text


def _tokenize(text: str) -> list[_Span]:
    """The spans of all elements, in document order of their start tags."""
    spans: list[_Span] = []
    stack: list[_Span] = []
    pos = text.find("<")
    while pos >= 0:
        if text.startswith("<!--", pos):
            nxt = text.find("-->", pos + 4) + 3
        elif text.startswith("<![CDATA[", pos):
            nxt = text.find("]]>", pos + 9) + 3
        elif text.startswith("<?", pos):
            nxt = text.find("?>", pos + 2) + 2
        elif text.startswith("<!", pos):
            m = _DOCTYPE.match(text, pos)
            if not m:
                raise SpliceError(f"unreadable markup at offset {pos}")
            nxt = m.end()
        elif text.startswith("</", pos):
            m = _END.match(text, pos)
            if not m or not stack or stack[-1].name != m.group(1):
                raise SpliceError(f"unmatched end tag at offset {pos}")
            sp = stack.pop()
            sp.etag_start, sp.end = pos, m.end()
            nxt = m.end()
        else:
            m = _START.match(text, pos)
            if not m:
                raise SpliceError(f"unreadable start tag at offset {pos}")
            empty = bool(m.group(3))
            sp = _Span(m.group(1), pos, m.end(), m.end(), m.end(), empty)
            spans.append(sp)
            if not empty:
                stack.append(sp)
            nxt = m.end()
        if nxt < pos:  # find() gave -1: an unterminated comment/CDATA/PI
            raise SpliceError(f"unterminated markup at offset {pos}")
        pos = text.find("<", nxt)
    if stack:
        raise SpliceError("unclosed elements")
    return spans


def _localname(el) -> str:
    return el.tag.rsplit("}", 1)[-1]


def qname(el, clark: str, *, strict: bool = False) -> str:
    """``prefix:local`` for a Clark-notation name in ``el``'s scope (``strict``: a namespace
    without a prefix there is a :class:`SpliceError`, else the bare local name)."""
    if not clark.startswith("{"):
        return clark
    ns, local = clark[1:].split("}", 1)
    if ns == XML_NS:
        return f"xml:{local}"
    for prefix, uri in (el.nsmap or {}).items():
        if uri == ns and prefix:
            return f"{prefix}:{local}"
    if strict:
        raise SpliceError(f"no prefix for the namespace {ns!r} of attribute {local!r}")
    return local


def _esc_attr(v: str, quote: str) -> str:
    v = (v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
         .replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;"))
    return v.replace('"', "&quot;") if quote == '"' else v.replace("'", "&apos;")


def _start_tag_end(s: str) -> int:
    """Offset after the first start tag of lxml's output (lxml escapes '>' in attributes)."""
    return s.index(">") + 1


def inner_xml(el) -> str:
    """The serialised content of ``el`` (no start or end tag)."""
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
    attributes it may change (``attr_only``: the root, a ``<file>``)."""

    def __init__(self, original: Path, tree: etree._ElementTree, scopes, attr_only=()):
        self.original = Path(original)
        self.tree = tree
        self._attrs: dict = {}        # element -> its attributes before the first change
        self._content: dict = {}      # elements whose content was replaced (a dict: in order, found in O(1))
        self._inserted: list = []     # (ref, new): new inserted right after ref
        self._replaced: list = []     # (old, new): new in the place of old
        self._prepended: list = []    # (parent, new): new first in parent
        self._spans: dict = {}
        self.error: str | None = None
        try:
            raw = self.original.read_bytes()
            self.bom, self.codec, self.text = _decode(raw, tree.docinfo.encoding)
            self._map(list(scopes), list(attr_only))
        except SpliceError as e:
            self.error = str(e)

    def _map(self, scopes: list, attr_only: list) -> None:
        spans = _tokenize(self.text)
        want = {el: True for el in scopes}
        want.update({el: False for el in attr_only if el not in want})
        if not want:
            return
        elements = self.tree.getroot().iter(etree.Element)
        i = 0
        for el in elements:
            if i >= len(spans):
                raise SpliceError("more elements than start tags")
            deep = want.get(el)
            if deep is None:
                i += 1
                continue
            group = list(el.iter(etree.Element)) if deep else [el]
            for j, sub in enumerate(group):
                sp = spans[i + j] if i + j < len(spans) else None
                if sp is None or sp.name.rsplit(":", 1)[-1] != _localname(sub):
                    raise SpliceError(f"element {_localname(sub)!r} not found where expected")
                self._spans[sub] = sp
            i += 1
        if i != len(spans):
            raise SpliceError(f"{len(spans)} start tags for {i} elements")

    # -- what the writer changed
    def set(self, el, name: str, value: str) -> None:
        self._attrs.setdefault(el, dict(el.attrib))
        el.set(name, value)

    def delete(self, el, name: str) -> None:
        if name in el.attrib:
            self._attrs.setdefault(el, dict(el.attrib))
            del el.attrib[name]

    def content(self, el) -> None:
        self._content.setdefault(el, None)

    def inserted(self, ref, new) -> None:
        self._inserted.append((ref, new))

    def replaced(self, old, new) -> None:
        self._replaced.append((old, new))

    def prepended(self, parent, new) -> None:
        """``new`` put first in ``parent`` (followed by the whitespace its first child had)."""
        self._prepended.append((parent, new))

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

    def _span(self, el) -> _Span:
        sp = self._spans.get(el)
        if sp is None:
            raise SpliceError(f"element {_localname(el)!r} was not mapped")
        return sp

    def _render(self) -> bytes:
        text = self.text
        crlf = text.count("\r\n")
        newline = "\r\n" if crlf and crlf == text.count("\n") else "\n"

        def fix(s: str) -> str:
            return s.replace("\n", newline) if newline != "\n" else s

        edits: list[tuple[int, int, str]] = []
        gone: list[tuple[int, int]] = []  # spans whose element was replaced whole
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

        def live(el) -> _Span | None:
            sp = self._spans.get(el)  # None: an element the writer created
            if sp is None or any(a <= sp.start < b for a, b in gone):
                return None
            return sp

        for el in self._content:
            sp = live(el)
            if sp is None:
                continue
            inner = fix(inner_xml(el))
            if not sp.empty:
                edits.append((sp.stag_end, sp.etag_start, inner))
            elif inner:
                slash = text.rindex("/", sp.start, sp.stag_end)
                edits.append((slash, sp.stag_end, f">{inner}</{sp.name}>"))
        for el, before in self._attrs.items():
            sp = live(el)
            if sp is not None:
                edits.extend(attr_edits(text, el, sp, before))
        edits.sort(key=lambda e: (e[0], e[1]), reverse=True)
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


def attr_edits(text: str, el, sp: _Span, before: dict) -> list[tuple[int, int, str]]:
    """The edits of ``el``'s start tag (at ``sp`` in ``text``) that give it its attributes
    now, from ``before``: changed values in their quotes, removed ones cut, new ones added."""
    tag = text[sp.start:sp.stag_end]
    raw: dict[str, re.Match] = {}
    last = sp.start + 1 + len(sp.name)
    for m in _ATTR.finditer(tag, 1 + len(sp.name)):
        raw[m.group(2)] = m
        last = sp.start + m.end()
    edits = []
    added: list[str] = []
    now = dict(el.attrib)
    for name in list(before) + [n for n in now if n not in before]:
        old, new = before.get(name), now.get(name)
        if old == new:
            continue
        qn = qname(el, name, strict=True)
        m = raw.get(qn)
        if m is None and old is not None:
            raise SpliceError(f"attribute {qn!r} not found in the start tag")
        if new is None:
            edits.append((sp.start + m.start(), sp.start + m.end(), ""))
        elif m is not None:
            edits.append((sp.start + m.start(5), sp.start + m.end(5),
                          _esc_attr(new, m.group(4))))
        else:
            quote = next(iter(raw.values())).group(4) if raw else '"'
            added.append(f" {qn}={quote}{_esc_attr(new, quote)}{quote}")
    if added:
        edits.append((last, last, "".join(added)))
    return edits
