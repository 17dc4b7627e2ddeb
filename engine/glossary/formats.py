"""Glossary files: TBX (v2 ``martif`` / TBX-Basic and v3 ``tbx``), CSV/TSV, Excel .xlsx.

Reading (:func:`read_glossary_file`) returns every entry of the file for one
language pair as a :class:`~engine.glossary.model.GlossaryFile`; nothing is
stored, so the caller imports the whole file in one transaction or not at all.
A file that cannot be read raises one :class:`~engine.errors.FormatError`
naming the file and the place (line, or sheet and row).

**TBX.** Parsed through :mod:`engine.formats.xmlsafe` (no entities, no DTD, no
network), streaming concept by concept; the XML declaration's encoding is
honoured (a Windows-1254 file reads right).  Each source-language term of a
concept (``termEntry`` / ``conceptEntry``) becomes one entry whose targets are
the concept's target-language terms; a target term whose administrative status
is deprecated / superseded / not recommended becomes a *forbidden* variant.  Part
of speech and status come from ``termNote`` (or TBX v3 DCT elements of the same
names); the note joins the concept's and the source term's definitions and notes.
The pair: ``src_lang`` / ``tgt_lang`` when given, else the ``xml:lang`` of the
root (or the most frequent language) and the only other language; a file of
three or more languages without ``tgt_lang`` is refused, naming its languages.
A concept without a term in both languages is skipped (one line in ``problems``).

**CSV/TSV.** A header names the columns: ``source`` / ``target`` (or ``term`` /
``translation``, or language codes such as ``en`` / ``de``, which then give the
pair), ``note`` (``comment``, ``definition``), ``pos``, ``status``,
``forbidden``, ``inflect`` (``yes`` / ``true`` / ``1`` / ``x``: the target terms may be
inflected).  Target and forbidden cells may hold several terms separated by
``;`` or ``|``.  A file without such a header is OmegaT's glossary: ``source TAB
target TAB comment``, lines starting with ``#`` are comments, one target a row.
Tab-separated files are split on tabs only (a quote is an ordinary character);
comma/semicolon files follow CSV quoting, strictly.

**XLSX.** The first sheet, read with openpyxl in read-only mode, with the same
header rules as CSV.

Writing (:func:`write_glossary_file`): ``.tbx`` (TBX-Basic, v2 ``martif``,
UTF-8; TBX-Basic has no data category for ``inflect``, so it is not written),
``.tsv`` / ``.csv`` (a header of language codes and column names; several
terms joined by ``; ``; ``inflect`` as ``yes`` or empty), ``.txt`` / ``.utf8`` / ``.tab`` (OmegaT: one row per
target term, no header), always through :func:`engine.fsutil.atomic_write`.

Each job has its module: :mod:`engine.glossary.tbx_read`, :mod:`engine.glossary.tabular_read`
(CSV/TSV, and the rows of a sheet), :mod:`engine.glossary.xlsx_read`,
:mod:`engine.glossary.tbx_write`, :mod:`engine.glossary.tabular_write`; this module
picks one by the file's extension, then its content.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from engine.errors import FormatError, UnsupportedFormatError
from engine.glossary.cells import OMEGAT_EXTENSIONS  # noqa: F401  (asked of formats)
from engine.glossary.model import GlossaryEntry, GlossaryFile
from engine.glossary.tabular_read import read_tabular
from engine.glossary.tabular_write import write_tabular
from engine.glossary.tbx_read import read_tbx
from engine.glossary.tbx_write import write_tbx
from engine.glossary.xlsx_read import read_xlsx

TBX_EXTENSIONS = (".tbx", ".xml")
TEXT_EXTENSIONS = (".tsv", ".tab", ".txt", ".utf8", ".csv")


# =================================================================== dispatch
def _kind(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in TBX_EXTENSIONS:
        return "tbx"
    if suffix in (".xlsx", ".xlsm"):
        return "xlsx"
    if suffix in TEXT_EXTENSIONS:
        return "text"
    try:
        with open(path, "rb") as fh:
            head = fh.read(512)
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    if head.startswith(b"PK\x03\x04"):
        return "xlsx"
    if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return "tbx"
    return "text"


def read_glossary_file(path: str | Path, *, src_lang: str = "", tgt_lang: str = "") -> GlossaryFile:
    """Read a TBX, CSV/TSV (OmegaT included) or .xlsx glossary file (by extension, then content)."""
    path = Path(path)
    if not path.is_file():
        raise FormatError(path, "no such file" if not path.exists() else "not a file")
    kind = _kind(path)
    reader = {"tbx": read_tbx, "xlsx": read_xlsx, "text": read_tabular}[kind]
    return reader(path, src_lang=src_lang, tgt_lang=tgt_lang)


def write_glossary_file(path: str | Path, entries: Iterable[GlossaryEntry], *, src_lang: str,
                        tgt_lang: str) -> int:
    """Write ``entries`` as ``.tbx``, ``.tsv``, ``.csv`` or OmegaT ``.txt``; returns the entries/concepts written."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".tbx":
        return write_tbx(path, entries, src_lang=src_lang, tgt_lang=tgt_lang)
    if suffix in TEXT_EXTENSIONS:
        return write_tabular(path, entries, src_lang=src_lang, tgt_lang=tgt_lang)
    raise UnsupportedFormatError(path, "cannot write a glossary in this format: use .tbx, .tsv, .csv or "
                                       "OmegaT's .txt")
