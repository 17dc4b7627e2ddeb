"""Document and TM file formats: detection, reading, writing.

Public entry points (everything else in this package is per-format detail):

* :func:`detect` -- which :class:`~engine.formats.base.DocumentFormat` reads a file
* :func:`read_document` / :func:`write_document` -- bilingual documents
* :func:`engine.formats.tmfiles.read_tm_file` -- TM units from TMX, CSV/TSV, PO, XLIFF

No module here imports torch or Qt.
"""
from __future__ import annotations

import contextlib
import gc
import inspect
import re
import threading
from pathlib import Path

from engine.errors import FormatError, UnsupportedFormatError
from engine.formats.base import DocumentFormat, ParsedDocument, Translation
from engine.formats.xmlroot import xml_root

_FORMATS: list[DocumentFormat] | None = None


def formats() -> list[DocumentFormat]:
    """All document formats, most specific first."""
    global _FORMATS
    if _FORMATS is None:
        from engine.formats import docx, html, markdown, odf, po, tabular, txt, xliff12, xliff20
        from engine.formats import idml, pptx, strings_registry, xlsx

        _FORMATS = [docx.FORMAT, docx.REJECT_FORMAT, odf.FORMAT, odf.REJECT_FORMAT, pptx.FORMAT, xlsx.FORMAT,
                    idml.FORMAT, xliff20.FORMAT, xliff12.FORMAT, po.FORMAT, *strings_registry.FORMATS,
                    tabular.FORMAT, html.FORMAT, markdown.FORMAT, txt.FORMAT]
    return _FORMATS


def by_name(name: str) -> DocumentFormat:
    if name.startswith("tabular:"):  # the columns the translator chose: "tabular:2,3"
        from engine.formats import tabular

        return tabular.TabularFormat(tabular.parse_columns(None, name.split(":", 1)[1]))
    for f in formats():
        if f.name == name:
            return f
    raise UnsupportedFormatError(None, f"unknown format {name!r}")


def detect(path: str | Path) -> DocumentFormat:
    """The format of ``path``, by content first and extension second."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            prolog = fh.read(65536)  # an XML root after a long licence comment
        head = prolog[:4096]
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    root = xml_root(path, prolog)
    not_a_document = _memory_or_glossary(path, head, root)
    if not_a_document:
        raise UnsupportedFormatError(path, not_a_document)
    if root is not None and root[0].lower() not in _DOCUMENT_ROOTS and root[0].lower() not in _document_roots():
        raise UnsupportedFormatError(path, _other_xml(root))
    quick = _quick(path, head, root)
    if quick is not None:
        return quick
    for f in formats():
        if root is not None and f.name in ("xliff12", "xliff20") and root[0].lower() != "xliff":
            continue  # an XHTML page mentioning <xliff> in its text
        if f.sniff(path, head):
            return f
    from engine.formats import strings_registry

    raise UnsupportedFormatError(
        path, "unsupported file type (Verso reads TXT, XLIFF 1.2/2.0, PO/POT, TSV/CSV, DOCX, PPTX, XLSX, IDML, ODT/ODS/ODP, HTML, Markdown, "
              f"{strings_registry.KINDS})")


#: Extensions whose format is known without importing the others, when no format before it in
#: :func:`formats` can claim the file: importing every format module to detect was 0.1 s of the 0.6 s
#: CPU of importing 3 MB of HTML (benchmarks/import_speed.py).
_QUICK = {".docx": "docx", ".html": "html", ".htm": "html", ".xhtml": "html", ".txt": "txt"}


def _quick(path: Path, head: bytes, root: tuple[str, str, str] | None) -> DocumentFormat | None:
    """The format :func:`detect`'s walk of :func:`formats` would return for a DOCX, HTML or TXT
    file, importing only its module; None where a format before it might claim the file (the
    walk decides).  What rules the others out, each implied by their ``sniff``: OOXML, ODF and
    IDML need a zip; XLIFF needs ``xliff`` in the head, PO ``msgstr``, WebVTT ``WEBVTT``, Android,
    Qt TS and RESX an XML root of theirs; HTML (before TXT) a ``<``; the rest go by extensions
    that are none of these (tests/formats/test_detect_quick.py checks every fixture both ways)."""
    name = _QUICK.get(path.suffix.lower())
    if name is None:
        return None
    if head.startswith(b"PK\x03\x04"):
        from engine.formats import docx  # the first format of all: a zip naming word/ is a DOCX

        return docx.FORMAT if docx.FORMAT.sniff(path, head) else None
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in head:
        return None  # UTF-16/32: the others decode the head before they look
    low = head.lower()
    if name == "docx" or b"xliff" in low or b"msgstr" in low or b"webvtt" in low:
        return None
    if root is not None and (name != "html" or root[0].lower() != "html"):
        return None
    if name == "txt" and b"<" in head[:1024]:
        return None
    if name == "html":
        from engine.formats import html

        return html.FORMAT
    from engine.formats import txt

    return txt.FORMAT


_TMX = re.compile(rb"<tmx[\s>]", re.I)
_TBX = re.compile(rb"<(martif|tbx)[\s>]", re.I)


def _memory_or_glossary(path: Path, head: bytes, root: tuple[str, str, str] | None) -> str:
    """Why a TM or glossary file is not a document ("" for anything else): a TMX's
    ``<body>`` made it read as HTML, one segment of markup.  An XLIFF file is a document
    even when it embeds a TBX ``<martif>`` (XLIFF 2.0 allows it as an extension)."""
    suffix = path.suffix.lower()
    if root is not None and root[0].lower() == "xliff":
        return ""
    if suffix == ".tmx" or _TMX.search(head):
        return ("a TMX translation memory, not a document: add it to a TM with `verso tm import FILE --tm DIR` "
                "(in the editor: File ▸ Import TMX)")
    if suffix == ".tbx" or _TBX.search(head):
        return ("a TBX glossary, not a document: add it with `verso glossary import FILE --glossary DIR`")
    return ""


#: Roots of the XML documents Verso reads (local names): XLIFF and XHTML.
_DOCUMENT_ROOTS = {"xliff", "html"}
def _document_roots() -> set[str]:
    from engine.formats import strings_registry

    return _DOCUMENT_ROOTS | strings_registry.XML_ROOTS


_DOCTYPE = re.compile(r"<!DOCTYPE\s+([^\s>\[]+)([^>\[]*)", re.I)
_DITA_ROOTS = {"topic", "concept", "task", "reference", "map", "bookmap", "glossentry", "glossgroup",
               "troubleshooting", "subjectScheme", "learningContent"}


def _other_xml(root: tuple[str, str, str]) -> str:
    """Why an XML file whose root is no document format's is refused, in one line."""
    name, attrs, doctype = root
    low = name.lower()
    supported = ("Verso reads XML as XLIFF 1.2/2.0, XHTML, Android strings, Qt TS, RESX or .stringsdict "
                 "documents")
    if low == "schema" and "XMLSchema" in attrs:
        return f"an XML Schema (<{name}>), not a document to translate"
    if low == "srx":
        return "an SRX segmentation rules file (<srx>), not a document to translate"
    dt = _DOCTYPE.search(doctype)
    if name in _DITA_ROOTS or (dt and "DITA" in dt.group(2)) or "ditaarch" in attrs:
        return f"a DITA file (<{name}>): not a format Verso reads ({supported})"
    return f"XML with the root element <{name}>: not a format Verso reads ({supported})"


@contextlib.contextmanager
def _rare_collections():
    """The cyclic garbage collector runs after 100,000 new objects instead of 700 while a reader
    builds a document: its passes over the growing document were 0.05 s of the 0.6 s CPU of
    importing 3 MB of HTML or DOCX (benchmarks/import_speed.py); it still runs, so garbage with
    cycles stays bounded.  Readers on several threads: the last one out restores the threshold."""
    global _READING, _THRESHOLD
    with _GC_LOCK:
        if not _READING:
            _THRESHOLD = gc.get_threshold()
            gc.set_threshold(100_000, *_THRESHOLD[1:])
        _READING += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _READING -= 1
            if not _READING:
                gc.set_threshold(*_THRESHOLD)


_GC_LOCK = threading.Lock()
_READING = 0
_THRESHOLD = gc.get_threshold()


def read_document(path: str | Path, *, src_lang: str = "", tgt_lang: str = "",
                  format: str | None = None) -> ParsedDocument:
    from engine.formats import textutil

    fmt = by_name(format) if format else detect(path)
    with _rare_collections():
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


def read_declared(path: str | Path, *, src_lang: str = "", tgt_lang: str = "", format: str | None = None,
                  **options) -> tuple[ParsedDocument, tuple[str, str]]:
    """Read ``path`` as :func:`read_document` does and say which languages the file itself declares
    (XLIFF ``source-language``/``target-language`` or ``srcLang``/``trgLang``, PO ``Language``, a
    CSV header of language codes): ``(document, (source, target))``, ``""`` for a side the file
    does not declare.  ``src_lang``/``tgt_lang`` are the languages to read with where the file
    declares none (the project's); the document has them on the sides the file leaves open.
    ``options``: reader options (``columns`` of a CSV)."""
    from engine.formats import textutil

    fmt = by_name(format) if format else detect(path)
    kw = {k: v for k, v in options.items() if v is not None}
    with _rare_collections():
        if fmt.name == "tabular":  # a header naming several languages: the hints pick the columns
            doc = fmt.read(Path(path), src_lang=src_lang, tgt_lang=tgt_lang, **kw)
            declared = tuple(doc.meta.get("declared_languages") or ("", ""))
        else:
            # A reader takes the file's languages over the ones it is given (XLIFF), or the given one over
            # the file's (PO's target): given none for the target, every reader returns what the file says.
            blank = fmt.read(Path(path), src_lang="", tgt_lang="", **kw) if fmt.name in _DECLARING_SOURCE \
                else None
            doc = blank or fmt.read(Path(path), src_lang=src_lang, tgt_lang="", **kw)
            declared = (doc.src_lang if blank is not None else "", doc.tgt_lang)
            if not doc.tgt_lang and tgt_lang and fmt.name in _SHAPED_BY_TARGET:
                doc = fmt.read(Path(path), src_lang=doc.src_lang or src_lang, tgt_lang=tgt_lang, **kw)
            doc.src_lang = doc.src_lang or src_lang
            doc.tgt_lang = doc.tgt_lang or tgt_lang
    if len(doc.segments) > textutil.MAX_SEGMENTS:
        raise FormatError(path, f"{len(doc.segments):,} segments: more than the {textutil.MAX_SEGMENTS:,} Verso "
                                "imports as one document; split it")
    return doc, (declared[0] or "", declared[1] or "")


#: Formats whose files may declare the source language (read with none given, the reader returns it).
_DECLARING_SOURCE = {"xliff12", "xliff20", "qt-ts"}
#: Formats whose segments depend on the target language (a segment for each plural form it needs,
#: engine/formats/plurals.py): a file declaring no target is read again with the project's.
_SHAPED_BY_TARGET = {"android", "json", "apple-stringsdict", "qt-ts", "po"}


def language_conflict(declared: tuple[str, str], src_lang: str, tgt_lang: str, what: str = "the project") -> str:
    """``"the file declares en -> ja; the project is en -> fr"`` when the ``declared`` pair is not
    ``src_lang -> tgt_lang`` (regional variants are the same language), else ``""``."""
    from engine.langs import pair_text, same_pair

    if same_pair(declared[0], declared[1], src_lang, tgt_lang):
        return ""
    shown = pair_text(declared[0] or src_lang, declared[1] or tgt_lang)
    return f"the file declares {shown}; {what} is {pair_text(src_lang, tgt_lang)}"
