"""Android string resources (``res/values*/strings.xml``).

Segments: each ``<string>``, each ``<item>`` of a ``<string-array>`` (key ``name[0]``, ...) and
of a ``<plurals>`` (key ``name[one]``, ...; the note names the quantity).  Resources marked
``translatable="false"``, and values that are references (``@string/other``), are not
segments.  The XML comment right above a resource is its note.

A value reads as Android reads it: XML entities decoded (``&lt;``/``&gt;`` stay codes), then
``\\'`` ``\\"`` ``\\n`` ``\\t`` ``\\@`` ``\\?`` ``\\\\`` ``\\uXXXX`` undone, unescaped double quotes
dropped (white space inside them kept), other runs of white space one space, and the ends
trimmed.  Styling tags (``<b>``, ``<xliff:g id="n">%1$s</xliff:g>``) and placeholders are codes; so
are HTML tags written escaped (``&lt;b>bold&lt;/b>``, as Android's docs ask for Html.fromHtml), written
back escaped the same way (``>`` or ``&gt;`` as the string had it); an article, escaped or in CDATA,
is read sentence by sentence (:mod:`engine.formats.htmlsub`).
translate-toolkit's ``aresource`` store reads ``<string>`` and ``<plurals>`` alike but skips
``<string-array>`` and gives no offsets for the splice, hence this reader (the tests read every
edited export back with translate-toolkit).  A translation is written back escaped by the same rules (apostrophes and quotes escaped, a
leading ``@``/``?`` escaped, ``&`` and ``<`` as entities; inside the CDATA section the value
had, no entities) in place of the element's content only (:mod:`engine.formats.xmlstrings`).
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from lxml import etree

from engine.errors import FormatError
from engine.formats import xmlsafe
from engine.formats.plurals import CATEGORIES, Group, PluralGaps
from engine.formats.textutil import render
from engine.formats.strsplice import Parsed, StringsFormat, Unit, key_json, unique_keys
from engine.formats.xmlstrings import XmlText, decode_entities, encode_xml, escape_text
from engine.inline import TaggedText

_ESC = {"n": "\n", "t": "\t"}
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_CDATA = re.compile(r"\A\s*<!\[CDATA\[(.*)\]\]>\s*\Z", re.S)
_KINDS = ("string", "plurals", "string-array")
#: an HTML tag written with ``&lt;`` (as Android's docs ask for a string passed to Html.fromHtml): only
#: the tags Html.fromHtml knows, so that ``&lt;beta&gt;`` stays text
_ESCAPED_TAG = re.compile(r"&lt;/?(?:a|b|i|u|s|p|br|em|strong|font|big|small|strike|sub|sup|tt|div|span|cite|"
                          r"dfn|blockquote|h[1-6]|ul|ol|li|img|del)(?:\s[^<>&]*|/)?(?:>|&gt;)", re.I)


def unescape(s: str) -> str:
    out: list[tuple[str, bool]] = []  # (character, may be collapsed or trimmed)
    quoted = False
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        tag = _TAG.match(s, i) if c == "<" else None
        if tag:  # a styling tag: its attribute quotes are XML's, not Android's
            out += [(ch, False) for ch in tag.group(0)]
            i = tag.end()
            continue
        if c == "\\" and i + 1 < n:
            d = s[i + 1]
            if d == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", s[i + 2:i + 6]):
                out.append((chr(int(s[i + 2:i + 6], 16)), False))
                i += 6
                continue
            out.append((_ESC.get(d, d), False))
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        elif c in " \t\r\n" and not quoted:
            if not out or out[-1] != (" ", True):
                out.append((" ", True))
        else:
            out.append((c, False))
        i += 1
    while out and out[0] == (" ", True):
        out.pop(0)
    while out and out[-1] == (" ", True):
        out.pop()
    return "".join(c for c, _ in out)


def escape(s: str, *, first: bool, cdata: bool) -> str:
    out = []
    for i, c in enumerate(s):
        if c == "\\":
            out.append("\\\\")
        elif c in "'\"":
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif c in "@?" and i == 0 and first:
            out.append("\\" + c)
        else:
            out.append(c)
    text = "".join(out)
    return text if cdata else escape_text(text)


def _escaped(written: str, unit: Unit) -> str:
    """``written`` with ``>`` as the unit's escaped HTML wrote it: ``&gt;`` or ``>`` (``&lt;b>``)."""
    return written.replace("&gt;", ">") if unit.meta.get("escaped_html") and not unit.meta.get("gt") else written


def _note(el) -> str:
    prev = el.getprevious()
    if isinstance(prev, etree._Comment):
        return (prev.text or "").strip()
    return ""


def _plural_group(x: XmlText, el, name: str) -> Group | None:
    """Where a ``<plurals>``'s missing forms go: after its last ``<item>``, on a line of their own
    when the items are."""
    items = [c for c in el if c.tag == "item"]
    if not items:
        return None
    last = items[-1]
    start, end = x.outer(last)
    text = x.decoded.text
    ws = start
    while ws > 0 and text[ws - 1] in " \t\r\n":
        ws -= 1
    forms = {q: key_json(["plurals", f"{name}[{q}]"]) for it in items if (q := it.get("quantity")) in CATEGORIES}
    return Group(forms=forms, key=key_json(["plurals", f"{name}[{{form}}]"]), at=end,
                 layout={"before": text[ws:start]}, context=f"{name}[{{form}}]")


class AndroidFormat(PluralGaps, StringsFormat):
    name = "android"
    UNITS = re.compile(rb"<(?:string|item)[\s>]")
    extensions = (".xml",)

    def sniff(self, path: Path, head: bytes) -> bool:
        from engine.formats.xmlroot import xml_root

        root = xml_root(Path(path), head)
        return root is not None and root[0] == "resources"

    def parse(self, path: Path) -> Parsed:
        x = XmlText(path)
        root = x.tree.getroot()
        if not isinstance(root.tag, str) or xmlsafe.localname(root) != "resources":
            raise FormatError(path, f"the root element is <{xmlsafe.localname(root)}>, not <resources>")
        units: list[Unit] = []
        groups: list[Group] = []
        for el in root:
            if not isinstance(el.tag, str) or el.get("translatable") == "false":
                continue
            kind, name = el.tag, el.get("name") or ""
            if el.get("product"):  # a variant of the resource for one kind of device: its own segment
                name += f"@{el.get('product')}"
            if kind == "string":
                items = [(name, el, "")]
            elif kind in ("string-array", "plurals"):
                if kind == "plurals" and (g := _plural_group(x, el, name)):
                    groups.append(g)
                items = [(f"{name}[{it.get('quantity') if kind == 'plurals' else i}]", it,
                          f"quantity {it.get('quantity')!r}" if kind == "plurals" else f"item {i + 1}")
                         for i, it in enumerate(c for c in el if c.tag == "item")]
            else:
                continue
            note = _note(el)
            for label, item, what in items:
                raw = x.inner(item)
                m = _CDATA.match(raw)
                value = unescape(m.group(1) if m else decode_entities(raw))
                meta = {"cdata": True} if m else {}
                if not m and "<" not in raw and _ESCAPED_TAG.search(raw):  # the string is HTML, its tags escaped
                    value = value.replace("&lt;", "<").replace("&gt;", ">")
                    meta = {"escaped_html": True, "gt": "&gt;" in raw}
                if value.startswith("@") and re.fullmatch(r"@[\w:]+/[\w.]+", value):
                    continue  # a reference to another resource
                a, b = x.span(item)
                if m:
                    a, b = a + m.start(1), a + m.end(1)
                units.append(Unit(key=key_json([kind, label]), value=value, start=a, end=b, line=x.line(item),
                                  note="\n".join(p for p in (note, what) if p), context=label,
                                  meta=meta))
        if not any(isinstance(el.tag, str) and el.tag in _KINDS for el in root):
            first = next((el.tag for el in root if isinstance(el.tag, str)), "")
            raise FormatError(path, "Android resources without <string>, <plurals> or <string-array>"
                                    + (f" (<{first}>...)" if first else "") + ": nothing to translate")
        problems: list[str] = []
        unique_keys(units, problems)
        return Parsed(x.decoded, units, problems, meta={"plural_groups": groups})

    def plural_item(self, group: Group, cat: str, escaped: str, parsed: Parsed) -> str:
        return f'{group.layout["before"]}<item quantity="{cat}">{escaped}</item>'

    def written(self, target: TaggedText, source: TaggedText, unit: Unit, parsed: Parsed) -> str | None:
        if super().written(target, source, unit, parsed) is None:
            return None
        cdata = bool(unit.meta.get("cdata"))
        pieces = iter(range(1 << 30))
        if unit.meta.get("escaped_html"):  # its codes are written escaped, as the file wrote its tags
            target, source = (TaggedText(tt.text, [replace(t, original=_escaped(escape(t.original, first=False,
                                                                                    cdata=False), unit))
                                                   for t in tt.tags]) for tt in (target, source))
        out = self.escape_pieces(target, source, lambda s: _escaped(escape(s, first=next(pieces) == 0,
                                                                           cdata=cdata), unit))
        plain = render(target, source)
        if plain != plain.strip(" ") or "  " in plain:
            out = '"' + out + '"'  # white space Android would trim or collapse: the value quoted
        return out

    def escape(self, value: str, unit: Unit, parsed: Parsed) -> str:
        return value  # written() escapes the text between codes itself

    def html_value(self, unit: Unit) -> bool:  # HTML as child elements is markup of the file: its codes
        return bool(unit.meta.get("cdata") or unit.meta.get("escaped_html")) and super().html_value(unit)

    def escape_html(self, value: str, unit: Unit, parsed: Parsed) -> str:
        return _escaped(escape(value, first=True, cdata=bool(unit.meta.get("cdata"))), unit)

    def encode(self, parsed: Parsed, text: str, path: Path) -> bytes:
        return encode_xml(parsed.decoded, text)


FORMAT = AndroidFormat()
