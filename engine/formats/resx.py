""".NET ``.resx`` resource files.

Each string ``<data name="...">`` is a segment keyed by its name, its ``<comment>`` the note.
Resources with a ``type`` or ``mimetype`` attribute (images, sizes, serialised objects) and
Windows Forms metadata (names starting ``>>``) are not text.  ``{0}``-style format items and
markup are codes.  Export replaces the content of translated ``<value>`` elements only, the
text escaped as XML (``&amp; &lt; &gt;``); the schema, headers and every other resource are the
file's own text (:mod:`engine.formats.xmlstrings`).
"""
from __future__ import annotations

from pathlib import Path

from engine.errors import FormatError
from engine.formats.strsplice import Parsed, StringsFormat, Unit, unique_keys
from engine.formats.xmlstrings import XmlText, encode_xml, escape_text

XML_NS = "{http://www.w3.org/XML/1998/namespace}"


class ResxFormat(StringsFormat):
    name = "resx"
    UNITS = b"<data "
    extensions = (".resx",)

    def sniff(self, path: Path, head: bytes) -> bool:
        from engine.formats.xmlroot import xml_root

        root = xml_root(Path(path), head)
        return root is not None and root[0] == "root"  # read() refuses a <root> that is no RESX

    def parse(self, path: Path) -> Parsed:
        x = XmlText(path)
        root = x.tree.getroot()
        if root.tag != "root":
            raise FormatError(path, f"the root element is <{root.tag}>, not <root>")
        if root.find("resheader") is None and root.find("data") is None:
            raise FormatError(path, "XML with the root element <root> but no <data> or <resheader>: "
                                    "not a .resx file (nor another format Verso reads)")
        units: list[Unit] = []
        for data in root.iter("data"):
            name = data.get("name") or ""
            if data.get("type") or data.get("mimetype") or name.startswith(">>"):
                continue
            value = data.find("value")
            if value is None:
                continue
            a, b = x.span(value)
            units.append(Unit(key=name, value=value.text or "", start=a, end=b, line=value.sourceline or 0,
                              note=(data.findtext("comment") or "").strip(), context=name))
        problems: list[str] = []
        unique_keys(units, problems)
        return Parsed(x.decoded, units, problems)

    def escape(self, value: str, unit: Unit, parsed: Parsed) -> str:
        return escape_text(value)

    def encode(self, parsed: Parsed, text: str, path: Path) -> bytes:
        return encode_xml(parsed.decoded, text)


FORMAT = ResxFormat()
