"""XLIFF inline codes, read: an element's mixed content -> :class:`~engine.inline.TaggedText`.

:class:`Extractor` walks the content; the 1.2 and 2.0 readers subclass it to say
what each inline element becomes.  It remembers which element each tag number
came from (:class:`Code`, :class:`Extracted`) so that a writer can put the codes
back (:mod:`engine.formats.xliff_fill`).  The markup helpers (:func:`outer_xml`,
:func:`start_tag`) give a code's original XML without namespace declarations.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count
from pathlib import Path
from typing import Literal

from lxml import etree

from engine.errors import UnsafeXMLError
from engine.formats.xliff_load import _line, localname
from engine.formats.xmlsplice import qname
from engine.inline import TaggedText, TaggedTextBuilder

# ------------------------------------------------------------- serialisation


def _esc_attr(v: str) -> str:
    return (v.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
            .replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;"))


def _esc_text(v: str | None) -> str:
    return (v or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _name(el) -> str:
    local = localname(el)
    return f"{el.prefix}:{local}" if el.prefix else local


def start_tag(el, *, empty: bool = False) -> str:
    """``<g id="1" ctype="bold">`` (no namespace declarations)."""
    attrs = "".join(f' {qname(el, k)}="{_esc_attr(v)}"' for k, v in el.attrib.items())
    return f"<{_name(el)}{attrs}{'/' if empty else ''}>"


def end_tag(el) -> str:
    return f"</{_name(el)}>"


def outer_xml(node) -> str:
    """The markup of ``node`` without its tail and without xmlns clutter."""
    if isinstance(node, etree._Comment):
        return f"<!--{node.text or ''}-->"
    if isinstance(node, etree._ProcessingInstruction):
        return f"<?{node.target} {node.text or ''}?>".replace(" ?>", "?>")
    if not len(node) and not node.text:
        return start_tag(node, empty=True)
    inner = _esc_text(node.text) + "".join(outer_xml(c) + _esc_text(c.tail) for c in node)
    return start_tag(node) + inner + end_tag(node)


def inner_text(el) -> str:
    """All text inside ``el`` (for notes)."""
    return "".join(el.itertext())


# ------------------------------------------------------------ reading codes
Role = Literal["copy", "open", "close", "char"]


@dataclass
class Code:
    """Where tag ``n`` of a segment came from: ``copy`` (an empty or opaque
    code copied as is), ``open`` / ``close`` of a wrapping element (``<g>``,
    ``<pc>``, ``<mrk>``) that must be re-nested in a target, or ``char`` (a
    private-use character of the text, written back as ``text``)."""

    el: object
    role: Role
    partner: int = 0  # for open/close: the number of the other half
    text: str = ""    # for char: the character


@dataclass
class Extracted:
    """A container's content as tagged text plus the element of each tag."""

    text: TaggedText
    codes: dict[int, Code] = field(default_factory=dict)


class Extractor:
    """Walks mixed content; subclasses say what each inline element becomes.

    ``handle(builder, el)`` returns True when it dealt with ``el``; the base
    class turns anything else (foreign elements, comments, PIs) into an opaque
    standalone code so that it comes back on export.
    """

    def __init__(self, path: Path):
        self.path = path
        self.b = TaggedTextBuilder()
        self.codes: dict[int, Code] = {}
        self._numbers = count(1)
        # a private-use character: a code, numbered alongside the others.  Not the bound method
        # self._char: extractor and builder would hold each other, garbage for the cyclic collector
        # (30,000 per 10,000-segment export; its passes were 0.3 of 1.6 s CPU)
        codes, numbers = self.codes, self._numbers
        self.b.on_private_use = lambda ch: codes.__setitem__(next(numbers), Code(None, "char", text=ch))

    # -- helpers for subclasses
    def _next(self) -> int:
        return next(self._numbers)

    def ph(self, el, label: str, attrs: dict | None = None, kind: str = "ph",
           pair: str = "") -> int:
        n = self._next()
        original = outer_xml(el)
        if kind == "open":
            self.b.open(original, label, pair=pair or f"p{n}", attrs=attrs)
        elif kind == "close":
            self.b.close(original, label, pair=pair or f"p{n}", attrs=attrs)
        else:
            self.b.ph(original, label, attrs=attrs)
        self.codes[n] = Code(el, "copy")
        return n

    def wrap(self, el, label: str, attrs: dict | None = None) -> None:
        """A paired element whose content is part of the segment."""
        n_open = self._next()
        pair = f"p{n_open}"
        self.b.open(start_tag(el), label, pair=pair, attrs=attrs)
        self.content(el)
        n_close = self._next()
        self.b.close(end_tag(el), label, pair=pair, attrs=attrs)
        self.codes[n_open] = Code(el, "open", n_close)
        self.codes[n_close] = Code(el, "close", n_open)

    def text(self, s: str | None) -> None:
        self.b.text(s)  # a private-use character becomes a code: numbered by on_private_use

    # -- walking
    def content(self, el) -> None:
        self.text(el.text)
        for child in el:
            if isinstance(child, etree._Entity):
                raise UnsafeXMLError(self.path, f"refused: entity {child.text} is not expanded",
                                     _line(child))
            if not (isinstance(child.tag, str) and self.handle(child)):
                self.ph(child, _opaque_label(child))
            self.text(child.tail)

    def handle(self, el) -> bool:  # pragma: no cover - overridden
        return False

    def run(self, el) -> Extracted:
        self.content(el)
        return Extracted(self.b.build(), self.codes)


def code_label(name: str, ident: str | None) -> str:
    """Chip label of an inline code: ``g1``, ``x2``, ``mrk-m1``."""
    if not ident:
        return name
    return f"{name}{ident}" if ident[0].isdigit() else f"{name}-{ident}"


def _opaque_label(node) -> str:
    if isinstance(node, etree._Comment):
        return "!--"
    if isinstance(node, etree._ProcessingInstruction):
        return "?" + (node.target or "")
    return localname(node) or "?"
