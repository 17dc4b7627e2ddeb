"""Writing an XLIFF tree whole: :func:`write_tree`, used only when
:mod:`engine.formats.xmlsplice` cannot map the original bytes.

It keeps the original file's prolog bytes (declaration, comments, DOCTYPE),
epilogue, line ends, encoding and BOM where the encoding allows.
"""
from __future__ import annotations

import re
from pathlib import Path

from lxml import etree

from engine.errors import FormatError
from engine.fsutil import atomic_write

_ROOT_END_RE = re.compile(rb"</(?:[A-Za-z_][\w.-]*:)?xliff\s*>")
_ASCII_COMPATIBLE = re.compile(r"^(utf-?8|us-ascii|ascii|iso-?8859-\d+|latin-?1|windows-125\d|cp125\d)$",
                               re.I)


def _prolog_end(raw: bytes) -> int | None:
    """Byte offset of the root element's start tag (after decl, comments,
    PIs and a DOCTYPE), or None when the prolog cannot be scanned."""
    i = 0
    if raw.startswith(b"\xef\xbb\xbf"):
        i = 3
    n = len(raw)
    while i < n:
        while i < n and raw[i:i + 1] in b" \t\r\n":
            i += 1
        if raw.startswith(b"<?", i):
            j = raw.find(b"?>", i)
            if j < 0:
                return None
            i = j + 2
        elif raw.startswith(b"<!--", i):
            j = raw.find(b"-->", i)
            if j < 0:
                return None
            i = j + 3
        elif raw.startswith(b"<!DOCTYPE", i) or raw.startswith(b"<!doctype", i):
            depth, j = 0, i
            while j < n:
                c = raw[j:j + 1]
                if c == b"[":
                    depth += 1
                elif c == b"]":
                    depth -= 1
                elif c == b">" and depth <= 0:
                    break
                j += 1
            i = j + 1
        elif raw.startswith(b"<", i):
            return i
        else:
            return None
    return None


def write_tree(tree: etree._ElementTree, original: Path, out: Path) -> None:
    """Serialise ``tree`` to ``out`` atomically, keeping the original file's
    prolog bytes (declaration, comments, DOCTYPE), epilogue, encoding and BOM
    where the encoding allows (UTF-16 files are re-serialised whole)."""
    raw = Path(original).read_bytes()
    enc = tree.docinfo.encoding or "UTF-8"
    data: bytes | None = None
    if _ASCII_COMPATIBLE.match(enc):
        start = _prolog_end(raw)
        ends = list(_ROOT_END_RE.finditer(raw))
        if start is not None:
            body = etree.tostring(tree.getroot(), encoding=enc, xml_declaration=False,
                                  with_tail=False)
            crlf = raw.count(b"\r\n")
            if crlf and crlf == raw.count(b"\n"):  # a CRLF file stays CRLF
                body = body.replace(b"\n", b"\r\n")
            suffix = raw[ends[-1].end():] if ends else b"\n"
            data = raw[:start] + body + suffix
    if data is None:
        data = etree.tostring(tree, encoding=enc, xml_declaration=True,
                              standalone=tree.docinfo.standalone)
    try:
        with atomic_write(out, "wb") as fh:
            fh.write(data)
    except OSError as e:
        raise FormatError(out, f"cannot write: {e.strerror or e}") from None
