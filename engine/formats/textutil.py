"""Helpers shared by the plain-text readers (TXT, PO, CSV/TSV).

* decoding with a byte order mark or a declared charset, never guessing
  silently: undecodable bytes raise :class:`~engine.errors.FormatError` with
  the file and the line;
* the newline style of a text, to write it back the same way;
* protecting placeholders and markup in a source and in its target so that a
  target's codes carry the numbers of the same codes in the source;
* keeping private-use characters of the file's text (which Verso's own codes
  would otherwise be confused with) as codes of their own;
* limits on the size of a line and of one string (:data:`MAX_LINE_BYTES`,
  :data:`MAX_STRING_CHARS`), checked while streaming (:func:`check_lines`)
  so that a file that breaks them is refused within seconds, in bounded
  memory, before it is read whole.
"""
from __future__ import annotations

import codecs
import contextlib
import dataclasses
import os
import re
from dataclasses import dataclass
from pathlib import Path

import regex

from engine.errors import FormatError
from engine.inline import TAG_BASE, TAG_MAX, Tag, TaggedText, merge_tags, new_tag, protect, tag_char, tag_number

#: The longest line a text file may have (bytes); no real document has one near it.
MAX_LINE_BYTES = 1 << 20
#: The longest single string (a PO msgid/msgstr, a TMX <seg>), in characters
#: (bytes where checked before decoding).
MAX_STRING_CHARS = 1 << 20
#: The largest document file of a text format (TXT, PO, CSV/TSV, HTML, Markdown) Verso imports.
#: A document is held whole while it is read and stored in one transaction; at this size and
#: :data:`MAX_SEGMENTS` a read stays under 1 GB (benchmarks/bounded_input.py, issue 35).
MAX_DOCUMENT_BYTES = 64 << 20
#: The most segments (PO entries) one document may have: a PO of 100,000 entries peaks at
#: about 490 MB while translate-toolkit holds its units; split a larger file.
MAX_SEGMENTS = 100_000
_CHUNK = 1 << 20
_CODE_CHAR = re.compile("[\ue001-\uf8ff]")
#: the code characters of a text and the text between them (``regex``: 1.9 us for a 280-character sentence, ``re`` 2.3)
_CODE_SPLIT = regex.compile("([\ue001-\uf8ff])")


def size_label(n: int) -> str:
    """``1 MiB``, ``64 KiB`` or ``1000 bytes``."""
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} bytes"


def check_size(path: str | Path) -> None:
    """Refuse a document file over :data:`MAX_DOCUMENT_BYTES` before reading it."""
    try:
        size = os.stat(path).st_size
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    if size > MAX_DOCUMENT_BYTES:
        raise FormatError(path, f"{size:,} bytes: a document over {size_label(MAX_DOCUMENT_BYTES)} is more than "
                                "Verso imports at once; split it")


def check_lines(path: str | Path, *, po_strings: bool = False, document: bool = True) -> None:
    """Refuse ``path`` if a line is longer than :data:`MAX_LINE_BYTES` or, with
    ``po_strings``, if a PO string (a keyword line and the ``"..."`` lines that
    continue it) is longer than :data:`MAX_STRING_CHARS` bytes or the file has more
    than :data:`MAX_SEGMENTS` entries (``msgid`` lines).  A ``document`` (not a TM
    file, which is streamed) over :data:`MAX_DOCUMENT_BYTES` is refused first.

    Reads the file in chunks, keeping at most one unfinished line: a 200 MB
    line is refused after reading about a megabyte.  Lines end at CR, LF or
    CRLF.  The error names the file and the line.
    """
    if document:
        check_size(path)
    line_limit, string_limit, entry_limit = MAX_LINE_BYTES, MAX_STRING_CHARS, MAX_SEGMENTS
    entries, first_msgid = 0, True
    line = 1            # number of the first line in ``data``
    carry = b""         # the unfinished last line of the previous chunk
    pending_cr = False  # the previous chunk ended with CR (a CRLF may be split)
    string_len, string_line = 0, 0
    try:
        fh = open(path, "rb")
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    with fh:
        while True:
            chunk = fh.read(_CHUNK)
            if pending_cr and chunk[:1] == b"\n":
                chunk = chunk[1:]
            pending_cr = chunk.endswith(b"\r")
            data = carry + chunk
            parts = data.splitlines()
            if chunk and parts and not data.endswith((b"\n", b"\r")):
                carry = parts.pop()
            else:
                carry = b""
            if len(carry) > line_limit or (parts and max(map(len, parts)) > line_limit):
                at = next((i for i, p in enumerate(parts) if len(p) > line_limit), len(parts))
                raise FormatError(path, f"a line longer than {size_label(line_limit)}: not a document "
                                        "Verso translates (is it a text file?)", f"line {line + at}")
            if po_strings:
                for i, p in enumerate(parts):
                    if p.lstrip()[:1] == b'"':
                        string_len += len(p)
                    else:
                        string_len, string_line = len(p), line + i
                        if p.startswith(b"msgid") and p[5:6] in (b" ", b"\t", b'"', b""):
                            header = first_msgid and p[5:].strip() == b'""'  # the header is no segment
                            first_msgid = False
                            entries += not header
                            if entries > entry_limit:
                                raise FormatError(path, f"more than {entry_limit:,} entries: more than Verso "
                                                        "imports as one document; split it", f"line {line + i}")
                    if string_len > string_limit:
                        raise FormatError(path, f"a string longer than {size_label(string_limit)}: "
                                                "not a message Verso translates", f"line {string_line}")
            line += len(parts)
            if not chunk:
                return


# Longest BOMs first: the UTF-32-LE BOM starts with the UTF-16-LE one.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@dataclass(frozen=True)
class Decoded:
    """A decoded text file: ``text`` (BOM removed), its codec and its BOM bytes."""

    text: str
    encoding: str
    bom: bytes = b""

    def encode(self, text: str) -> bytes:
        """``text`` in this file's encoding, with the same BOM."""
        return self.bom + text.encode(self.encoding)


def sniff_bom(raw: bytes) -> tuple[str | None, bytes]:
    """The codec named by ``raw``'s byte order mark and the mark itself."""
    for bom, enc in _BOMS:
        if raw.startswith(bom):
            return enc, bom
    return None, b""


def text_codec(path: str | Path, name: str, location: str | None = None, what: str = "character encoding") -> str:
    """``name`` if it names a text codec; else a FormatError naming the file, ``location`` and
    the name.  ``codecs.lookup`` also finds bytes-to-bytes codecs (``zlib``, ``base64``) and
    str-to-str ones (``rot13``), which ``bytes.decode`` refuses with a LookupError: a declared
    charset is taken only when it is a text encoding."""
    try:
        info = codecs.lookup(name)
    except LookupError:
        raise FormatError(path, f"unknown {what} {name!r}", location) from None
    if not getattr(info, "_is_text_encoding", True):
        raise FormatError(path, f"the {what} {name!r} is not a text encoding", location)
    return name


def decode_bytes(path: str | Path, raw: bytes, encoding: str | None = None) -> Decoded:
    """Decode ``raw`` (the bytes of ``path``).

    A BOM wins; otherwise ``encoding`` (a declared charset) or UTF-8.  NUL
    bytes without a BOM mean UTF-16/32 without a mark or a binary file: that
    is refused rather than guessed.
    """
    enc, bom = sniff_bom(raw)
    body = raw[len(bom):]
    if enc is None:
        if b"\x00" in body:
            line = body[: body.index(b"\x00")].count(b"\n") + 1
            raise FormatError(path, "contains NUL bytes: UTF-16/UTF-32 without a byte order mark, "
                                    "or not a text file", f"line {line}")
        enc = encoding or "utf-8"
    text_codec(path, enc)
    try:
        text = body.decode(enc)
    except UnicodeDecodeError as e:
        line = body[: e.start].decode(enc, errors="replace").count("\n") + 1
        raise FormatError(
            path, f"bytes that are not valid {enc} ({body[e.start:e.start + 4]!r}); "
                  "save the file as UTF-8 or declare its encoding", f"line {line}") from None
    return Decoded(text, enc, bom)


def newline_style(text: str) -> str:
    """The first line break in ``text`` (``\\r\\n``, ``\\n`` or ``\\r``); ``\\n`` if none."""
    m = re.search(r"\r\n|\r|\n", text)
    return m.group(0) if m else "\n"


# ----------------------------------------------------------------- protection
@contextlib.contextmanager
def codes_checked(path: str | Path, location: str | None = None):
    """Turn the ValueError of a text holding more codes than one segment numbers
    (:data:`engine.inline.TAG_MAX`, 6,399) into a FormatError naming the file and place."""
    try:
        yield
    except ValueError as e:
        if "tag number out of range" not in str(e):
            raise
        raise FormatError(path, f"a string with more than {TAG_MAX:,} inline codes (tags, placeholders): "
                                "more than one segment can hold", location) from None


def _is_false_placeholder(t: Tag) -> bool:
    """``50% discount`` is prose, not the printf ``% d``: a space flag is not
    worth the false alarms it gives in running text."""
    return t.kind == "ph" and t.original.startswith("% ")


def protect_text(text: str) -> TaggedText:
    """Protect markup and placeholders of a source text (see :func:`engine.inline.protect`;
    private-use characters of the text are kept, as codes)."""
    tt = protect(text)
    if any(_is_false_placeholder(t) for t in tt.tags):
        by_n = {t.n: t for t in tt.tags}
        chars = []
        for ch in tt.text:
            n = tag_number(ch)
            t = by_n.get(n) if n is not None else None
            chars.append(t.original if t is not None and _is_false_placeholder(t) else ch)
        tt = renumber("".join(chars), [t for t in tt.tags if not _is_false_placeholder(t)])
    return tt


def renumber(text: str, tags) -> TaggedText:
    """``text`` with its codes numbered 1, 2, ... in order of appearance; codes
    of ``tags`` (a sequence, or a dict number -> tag) that do not occur in
    ``text`` are dropped."""
    # most sentences: no per-character walk (1.2 s a MB); an ASCII one (isascii: no scan) holds no code
    if not tags or text.isascii():
        return TaggedText(text, ())
    # one split at the code characters, each renumbered in the list (re.sub calling back per code, and a search
    # before it: 8 -> 4 us a sentence with a bold word, 0.038 -> 0.024 s of reading 3 MB of HTML prose)
    parts = _CODE_SPLIT.split(text)
    if len(parts) == 1:
        return TaggedText(text, ())
    by_n = tags if isinstance(tags, dict) else {t.n: t for t in tags}
    new_tags: list[Tag] = []
    for k in range(1, len(parts), 2):
        t = by_n.get(ord(parts[k]) - TAG_BASE)
        if t is not None:
            n = len(new_tags) + 1
            if t.n != n:  # numbered as it was (the first sentence of a paragraph): the same Tag
                t = new_tag(n, t.kind, t.original, t.label, t.pair, t.attrs)  # dataclasses.replace: 3x
                parts[k] = tag_char(n)
            new_tags.append(t)
    return TaggedText("".join(parts), tuple(new_tags))


def protect_like(source: TaggedText, text: str) -> TaggedText:
    """Protect ``text`` (a target) reusing the numbers of ``source``'s codes (:func:`renumber_like`)."""
    return renumber_like(source, protect_text(text))


def renumber_like(source: TaggedText, tt: TaggedText) -> TaggedText:
    """``tt`` (a protected target) with the numbers of ``source``'s codes: a code of the target
    whose markup equals an unused code of the source takes that code's number; any other code
    gets a number after the source's."""
    if not tt.tags:
        return tt
    free: dict[str, list[Tag]] = {}
    for t in source.tags:
        free.setdefault(t.original, []).append(t)
    nxt = max((t.n for t in source.tags), default=0) + 1
    mapping: dict[int, Tag] = {}
    for t in tt.tags:
        same = free.get(t.original)
        if same:
            mapping[t.n] = same.pop(0)
        else:
            mapping[t.n] = dataclasses.replace(t, n=nxt)
            nxt += 1
    out = [tag_char(mapping[n].n) if (n := tag_number(ch)) in mapping else ch for ch in tt.text]
    return TaggedText("".join(out), tuple(sorted(mapping.values(), key=lambda t: t.n)))


def render(target: TaggedText, source: TaggedText | None = None) -> str:
    """Target text with each code's original markup; a code the target's own
    table lacks is looked up in the source's table."""
    tags = merge_tags(target.tags, source.tags if source is not None else ())
    return TaggedText(target.text, tags).original()


def read_decoded(path: Path, empty_message: str) -> "Decoded":
    """Read and decode a text file; an unreadable or empty file, or one with a
    line over :data:`MAX_LINE_BYTES`, is a FormatError naming it."""
    check_lines(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    dec = decode_bytes(path, raw)
    if not dec.text.strip():
        raise FormatError(path, empty_message)
    return dec
