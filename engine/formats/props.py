"""Java ``.properties`` resource bundles.

Each ``key = value`` entry with a non-empty value is a segment keyed by its (unescaped) key;
the comment lines (``#`` or ``!``) right above it are its note.  The file is read as
``java.util.Properties`` reads it: logical lines joined at an odd number of trailing
backslashes (the next line's leading white space dropped), the key ending at the first
unescaped ``=``, ``:`` or white space, escapes ``\\t \\n \\r \\f \\uXXXX`` and ``\\X`` = ``X``.

Encoding: a BOM wins; else UTF-8 when the bytes are valid UTF-8 (Java 9 reads bundles so),
else ISO-8859-1 (what ``Properties.load(InputStream)`` assumes).  A translation is written
on one line in the file's style: an ASCII-only file gets ``\\uXXXX`` for every other
character (so Java 8's ISO-8859-1 reading sees the same text), an ISO-8859-1 file gets
``\\uXXXX`` for what Latin-1 lacks, a UTF-8 file the characters themselves.

The parser is hand-written rather than translate-toolkit's: the writer needs where each
value stands in the file to splice it, and translate-toolkit's units carry no offsets
(the tests read every edited export back with translate-toolkit's ``propfile``).
"""
from __future__ import annotations

import re
from pathlib import Path

from engine.errors import FormatError
from engine.formats.strsplice import Parsed, StringsFormat, Unit, read_text, unique_keys

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def unescape(s: str, path: Path | None = None, line: int = 0) -> str:
    out, i, n = [], 0, len(s)
    while i < n:
        c = s[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        c = s[i + 1]
        if c == "u":
            hx = s[i + 2:i + 6]
            if len(hx) < 4 or not re.fullmatch(r"[0-9A-Fa-f]{4}", hx):
                raise FormatError(path, f"malformed \\uXXXX escape {s[i:i + 6]!r}", f"line {line}")
            out.append(chr(int(hx, 16)))
            i += 6
            continue
        out.append(_ESCAPES.get(c, c))
        i += 2
    # \uD83D\uDE00: a surrogate pair written as two escapes is one character
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16")


def _logical_lines(text: str):
    """``(start, end, first line number, physical pieces)`` of each logical line; a piece is
    ``(start, end)`` of one physical line's content without its line end."""
    pieces: list[tuple[int, int]] = []
    start = lineno = 0
    pos, number = 0, 1
    for m in _LINE.finditer(text):
        line = m.group(0)
        if not line:
            break
        body_end = m.start() + len(line.rstrip("\r\n"))
        if not pieces:
            start, lineno = m.start(), number
        a = m.start()
        if len(pieces):  # a continuation: its leading white space is not part of the value
            while a < body_end and text[a] in " \t\f":
                a += 1
        pieces.append((a, body_end))
        body = text[m.start():body_end]
        trailing = len(body) - len(body.rstrip("\\"))
        number += 1
        pos = m.end()
        if trailing % 2 == 1 and pos < len(text):
            continue
        yield start, body_end, lineno, pieces
        pieces = []
    if pieces:
        yield start, pieces[-1][1], lineno, pieces


def _split_entry(text: str, a: int, b: int) -> tuple[int, int, int]:
    """``(key start, key end, value start)`` offsets of the entry in ``text[a:b]`` (first physical piece)."""
    i = a
    while i < b and text[i] in " \t\f":
        i += 1
    key_start = i
    while i < b:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c in "=: \t\f":
            break
        i += 1
    key_end = min(i, b)
    while i < b and text[i] in " \t\f":
        i += 1
    if i < b and text[i] in "=:":
        i += 1
        while i < b and text[i] in " \t\f":
            i += 1
    return key_start, key_end, min(i, b)


class PropertiesFormat(StringsFormat):
    name = "properties"
    #: a logical line (continuations joined) that is not blank or a comment
    UNITS = re.compile(rb"(?m)^[ \t\f]*[^ \t\f\r\n#!][^\\\r\n]*(?:\\(?:\r\n|[\s\S])[^\\\r\n]*)*")
    extensions = (".properties",)
    markup = True

    def sniff(self, path: Path, head: bytes) -> bool:
        return Path(path).suffix.lower() in self.extensions

    def parse(self, path: Path) -> Parsed:
        try:
            dec = read_text(path, "the file is empty (no key = value entry)")
        except FormatError:
            dec = read_text(path, "the file is empty (no key = value entry)", "iso-8859-1")
        text = dec.text
        units: list[Unit] = []
        comments: list[str] = []
        for start, end, lineno, pieces in _logical_lines(text):
            first_a, first_b = pieces[0]
            stripped = text[first_a:first_b].lstrip(" \t\f")
            if not stripped:
                comments = []
                continue
            if stripped[0] in "#!":
                comments.append(stripped[1:].strip())
                continue
            k0, k1, v0 = _split_entry(text, first_a, first_b)
            raw_key = text[k0:k1]
            if k1 >= first_b and len(pieces) > 1:  # legal, but no tool writes it
                raise FormatError(path, "a key continued on the next line: not supported", f"line {lineno}")
            # The value: the rest of the first piece and the continuation pieces, less the joining backslashes.
            raw_value = "".join(
                text[(v0 if i == 0 else pa):pb][:-1] if i < len(pieces) - 1 else text[(v0 if i == 0 else pa):pb]
                for i, (pa, pb) in enumerate(pieces))
            key = unescape(raw_key, path, lineno)
            units.append(Unit(key=key, value=unescape(raw_value, path, lineno), start=v0, end=end, line=lineno,
                              note="\n".join(comments), context=key))
            comments = []
        if not units and not text.strip():
            raise FormatError(path, "the file is empty (no key = value entry)")
        problems: list[str] = []
        unique_keys(units, problems)
        raw_ascii = text.isascii()
        return Parsed(dec, units, problems, meta={"ascii": raw_ascii})

    def escape(self, value: str, unit: Unit, parsed: Parsed) -> str:
        enc = parsed.decoded.encoding.lower().replace("_", "-")
        limit = 0x7F if parsed.meta.get("ascii") else (0xFF if enc in ("iso-8859-1", "latin-1") else None)
        out = []
        for i, c in enumerate(value):
            if c == "\\":
                out.append("\\\\")
            elif c == "\n":
                out.append("\\n")
            elif c == "\r":
                out.append("\\r")
            elif c == "\t":
                out.append("\\t")
            elif c == "\f":
                out.append("\\f")
            elif c == " " and i == 0:
                out.append("\\ ")
            elif limit is not None and ord(c) > limit:
                out.append("".join(f"\\u{u:04x}" for u in _utf16_units(c)))
            else:
                out.append(c)
        return "".join(out)


def _utf16_units(c: str) -> list[int]:
    b = c.encode("utf-16-be")
    return [int.from_bytes(b[i:i + 2], "big") for i in range(0, len(b), 2)]


FORMAT = PropertiesFormat()
