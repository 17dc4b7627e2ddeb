"""Apple ``.strings`` (old-style property-list string tables) and ``.stringsdict`` (plural
rules as an XML property list).

``.strings``: each ``"key" = "value";`` (the key may be unquoted) is a segment keyed by its key;
the ``/* ... */`` or ``//`` comment right above is its note.  Escapes ``\\" \\\\ \\n \\t \\r``,
``\\uXXXX`` and ``\\UXXXX`` are undone; ``%@``, ``%1$@``, ``%d`` are codes.  Encoding: a BOM (the
UTF-16 Xcode writes), else UTF-8.  A translation replaces the value's quoted literal only.  The
reader is hand-written: translate-toolkit's ``stringsfile`` gives no offsets to splice with
(the tests read every edited export back with it).

``.stringsdict``: every ``<string>`` under a plural variable's ``zero``/``one``/``two``/``few``/
``many``/``other`` key, and each ``NSStringLocalizedFormatKey``, is a segment keyed
``[entry, variable, form]``; ``NSStringFormatSpecTypeKey`` and ``NSStringFormatValueTypeKey``
are not text.  The ``<string>`` content is spliced (:mod:`engine.formats.xmlstrings`).
"""
from __future__ import annotations

import re
from pathlib import Path

from engine.errors import FormatError
from engine.formats.plurals import Group, PluralGaps
from engine.formats.strsplice import Parsed, StringsFormat, Unit, key_json, read_text, unique_keys
from engine.formats.xmlstrings import XmlText, encode_xml, escape_text

_TOKEN = re.compile(r'\s+|/\*.*?\*/|//[^\n]*|"(?:[^"\\]|\\.)*"|[^\s=;"/]+|[=;]|/', re.S)
_ESC = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "0": "\0"}
_PLURAL_FORMS = {"zero", "one", "two", "few", "many", "other"}


def unquote(lit: str) -> str:
    s = lit[1:-1] if lit.startswith('"') else lit
    if "\\" not in s:
        return s
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            d = s[i + 1]
            if d in "uU" and re.fullmatch(r"[0-9A-Fa-f]{4}", s[i + 2:i + 6]):
                out.append(chr(int(s[i + 2:i + 6], 16)))
                i += 6
                continue
            out.append(_ESC.get(d, d))
            i += 2
            continue
        out.append(c)
        i += 1
    try:
        return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16")
    except UnicodeDecodeError:
        # a lone UTF-16 unit is no character: UTF-8 text (the project, the TM, the exported
        # file) cannot hold it, so it is refused, named
        half = next(f"{ord(c):04X}" for c in "".join(out) if "\ud800" <= c <= "\udfff")
        raise ValueError(f"\\U{half} is half of a UTF-16 surrogate pair without its other half") from None


def _unquote(path: Path, tok: str, line: int) -> str:
    try:
        return unquote(tok)
    except ValueError as e:
        raise FormatError(path, str(e), f"line {line}") from None


def quote(value: str) -> str:
    return '"' + (value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
                  .replace("\t", "\\t").replace("\r", "\\r")) + '"'


class StringsFileFormat(StringsFormat):
    name = "apple-strings"
    UNITS = re.compile(rb'=\s*"')
    extensions = (".strings",)

    def sniff(self, path: Path, head: bytes) -> bool:
        return Path(path).suffix.lower() == ".strings"

    def parse(self, path: Path) -> Parsed:
        dec = read_text(path, "the file is empty (no \"key\" = \"value\"; entry)")
        text = dec.text
        units: list[Unit] = []
        note = ""
        state, key, key_line = "key", "", 0
        line, pos = 1, 0
        for m in _TOKEN.finditer(text):
            if m.start() != pos:
                break
            tok = m.group(0)
            pos = m.end()
            if tok.isspace():
                line += tok.count("\n")
                continue
            if tok.startswith(("/*", "//")):
                body = tok[2:-2] if tok.startswith("/*") else tok[2:]
                note = body.strip() if state == "key" else note
                line += tok.count("\n")
                continue
            if state == "key" and tok not in "=;":
                key, key_line, state = _unquote(path, tok, line), line, "eq"
            elif state == "eq" and tok == "=":
                state = "value"
            elif state == "value" and tok.startswith('"'):
                units.append(Unit(key=key, value=_unquote(path, tok, line), start=m.start(), end=m.end(), line=key_line,
                                  note=note, context=key))
                state, note = "semi", ""
            elif state == "semi" and tok == ";":
                state = "key"
            else:
                raise FormatError(path, f"unexpected {tok[:30]!r}: expected "
                                        + {"key": "a key", "eq": "'='", "value": 'a "quoted" value',
                                           "semi": "';'"}[state], f"line {line}")
            line += tok.count("\n")
        if pos != len(text):
            raise FormatError(path, f"unexpected {text[pos:pos + 30]!r} (an unterminated string or comment?)",
                              f"line {line}")
        if state != "key":
            raise FormatError(path, "the last entry is not finished (missing '=', value or ';')", f"line {line}")
        problems: list[str] = []
        unique_keys(units, problems)
        return Parsed(dec, units, problems)

    def escape(self, value: str, unit: Unit, parsed: Parsed) -> str:
        return quote(value)


class StringsDictFormat(PluralGaps, StringsFormat):
    name = "apple-stringsdict"
    UNITS = b"<string>"
    extensions = (".stringsdict",)

    def sniff(self, path: Path, head: bytes) -> bool:
        return Path(path).suffix.lower() == ".stringsdict"

    def parse(self, path: Path) -> Parsed:
        x = XmlText(path)
        root = x.tree.getroot()
        top = root.find("dict")
        if root.tag != "plist" or top is None:
            raise FormatError(path, "not a property list (<plist><dict>)")
        units: list[Unit] = []
        groups: list[Group] = []
        for entry, value in _pairs(top):
            if value.tag != "dict":
                continue
            for name, item in _pairs(value):
                if name == "NSStringLocalizedFormatKey" and item.tag == "string":
                    units.append(self._unit(x, item, [entry, name], entry, "format"))
                elif item.tag == "dict":
                    forms = [(k, s) for k, s in _key_pairs(item) if k.text in _PLURAL_FORMS and s.tag == "string"]
                    for k, s in forms:
                        units.append(self._unit(x, s, [entry, name, k.text], entry,
                                                f"plural form {k.text!r} of {name!r}"))
                    if forms:
                        groups.append(_group(x, entry, name, forms))
        problems: list[str] = []
        unique_keys(units, problems)
        return Parsed(x.decoded, units, problems, meta={"plural_groups": groups})

    zero_for_any_language = True  # Foundation reads a "zero" form for 0 in every language

    def plural_item(self, group: Group, cat: str, escaped: str, parsed: Parsed) -> str:
        lay = group.layout
        return f"{lay['before']}<key>{cat}</key>{lay['between']}<string>{escaped}</string>"

    @staticmethod
    def _unit(x: XmlText, el, keys: list, context: str, note: str) -> Unit:
        a, b = x.span(el)
        return Unit(key=key_json(keys), value=el.text or "", start=a, end=b, line=el.sourceline or 0,
                    note=note, context=context)

    def escape(self, value: str, unit: Unit, parsed: Parsed) -> str:
        return escape_text(value)

    def encode(self, parsed: Parsed, text: str, path: Path) -> bytes:
        return encode_xml(parsed.decoded, text)


def _group(x: XmlText, entry: str, name: str, forms: list) -> Group:
    """A plural variable's dict: new forms go after its last ``<key>form</key><string>``, laid
    out as that pair is."""
    key, string = forms[-1]
    text = x.decoded.text
    k_start, k_end = x.outer(key)
    s_start, s_end = x.outer(string)
    ws = k_start
    while ws > 0 and text[ws - 1] in " \t\r\n":
        ws -= 1
    return Group(forms={k.text: key_json([entry, name, k.text]) for k, _ in forms},
                 key=key_json([entry, name, "\0"]).replace("\\u0000", "{form}"), at=s_end,
                 layout={"before": text[ws:k_start], "between": text[k_end:s_start]})


def _key_pairs(d):
    """``(key element, value element)`` of a plist ``<dict>``."""
    kids = [c for c in d if isinstance(c.tag, str)]
    return [(k, v) for k, v in zip(kids[::2], kids[1::2]) if k.tag == "key"]


def _pairs(d):
    """``(key text, value element)`` of a plist ``<dict>``."""
    kids = [c for c in d if isinstance(c.tag, str)]
    return [((k.text or ""), v) for k, v in zip(kids[::2], kids[1::2]) if k.tag == "key"]


STRINGS = StringsFileFormat()
STRINGSDICT = StringsDictFormat()
