"""Document and TM file formats: detection, reading, writing.

Public entry points (everything else in this package is per-format detail):

* :func:`detect` -- which :class:`~engine.formats.base.DocumentFormat` reads a file
* :func:`read_document` / :func:`write_document` -- bilingual documents
* :func:`engine.formats.tmfiles.read_tm_file` -- TM units from TMX, CSV/TSV, PO, XLIFF

No module here imports torch or Qt.
"""
from __future__ import annotations

import inspect
import re
from pathlib import Path

from engine.errors import FormatError, UnsupportedFormatError
from engine.formats.base import DocumentFormat, ParsedDocument, Translation

_FORMATS: list[DocumentFormat] | None = None


def formats() -> list[DocumentFormat]:
    """All document formats, most specific first."""
    global _FORMATS
    if _FORMATS is None:
        from engine.formats import docx, html, markdown, odf, po, tabular, txt, xliff12, xliff20

        _FORMATS = [docx.FORMAT, docx.REJECT_FORMAT, odf.FORMAT, odf.REJECT_FORMAT, xliff20.FORMAT, xliff12.FORMAT,
                    po.FORMAT, tabular.FORMAT, html.FORMAT, markdown.FORMAT, txt.FORMAT]
    return _FORMATS


def by_name(name: str) -> DocumentFormat:
    for f in formats():
        if f.name == name:
            return f
    raise UnsupportedFormatError(None, f"unknown format {name!r}")


def detect(path: str | Path) -> DocumentFormat:
    """The format of ``path``, by content first and extension second."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    not_a_document = _memory_or_glossary(path, head)
    if not_a_document:
        raise UnsupportedFormatError(path, not_a_document)
    for f in formats():
        if f.sniff(path, head):
            return f
    raise UnsupportedFormatError(
        path, "unsupported file type (Verso reads TXT, XLIFF 1.2/2.0, PO/POT, TSV/CSV, DOCX, ODT/ODS/ODP, HTML, Markdown)")


_TMX = re.compile(rb"<tmx[\s>]", re.I)
_TBX = re.compile(rb"<(martif|tbx)[\s>]", re.I)


def _memory_or_glossary(path: Path, head: bytes) -> str:
    """Why a TM or glossary file is not a document ("" for anything else): a TMX's
    ``<body>`` made it read as HTML, one segment of markup."""
    suffix = path.suffix.lower()
    if suffix == ".tmx" or _TMX.search(head):
        return ("a TMX translation memory, not a document: add it to a TM with `verso tm import FILE --tm DIR` "
                "(in the editor: File ▸ Import TMX)")
    if suffix == ".tbx" or _TBX.search(head):
        return ("a TBX glossary, not a document: add it with `verso glossary import FILE --glossary DIR`")
    return ""


def read_document(path: str | Path, *, src_lang: str = "", tgt_lang: str = "",
                  format: str | None = None) -> ParsedDocument:
    from engine.formats import textutil

    fmt = by_name(format) if format else detect(path)
    doc = fmt.read(Path(path), src_lang=src_lang, tgt_lang=tgt_lang)
    if len(doc.segments) > textutil.MAX_SEGMENTS:  # the text readers stop earlier, at the segment or entry
        raise FormatError(path, f"{len(doc.segments):,} segments: more than the {textutil.MAX_SEGMENTS:,} Verso "
                                "imports as one document; split it")
    return doc


def write_document(original: str | Path, out: str | Path, translations: dict[str, Translation], *,
                   format: str, tgt_lang: str = "", src_lang: str = "") -> None:
    """Write ``original`` translated.  ``src_lang``: the language the document
    was read with; formats whose segment keys depend on it (plain text: the
    sentence rules) take it, the others ignore it."""
    fmt = by_name(format)
    kw = {"tgt_lang": tgt_lang}
    if src_lang and "src_lang" in inspect.signature(fmt.write).parameters:
        kw["src_lang"] = src_lang
    fmt.write(Path(original), Path(out), translations, **kw)
