"""The root element of an XML file, read from its first bytes without parsing it: what
detection by content needs (an ``.xml`` can be Android strings, Qt TS, RESX, XLIFF or TMX).
Below :mod:`engine.formats` and the formats that sniff by it, so neither imports the other."""
from __future__ import annotations

import re
from pathlib import Path

#: Extensions of files that are XML whatever their first bytes say.
_XML_SUFFIXES = {".xml", ".xsd", ".xsl", ".xslt", ".dita", ".ditamap", ".srx", ".resx", ".svg", ".dtd", ".xlf",
                 ".xliff", ".sdlxliff", ".mqxliff", ".txlf", ".xhtml", ".xht", ".tmx", ".tbx"}
_XML_DECL = re.compile(r"\A\s*<\?xml[\s?]")
_PROLOG_ITEM = re.compile(r"\s+|<\?.*?\?>|<!--.*?-->|<!DOCTYPE(?:[^\[>]|\[.*?\])*>", re.S | re.I)
_ROOT_TAG = re.compile(r"<(?:([A-Za-z_][\w.-]*):)?([A-Za-z_][\w.-]*)([^>]*)")


def xml_root(path: Path, head: bytes) -> tuple[str, str, str] | None:
    """``(local name, namespace declarations and attributes, doctype)`` of the root of an XML file,
    None when ``path`` is not XML: its text does not start with an XML declaration and its extension
    is not an XML one (an HTML fragment or a Markdown file may begin with a tag)."""
    if head.startswith(b"PK\x03\x04") or b"<" not in head:  # a zip (DOCX, ODF...), or no tag in any
        return None  # encoding ("<" is byte 3C in each): not XML, without loading the decoder's modules
    from engine.formats.xliffcommon import decode_head

    text = decode_head(head).lstrip("\ufeff")
    if not (_XML_DECL.match(text) or path.suffix.lower() in _XML_SUFFIXES):
        return None
    if not text.lstrip().startswith("<"):
        return None
    pos, doctype = 0, ""
    while True:
        m = _PROLOG_ITEM.match(text, pos)
        if not m or m.end() == pos:
            break
        if m.group(0).upper().startswith("<!DOCTYPE"):
            doctype = m.group(0)
        pos = m.end()
    m = _ROOT_TAG.match(text, pos)
    if not m:
        return None
    return m.group(2), m.group(3), doctype
