"""Reading Excel glossaries: the first sheet of an .xlsx (:func:`read_xlsx`), read with
openpyxl in read-only mode once :func:`_check_xlsx` has found the workbook within bounds.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from lxml import etree

from engine.errors import FormatError
from engine.glossary.model import GlossaryFile
from engine.glossary.tabular_read import _rows_to_file

#: openpyxl reads a workbook's whole shared-string table into a list before the first row, even
#: in read-only mode: a 2.5 MB file of repeated strings ran past 180 s at 798 MB, one of 5 million
#: strings (13 MB) took 133 s (issue 35).  The table is counted first, streaming, and refused past
#: this many strings (a glossary of 200,000 terms has at most 3 strings a term in practice)...
MAX_XLSX_STRINGS = 600_000
#: ...and no part of the workbook (sheet, string table) may inflate past this many bytes.
MAX_XLSX_PART_BYTES = 256 << 20


def _check_xlsx(path: Path) -> None:
    """Refuse a workbook whose string table or sheets are past the limits, reading the string
    table once in chunks (``bytes.count`` of ``<si``: about 1 s for 300 MB) -- not through an
    XML parser, which is what openpyxl's read of the same table costs minutes for."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                if info.filename.startswith("xl/") and info.file_size > MAX_XLSX_PART_BYTES:
                    raise FormatError(path, f"{info.filename} inflates to {info.file_size:,} bytes, over the "
                                            f"{MAX_XLSX_PART_BYTES} bytes Verso reads of one workbook part")
                if info.filename.lower().endswith((".xml", ".rels")) and b"<!DOCTYPE" in z.open(info).read(4096):
                    # Excel writes none; openpyxl's own refusal is three lines of advice
                    raise FormatError(path, f"{info.filename} has a DOCTYPE, which no Excel workbook has: refused "
                                            "(entities are never expanded)")
            name = next((i.filename for i in z.infolist() if i.filename.lower() == "xl/sharedstrings.xml"), None)
            if name is None:
                return
            count, tail = 0, b""
            with z.open(name) as fh:
                read = 0
                while chunk := fh.read(1 << 20):
                    read += len(chunk)
                    if read > MAX_XLSX_PART_BYTES:  # a size the zip directory understated
                        raise FormatError(path, f"{name} inflates past the {MAX_XLSX_PART_BYTES} bytes "
                                                "Verso reads of one workbook part")
                    data = tail + chunk
                    count += data.count(b"<si>") + data.count(b"<si ") + data.count(b"<si/>")
                    tail = data[-5:]
                    count -= tail.count(b"<si>") + tail.count(b"<si ") + tail.count(b"<si/>")
                    if count > MAX_XLSX_STRINGS:
                        raise FormatError(path, f"more than {MAX_XLSX_STRINGS:,} strings in the workbook "
                                                "(a glossary holds fewer): not read")
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as e:
        raise FormatError(path, f"not a readable Excel workbook (.xlsx): {e}") from None


def read_xlsx(path: str | Path, *, src_lang: str = "", tgt_lang: str = "") -> GlossaryFile:
    """Entries of the first sheet of an Excel workbook (see the module doc and
    :data:`MAX_XLSX_STRINGS`)."""
    import zipfile

    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException

    path = Path(path)
    _check_xlsx(path)
    try:
        wb = load_workbook(str(path), read_only=True, data_only=True)
    except (zipfile.BadZipFile, InvalidFileException, KeyError, OSError, ValueError) as e:
        raise FormatError(path, f"not a readable Excel workbook (.xlsx): {e}") from None
    try:
        if not wb.worksheets:
            raise FormatError(path, "a workbook without sheets")
        ws = wb.worksheets[0]

        def rows() -> Iterator[tuple[str, list]]:
            for n, row in enumerate(ws.iter_rows(values_only=True), 1):
                yield f"sheet {ws.title!r}, row {n}", list(row)

        try:
            return _rows_to_file(path, rows(), src_lang, tgt_lang)
        except (zipfile.BadZipFile, KeyError, etree.XMLSyntaxError) as e:
            raise FormatError(path, f"a damaged Excel workbook: {e}") from None
    finally:
        wb.close()
