"""Bilingual CSV/TSV: one segment per row.

* Dialect: the delimiter (``,`` ``;`` tab ``|``) whose parse gives the most
  consistent number of fields (at least two); ``"`` quotes, doubled to escape.
* Header: the first row is a header when its source and target cells are
  column names (``source``/``target``/``translation``...) or language codes
  (``en``, ``de-DE``...).  Without one, column 0 is the source and column 1
  the target; a header picks the columns by name or by ``src_lang``/``tgt_lang``
  and may name a context (``context``/``key``/``id``) and a note column.
* Key ``r<n>``: the row's record number in the file (the header is ``r1``).
  Rows without source text are not segments but are kept.  Cells outside
  the source/target columns become the context when no column is named so
  (Magento packs: ``module,Magento_Catalog``) and stay in ``meta["extra"]``.
* Placeholders (``%1``, ``{0}``, HTML) are protected.

Export writes the target column of translated rows and copies every other
byte: untranslated rows, other columns, each field's quoting, line endings,
encoding and BOM.

Records: :mod:`engine.formats.tabular_records`; the columns: :mod:`engine.formats.tabular_layout`;
a row written back: :mod:`engine.formats.tabular_rewrite`.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.errors import FormatError
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.tabular_layout import (  # noqa: F401  (parse_columns, ambiguity: asked of tabular)
    _chosen_layout, _is_lang, _layout, _Layout, ambiguity, parse_columns,
)
from engine.formats.tabular_records import _cell, _records, _Row, _sniff_delimiter
from engine.formats.tabular_rewrite import _rewrite
from engine.formats.textutil import Decoded, codes_checked, protect_like, protect_text, read_decoded, render
from engine.fsutil import atomic_write
from engine.langs import normalize_lang


@dataclass
class _Parsed:
    decoded: Decoded
    rows: list[_Row]
    layout: _Layout
    problems: list[str]


def _parse(path: Path, src_lang: str, tgt_lang: str, columns: tuple[int, int] | None = None) -> _Parsed:
    dec = read_decoded(path, "the file is empty (no rows)")
    delimiter = _sniff_delimiter(path, dec.text)
    problems: list[str] = []
    rows = _records(path, dec.text, delimiter, problems)
    layout = _chosen_layout(rows, delimiter, columns) if columns else _layout(rows, delimiter, src_lang, tgt_lang)
    return _Parsed(dec, rows, layout, problems)


@dataclass(frozen=True)
class ColumnQuestion:
    """What the translator chooses from when a table is no clear bilingual one: why (``reason``) and
    the first non-empty cell of each column (``columns``, in order)."""

    reason: str
    columns: tuple[str, ...]


def layout_question(path: str | Path) -> ColumnQuestion | None:
    """None when ``path`` reads as a clear bilingual table; else the :class:`ColumnQuestion` to ask."""
    path = Path(path)
    p = _parse(path, "", "")
    why = ambiguity(p.rows, p.layout)
    if not why:
        return None
    width = max((len(r.fields) for r in p.rows), default=0)
    return ColumnQuestion(why, tuple(next((_cell(r, i).strip() for r in p.rows if _cell(r, i).strip()), "")
                                     for i in range(width)))


def _segment_rows(p: _Parsed):
    """(row, source cell) of each row that is a segment."""
    for row in p.rows:
        if p.layout.header and row.number == 1:
            continue
        src = _cell(row, p.layout.source)
        if src.strip():
            yield row, src


# -------------------------------------------------------------------- format
class TabularFormat:
    """Reader/writer for bilingual CSV and TSV files."""

    name = "tabular"
    extensions = (".csv", ".tsv", ".tab")

    def sniff(self, path: Path, head: bytes) -> bool:
        return Path(path).suffix.lower() in self.extensions

    def __init__(self, columns: tuple[int, int] | None = None):
        #: source and target column (from 0) the translator chose (``--columns``); the format's name
        #: then records them, so that export writes the same column
        self.columns = columns
        if columns:
            self.name = f"tabular:{columns[0] + 1},{columns[1] + 1}"

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "",
             columns: tuple[int, int] | None = None) -> ParsedDocument:
        """Read ``path``; a table whose layout is not clear (see :func:`ambiguity`) is refused unless
        ``columns`` (source, target; from 0) say which columns to read."""
        if columns and columns != self.columns:
            return TabularFormat(columns).read(path, src_lang=src_lang, tgt_lang=tgt_lang)
        path = Path(path)
        p = _parse(path, src_lang, tgt_lang, self.columns)
        lay = p.layout
        if not self.columns:
            why = ambiguity(p.rows, lay)
            if why:
                raise FormatError(path, f"not a clear bilingual table ({why}): say which columns are the "
                                        "source and the translation, e.g. --columns 1,2")
        header = p.rows[0].fields if lay.header else []
        declared = [normalize_lang(header[i]) if header and i < len(header) and _is_lang(header[i]) else ""
                    for i in (lay.source, lay.target)]
        doc = ParsedDocument(
            path=str(path), format=self.name,
            src_lang=declared[0] or src_lang, tgt_lang=declared[1] or tgt_lang,
            meta={"encoding": p.decoded.encoding, "bom": bool(p.decoded.bom), "delimiter": lay.delimiter,
                  "header": header, "source_column": lay.source, "target_column": lay.target,
                  "declared_languages": declared},
            problems=p.problems,
        )
        named = {lay.source, lay.target, lay.context, lay.note}
        for row, src_text in _segment_rows(p):
            tgt_text = _cell(row, lay.target)
            with codes_checked(path, f"line {row.line}"):
                source = protect_text(src_text)
                target = protect_like(source, tgt_text) if tgt_text else None
            extra = [c for i, c in enumerate(row.fields) if i not in named]
            context = _cell(row, lay.context) if lay.context is not None else ", ".join(c for c in extra if c)
            doc.segments.append(ParsedSegment(
                key=f"r{row.number}", source=source, target=target,
                status="confirmed" if target is not None else "new",
                note=_cell(row, lay.note), context=context,
                meta={"row": row.number, "line": row.line, "extra": extra}))
        return doc

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "", src_lang: str = "") -> None:
        """Write ``original`` with ``translations`` in its target column (chosen
        as when reading: pass the same languages for a multilingual header)."""
        original = Path(original)
        p = _parse(original, src_lang, tgt_lang, self.columns)
        sources = {f"r{row.number}": (row, src) for row, src in _segment_rows(p)}
        unknown = [k for k in translations if k not in sources]
        if unknown:
            raise FormatError(original, f"{len(unknown)} translation(s) for rows the file does not have "
                                        f"(first: {unknown[0]!r})")
        out_rows = []
        for row in p.rows:
            tr = translations.get(f"r{row.number}")
            if tr is None:
                out_rows.append(row.raw)
                continue
            value = render(tr.target, protect_text(sources[f"r{row.number}"][1])) if tr.target else ""
            unchanged = value == _cell(row, p.layout.target)
            out_rows.append(row.raw if unchanged else _rewrite(row, p.layout, value))
        text = "".join(out_rows)
        try:
            data = p.decoded.encode(text)
        except UnicodeEncodeError as e:
            raise FormatError(original, f"the translation cannot be written in {p.decoded.encoding}: "
                                        f"{e.reason}") from None
        with atomic_write(out, "wb") as fh:
            fh.write(data)


FORMAT = TabularFormat()
