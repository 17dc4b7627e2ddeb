"""XML resource files (Android, RESX, Qt TS) for :class:`engine.formats.strsplice.StringsFormat`:
a safe parse, and where each element's content stands in the decoded text.

The file is parsed by lxml through :mod:`engine.formats.xmlsafe` (no entities, no DTD, no
network); :mod:`engine.formats.xmlsplice`'s tokenizer then gives the span of each element, its
n-th start tag being lxml's n-th element.  A translation replaces an element's content, so the
rest of the file -- comments, attribute quoting, CDATA elsewhere, line ends, encoding, BOM --
is the file's own.
"""
from __future__ import annotations

import re
from pathlib import Path

from lxml import etree

from engine.errors import FormatError
from engine.formats import textutil, xmlsafe
from engine.formats.textutil import Decoded
# xmlsplice's decoder and tokenizer, shared rather than copied: the same spans its Splice maps
from engine.formats.xmlsplice import SpliceError, _decode, _tokenize

_ENTITY = re.compile(r"&(?:#(\d+)|#x([0-9A-Fa-f]+)|(amp|quot|apos));")
_NAMED = {"amp": "&", "quot": '"', "apos": "'"}


class XmlText:
    """``tree``, ``decoded`` (the text, its codec and BOM) and ``span(el)``: the
    ``(start, end)`` of an element's content in the text."""

    def __init__(self, path: Path):
        textutil.check_size(path)
        self.tree = xmlsafe.parse_file(path)
        try:
            bom, codec, text = _decode(Path(path).read_bytes(), self.tree.docinfo.encoding)
            spans = _tokenize(text)
        except SpliceError as e:
            raise FormatError(path, f"cannot map the XML text onto its elements ({e})") from None
        elements = list(self.tree.getroot().iter(etree.Element))
        if len(elements) != len(spans):
            raise FormatError(path, f"cannot map the XML text onto its elements ({len(spans)} start tags "
                                    f"for {len(elements)} elements)")
        self.decoded = Decoded(text, codec, bom)
        self._spans = dict(zip(elements, spans))

    def span(self, el) -> tuple[int, int]:
        sp = self._spans[el]
        return sp.stag_end, (sp.etag_start if not sp.empty else sp.stag_end)

    def outer(self, el) -> tuple[int, int]:
        """The element's span, start tag to end tag."""
        sp = self._spans[el]
        return sp.start, sp.end

    def start_tag(self, el) -> str:
        sp = self._spans[el]
        return self.decoded.text[sp.start:sp.stag_end]

    def inner(self, el) -> str:
        a, b = self.span(el)
        return self.decoded.text[a:b]

    def line(self, el) -> int:
        return el.sourceline or 0


def decode_entities(s: str) -> str:
    """``&amp;``, ``&quot;``, ``&apos;`` and character references as characters; ``&lt;`` and
    ``&gt;`` are left as written (decoded, they would read as markup)."""
    def rep(m: re.Match) -> str:
        if m.group(3):
            return _NAMED[m.group(3)]
        cp = int(m.group(1)) if m.group(1) else int(m.group(2), 16)
        ch = chr(cp) if cp < 0x110000 else m.group(0)
        return m.group(0) if ch in "<>" else ch
    return _ENTITY.sub(rep, s) if "&" in s else s


def escape_text(s: str) -> str:
    """Plain text as XML content: ``&`` not starting an entity, and ``<`` not starting markup
    the translation kept from its source, are escaped by the callers' codes."""
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def encode_xml(decoded: Decoded, text: str) -> bytes:
    """The text in the file's encoding, a character it cannot hold as a character reference."""
    return decoded.bom + text.encode(decoded.encoding, errors="xmlcharrefreplace")
