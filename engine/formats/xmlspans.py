"""Where an element of a parsed XML file is in its decoded text: the splice writers' locator.

The file has already been parsed by lxml through :mod:`engine.formats.xmlsafe`, so it is
well-formed and has no entities to expand: its n-th start tag is lxml's n-th element in document
order.  Hand-written over regular expressions because neither lxml nor iterparse reports offsets
(``sourceline`` is a line, and many files are one line), and expat's byte index would need a
Python callback per tag -- the cost this module avoids.

:func:`_tokenize` gives the span of every element (one compiled pattern over all markup).
:class:`Locator` finds spans only for the elements a writer changed: the offset of every start
tag comes from one pattern that C scans over the file, and an element's end tag is looked for
from its start tag only when an edit needs it.  On a 5000-unit SDLXLIFF with every segment edited
the whole-file token walk was 1.5 of the export's 6.1 s under cProfile.
"""
from __future__ import annotations

import codecs
import re
from bisect import bisect_right
from dataclasses import dataclass
from itertools import count

from lxml import etree

_START = re.compile(r"<([^\s/>!?]+)((?:\s+[^\s=/>]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*(/?)>")
_END = re.compile(r"</([^\s>]+)\s*>")
_DOCTYPE_BODY = r"!(?i:DOCTYPE)(?:[^\[>\"']|\"[^\"]*\"|'[^']*')*(?:\[.*?\]\s*)?>"
# one token at each '<': an end tag (group 1), a start tag (2: name, 3: '/' when empty), a
# comment, CDATA, PI or DOCTYPE (no group), else unreadable markup (group 4)
_TOKEN = re.compile(
    r"<(?:/([^\s>]+)\s*>"
    r"|([^\s/>!?]+)(?:\s+[^\s=/>]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*\s*(/?)>"
    r"|!--.*?-->|!\[CDATA\[.*?\]\]>|\?.*?\?>|" + _DOCTYPE_BODY + r"|())", re.S)
# the start tags only (group 1); comments, CDATA, PIs and the DOCTYPE are matched to be skipped
_STARTS = re.compile(r"<(?:([^\s/>!?])|!--.*?-->|!\[CDATA\[.*?\]\]>|\?.*?\?>|" + _DOCTYPE_BODY + ")", re.S)


class SpliceError(Exception):
    """The original text could not be mapped onto the tree."""


@dataclass(slots=True)
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


def _tokens(text: str, pos: int):
    """The tokens from ``pos`` on; an unreadable '<' is a :class:`SpliceError`."""
    for m in _TOKEN.finditer(text, pos):
        if m.lastindex == 4:
            raise SpliceError(f"unreadable markup at offset {m.start()}")
        yield m


def _tokenize(text: str) -> list[_Span]:
    """The spans of all elements, in document order of their start tags."""
    spans: list[_Span] = []
    stack: list[_Span] = []
    for m in _tokens(text, 0):
        k = m.lastindex
        if k == 3:  # a start tag
            end = m.end()
            sp = _Span(m.group(2), m.start(), end, end, end, bool(m.group(3)))
            spans.append(sp)
            if not sp.empty:
                stack.append(sp)
        elif k == 1:
            if not stack or stack[-1].name != m.group(1):
                raise SpliceError(f"unmatched end tag at offset {m.start()}")
            sp = stack.pop()
            sp.etag_start, sp.end = m.start(), m.end()
    if stack:
        raise SpliceError("unclosed elements")
    return spans


def _localname(el) -> str:
    return el.tag.rsplit("}", 1)[-1]


class Locator:
    """The spans of chosen elements of ``root`` (parsed from ``text``), numbered before any edit:
    ``deep`` elements with all their descendants, ``shallow`` ones alone (or ``numbered``: every
    element's number, taken by the caller).  :meth:`span` finds an element's start tag;
    ``closed=True`` its end tag too (by walking its content only).  ``later``: a ``deep`` element's
    descendants are numbered only when :meth:`number` is asked for it (before any edit of it)."""

    def __init__(self, text: str, root, deep=(), shallow=(), numbered: dict | None = None,
                 later: bool = False):
        self.text = text
        self._starts = [m.start() for m in _STARTS.finditer(text) if m.lastindex]
        self._order: dict = {}  # element -> its number in document order
        self._later: dict = {}  # deep element -> its number: its descendants not numbered yet
        self._spans: dict = {}
        want = {el: False for el in shallow}
        want.update({el: True for el in deep})
        n = 0
        if numbered is not None:
            self._order, n = numbered, len(numbered)
        elif want:
            for n, el in enumerate(root.iter(etree.Element), 1):
                flag = want.get(el)
                if flag and later:
                    self._order[el] = self._later[el] = n - 1
                elif flag:
                    self._order.update(zip(el.iter(etree.Element), count(n - 1)))
                elif flag is not None:
                    self._order[el] = n - 1
        else:
            n = int(root.xpath("count(//*)"))
        if n != len(self._starts):
            raise SpliceError(f"{len(self._starts)} start tags for {n} elements")

    def __contains__(self, el) -> bool:
        return el in self._order

    def number(self, el) -> None:
        """Number the descendants of ``el`` (a ``deep`` element, with ``later``) as they are now."""
        n = self._later.pop(el, None)
        if n is not None:
            self._order.update(zip(el.iter(etree.Element), count(n)))

    def span(self, el, closed: bool = False) -> _Span:
        sp = self._spans.get(el)
        if sp is None:
            i = self._order.get(el)
            if i is None:
                raise SpliceError(f"element {_localname(el)!r} was not mapped")
            m = _START.match(self.text, self._starts[i])
            if m is None or m.group(1).rsplit(":", 1)[-1] != _localname(el):
                raise SpliceError(f"element {_localname(el)!r} not found where expected")
            end = m.end()
            sp = self._spans[el] = _Span(m.group(1), m.start(), end, -1, -1, bool(m.group(3)))
            if sp.empty:
                sp.etag_start = sp.end = end
        if closed and sp.end < 0:
            self._close(sp)
        return sp

    def _close(self, sp: _Span) -> None:
        text = self.text
        j = text.find("<", sp.stag_end)
        if text.startswith("/", j + 1) and text.startswith(sp.name, j + 2):  # text content only
            m = _END.match(text, j)
            if m is not None and m.group(1) == sp.name:
                sp.etag_start, sp.end = j, m.end()
                return
        stack: list[str] = []
        for m in _TOKEN.finditer(self.text, sp.stag_end):
            k = m.lastindex
            if k == 4:
                raise SpliceError(f"unreadable markup at offset {m.start()}")
            if k == 3 and not m.group(3):
                stack.append(m.group(2))
            elif k == 1:
                own = not stack
                if (sp.name if own else stack.pop()) != m.group(1):
                    raise SpliceError(f"unmatched end tag at offset {m.start()}")
                if own:
                    sp.etag_start, sp.end = m.start(), m.end()
                    return
        raise SpliceError("unclosed elements")


def starts_within(spans: list[tuple[int, int]]):
    """A test ``f(pos)``: is ``pos`` inside one of the ``(start, end)`` ranges?"""
    ranges: list[list[int]] = []
    for a, b in sorted(spans):  # nested or overlapping ones merged
        if ranges and a < ranges[-1][1]:
            ranges[-1][1] = max(ranges[-1][1], b)
        else:
            ranges.append([a, b])
    firsts = [a for a, _ in ranges]

    def inside(pos: int) -> bool:
        k = bisect_right(firsts, pos) - 1
        return k >= 0 and pos < ranges[k][1]
    return inside
